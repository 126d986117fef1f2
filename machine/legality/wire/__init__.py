"""Wire-level legality: the reference's validity predicates over 64-byte records.

Predicates are data (`clause.Predicate` / `clause.Clause`): each clause names
the reference rule, the fields it reads, one vectorized check, a message
builder and its provenance. `registry` maps opcodes to predicates; `bulk`
validates whole programs; machine.legality.explain is the public API.
"""
