from neurondbg.cli import main

main()
