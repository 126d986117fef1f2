"""The Debug Adapter Protocol front end (`neurondbg dap`): editors step programs and kernels.

    wire.py     Content-Length framing over a pair of byte streams
    target.py   one interface over a Machine (PROGRAM, PROGRAM session) or a Core (kernel)
    launch.py   open what a `launch` request names
    adapter.py  the requests: messages in, responses and events out (dap-types models)

It sits beside the TUI, above `sessions` and `machine`: nothing here imports Textual.
"""
