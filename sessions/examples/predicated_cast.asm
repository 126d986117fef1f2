# CAST_PREDICATED (0x99, DVE; isa-facts §5.2): dst[i] = src0[i] != 0 ? cast(src1[i]) : dst[i].
# False lanes merge: they keep the old destination (here the 0x7777 pattern).
# Lane 2 (3 + 1/128) is an exact bf16 tie: it rounds to the even 3.0.
#   neurondbg run examples/predicated_cast.asm --engine dve
#   neurondbg run examples/predicated_cast.asm          -> invalid: POOL has no predicated forms
.data sb[0:8, 0] int32 1 0 1 0 0 1 1 0
.data sb[0:8, 32] fp32 1.0 2.0 3.0078125 4.0 5.0 6.0 7.0 -0.0
.data sb[0:8, 64] uint16 0x7777 0x7777 0x7777 0x7777 0x7777 0x7777 0x7777 0x7777
    CAST_PREDICATED in0_dtype=INT32 in1_dtype=FP32 out_dtype=BF16 op=BYPASS nac=8 src0=sb[0, 0] step=[1,0,0] num=[8,1,1] src1=sb[0, 32] step=[1,0,0] num=[8,1,1] dst=sb[0, 64] step=[1,0,0] num=[8,1,1]
    HALT
