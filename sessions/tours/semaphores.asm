# The semaphores tour's kernel: five engine queues, one handshake chain and one race.
#   neurondbg tour semaphores          (or: neurondbg tui sessions/tours/semaphores.asm)
# POOL casts a tile into sb[:, 0x100] and signals sem[0] once its writes are complete.
# DVE waits for sem[0] >= 1, widens the tile to sb[:, 0x200] and signals sem[1]; ACT,
# PE and SP pass the baton on through sem[2] and sem[3] (SEQ instructions run on every
# engine). The bug: POOL then casts a second tile into the SAME buffer without waiting
# for DVE to finish reading the first -- a write-after-read race that the round-robin
# schedule happens to run safely, and that the race detector reports anyway. The fix:
# wait for sem[1] >= 1 (DVE's signal) before reusing the buffer, or double-buffer.

.engine pool
.fill sb[0:128, 0] fp32 count=32 start=1.0 step=0.25 pstep=0.5
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    MOVE R1=1 R2=2
    # the race: this second tile reuses sb[:, 0x100] with no wait for DVE's sem[1]
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0x40] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1]
    HALT

.engine dve
    MOVE R1=7
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=1 events.update_mode=SEM_INC_COMPLETE events.update_idx=1
    HALT

.engine act
    NOP wait_mode=SEM_GE_IMM wait_idx=1 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=2
    HALT

.engine pe
    NOP wait_mode=SEM_GE_IMM wait_idx=2 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=3
    HALT

.engine sp
    NOP wait_mode=SEM_GE_IMM wait_idx=3 semaphore_value=1
    HALT
