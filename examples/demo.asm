# neurondbg demo: every pane in a dozen steps (the TUI opens this by default).
#   s: step  c: continue  r: reverse-step  b: breakpoint   (see `?` in the TUI)
# 1. a counted loop on the SEQ registers (Registers pane; try `break label:loop`)
# 2. three Casts over 128 partitions x 8 lanes (Convert trace pane: ties, inf,
#    saturation; open any lane for its bit-level trace)
# 3. a tensor-tensor add and a semaphore update
# 4. a Copy that changes dtype: the machine refuses it (Legality pane:
#    s4d4_tr_same_src_dst_type). With `--execute-invalid` it faults instead: a bit
#    copy cannot turn 4-byte elements into 2-byte ones.
.data sb[0:128, 0] fp32 1.0 1.00390625 1.01171875 -2.5 0.1 300.0 3.4e38 -0.0
.fill sb[0:128, 0x40] fp32 count=8 start=0.5 step=0.25 pstep=0.125
    MOVE R1=0 R2=3
loop:
    ALU_OP op=ADD dtype=INT32 dst_dtype=INT32 dst=R1 src0=R1 src1=7
    ALU_OP op=SUBTRACT dtype=INT32 dst_dtype=INT32 dst=R2 src0=R2 src1=1
    COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R2 cmp_immediate=0 target=loop
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[8,1,1,1]
    CAST in_dtype=FP32 out_dtype=FP8_EXP4 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x140] step=[1,0,0,0] num=[8,1,1,1]
    CAST in_dtype=FP32 out_dtype=INT8 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x160] step=[1,0,0,0] num=[8,1,1,1]
    TENSOR_TENSOR_ARITH_OP in0_dtype=FP32 in1_dtype=FP32 out_dtype=FP32 op=ADD nac=128 src0=sb[0, 0] step=[1,0,0] num=[8,1,1] src1=sb[0, 0x40] step=[1,0,0] num=[8,1,1] dst=sb[0, 0x180] step=[1,0,0] num=[8,1,1]
    EVENT_SEMAPHORE events_extended.update_mode=SEM_INC_READ events_extended.update_idx=1
    COPY in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[8,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[8,1,1,1]
    HALT
