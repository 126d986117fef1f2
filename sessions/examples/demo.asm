# neurondbg demo: every pane in a few dozen steps (the TUI opens demo.toml, a session
# on this program: the DVE engine, a breakpoint on invalid instructions, and
# "execute invalid" so you can step past them).
#   s: step  c: continue  r: reverse-step  b: breakpoint   (see `?` in the TUI)
# 1. a counted loop on the SEQ registers (Registers pane; try `break label:loop`)
# 2. three Casts over 128 partitions x 8 lanes (Convert trace pane: ties, inf,
#    saturation; open any lane for its bit-level trace, `o` for the Convert Lab)
# 3. a predicated cast: lanes whose predicate is 0 keep the old destination
# 4. the DVE accumulators: RANGE_SELECT folds a max per partition, SELECT_REDUCE
#    keeps folding, DVE_READ_ACCUMULATOR writes it back (negated)
# 5. a MOVE whose dtype BF16 fails the MOVE dtype gate (Legality pane:
#    ctrl_mv_has_valid_dtype); stepping it anyway moves the raw 32-bit word
# 6. a Copy that changes dtype: s4d4_tr_same_src_dst_type fails; executing it
#    anyway faults: a bit copy cannot turn 4-byte elements into 2-byte ones.
.data sb[0:128, 0] fp32 1.0 1.00390625 1.01171875 -2.5 0.1 300.0 3.4e38 -0.0
.fill sb[0:128, 0x40] fp32 count=8 start=0.5 step=0.25 pstep=0.125
.data sb[0:128, 0x200] int32 1 0 1 0 0 1 1 0
    MOVE R1=0 R2=3
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=7
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[8,1,1,1]
    CAST in_dtype=FP32 out_dtype=FP8_EXP4 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x140] step=[1,0,0,0] num=[8,1,1,1]
    CAST in_dtype=FP32 out_dtype=INT8 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x160] step=[1,0,0,0] num=[8,1,1,1]
    CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 op=BYPASS nac=128 src0=sb[0, 0x200] step=[1,0,0] num=[8,1,1] src1=sb[0, 0x40] step=[1,0,0] num=[8,1,1] dst=sb[0, 0x100] step=[1,0,0] num=[8,1,1]
    RANGE_SELECT nac=128 in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO_ACCUMULATE reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.0 bound1=3.5 src=sb[0, 0x40] step=[1,0] num=[8,1] dst=sb[0, 0x180] step=[1,0] num=[8,1]
    SELECT_REDUCE in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 nac=128 op0=BYPASS op1=MAX imm0=-100.0 imm0_dtype=FP32 accumulator_cmd=ACCUMULATE src0=sb[0, 0x200] step=[1,0] num=[8,1] src1=sb[0, 0] step=[1,0] num=[8,1] dst=sb[0, 0x1C0] step=[1,0] num=[8,1]
    DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=128 negated=1 dst=sb[0, 0x220] step=1 num=1
    EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=1
    MOVE R3=0x3F80 dtype=BF16
    COPY in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[8,1,1,1]
    HALT
