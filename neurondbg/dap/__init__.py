"""The Debug Adapter Protocol front end (`neurondbg dap`): editors step programs and kernels.

    wire.py     Content-Length framing over a pair of byte streams
    session.py  one client: the token, `initialize` answered before the rest is imported
    target.py   what the adapter drives: one Core, of a kernel or of a PROGRAM (one queue)
    launch.py   open what a `launch` request names; loading.py: that load in a thread
    protocol.py the adapter's plumbing: messages out, dispatch in, stops, the running worker
    adapter.py  the Adapter (dap-types models): launch, session and running requests
    breakpoints.py / variables.py / edits.py / repl.py / memory.py  the other requests
    hits.py     hit conditions and logpoint messages; cells.py: memory ranges as variables

It sits beside the TUI, above `sessions` and `machine`: nothing here imports Textual.
docs/dap.md describes what an editor gets.
"""
