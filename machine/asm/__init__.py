"""Assembler and disassembler for 64-byte instruction records.

Assembly syntax
---------------
One statement per line; `#` starts a comment. Names are case-insensitive except labels.

    label:                                  # a label: the byte offset of the next record
    MNEMONIC field=value ...                # one 64-byte record (COPY, CAST, MOVE, ALU_OP, ...)
    OP_5A field=value ...                   # any opcode byte (undocumented -> RAW layout)
    .raw 0x<128 hex digits>                 # one record verbatim

Fields are set by their reference names (`in_dtype`, `src_mem_pattern.step_elem`,
`events.wait_mode`, `reserved1`, `rsvd45`, ...) or by the last part of the name when
that is unambiguous (`wait_mode`, `inst_word_len`). Unset fields are 0, except
`header.opcode` (from the mnemonic) and `header.inst_word_len` (16). Setting a field
twice on a line is an error; every field can be set, so invalid encodings can be written
on purpose.

Values: decimal (leading zeros too: no octal), `0x` hex, `0b` binary, `_` separators,
negative numbers (stored two's complement);
a float literal (`1.5`, `-2e3`, `inf`) in a 4-byte field stores its fp32 bits; enum
names for enum fields (dtype names `FP32`, `BF16`, `FP8_EXP4`, ... and aliases like
`BFLOAT16`; ALU ops `ADD`, `BYPASS`, ...; `EVT_SET`, `IMMEDIATE`, ...); register names
`R0`..`R63`, `PC_LO` (128), `PC_HI` (129) in register fields; arrays as `[1,0,0,0]`
with exactly the field's length.

Shorthands:
    src=sb[3, 0x100]            tensor operand start address: partition 3, byte 0x100
    dst=psum[0, 0x40]           PSUM operand;  src=reg[R5]: register-mode address
    step=[1,0,0,0] num=[64,1,1,1]   steps / counts of the operand named last on the line
    dst.step=[...] dst.num=[...]    ... or of a named operand
    src / dst                   = src_mem_pattern / dst_mem_pattern in S4D4_TR; other
                                  structs name their operands src, src0, src1, dst
    nac=128                     = num_active_channels where the struct spells it so
    in0_dtype=FP32 in1_dtype=BF16   nibbles of a DTYPE_PAIR (in0_in1_dtype);
    in_dtype= out_dtype=        nibbles of RANGE_SELECT's in_out_dtype
    MOVE R3=5 R4=0x10           immediate moves (num_mov, dst_registers, immediate,
    MOVE R3=R5                  move_source, dtype INT32 unless dtype= is given)
    ALU_OP op=ADD dst=R1 src0=R1 src1=1    dst_lo / src0_lo / src1_lo, or an immediate
    COMPARE_BRANCH ... target=loop         REL_IMM branch: br_immediate = label offset -
                                           this instruction's offset (bytes), debug_hint 2
    br_immediate=loop           the same relative offset, without the implied fields

Semaphores (the header events of any instruction; machine.asm.semaphores):
    wait=sem[3]>=1              wait until semaphore 3 >= 1 before issuing (>= > == <= <:
                                events.wait_mode SEM_GE/GT/EQ/LE/LT_IMM, wait_idx,
                                semaphore_value)
    signal=sem[3]++@complete    update semaphore 3 once the writes are done (@read: once the
                                sources are read): ++ SEM_INC, -- SEM_DEC, +=N SEM_ADD_IMM,
                                -=N SEM_SUB_IMM, =N SEM_WR_IMM (update_mode, update_idx)
    The timing is always written; a wait and an update on one line share semaphore_value,
    so a value both name must agree. Event (EVT_*) and register (*_REG) modes, and
    EVENT_SEMAPHORE's events_extended fields, are written by their field names.

sb[p, off] is the address p * stride + off with the generation's partition stride
(isa-facts §2.4); `.gen NAME` selects the generation (default cayman).

Data directives (the program carries its inputs; REGION is `sb[p, off]` or
`sb[p0:p128, off]` with the end partition exclusive, `psum[...]` likewise; DTYPE is a
Neuron dtype name or a format name like fp32, bf16, fp8_e4m3, int8, uint16):
    .data   REGION DTYPE v1 v2 ...                        the values, in every partition
    .fill   REGION DTYPE count=N [start=S] [step=D] [pstep=E]
                                        element i of partition k = S + i*D + k*E
    .random REGION DTYPE count=N [seed=S] [low=L] [high=H]
                                        uniform in [L, H) (floats: default [-1, 1);
                                        integers: the type's range), per partition
    .bytes  REGION 0x<hex>                                raw bytes, in every partition

Limits (machine.files; each a one-line error at its line:column): 2,097,152 lines,
2 MiB per line, 256 characters per name or number (hex byte strings of `.raw` /
`.bytes` excepted), 1 GiB of data directives in all; a NUL character is never text.

Kernels (machine.asm.sections): a file with `.engine NAME` lines (pool, dve, act, pe, sp)
holds one queue per engine. Before the first `.engine` only comments, `.gen` and data
directives; each section has its own labels; data directives anywhere are the kernel's;
records keep their line numbers in the whole file. machine.core.kernel.load_kernel reads
it (and kernel manifests); a single-program reader refuses `.engine` at its line.

`neurondbg asm SRC -o OUT.bin` writes the records to OUT.bin and the data to
OUT.bin.data.npz (see machine.asm.data); `load_any(path)` reads either form back. For a
kernel source, `-o NAME.toml` writes a manifest and NAME.<engine>.bin per section
(neurondbg.commands.asm); `disasm` of a kernel prints the `.engine` form.
`neurondbg disasm` prints text that re-assembles to identical bytes: it names every
field that differs from the defaults above and prints unknown opcodes as `.raw`.
"""

from neurondbg.machine.asm.assembler import Assembly, assemble
from neurondbg.machine.asm.data import DataInit, data_path, load_data, save_data
from neurondbg.machine.asm.disasm import disassemble, disassemble_lines, format_instruction, to_json
from neurondbg.machine.asm.errors import AsmError
from neurondbg.machine.asm.loader import load_any

__all__ = [
    "AsmError", "Assembly", "DataInit", "assemble", "data_path", "disassemble",
    "disassemble_lines", "format_instruction", "load_any", "load_data", "save_data", "to_json",
]
