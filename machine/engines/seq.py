"""SEQ control instructions; they run on every engine (ref 001 §7.2, isa-facts §4).

Each handler takes (Context, Instruction) and returns the next PC or None
(fall through). `FAST` builders return, for the common forms, a closure that
does the same work on the bare register list and journal arrays and returns
the next record index; the debugger's run loop uses them (>= 1e6 steps/s).
A closure holds no position (`op(i)` runs it as record i), so one serves every
record with the same bytes: a stream of 10**6 NOPs builds one.
A form that could fault gets no fast closure, so closures never raise.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from neurondbg.machine.dtypes import Dtype, dtype_name
from neurondbg.machine.engines.alu import (
    M32,
    SCALAR_DTYPES,
    AluFault,
    alu32,
    alu64,
    bits_f32,
    from_bits,
    s32,
    supported,
)
from neurondbg.machine.engines.context import Context, Fields
from neurondbg.machine.engines.record import Fault
from neurondbg.machine.isa.enums import AluOp as A
from neurondbg.machine.isa.enums import (
    BrCmpOp,
    BrTargetMode,
    DataSrc,
    TensorShapeMoveType,
    TestEsMode,
)
from neurondbg.machine.isa.enums import UpdateMode as U
from neurondbg.machine.isa.enums import WaitMode as W
from neurondbg.machine.isa.opcodes import Opcode as Op
from neurondbg.machine.journal import COUNT_SHIFT, REG_SHIFT
from neurondbg.machine.state import NUM_REGS, PC_HI, PC_LO, RECORD_BYTES, MachineState

if TYPE_CHECKING:
    from neurondbg.machine.isa.codec import Instruction

Handler = Callable[[Context, "Instruction"], "int | None"]


def _read(state: MachineState, spec: int, what: str) -> int:
    if spec < NUM_REGS or spec in (PC_LO, PC_HI):
        return state.read_reg(spec)
    raise Fault(f"{what}: register specifier {spec} is not readable "
                "(R0..R63, 128 PC_LO, 129 PC_HI)")


def _check_dst(spec: int, what: str) -> None:
    if not (spec < NUM_REGS or spec in (PC_LO, PC_HI)):
        raise Fault(f"{what}: register specifier {spec} is not writable (R0..R63; 128/129 ignored)")


def _dtype(code: int, what: str) -> int:
    if code not in SCALAR_DTYPES:
        raise Fault(f"{what} {dtype_name(code)} is not modelled for SEQ arithmetic "
                    "(INT32, UINT32, FP32)")
    return code


# -- MOVE (ref 001 §3, isa-facts §4.2) -------------------------------------------------
def move(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    n = f["num_mov"]
    if not 1 <= n <= 8:
        raise Fault(f"MOVE num_mov = {n}; must be 1..8")
    st = ctx.state
    if f["move_source"] == DataSrc.IMMEDIATE:
        values = [f["immediate"][k] for k in range(n)]
    else:  # all sources are read before any destination is written
        values = [_read(st, f["src_registers"][k], f"src_registers[{k}]") for k in range(n)]
    for k in range(n):
        _check_dst(f["dst_registers"][k], f"dst_registers[{k}]")
    for k in range(n):
        st.write_reg(f["dst_registers"][k], values[k])  # the move is a raw 32-bit copy


# -- ALU_OP (isa-facts §3, §4.4) -------------------------------------------------------
def _alu_parts(inst: Instruction) -> tuple[int, int, int, int, int, int | None]:
    f: Fields = inst.fields
    op = f["op"]
    if not supported(op):
        raise Fault(f"ALU_OP op {op:#x} is not an ALU_OP code")
    dtype = _dtype(f["dtype"], "ALU_OP dtype")
    dst_dtype = f["dst_dtype"] or dtype  # 0 (INVALID) reads as "same as dtype"
    _dtype(dst_dtype, "ALU_OP dst_dtype")
    imm = f["immediate"][0] if f["src1_datasrc"] == DataSrc.IMMEDIATE else None
    return op, dtype, dst_dtype, f["src0_lo"], f["dst_lo"], imm


def _alu_op64(ctx: Context, inst: Instruction) -> None:
    """INT64 / UINT64: operands are lo/hi register pairs (isa-facts §4.4), e.g. the PC."""
    f: Fields = inst.fields
    st = ctx.state
    op, dtype = f["op"], f["dtype"]
    if not supported(op):
        raise Fault(f"ALU_OP op {op:#x} is not an ALU_OP code")
    if (f["dst_dtype"] or dtype) != dtype:
        raise Fault("64-bit ALU_OP: dst_dtype must equal dtype (no 64-bit conversions modelled)")

    def pair(lo: str, hi: str) -> int:
        return _read(st, f[lo], lo) | _read(st, f[hi], hi) << 32
    a = pair("src0_lo", "src0_hi")
    if f["src1_datasrc"] == DataSrc.IMMEDIATE:
        b = f["immediate"][0] | f["immediate"][1] << 32
    else:
        b = pair("src1_lo", "src1_hi")
    for name in ("dst_lo", "dst_hi"):
        _check_dst(f[name], name)
    try:
        v = alu64(op, a, b, dtype == Dtype.INT64)
    except AluFault as e:
        raise Fault(f"ALU_OP {A(op).name}: {e}") from None
    st.write_reg(f["dst_lo"], v & M32)
    st.write_reg(f["dst_hi"], v >> 32)


def alu_op(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    if f["dtype"] in (Dtype.INT64, Dtype.UINT64):
        _alu_op64(ctx, inst)
        return
    op, dtype, dst_dtype, s0, d, imm = _alu_parts(inst)
    st = ctx.state
    a = _read(st, s0, "src0_lo")
    b = imm if imm is not None else _read(st, f["src1_lo"], "src1_lo")
    _check_dst(d, "dst_lo")
    try:
        v = alu32(op, a, b, dtype, dst_dtype)
    except AluFault as e:
        raise Fault(f"ALU_OP {A(op).name}: {e}") from None
    st.write_reg(d, v)


# -- COMPARE_BRANCH (isa-facts §4.5, MED) ------------------------------------------------
# operator's functions, not lambdas: a C call costs a fast step less than a Python frame;
# the symbol is what a superblock's generated code writes
_RELATIONS: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "EQ": (operator.eq, "=="), "NE": (operator.ne, "!="), "LT": (operator.lt, "<"),
    "GT": (operator.gt, ">"), "LE": (operator.le, "<="), "GE": (operator.ge, ">="),
}
_CMP: dict[str, Callable[[Any, Any], bool]] = {k: f for k, (f, _) in _RELATIONS.items()}


def _branch_taken(st: MachineState, f: Fields) -> bool:
    try:
        name = BrCmpOp(f["cmp_op"]).name
    except ValueError:
        raise Fault(f"COMPARE_BRANCH cmp_op {f['cmp_op']} is not a BR_CMP_OP code") from None
    if name == "ALWAYS":
        return True
    rel, _, src = name.partition("_")
    dtype = _dtype(f["dtype"], "COMPARE_BRANCH dtype")
    a = from_bits(_read(st, f["cmp_reg0"], "cmp_reg0"), dtype)
    b_bits = f["cmp_immediate"] if src == "IMM" else _read(st, f["cmp_reg1"], "cmp_reg1")
    return _CMP[rel](a, from_bits(b_bits, dtype))


def _branch_target(ctx: Context, f: Fields) -> int:
    mode = f["target_mode"]
    if mode == BrTargetMode.REL_IMM:
        return ctx.pc + int(f["br_immediate"])  # relative to the branch's own address, bytes
    if mode == BrTargetMode.ABS_IMM:
        return int(f["br_immediate"])
    if mode in (BrTargetMode.REGISTER, BrTargetMode.REL_REGISTER):
        lo = _read(ctx.state, f["target_reg_lo"], "target_reg_lo")
        hi_spec = f["target_reg_hi"]  # 0 = no high half (R0 is never meant as one)
        hi = _read(ctx.state, hi_spec, "target_reg_hi") if hi_spec else 0
        value = lo | hi << 32
        if mode == BrTargetMode.REGISTER:
            return value
        return ctx.pc + s32(lo)
    raise Fault(f"COMPARE_BRANCH target_mode {mode} is not a BR_TARGET_MODE code")


def compare_branch(ctx: Context, inst: Instruction) -> int | None:
    f: Fields = inst.fields
    if _branch_taken(ctx.state, f):
        return _branch_target(ctx, f)
    return None


# -- MOVE_SHAPE (ref 001 §5.2; semantics of the three move types inferred, LOW) -----------
def _entries(f: Fields, what: str, count: str, limit: int, why: str,
             *lists: str) -> Iterator[tuple[int, ...]]:
    """(k, lists[0][k], lists[1][k], ...) for the first f[count] entries of the struct's
    lists; a Fault naming `what` when the count is outside 1..limit."""
    n = f[count]
    if not 1 <= n <= limit:
        raise Fault(f"{what} {count} = {n}; {why}")
    # the lists hold at least `limit` entries (MOVE_SHAPE's data 8): the count takes n
    return zip(range(n), *(f[name] for name in lists), strict=False)


def move_shape(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    st = ctx.state
    mt = f["move_type"]
    for k, sr, data in _entries(f, "MOVE_SHAPE", "num_move", 4,
                                "the struct holds 1..4 shape registers",
                                "shape_registers", "data"):
        if mt == TensorShapeMoveType.IMMEDIATE:
            st.write_scalar("shape", sr, data)
        elif mt == TensorShapeMoveType.REG_TO_SHAPE:
            st.write_scalar("shape", sr, _read(st, data & 0xFF, f"data[{k}]"))
        elif mt == TensorShapeMoveType.SHAPE_TO_REG:
            _check_dst(data & 0xFF, f"data[{k}]")
            st.write_reg(data & 0xFF, st.shape[sr])
        else:
            raise Fault(f"MOVE_SHAPE move_type {mt} is not IMM 0, REG_TO_SHAPE 1, SHAPE_TO_REG 2")


# -- events and semaphores (isa-facts §1.2, §4.1, §4.6) -----------------------------------
_WAIT: dict[int, Callable[[int, int], bool]] = {
    W.SEM_EQ_IMM: lambda s, v: s == v, W.SEM_LT_IMM: lambda s, v: s < v,
    W.SEM_LE_IMM: lambda s, v: s <= v, W.SEM_GT_IMM: lambda s, v: s > v,
    W.SEM_GE_IMM: lambda s, v: s >= v,
    W.EVT_SET: lambda s, v: s != 0, W.EVT_SET_THEN_CLEAR: lambda s, v: s != 0,
    W.EVT_CLEAR: lambda s, v: s == 0, W.EVT_CLEAR_THEN_SET: lambda s, v: s == 0,
}


def wait_holds(st: MachineState, mode: int, idx: int, value: int) -> bool:
    """Whether a wait would pass now, without side effects (the NeuronCore checks it
    before an engine issues). A mode or register `wait_events` refuses counts as holding:
    the instruction then issues and faults there, naming the problem."""
    if mode in (W.NONE, W.UNORDERED):
        return True
    cond = _WAIT.get(mode & 0x7F if mode & 0x80 else mode)
    if cond is None or mode not in W._value2member_map_ or mode == W.INVALID:
        return True
    if mode & 0x80:
        reg = value & 0xFF
        if not (reg < NUM_REGS or reg in (PC_LO, PC_HI)):
            return True
        value = st.read_reg(reg)
    return cond(st.sem[idx], value)


def wait_events(st: MachineState, mode: int, idx: int, value: int, what: str) -> None:
    """Wait on a semaphore/event. A lone queue (machine.debugger) has no other engine, so
    an unmet wait is a deadlock fault; a NeuronCore (machine/core) checks `wait_holds`
    before the instruction issues, so there the wait always passes."""
    if mode in (W.NONE, W.UNORDERED):
        return
    cond = _WAIT.get(mode & 0x7F if mode & 0x80 else mode)
    if cond is None or mode not in W._value2member_map_ or mode == W.INVALID:
        raise Fault(f"{what}: wait_mode {mode:#x} is not a WAIT_MODE code")
    if mode & 0x80:  # the _REG forms compare against a register (isa-facts §1.2)
        value = _read(st, value & 0xFF, f"{what} wait register")
    if not cond(st.sem[idx], value):
        raise Fault(f"{what}: waits on sem[{idx}] = {st.sem[idx]} ({W(mode).name} {value}); "
                    "no other engine runs in this model, so the wait never ends (deadlock)")
    if mode == W.EVT_SET_THEN_CLEAR:
        st.write_scalar("sem", idx, 0)
    elif mode == W.EVT_CLEAR_THEN_SET:
        st.write_scalar("sem", idx, 1)


# UPDATE_MODE's low nibble: the new semaphore value from the old one and the operand
# (masked to 32 bits by the caller)
_UPDATES: dict[int, Callable[[int, int], int]] = {
    1: lambda s, v: 1, 2: lambda s, v: 0, 3: lambda s, v: s + 1, 4: lambda s, v: s - 1,
    5: lambda s, v: s + v, 7: lambda s, v: s - v, 9: lambda s, v: v}


def immediate_update(mode: int) -> Callable[[int, int], int] | None:
    """What an UPDATE_MODE that reads no register does to a semaphore (old value, the
    record's operand -> new value before the 32-bit mask); None for NONE, a _REG form,
    or a code `update_events` refuses."""
    if mode == U.NONE or mode & 0xE0:
        return None
    return _UPDATES.get(mode & 0x0F)


def update_events(st: MachineState, mode: int, idx: int, value: int, what: str) -> None:
    """Apply an UPDATE_MODE; _COMPLETE forms act the same here (one engine, in order)."""
    if mode == U.NONE:
        return
    base = mode & 0x0F
    if mode == U.INVALID or mode & 0x60 or base not in _UPDATES:
        raise Fault(f"{what}: update_mode {mode:#x} is not an UPDATE_MODE code")
    if mode & 0x80:
        value = _read(st, value & 0xFF, f"{what} update register")
    st.write_scalar("sem", idx, _UPDATES[base](st.sem[idx], value) & M32)


def event_semaphore(ctx: Context, inst: Instruction) -> None:
    f: Fields = inst.fields
    p = "events_extended."
    wait_events(ctx.state, f[p + "wait_mode"], f[p + "wait_idx"], f[p + "sem_wait_value"],
                "EVENT_SEMAPHORE")
    update_events(ctx.state, f[p + "update_mode"], f[p + "update_idx"],
                  f[p + "sem_update_value"], "EVENT_SEMAPHORE")


def test_event_sem(ctx: Context, inst: Instruction) -> None:
    """READ_* copies sem values into registers, UPDATE_* writes registers into sems (LOW)."""
    f: Fields = inst.fields
    st = ctx.state
    mode = f["mode"]
    for k, sid, reg in _entries(f, "TEST_EVENT_SEM", "num_evt_sem", 16, "must be 1..16",
                                "evt_sem_ids", "value_registers"):
        if mode in (TestEsMode.READ_SEM, TestEsMode.READ_EVT):
            _check_dst(reg, f"value_registers[{k}]")
            st.write_reg(reg, st.sem[sid])
        elif mode in (TestEsMode.UPDATE_SEM, TestEsMode.UPDATE_EVT):
            st.write_scalar("sem", sid, _read(st, reg, f"value_registers[{k}]"))
        else:
            raise Fault(f"TEST_EVENT_SEM mode {mode} is not modelled "
                        "(READ_SEM/EVT, UPDATE_SEM/EVT)")


def nop(ctx: Context, inst: Instruction) -> None:
    return None


def halt(ctx: Context, inst: Instruction) -> None:
    ctx.state.write_scalar("halted", None, True)


HANDLERS: dict[Op, Handler] = {
    Op.MOVE: move, Op.ALU_OP: alu_op, Op.COMPARE_BRANCH: compare_branch,
    Op.MOVE_SHAPE: move_shape, Op.EVENT_SEMAPHORE: event_semaphore,
    Op.TEST_EVENT_SEM: test_event_sem, Op.NOP: nop, Op.ENGINE_NOP: nop, Op.HALT: halt,
}


# -- fast closures -------------------------------------------------------------------------
# integer ALU ops a fast step runs inline: (operator's C function, whether the result is
# masked to 32 bits, the operator's symbol for generated code); any other op goes
# through alu32
_INT_FAST: dict[int, tuple[Callable[[int, int], int], bool, str]] = {
    A.ADD: (operator.add, True, "+"), A.SUBTRACT: (operator.sub, True, "-"),
    A.MULT: (operator.mul, True, "*"), A.ADD_INT: (operator.add, True, "+"),
    A.SUB_INT: (operator.sub, True, "-"), A.MULT_INT: (operator.mul, True, "*"),
    A.BITWISE_AND: (operator.and_, False, "&"), A.BITWISE_OR: (operator.or_, False, "|"),
    A.BITWISE_XOR: (operator.xor, False, "^"),
}
_SIGN = 0x80000000  # s32(x) < s32(y) exactly when (x ^ _SIGN) < (y ^ _SIGN), x, y 32-bit
_MAY_FAULT = {A.DIVIDE, A.MOD, A.DIVIDE_INT, A.MOD_INT, A.DIVIDE_UINT, A.MOD_UINT}
RECORD_SHIFT = RECORD_BYTES.bit_length() - 1  # record i starts at base + (i << RECORD_SHIFT)
assert 1 << RECORD_SHIFT == RECORD_BYTES
# the journal step word of record i: word0 + (i << WORD_SHIFT) (its PC in the high bits)
WORD_SHIFT = COUNT_SHIFT + RECORD_SHIFT


@dataclass(frozen=True)
class Inline:
    """A fast step as straight-line code, for a superblock (machine/engines/superblock.py):
    the same work as its closure, declared next to it from the same decoded fields.

    `code`: statements over `R` (the registers) and `J(word)` (journals one register
    write, `reg << REG_SHIFT | old`, in the closure's order); `{p}` in them is a prefix
    unique to the record (its temporaries and `env` names). `env`: objects the code
    calls by name. `exit`: the next record index as an expression (a branch, which ends
    a block), None to fall through. `word`: the step's journal word."""

    code: tuple[str, ...]
    word: int
    env: tuple[tuple[str, Any], ...] = ()
    exit: str | None = None


@dataclass(frozen=True)
class Form:
    """A fast step as straight-line code wherever its record stands: `at(i)` is its
    Inline at record i (the journal word holds the PC; a branch's exit names indices).

    `word0`: the journal word at record 0. A branch (`branch`) goes to record `target`,
    or, when `target` is None, to record i + `jump` (a relative branch); `test` is the
    condition of a conditional one (None: always taken)."""

    code: tuple[str, ...]
    word0: int
    env: tuple[tuple[str, Any], ...] = ()
    branch: bool = False
    test: str | None = None
    target: int | None = None
    jump: int = 0

    def at(self, i: int) -> Inline:
        word = self.word0 + (i << WORD_SHIFT)
        if not self.branch:
            return Inline(self.code, word, self.env)
        t = self.target if self.target is not None else i + self.jump
        exit_ = f"{t}" if self.test is None else f"{t} if {self.test} else {i + 1}"
        return Inline(self.code, word, self.env, exit_)


class FastOp(Protocol):
    """A fast closure: `op(i)` runs the record as record i and returns the next record's
    index. One serves every record with the same bytes (it holds no position: the PC is
    i's); `form` is the same step as straight-line code (every builder of FAST attaches
    one: `_with`)."""

    form: Form

    def __call__(self, i: int) -> int: ...


def _with(fn: Callable[[int], int], form: Form) -> FastOp:
    """`fn` carrying `form`: a plain function (an attribute costs its calls nothing, a
    wrapper object would cost each fast step a call)."""
    fn.__dict__["form"] = form
    return cast(FastOp, fn)  # fn now has the `form` a FastOp declares


def fits(op: FastOp, index: np.ndarray, count: int) -> np.ndarray:
    """Which of the records `index` (of `count`) `op` can run at: all but those where a
    relative branch would leave 0..count (the slow path faults there, at the branch or
    at the next fetch)."""
    f = op.form
    if not f.branch or f.target is not None:
        return np.ones(len(index), dtype=bool)
    t = index + f.jump
    return (t >= 0) & (t <= count)


def fits_at(op: FastOp, i: int, count: int) -> bool:
    """`fits` for the one record i."""
    f = op.form
    return not f.branch or f.target is not None or 0 <= i + f.jump <= count


@dataclass(frozen=True)
class Site:
    """What a fast closure runs on: the decoded record, the state's hot lists, the
    program's base address and length (records)."""

    inst: Instruction
    R: list[int]
    steps_append: Callable[[int], None]
    regs_append: Callable[[int], None]
    base: int
    count: int

    @property
    def word0(self) -> int:
        """The journal step word, at record 0, of a step with no register writes."""
        return self.base << COUNT_SHIFT


FastBuilder = Callable[[Site], "FastOp | None"]


def _plain_events(f: Fields) -> bool:
    return not f.get("events.wait_mode") and not f.get("events.update_mode")


def fast_op(state: MachineState, inst: Instruction, count: int) -> FastOp | None:
    """A closure executing `inst` without records at any record of a program of `count`
    (where `fits` says so), or None."""
    build = _FAST_BY_CODE.get(inst.opcode)
    if build is None or not _plain_events(inst.fields):
        return None
    j = state.journal
    site = Site(inst, state.R, j.steps.append, j.regs.append, state.config.base, count)
    try:
        return build(site)
    except (Fault, KeyError, ValueError, TypeError):  # a form the slow path faults on
        return None


def _fast_nop(s: Site) -> FastOp:
    steps_append, word0 = s.steps_append, s.word0

    def nop_fast(i: int) -> int:
        steps_append(word0 + (i << WORD_SHIFT))
        return i + 1
    return _with(nop_fast, Form((), word0))


def _fast_move(s: Site) -> FastOp | None:
    f: Fields = s.inst.fields
    R, steps_append, regs_append = s.R, s.steps_append, s.regs_append
    n = f["num_mov"]
    dsts = list(f["dst_registers"][:n])
    if not 1 <= n <= 8 or any(d >= NUM_REGS for d in dsts):
        return None
    word0 = s.word0 | n << 8
    if f["move_source"] == DataSrc.IMMEDIATE:
        pairs = list(zip(dsts, f["immediate"][:n], strict=True))

        def move_imm(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            for d, v in pairs:
                regs_append(d << REG_SHIFT | R[d])
                R[d] = v
            return i + 1
        code = [c for d, v in pairs for c in (f"J({d << REG_SHIFT} | R[{d}])", f"R[{d}] = {v}")]
        return _with(move_imm, Form(tuple(code), word0))
    srcs = list(f["src_registers"][:n])
    if any(r >= NUM_REGS for r in srcs):
        return None
    pairs = list(zip(dsts, srcs, strict=True))

    def move_reg(i: int) -> int:
        vals = [R[r] for r in srcs]
        steps_append(word0 + (i << WORD_SHIFT))
        for (d, _), v in zip(pairs, vals, strict=True):
            regs_append(d << REG_SHIFT | R[d])
            R[d] = v
        return i + 1
    code = [f"{{p}}v{k} = R[{r}]" for k, r in enumerate(srcs)]  # all read before any write
    code += [c for k, d in enumerate(dsts) for c in (f"J({d << REG_SHIFT} | R[{d}])",
                                                     f"R[{d}] = {{p}}v{k}")]
    return _with(move_reg, Form(tuple(code), word0))


def _fast_alu(s: Site) -> FastOp | None:
    f: Fields = s.inst.fields
    R, steps_append, regs_append = s.R, s.steps_append, s.regs_append
    aop, dtype, dst_dtype, s0, d, imm = _alu_parts(s.inst)
    s1 = f["src1_lo"]
    if aop in _MAY_FAULT or s0 >= NUM_REGS or (imm is None and s1 >= NUM_REGS) \
            or d >= NUM_REGS:
        return None
    word0 = s.word0 | 1 << 8
    inline = _INT_FAST.get(aop) if dtype != Dtype.FP32 and dst_dtype == dtype else None
    if inline is not None:
        return _alu_inline(s, inline[0], inline[1], inline[2], s0, s1, d, imm, word0)

    def fn(a: int, b: int, _op: int = aop) -> int:
        return alu32(_op, a, b, dtype, dst_dtype)
    b = f"{imm}" if imm is not None else f"R[{s1}]"
    code = (f"J({d << REG_SHIFT} | R[{d}])", f"R[{d}] = {{p}}fn(R[{s0}], {b})")
    form = Form(code, word0, (("fn", fn),))
    if imm is not None:
        def alu_imm(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            regs_append(d << REG_SHIFT | R[d])
            R[d] = fn(R[s0], imm)
            return i + 1
        return _with(alu_imm, form)

    def alu_reg(i: int) -> int:
        steps_append(word0 + (i << WORD_SHIFT))
        v = fn(R[s0], R[s1])
        regs_append(d << REG_SHIFT | R[d])
        R[d] = v
        return i + 1
    return _with(alu_reg, form)


def _alu_inline(s: Site, op: Callable[[int, int], int], masked: bool, sym: str, s0: int,
                s1: int, d: int, imm: int | None, word0: int) -> FastOp:
    """An integer ALU step with its operation inline (no Python call but the closure's)."""
    R, steps_append, regs_append = s.R, s.steps_append, s.regs_append
    dsh = d << REG_SHIFT
    value = f"R[{s0}] {sym} {imm if imm is not None else f'R[{s1}]'}"
    form = Form((f"J({dsh} | R[{d}])",
                 f"R[{d}] = ({value}) & {M32}" if masked else f"R[{d}] = {value}"), word0)
    if imm is not None:
        if op is operator.add:  # a loop's counters: the arithmetic itself inline
            def add_imm(i: int) -> int:
                steps_append(word0 + (i << WORD_SHIFT))
                regs_append(dsh | R[d])
                R[d] = (R[s0] + imm) & M32
                return i + 1
            return _with(add_imm, form)
        if op is operator.sub:
            def sub_imm(i: int) -> int:
                steps_append(word0 + (i << WORD_SHIFT))
                regs_append(dsh | R[d])
                R[d] = (R[s0] - imm) & M32
                return i + 1
            return _with(sub_imm, form)
        if masked:
            def alu_imm_m(i: int) -> int:
                steps_append(word0 + (i << WORD_SHIFT))
                regs_append(dsh | R[d])
                R[d] = op(R[s0], imm) & M32
                return i + 1
            return _with(alu_imm_m, form)

        def alu_imm(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            regs_append(dsh | R[d])
            R[d] = op(R[s0], imm)
            return i + 1
        return _with(alu_imm, form)
    if masked:
        def alu_reg_m(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            v = op(R[s0], R[s1]) & M32
            regs_append(dsh | R[d])
            R[d] = v
            return i + 1
        return _with(alu_reg_m, form)

    def alu_reg(i: int) -> int:
        steps_append(word0 + (i << WORD_SHIFT))
        v = op(R[s0], R[s1])
        regs_append(dsh | R[d])
        R[d] = v
        return i + 1
    return _with(alu_reg, form)


def _fast_branch(s: Site) -> FastOp | None:
    f: Fields = s.inst.fields
    R, steps_append, word0, base, count = s.R, s.steps_append, s.word0, s.base, s.count
    mode = f["target_mode"]
    offset = int(f["br_immediate"])
    if offset % RECORD_BYTES:
        return None  # the slow path faults on a target off a record boundary
    if mode == BrTargetMode.REL_IMM:  # to record i + jump (`fits`: where it stays inside)
        jump, to = offset // RECORD_BYTES, None
    elif mode == BrTargetMode.ABS_IMM:
        if (offset - base) % RECORD_BYTES or not base <= offset <= base + count * RECORD_BYTES:
            return None  # the slow path faults on a bad target
        jump, to = 0, (offset - base) // RECORD_BYTES
    else:
        return None
    # the target of record i: (i & keep) + add (keep -1: relative, 0: absolute), one
    # expression for both that costs a taken branch no call
    keep, add = (-1, jump) if to is None else (0, to)
    name = BrCmpOp(f["cmp_op"]).name

    def branch(test: str | None = None, env: tuple[tuple[str, Any], ...] = ()) -> Form:
        return Form((), word0, env, True, test, to, jump)
    if name == "ALWAYS":
        def jump_fast(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            return (i & keep) + add
        return _with(jump_fast, branch())
    rel, _, src = name.partition("_")
    dtype = f["dtype"]
    r0, r1 = f["cmp_reg0"], f["cmp_reg1"]
    if dtype not in SCALAR_DTYPES or r0 >= NUM_REGS or (src == "REG" and r1 >= NUM_REGS):
        return None
    cmp, sym = _RELATIONS[rel]
    conv = s32 if dtype == Dtype.INT32 else bits_f32 if dtype == Dtype.FP32 else None
    if src == "IMM":
        imm = int(f["cmp_immediate"])
        if conv is s32:  # signed: compare the sign-flipped 32-bit patterns, no s32 call
            bb = (s32(imm) & M32) ^ _SIGN

            def br_imm_s32(i: int) -> int:
                steps_append(word0 + (i << WORD_SHIFT))
                return (i & keep) + add if cmp((R[r0] & M32) ^ _SIGN, bb) else i + 1
            return _with(br_imm_s32, branch(f"((R[{r0}] & {M32}) ^ {_SIGN}) {sym} {bb}"))
        if conv is None:
            def br_imm(i: int) -> int:
                steps_append(word0 + (i << WORD_SHIFT))
                return (i & keep) + add if cmp(R[r0], imm) else i + 1
            return _with(br_imm, branch(f"R[{r0}] {sym} {imm}"))
        b = conv(imm)

        def br_imm_conv(i: int) -> int:
            steps_append(word0 + (i << WORD_SHIFT))
            return (i & keep) + add if cmp(conv(R[r0]), b) else i + 1
        return _with(br_imm_conv, branch(f"{{p}}conv(R[{r0}]) {sym} {{p}}b",
                                         (("conv", conv), ("b", b))))
    c = conv or (lambda x: x)

    def br_reg(i: int) -> int:
        steps_append(word0 + (i << WORD_SHIFT))
        return (i & keep) + add if cmp(c(R[r0]), c(R[r1])) else i + 1
    return _with(br_reg, branch(f"{{p}}c(R[{r0}]) {sym} {{p}}c(R[{r1}])", (("c", c),)))


# The SEQ fast path, by opcode: the debugger's run loop builds these closures the first
# time the PC reaches a record of one of these opcodes, once per distinct record.
FAST: dict[Op, FastBuilder] = {
    Op.NOP: _fast_nop, Op.ENGINE_NOP: _fast_nop, Op.MOVE: _fast_move, Op.ALU_OP: _fast_alu,
    Op.COMPARE_BRANCH: _fast_branch,
}
FAST_OPCODES: frozenset[Op] = frozenset(FAST)
_FAST_BY_CODE: dict[int, FastBuilder] = {int(k): v for k, v in FAST.items()}  # by opcode byte
