"""Real NeuronCore programs: NEFF files (neff-facts), read in memory, typed, written.

- machine.neff.container: the header and the gzip'd tar, with their limits;
- machine.neff.model: subgraphs, streams, DMA queues and entries, vars, tensors;
- machine.neff.reader: `open_neff(path)` -> Neff;
- machine.neff.triggers: PSEUDO_DMATRIGGER payloads and the entries they start;
- machine.neff.writer: `neff_bytes` / `write_neff` for synthetic NEFFs;
- machine.neff.roles: what each semaphore is for;
- machine.neff.checks: whole-NEFF static checks; machine.neff.verdicts: per-record
  legality adapted to what a NEFF legitimately holds.
"""
