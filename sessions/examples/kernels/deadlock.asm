# deadlock: two engines each wait for the other before they signal.
#   neurondbg run examples/kernels/deadlock.asm --json    -> stop "deadlock", exit 1
# POOL's Cast waits for sem[1] >= 1 and would raise sem[0] when it completes; DVE's
# Cast waits for sem[0] >= 1 and would raise sem[1]. A wait is checked before the
# instruction issues, so neither issues and neither signals: no engine can run and
# none has halted. The stop names, for each waiting engine, the instruction (pc 0),
# the semaphore, its value (0) and the condition, and says that an instruction left
# in a queue could still update it (the other engine's blocked Cast): a wait-for
# cycle, not a semaphore nobody updates.
# A fix: let one side signal first, e.g. drop POOL's wait (it produces from the
# input, it needs nothing from DVE).

.engine pool
.fill sb[0:128, 0] fp32 count=16 start=1.0 step=0.25 pstep=0.5
    # waits for sem[1] >= 1 (DVE's signal), then raises sem[0]
    CAST in_dtype=FP32 out_dtype=BF16 nac=128 src=sb[0, 0] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=1 events.semaphore_value=1 events.update_mode=SEM_INC_COMPLETE events.update_idx=0
    HALT

.engine dve
    # waits for sem[0] >= 1 (POOL's signal), then raises sem[1]
    CAST in_dtype=BF16 out_dtype=FP32 nac=128 src=sb[0, 0x100] step=[1,0,0,0] num=[16,1,1,1] dst=sb[0, 0x200] step=[1,0,0,0] num=[16,1,1,1] events.wait_mode=SEM_GE_IMM events.wait_idx=0 events.semaphore_value=1 events.update_mode=SEM_INC_COMPLETE events.update_idx=1
    HALT
