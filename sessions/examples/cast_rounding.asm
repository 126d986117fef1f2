# Cast fp32 -> bf16 / fp8 / int8 over 128 partitions (ref 000 §6: in -> fp32 -> out,
# round to nearest even for float targets, truncate and saturate for integer targets).
# Element k of partition p holds 1 + k/256 + 16p, so odd k are exact ties for bf16
# in partition 0, fp8 overflows to inf above 248, int8 saturates above 127.
#   neurondbg run examples/cast_rounding.asm --break tie --break inf --break saturate
.fill sb[0:128, 0] fp32 count=64 start=1.0 step=0.00390625 pstep=16
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[64,1,1,1] dst=sb[0, 0x400] step=[1,0,0,0] num=[64,1,1,1]
    CAST in_dtype=FP32 out_dtype=FP8_EXP4 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[64,1,1,1] dst=sb[0, 0x800] step=[1,0,0,0] num=[64,1,1,1]
    CAST in_dtype=FP32 out_dtype=INT8 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[64,1,1,1] dst=sb[0, 0xC00] step=[1,0,0,0] num=[64,1,1,1]
    HALT
