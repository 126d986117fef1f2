"""Real NeuronCore programs: NEFF files (neff-facts), read in memory, typed, written.

- machine.neff.container: the header and the gzip'd tar, with their limits;
- machine.neff.jsonfile: JSON members, with a bound on their nesting;
- machine.neff.model: subgraphs, streams, DMA queues and entries, vars, tensors;
- machine.neff.reader: `open_neff(path)` -> Neff;
- machine.neff.triggers: PSEUDO_DMATRIGGER payloads and the entries they start;
- machine.neff.writer: `neff_bytes` / `write_neff` for synthetic NEFFs;
- machine.neff.events: a stream's semaphore waits and updates as arrays;
- machine.neff.roles: what each semaphore is for;
- machine.neff.footprint: the SB side and the extent of a DMA descriptor;
- machine.neff.runner: a subgraph run to its end, headless (machine.neff.racecheck: its
  race check, the core's detector fed as the core feeds it);
- machine.neff.verdicts: per-record legality adapted to what a NEFF legitimately holds;
- machine.neff.checks: whole-NEFF static checks;
- machine.neff.unmodelled: records and def.json fields the references do not describe.
"""
