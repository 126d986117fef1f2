"""The bundled example programs and the demo session, shipped as package data.

Everything here is opened through `importlib.resources`, so a regular (wheel)
install has it as well as a clone: `neurondbg examples` lists these files and
`neurondbg examples --copy DIR` copies them out for editing. In a clone,
`examples/` at the top level is a link to this folder.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# What each example teaches (the listing of `neurondbg examples`); files not named here
# (binaries, data sidecars) belong to the example of the same stem.
DESCRIPTIONS: dict[str, str] = {
    "demo": "the session `neurondbg` opens: a loop, Casts, DVE accumulators, two invalid records",
    "loop": "a counted loop on SEQ registers",
    "move_dtype_gate": "a MOVE failing its dtype gate (ctrl_mv_has_valid_dtype)",
    "copy_type_mismatch": "a Copy failing s4d4_tr_same_src_dst_type",
    "cast_rounding": "a Cast over 128 partitions with ties and saturating lanes",
    "predicated_cast": "a predicated cast merging lanes (run with --engine dve)",
    "accumulators": "the DVE accumulators (run with --engine dve)",
    "nki_calls": "NKI intrinsic calls for check-nki, one legal and one illegal",
}


def folder() -> Path:
    """The folder holding the examples (a real directory in every install we support)."""
    return Path(str(resources.files(__name__)))


def path(name: str) -> Path:
    """The bundled file `name` (e.g. "demo.toml")."""
    return folder() / name


def files() -> list[Path]:
    """Every bundled example file (not this module), sorted by name."""
    return sorted(p for p in folder().iterdir()
                  if p.is_file() and not p.name.startswith(("_", ".")))


DEMO = path("demo.toml")  # a session on demo.asm
