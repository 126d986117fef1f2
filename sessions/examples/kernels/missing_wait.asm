# missing_wait: producer_consumer without DVE's wait -- a race, even when it runs "right".
#   neurondbg run examples/kernels/missing_wait.asm                 -> halts, 1 race
#   neurondbg run examples/kernels/missing_wait.asm --break race    -> stops on DVE's read
# POOL still signals sem[0] after writing the tile, but DVE never waits for it. The
# default round-robin schedule happens to run POOL's Cast first, so DVE reads the
# finished tile and the output is right -- this time. Nothing orders the two
# instructions: another schedule (--schedule random:0) runs DVE first and it reads
# zeros. The race detector does not depend on luck: it tracks
# happens-before (vector clocks over semaphore edges), so it reports POOL's write and
# DVE's read of sb[0:128, 0x100:0x120] under every schedule, and names the missing
# edge: a wait in DVE on the semaphore POOL updates.
# The fix is producer_consumer.asm: wait for sem[0] >= 1 before the read.

.engine pool
.fill sb[0:128, 0] fp32 count=16 start=1.0 step=0.25 pstep=0.5
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    HALT

.engine dve
    # no wait here: this read is not ordered after POOL's write
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1]
    HALT
