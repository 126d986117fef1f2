"""Structured fuzzing: plausible random operands for every modelled opcode.

Random bytes mostly fault at the first address; these records draw each field
from values the model can execute (small addresses, counts 1..4, real dtypes and
enum codes), so the semantics code paths run. Nothing may raise or report an
internal error, and undoing every step must restore the state exactly.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neurondbg.machine.debugger import Machine
from neurondbg.machine.dtypes import Dtype, Gen
from neurondbg.machine.engines import HANDLERS
from neurondbg.machine.isa.addr import encode_address
from neurondbg.machine.isa.codec import decode_bytes, encode
from neurondbg.machine.isa.opcodes import OPCODES, struct_name_of
from neurondbg.machine.isa.structs import STRUCTS
from neurondbg.machine.state import MachineConfig
from tests.machine.helpers import rewind, use_core

GEN = Gen.MARIANA
MODELLED = sorted(op for op in HANDLERS if GEN in OPCODES[op].gens)
BASE_DTYPES = [d for d in Dtype if d <= 0xF and d != Dtype.INVALID]
FLOATS = [np.float32(x).view(np.uint32).item() for x in (0.0, 1.0, -2.5, 3.0e38, 1e-40)]


def _value(f, rng: np.random.Generator) -> int:
    role = f.role
    if role == "addr4":
        space = "psum" if rng.random() < 0.2 else "sbuf"
        if rng.random() < 0.1:
            return 0x80000000 | int(rng.integers(0, 8))  # register mode
        return encode_address(space, int(rng.integers(0, 4)), 4 * int(rng.integers(0, 64)), GEN)
    if role == "count":
        return int(rng.integers(1, 5))
    if role == "step":
        return int(rng.integers(0, 3))
    if role == "dtype":
        return int(rng.choice(BASE_DTYPES))
    if role == "dtype_pair":
        return int(rng.choice(BASE_DTYPES)) | int(rng.choice(BASE_DTYPES)) << 4
    if role in ("reserved", "raw"):
        return 0
    if role == "branch_offset":
        return 64 * int(rng.integers(-3, 4))
    if role == "register":
        return int(rng.choice([0, 1, 2, 3, 4, 5, 128, 129]))
    if f.enum is not None:
        return int(rng.choice([int(m) for m in f.enum]))
    if role == "imm":
        return int(rng.choice([*FLOATS, 0, 1, 7, 0xFFFFFFFF]))
    return int(rng.integers(0, 4))


def _record(op: int, rng: np.random.Generator) -> bytes:
    struct = STRUCTS[struct_name_of(op)]
    fields = {}
    width = int(rng.integers(1, 9))  # every operand of a record gets this many elements
    for f in struct.fields:
        if f.name.startswith("events."):
            continue  # no semaphore waits: they would deadlock most steps
        if f.name.endswith(".num_elem"):
            v = [width] + [1] * (f.count - 1)
        else:
            v = [_value(f, rng) for _ in range(f.count)]
        lo, hi = f.bounds
        v = [min(max(x, lo), hi) if not (lo <= x <= hi) and x >= 0 else x for x in v]
        fields[f.name] = tuple(v) if f.count > 1 else v[0]
    fields["header.opcode"] = op
    fields["header.inst_word_len"] = 16
    return encode(struct, fields)


@settings(deadline=None, max_examples=6)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["pool", "dve"]))
def test_plausible_random_programs_never_raise_and_undo_exactly(seed, engine) -> None:
    rng = np.random.default_rng(seed)
    n = 48
    raw = b"".join(_record(int(rng.choice(MODELLED)), rng) for _ in range(n))
    cfg = MachineConfig(gen=GEN, sbuf_bytes=4096, psum_bytes=2048, execute_invalid=True,
                        engine=engine)
    q = Machine(decode_bytes(raw), cfg)
    q.state.sbuf[:8] = rng.integers(0, 256, size=(8, 4096), dtype=np.uint8)
    m = use_core(q)
    loaded = m.state().digest()  # the core's checkpoint 0: the state it was made with
    executed = 0
    for _ in range(1500):
        rec = m.step().record
        assert rec is None or rec.fault is None or "internal error" not in rec.fault, rec
        executed += rec is not None and rec.executed
        if rec is None or not rec.executed:
            q.state.pc = 64 * int(rng.integers(0, n))
            q.state.halted = False
    assert executed > 0
    rewind(m)
    assert m.state().digest() == loaded
