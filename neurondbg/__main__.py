from neurondbg.cli import console_main

console_main()
