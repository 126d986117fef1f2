"""The Struct pane shows a NEFF trigger's `queue` (role "ascii") as its name."""

from __future__ import annotations

from neurondbg.machine.isa.codec import decode_bytes
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.neff.triggers import trigger_record
from neurondbg.views.struct_view import field_value_text


def test_an_ascii_field_is_its_name_and_other_bytes_stay_a_list() -> None:
    queue = STRUCTS["DMA_TRIGGER"].field("queue")
    inst = decode_bytes(trigger_record("qSPSpillReload0", 7)).instruction(0)
    assert field_value_text(queue, inst.fields["queue"]) == "qSPSpillReload0"
    assert field_value_text(STRUCTS["DMA_TRIGGER"].field("id"), inst.fields["id"]) == "7"
    odd = (0x71, 0, 0x41) + (0,) * 33  # a byte after the padding: not a name
    assert field_value_text(queue, odd) == "[" + ", ".join(str(v) for v in odd) + "]"
