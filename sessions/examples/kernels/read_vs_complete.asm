# read_vs_complete: SEM_INC_READ where SEM_INC_COMPLETE is needed -- a race on the writes.
#   neurondbg run examples/kernels/read_vs_complete.asm             -> halts, 1 race
# An update's timing is part of its mode (isa-facts §1.2): a _READ update fires as
# soon as the instruction has read its sources, a _COMPLETE update only after its
# writes. Here POOL signals sem[0] with SEM_INC_READ, so DVE's wait (sem[0] >= 1) can
# be satisfied while POOL is still writing the tile: the semaphore orders POOL's
# *reads* before DVE, not its writes. The race detector publishes POOL's clock at the
# _READ point, before the writes, and reports POOL's write and DVE's read of
# sb[0:128, 0x100:0x120] with the fix: use SEM_INC_COMPLETE.
# (A _READ update is right when the reads are what the other engine must wait for:
# see double_buffer.asm, where DVE frees a tile with SEM_INC_READ.)

.engine pool
.fill sb[0:128, 0] fp32 count=16 start=1.0 step=0.25 pstep=0.5
    # the update fires after the reads, before the writes
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_READ events.update_idx=0
    HALT

.engine dve
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=1
    HALT
