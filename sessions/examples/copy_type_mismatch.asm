# Copy (0x46) and Cast (0x47) differ in one clause: s4d4_tr_same_src_dst_type
# (ref 000 §3). A Copy from FP32 to BF16 is invalid; the same record as a Cast is fine.
#   neurondbg run examples/copy_type_mismatch.asm       -> exit 1, stop: invalid at 0x40
.data sb[0:4, 0] fp32 1.0 2.5 -3.0 0.1
    CAST in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[4,1,1,1]
    COPY in_dtype=FP32 out_dtype=BF16 nac=4 src=sb[0, 0] step=[1,0,0,0] num=[4,1,1,1] dst=sb[0, 64] step=[1,0,0,0] num=[4,1,1,1]
    HALT
