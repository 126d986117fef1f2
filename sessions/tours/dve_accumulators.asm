# Tour: DVE accumulators and reduce commands.
.data sb[0:2, 0] fp32 1.0 2.0 3.0 4.0
TENSOR_SCALAR_CACHE_REDUCE in_dtype=FP32 out_dtype=FP32 nac=2 accumulator_cmd=ZERO_ACCUMULATE op0=MULT imm0=2.0 op1=ADD src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,64] step=[1,0,0] num=[4,1,1]
TENSOR_SCALAR_CACHE_REDUCE in_dtype=FP32 out_dtype=FP32 nac=2 accumulator_cmd=ACCUMULATE op0=MULT imm0=1.0 op1=ADD src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,64] step=[1,0,0] num=[4,1,1]
DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=2 negated=0 dst=sb[0,128] step=1 num=1
TENSOR_SCALAR_CACHE_REDUCE in_dtype=FP32 out_dtype=FP32 nac=2 accumulator_cmd=LOAD_ACCUMULATE op0=BYPASS op1=MAX imm1=3.5 src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,64] step=[1,0,0] num=[4,1,1]
TENSOR_SCALAR_CACHE_CUMULATIVE in_dtype=FP32 out_dtype=FP32 nac=2 accumulator_cmd=ZERO_ACCUMULATE op0=BYPASS op1=ADD src=sb[0,0] step=[1,0,0] num=[4,1,1] dst=sb[0,160] step=[1,0,0] num=[4,1,1]
RANGE_SELECT nac=2 in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO_ACCUMULATE reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.5 bound1=3.5 src=sb[0,0] step=[1,0] num=[4,1] dst=sb[0,192] step=[1,0] num=[4,1]
DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=2 negated=1 dst=sb[0,132] step=1 num=1
RANGE_SELECT nac=2 in_dtype=FP32 out_dtype=FP32 reduce_cmd=ZERO reduce_op=MAX fill_val=0xff7fffff comp_op0=IS_GE comp_op1=IS_LT bound0=1.5 bound1=3.5 src=sb[0,0] step=[1,0] num=[4,1] dst=sb[0,192] step=[1,0] num=[4,1]
HALT
