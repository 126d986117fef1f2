# double_buffer: a race-free pipeline through two tiles with two counting semaphores.
#   neurondbg run examples/kernels/double_buffer.asm                 -> halts, no race
#   neurondbg run examples/kernels/double_buffer.asm --schedule random:1 --json
# POOL produces four bf16 tiles from four fp32 inputs, alternating between tile A
# (0x200) and tile B (0x220); DVE consumes each one into its own fp32 output
# (0x300, 0x340, 0x380, 0x3C0). Two semaphores count the hand-offs:
#   sem[0] "full":  tiles POOL has finished (SEM_INC_COMPLETE: after its writes)
#   sem[1] "free":  tiles DVE has finished reading (SEM_INC_READ: after its reads --
#                   what POOL must wait for before it overwrites the tile; DVE's own
#                   writes go elsewhere, so _READ is exactly right here)
# DVE's k-th Cast waits for full >= k; POOL's third and fourth Casts reuse a tile
# and wait for free >= 1 and free >= 2. Every cross-engine pair of accesses to a tile
# is ordered through a chain of these edges, so no schedule can change the outputs
# and the race detector reports none. Drop a wait to see a race; swap a _COMPLETE
# for a _READ to see another (read_vs_complete.asm).

.engine pool
# four inputs of 16 fp32 per partition at 0x00, 0x40, 0x80, 0xC0: 1 + k/4 + p/2
.fill sb[0:128, 0] fp32 count=64 start=1.0 step=0.25 pstep=0.5
    # tile 1 -> A, tile 2 -> B: both buffers start free
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0x00] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0x40] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x220] step=[1,0,0,0] num=[16,1,1,1] events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    # tile 3 -> A once DVE has read tile 1 (free >= 1)
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0x80] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=1 events.semaphore_value=1 events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    # tile 4 -> B once DVE has read tile 2 (free >= 2)
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0xC0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x220] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=1 events.semaphore_value=2 events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    HALT

.engine dve
    # consume tile k once full >= k; free the tile as soon as it has been read
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x300] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=1 events.update_mode=SEM_INC_READ events.update_idx=1
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x220] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x340] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=2 events.update_mode=SEM_INC_READ events.update_idx=1
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x380] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=3 events.update_mode=SEM_INC_READ events.update_idx=1
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x220] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x3C0] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=4 events.update_mode=SEM_INC_READ events.update_idx=1
    HALT
