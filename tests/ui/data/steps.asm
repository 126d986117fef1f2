# UI test program: registers, a conversion with ties and saturation, an invalid Copy
.data sb[0:p128, 0] fp32 1.00390625 1.01171875 3.4e38 -2.5 0.1 7 8 9
start:
MOVE R3=5 R4=0x10
CAST src=sb[0, 0] dst=sb[0, 0x100] in_dtype=FP32 out_dtype=BF16 nac=128 src.step=[1,0,0,0] src.num=[8,1,1,1] dst.step=[1,0,0,0] dst.num=[8,1,1,1]
loop:
MOVE R5=7
COPY src=sb[0, 0] dst=sb[0, 0x200] in_dtype=FP32 out_dtype=BF16 nac=128
HALT
