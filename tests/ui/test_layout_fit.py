"""The 160x50 layout fits its content: compact listing lines, the struct field
lines and header, registers, and legality messages wrapped (never cut)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from textual.widgets import Static

from neurondbg.machine.asm import assemble
from neurondbg.machine.isa import listing
from neurondbg.panes import PANES
from neurondbg.views.legality import LegalityView, wrap_lines
from neurondbg.views.program import ProgramView
from neurondbg.views.registers import RegistersView
from neurondbg.views.struct_view import FieldTable
from tests.ui.helpers import started

STEPS = Path(__file__).parent / "data" / "steps.asm"

# (full disassembly, offset, compact listing form)
COMPACT = [
    ("MOVE num_mov=2 dtype=INT32 move_source=IMMEDIATE dst_registers=[R1,R2,R0,R0,R0,R0,R0,R0] "
     "immediate=[0,3,0,0,0,0,0,0]", 0, "MOVE INT32 R1=0 R2=3"),
    ("ALU_OP op=SUBTRACT dtype=INT32 src1_datasrc=IMMEDIATE dst_dtype=INT32 src0_lo=R2 "
     "dst_lo=R2 immediate=[1,0]", 0x80, "ALU_OP INT32 SUBTRACT src0=R2 dst=R2 imm=1"),
    ("COMPARE_BRANCH debug_hint=2 cmp_op=GT_IMM dtype=INT32 target_mode=REL_IMM cmp_reg0=R2 "
     "br_immediate=-128", 0xC0, "COMPARE_BRANCH INT32 GT_IMM reg=R2 →loop"),
    ("COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 target_mode=REL_IMM cmp_reg0=R2 "
     "br_immediate=64", 0xC0, "COMPARE_BRANCH INT32 GT_IMM reg=R2 →0x100"),
    ("CAST src=sb[0, 0x0] step=[1,0,0,0] num=[8,1,1,1] in_dtype=FP32 out_dtype=FP8_EXP4 "
     "num_active_channels=128 dst=sb[0, 0x140] step=[1,0,0,0] num=[8,1,1,1]", 0x140,
     "CAST FP32→FP8_EXP4 sb[0,0x0]×8 → sb[0,0x140]×8"),
    ("CAST src=sb[0, 0x0] step=[2,0,0,0] num=[8,4,1,1] in_dtype=BF16 out_dtype=BF16 "
     "num_active_channels=4 dst=sb[0, 0x40] step=[1,0,0,0] num=[32,1,1,1]", 0,
     "CAST BF16 sb[0,0x0]×8x4/2,0 → sb[0,0x40]×32 nac=4"),
    ("CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 num_active_channels=8 "
     "src0=sb[0, 0x0] step=[1,0,0] num=[8,1,1] src1=sb[0, 0x20] step=[1,0,0] num=[8,1,1] "
     "dst=sb[0, 0x40] step=[1,0,0] num=[8,1,1]", 0,
     "CAST_PREDICATED INT32,FP32→BF16 sb[0,0x0]×8 sb[0,0x20]×8 → sb[0,0x40]×8 nac=8"),
    ("EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=1",
     0, "EVENT_SEMAPHORE update_mode=SEM_INC_READ update_idx=1"),
    ("HALT", 0x280, "HALT"),
]


def test_compact_listing_forms() -> None:
    """The Program pane's listing form (machine.isa.listing) of each full disassembly."""
    for full, offset, short in COMPACT:
        inst = dataclasses.replace(assemble(full).program().instruction(0), offset=offset)
        assert listing(inst, labels={0x40: "loop"}) == short, full


def test_wrap_lines_never_drops_text_and_indents_continuations() -> None:
    from rich.console import Console
    from rich.text import Text

    words = " ".join(f"word{i}" for i in range(40))
    lines = wrap_lines([Text(" ✓ clause  " + words), Text("short")], 40, Console())
    assert all(t.cell_len <= 40 for t in lines)
    assert lines[-1].plain == "short"
    assert all(t.plain.startswith("     ") for t in lines[1:-1])
    assert " ".join(" ".join(t.plain.split()) for t in lines[:-1]) == "✓ clause " + words


async def test_every_pane_fits_its_usual_content_at_160x50() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s", "s")  # at the invalid COPY: a failing clause to explain
        await pilot.pause()
        screen = app.screen
        regions = [screen.query_one(f"#pane-{p}").region for p in PANES]
        assert all(r.width >= 30 and r.height >= 5 for r in regions)
        for i, a in enumerate(regions):  # no two panes overlap
            assert not any(a.overlaps(b) for b in regions[i + 1:])
        prog = screen.query_one(ProgramView)
        assert prog.content_width() <= prog.size.width  # the compact listing is not cut
        assert prog.line_text(3).plain.endswith("COPY FP32→BF16 → sb[0,0x200]")
        regs = screen.query_one(RegistersView)
        assert max(regs.line_text(i).cell_len for i in range(regs.line_count())) <= \
            regs.size.width
        table = screen.query_one(FieldTable)
        assert table.content_width() <= table.size.width
        head = screen.query_one("#struct-head", Static)
        assert len(str(head.render())) <= head.size.width
        legality = screen.query_one(LegalityView)
        assert all(t.cell_len <= legality.size.width for t in legality.lines)
        shown = " ".join(" ".join(t.plain for t in legality.lines).split())
        for clause in app.session.snapshot().verdict.clauses:  # every message, in full
            assert " ".join(clause.message.split()) in shown, clause.name
            if clause.fix:
                assert " ".join(clause.fix.split()) in shown


async def test_full_text_toggle_and_rewrap_when_maximised() -> None:
    async with started(STEPS) as (app, pilot):
        await pilot.press("s", "s", "s")
        await pilot.pause()
        prog = app.screen.query_one(ProgramView)
        prog.focus()
        await pilot.press("f")
        await pilot.pause()
        assert prog.full and "num_active_channels=128" in prog.line_text(3).plain
        await pilot.press("f")
        assert not prog.full and prog.line_text(3).plain.endswith("COPY FP32→BF16 → sb[0,0x200]")
        legality = app.screen.query_one(LegalityView)
        narrow = len(legality.lines)
        await app.run_command_async("pane legality")
        await pilot.pause()
        assert legality.size.width > 150 and len(legality.lines) < narrow
        assert re.search("INVALID", legality.lines[0].plain)
