"""Exact deduplication of 64-byte records, without sorting.

Real programs repeat instructions heavily (loops, unrolled bodies), so bulk
validation judges each distinct record once and maps the verdicts back.
Rows are hashed (a 64-bit multiply-add of their eight words), each hash bucket
elects one representative (the last row written to it wins), and every row is
then compared word for word with its bucket's representative: a row that
matches is a duplicate of it; a row that does not (a bucket collision) goes to
another round on other hash bits, and what remains after the rounds is kept
as its own distinct record. The result is exact: equal verdicts are only ever
shared by byte-identical records.
"""

from __future__ import annotations

import numpy as np

WORDS = 8  # a 64-byte record as uint64 words
STEP = 1 << 14  # rows per pass of the chunked loops: their temporaries stay in cache
# odd 64-bit multipliers (splitmix / murmur finaliser constants)
_MULT = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                  0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
                  0x94D049BB133111EB, 0xBF58476D1CE4E5B9], dtype=np.uint64)
_ALL_EQUAL = np.frombuffer(b"\x01" * WORDS, dtype=np.uint64)[0]  # 8 True bytes as one word
ROUNDS = 3  # bucket rounds on different hash bits before collisions are kept as they are


def row_hash(words: np.ndarray) -> np.ndarray:
    """uint64 per row of an (N, 8) uint64 array: sum of word * odd constant, mod 2**64."""
    h = words @ _MULT
    return h ^ (h >> np.uint64(29))  # fold high bits down: the rounds take several slices


def _block(words: np.ndarray, rows: np.ndarray | None, s: int, e: int):
    """(row ids, their words) of block s:e of `rows` (None: of every row)."""
    if rows is None:
        return np.arange(s, min(e, len(words)), dtype=np.intp), words[s:e]
    ids = rows[s:e]
    return ids, words[ids]


def _round(words: np.ndarray, rows: np.ndarray | None, r: int, kept: int, limit: int):
    """One bucket round over `rows`: (representatives, keep index per row or -1) or None.

    Works block by block so every temporary stays small (and in cache): pass A
    hashes and lets each bucket elect a representative, pass B compares every row
    with its bucket's representative, word for word.
    """
    m = len(words) if rows is None else len(rows)
    bits = min(20, max(4, (2 * m - 1).bit_length()))
    shift, mask = np.uint64(64 - bits * (r + 1)), np.uint64((1 << bits) - 1)
    table = np.empty(1 << bits, dtype=np.intp)
    used = np.zeros(1 << bits, dtype=bool)
    bucket = np.empty(m, dtype=np.intp)
    for s in range(0, m, STEP):
        ids, blk = _block(words, rows, s, s + STEP)
        b = ((row_hash(blk) >> shift) & mask).astype(np.intp)
        bucket[s:s + STEP] = b
        table[b] = ids  # any one writer wins: it is the bucket's representative
        used[b] = True
    full = np.flatnonzero(used)
    if kept + len(full) > limit:
        return None
    reps = table[full]
    table[full] = np.arange(len(full), dtype=np.intp)  # bucket -> representative number
    rep_words = words[reps]  # small when rows repeat: the gathers below hit the cache
    eq = np.empty((min(m, STEP), WORDS), dtype=bool)
    slot = np.empty(m, dtype=np.intp)
    for s in range(0, m, STEP):
        _ids, blk = _block(words, rows, s, s + STEP)
        k = table[bucket[s:s + STEP]]
        e = np.equal(blk, np.take(rep_words, k, axis=0), out=eq[:len(k)])
        # the 8 booleans of a row read as one word: all equal <=> 0x0101..01
        same = e.view(np.uint64)[:, 0] == _ALL_EQUAL
        slot[s:s + STEP] = np.where(same, k + kept, -1)
    return reps, slot


def dedup(words: np.ndarray, max_fraction: float = 0.5) -> tuple[np.ndarray, np.ndarray] | None:
    """(keep, inverse): row keep[inverse[i]] is byte-identical to row i (or is row i).

    `keep` holds each distinct row once, except rows that collided in every
    round, which are kept as they are (correct, merely not merged).
    `words` is (N, 8) uint64. None when the rows are mostly distinct (more than
    `max_fraction` of N would be kept): deduplication would not pay.
    """
    n = len(words)
    if n == 0:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    limit = max(1, int(n * max_fraction))
    keep: list[np.ndarray] = []
    kept = 0
    inverse = None
    rows: np.ndarray | None = None  # None: every row (round 1 needs no index array)
    for r in range(ROUNDS):
        found = _round(words, rows, r, kept, limit)
        if found is None:
            return None
        reps, slot = found
        keep.append(reps)
        kept += len(reps)
        if rows is None:
            inverse = slot
        else:
            inverse[rows] = slot
        missed = np.flatnonzero(slot < 0)
        if len(missed) == 0:
            return np.concatenate(keep), inverse
        rows = missed if rows is None else rows[missed]
    # collided in every round: each is kept as it is
    if kept + len(rows) > limit:
        return None
    inverse[rows] = np.arange(kept, kept + len(rows), dtype=np.intp)
    keep.append(rows)
    return np.concatenate(keep), inverse
