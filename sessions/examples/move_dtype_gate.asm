# MOVE's dtype gate (ref 001 §3): dtype must be INT32, UINT32 or FP32, although
# the move itself is a raw 32-bit copy. The second MOVE says BF16: the machine
# stops before it with reason "invalid" (clause ctrl_mv_has_valid_dtype).
#   neurondbg run examples/move_dtype_gate.asm          -> exit 1, stop: invalid
#   neurondbg run examples/move_dtype_gate.asm --execute-invalid   -> runs it anyway
    MOVE R1=0x3F800000 dtype=FP32   # 1.0f: legal
    MOVE R2=0x3F80 dtype=BF16       # the gate rejects BF16
    HALT
