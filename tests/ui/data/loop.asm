# UI test program: an endless counted loop (for continue / interrupt)
top:
ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=1
COMPARE_BRANCH dtype=INT32 cmp_op=GT_IMM cmp_reg0=R1 cmp_immediate=0 target=top
HALT
