# DVE accumulators (isa-facts §6; ref 004): one fp32 per partition, driven by
# reduce_cmd. RANGE_SELECT keeps x where 1.0 <= x < 3.5 (else -FLT_MAX) and resets
# then folds MAX (ZERO_ACCUMULATE); SELECT_REDUCE continues the fold (ACCUMULATE);
# DVE_READ_ACCUMULATOR writes the accumulator (negated) back to SBUF.
#   neurondbg run examples/accumulators.asm --engine dve --break watch:sb[0,0x80:0x84]
.data sb[0:4, 0] fp32 1.0 2.0 3.0 4.0 0.5 3.25 -1.0 8.0
.data sb[0:4, 0x40] int32 0 0 0 0 0 1 0 1
    RANGE_SELECT nac=4 in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO_ACCUMULATE reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.0 bound1=3.5 src=sb[0, 0] step=[1,0] num=[8,1] dst=sb[0, 0x100] step=[1,0] num=[8,1]
    SELECT_REDUCE in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 nac=4 op0=BYPASS op1=MAX imm0=-100.0 imm0_dtype=FP32 accumulator_cmd=ACCUMULATE src0=sb[0, 0x40] step=[1,0] num=[8,1] src1=sb[0, 0] step=[1,0] num=[8,1] dst=sb[0, 0x140] step=[1,0] num=[8,1]
    DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=4 negated=1 dst=sb[0, 0x80] step=1 num=1
    HALT
