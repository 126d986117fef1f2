# two engines, listed DVE first: the kernel orders its queues pool, dve
.gen cayman
.data sb[0:4, 0] fp32 1.0 2.0

.engine dve
    NOP
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=3 target=loop
    HALT

.engine pool
.data sb[0:4, 0x40] int32 7
loop:
    MOVE R1=0
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=3 target=loop
    HALT
