# Tour: why a Copy fails where a Cast passes.
.data sb[0:2, 0] fp32 1.0 1.00390625 -2.5 65504
COPY in_dtype=FP32 out_dtype=FP32 nac=2 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[4,1,1,1]
CAST in_dtype=FP32 out_dtype=BF16 nac=2 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 128] step=[1,0,0,0] num=[4,1,1,1]
CAST in_dtype=FP32 out_dtype=INT32 nac=2 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 192] step=[1,0,0,0] num=[4,1,1,1]
COPY in_dtype=FP32 out_dtype=INT32 nac=2 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 256] step=[1,0,0,0] num=[4,1,1,1]
HALT
