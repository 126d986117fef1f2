"""The NeuronCore: several engine queues sharing SBUF, PSUM and semaphores (DESIGN.md
"NeuronCore: several engine queues")."""
