# Tour: how a Cast rounds.
.data sb[0, 0] fp32 1.0 1.00390625 1.01171875 1.0039215087890625 -2.5 3.4e38
.data sb[0, 64] fp32 300 -1000 2.9 -2.9 nan
.data sb[0, 128] fp32 300 0.0009765625 -448 0.1
.data sb[0, 192] int32 16777216 16777217 16777219 2147483647
CAST in_dtype=FP32 out_dtype=BF16 nac=1 src=sb[0, 0] step=[1,0,0,0] num=[6,1,1,1] dst=sb[0, 256] step=[1,0,0,0] num=[6,1,1,1]
CAST in_dtype=FP32 out_dtype=INT8 nac=1 src=sb[0, 64] step=[1,0,0,0] num=[5,1,1,1] dst=sb[0, 320] step=[1,0,0,0] num=[5,1,1,1]
CAST in_dtype=FP32 out_dtype=FP8_EXP4 nac=1 src=sb[0, 128] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 384] step=[1,0,0,0] num=[4,1,1,1]
CAST in_dtype=INT32 out_dtype=UINT32 nac=1 src=sb[0, 192] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 448] step=[1,0,0,0] num=[4,1,1,1]
HALT
