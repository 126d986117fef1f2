loop:
    MOVE R1=0
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 cmp_immediate=3 target=loop
    HALT
