# Tour: the MOVE dtype gate and PC reads.
MOVE R1=7 R2=-1
MOVE R3=1.5 dtype=FP32
MOVE R4=R3 dtype=UINT32
MOVE R5=PC_LO R6=PC_HI
MOVE PC_LO=R1
MOVE R7=3 dtype=BF16
HALT
