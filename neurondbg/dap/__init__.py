"""The Debug Adapter Protocol front end (`neurondbg dap`): editors step programs and kernels.

    wire.py     Content-Length framing over a pair of byte streams
    target.py   one interface over a Machine (PROGRAM, PROGRAM session) or a Core (kernel)
    launch.py   open what a `launch` request names
    protocol.py the adapter's plumbing: messages out, dispatch in, the running worker
    adapter.py  the Adapter (dap-types models): launch, session and running requests
    breakpoints.py / variables.py / memory.py  the other requests, by job

It sits beside the TUI, above `sessions` and `machine`: nothing here imports Textual.
"""
