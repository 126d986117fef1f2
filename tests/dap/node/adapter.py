"""`neurondbg dap` on stdio, for DebugClient, which starts an adapter as RUNTIME SCRIPT
(one argument: this file) rather than a command line."""

import runpy

runpy.run_module("neurondbg.commands.dap", run_name="__main__")
