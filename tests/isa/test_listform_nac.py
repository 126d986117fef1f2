"""The listing's active-channel count: shown (at the end) only when it is partial, for
every struct, whichever name it has (`num_active_channels`, or `nac` as RANGE_SELECT,
SELECT_REDUCE and DVE_READ_ACCUMULATOR spell it)."""

from __future__ import annotations

import pytest

from neurondbg.machine.asm import assemble
from neurondbg.machine.dtypes import Gen
from neurondbg.machine.isa import listing_lines

RANGE_SELECT = ("RANGE_SELECT nac={n} in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO_ACCUMULATE "
                "reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.0 "
                "bound1=3.5 src=sb[0, 0x40] step=[1,0] num=[8,1] dst=sb[0, 0x180] step=[1,0] "
                "num=[8,1]")
COPY = ("COPY in_dtype=FP32 out_dtype=FP32 nac={n} src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] "
        "dst=sb[0, 0x100] step=[1,0,0,0] num=[4,1,1,1]")


@pytest.mark.parametrize("line", [RANGE_SELECT, COPY])
def test_all_channels_are_not_shown_and_a_partial_count_ends_the_line(line: str) -> None:
    full, part = (listing_lines(assemble(line.format(n=n), "t.asm").program(), Gen.CAYMAN)[0]
                  for n in (128, 4))
    assert "nac=" not in full
    assert part.endswith(" nac=4") and part.count("nac=") == 1
