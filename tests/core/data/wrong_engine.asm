# COPY_PREDICATED is DVE's: on POOL it fails engine_has_opcode(pool)
.engine pool
    COPY_PREDICATED nac=4 in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 src0=sb[0, 0] step=[1,0,0] num=[4,1,1] src1=sb[0, 0x40] step=[1,0,0] num=[4,1,1] dst=sb[0, 0x80] step=[1,0,0] num=[4,1,1]
    HALT
.engine dve
    COPY_PREDICATED nac=4 in0_dtype=INT32 in1_dtype=FP32 out_dtype=FP32 src0=sb[0, 0] step=[1,0,0] num=[4,1,1] src1=sb[0, 0x40] step=[1,0,0] num=[4,1,1] dst=sb[0, 0x80] step=[1,0,0] num=[4,1,1]
    HALT
