# producer_consumer: POOL makes a tile, DVE uses it; one semaphore orders them (race-free).
#   neurondbg run examples/kernels/producer_consumer.asm            -> both engines halt
#   neurondbg run examples/kernels/producer_consumer.asm --schedule random:7 --json
# POOL casts 16 fp32 values per partition to a bf16 tile at 0x100 and, once its writes
# are done (SEM_INC_COMPLETE: the update fires after the writes), raises sem[0] to 1.
# DVE's first instruction waits for sem[0] >= 1 (SEM_GE_IMM, checked before it issues)
# and only then reads the tile, widening it back to fp32 at 0x200. Under any schedule
# DVE reads the finished tile, and the race detector agrees: the semaphore edge orders
# POOL's writes before DVE's reads (happens-before), so no race is reported.
#   `break wait` stops when DVE blocks on sem[0]; `print sem[0]` shows the handshake.

.engine pool
# the input: element k of partition p holds 1 + k/4 + p/2
.fill sb[0:128, 0] fp32 count=16 start=1.0 step=0.25 pstep=0.5
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    HALT

.engine dve
    # waits for sem[0] >= 1: the tile is complete
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=1
    HALT
