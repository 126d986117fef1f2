"""The bundled example programs and the demo session, shipped as package data.

Everything here is opened through `importlib.resources`, so a regular (wheel)
install has it as well as a clone: `neurondbg examples` lists these files and
`neurondbg examples --copy DIR` copies them out for editing, with the example NEFF,
which is written at copy time rather than shipped. In a clone, `examples/` at the
top level is a link to this folder.
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


# The example kernels (machine.core: one `.engine` section per engine queue) in kernels/,
# each teaching one thing about semaphores between engines (`neurondbg run` them).
KERNEL_DESCRIPTIONS: dict[str, str] = {
    "producer_consumer": "POOL writes a tile, DVE waits on a semaphore and reads it: race-free",
    "missing_wait": "the same without DVE's wait: a race, found although rr runs it safely",
    "read_vs_complete": "SEM_INC_READ where SEM_INC_COMPLETE is needed: a race on the writes",
    "deadlock": "two engines each waiting for the other before signalling",
    "double_buffer": "two tiles, two counting semaphores: a race-free pipeline",
}


# The example NEFF (neurondbg validate/disasm/run/tui it): not a bundled file, since no
# NEFF is ever shipped, but written by `--copy` into neff/ from what neurondbg's own NEFF
# writer makes in memory (machine.neff.example), with its input tensors.
NEFF_DESCRIPTIONS: dict[str, str] = {
    "vector_add": "SP loads a and b over qSPIO0, DVE adds them, Pool stores out over qPoolIO0",
}
NEFF_FOLDER = "neff"
# What the listing names without building them (importing the builder costs a quarter
# second): tests hold it to neff_files().
NEFF_LISTED = ("vector_add.neff", "a.npy", "b.npy")


def neff_files() -> dict[str, bytes]:
    """The example NEFF's files by path relative to the copy's folder (neff/vector_add.neff,
    neff/a.npy, neff/b.npy): made in memory, the same bytes every call."""
    from neurondbg.machine.neff.example import files

    return {f"{NEFF_FOLDER}/{name}": data for name, data in files().items()}


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


def kernels() -> list[Path]:
    """Every bundled example kernel (kernels/*.asm), sorted by name."""
    return sorted((folder() / "kernels").glob("*.asm"))


def kernel(name: str) -> Path:
    """The bundled example kernel `name` (e.g. "deadlock")."""
    return folder() / "kernels" / f"{name}.asm"


DEMO = path("demo.toml")  # a session on demo.asm
