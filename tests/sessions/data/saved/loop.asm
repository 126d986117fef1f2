# A counted loop: ALU_OP + COMPARE_BRANCH (isa-facts §4.4, §4.5).
# There is no LOOP opcode: compilers lower loops to ALU_OP + COMPARE_BRANCH.
#   neurondbg run examples/loop.asm --json        -> halts with R1 = 30, R2 = 0
#   neurondbg run examples/loop.asm --break label:loop --break 'if:R2 == 2'
    MOVE R1=0 R2=10                 # R1: sum, R2: trip count (immediate moves)
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=3
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    # REL_IMM target: the branch's own address + br_immediate bytes (here -128)
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    HALT
