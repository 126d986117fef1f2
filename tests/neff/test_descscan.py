"""The fast engine-JSON scan (machine.neff.descscan) reads every descriptor as the
per-descriptor parse does, and declines whatever it cannot read the same way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neurondbg.machine.neff.container import NeffError
from neurondbg.machine.neff.descscan import scan_engine_json
from neurondbg.machine.neff.jsonfile import MAX_JSON_DEPTH, load_json
from neurondbg.machine.neff.model import DmaEntry, DmaQueue, Engine
from neurondbg.machine.neff.reader import _descriptor_fast, _descriptor_hook, _Doc, _entries

QUEUES = {"qSPIO0": DmaQueue("qSPIO0", Engine.SP, tuple(range(8, 24)))}

_names = st.sampled_from(["X", "SB", "W", "out_0", "float32"])
_shape = st.integers(1, 3).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1 << 20), min_size=n, max_size=n),
    st.lists(st.integers(-(1 << 20), 1 << 20), min_size=n, max_size=n)))


@st.composite
def _descriptor(draw: st.DrawFn) -> dict[str, Any]:
    (ss, st_), (ds, dt) = draw(_shape), draw(_shape)
    d: dict[str, Any] = {"from": draw(_names), "from_dtype": draw(_names),
                         "from_off": draw(st.integers(0, 1 << 40)), "from_sizes": ss,
                         "from_steps": st_, "to": draw(_names), "to_dtype": draw(_names),
                         "to_off": draw(st.integers(0, 1 << 40)), "to_sizes": ds,
                         "to_steps": dt}
    if draw(st.booleans()):
        d["op"] = draw(st.sampled_from(["copy", "cast"]))
    if draw(st.booleans()):
        d["num_tiling_dimensions"] = draw(st.integers(0, 2))
    if draw(st.integers(0, 9)) == 0:  # a transpose: spelled otherwise, read per descriptor
        d.update(transpose_op="WZXY", transpose_shape=[2, 3, 4, 5], transpose_element_size=4)
    return d


# an odd value the per-descriptor parse words (or, for some, accepts)
_ODD: list[tuple[str, Any]] = [
    ("from_off", -1), ("from_off", 1.5), ("to_sizes", [-1]), ("to_steps", [1, 2, 3, 4]),
    ("from", 7), ("to_dtype", None), ("from", "a\\\"b"), ("from_sizes", [True]),
    ("op", 3), ("num_tiling_dimensions", -2), ("from_steps", [1.0]), ("to", "é"),
    ("from_off", 10 ** 30)]


def _entry(i: int, desc: list[Any]) -> dict[str, Any]:
    return {"#comment": f"I-{i}", "desc": desc, "id": i, "queue": "qSPIO0",
            "semaphore": 8 + i % 16}


def _read(data: bytes, fast: bool) -> tuple[DmaEntry, ...] | str:
    """The entries as the reader makes them, or its error line."""
    try:
        doc = (scan_engine_json(data, MAX_JSON_DEPTH, _descriptor_fast) if fast else load_json(
            data, "SP.json", object_hook=_descriptor_hook))
        if doc is None:
            return "declined"
        return _entries(_Doc(doc, "SP.json"), QUEUES)
    except (NeffError, ValueError) as e:
        return str(e)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_descriptor(), min_size=0, max_size=4), max_size=6),
       st.booleans(), st.lists(st.tuples(st.integers(0, 30), st.sampled_from(_ODD)),
                               max_size=2))
def test_the_scan_reads_descriptors_as_the_parse_does(entries: list[list[dict[str, Any]]],
                                                      sort_keys: bool,
                                                      odd: list[tuple[int, tuple[str, Any]]]
                                                      ) -> None:
    flat = [d for desc in entries for d in desc]
    for at, (key, value) in odd:
        if flat:
            flat[at % len(flat)][key] = value
    doc = {"dma": [_entry(i, desc) for i, desc in enumerate(entries)], "name": "SP.json"}
    data = json.dumps(doc, separators=(",", ":"), sort_keys=sort_keys).encode()
    want = _read(data, fast=False)
    got = _read(data, fast=True)
    if got == "declined":
        assert odd or not flat, "a plain engine JSON is read by the scan"
        return
    assert got == want
    if isinstance(got, str) or isinstance(want, str):
        return
    for x, y in zip(got, want, strict=True):
        for a, b in zip(x.descriptors, y.descriptors, strict=True):
            assert tuple(map(type, a)) == tuple(map(type, b))


@pytest.mark.parametrize("data", [
    b'{"dma":[{"desc":[null],"id":0,"queue":"qSPIO0","semaphore":8}]}',
    b'{"dma":[],"x":{"from":"X","from_dtype":"f","from_off":0,"from_sizes":[1],'
    b'"from_steps":[1],"to":"SB","to_dtype":"f","to_off":0,"to_sizes":[1],"to_steps":[1]}}',
    b'{"dma":[{"desc":[{"from":"X","from_dtype":"f","from_off":0,"from_sizes":[1,,2],'
    b'"from_steps":[1],"to":"SB","to_dtype":"f","to_off":0,"to_sizes":[1],"to_steps":[1]}]'
    b',"id":0,"queue":"qSPIO0","semaphore":8}]',
    b"[" * 70 + b'{"from":"X"}' + b"]" * 70,
])
def test_the_scan_declines_what_it_cannot_read_the_same_way(data: bytes) -> None:
    assert scan_engine_json(data, MAX_JSON_DEPTH, _descriptor_fast) is None


_sides = st.tuples(st.sampled_from(["SB", "X", "Y", "NOPE"]),
                   st.lists(st.tuples(st.integers(0, 200), st.sampled_from(
                       [1, 4, 512, -512, 0x40000, 2 * 0x40000, -0x40000])), min_size=1,
                       max_size=3))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_sides, _sides), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1 << 26), st.integers(0, 1 << 26)),
                max_size=40))
def test_the_table_screen_flags_exactly_the_descriptors_out_of_bounds(
        kinds: list[tuple[tuple[str, list[tuple[int, int]]], ...]],
        rows: list[tuple[int, int, int]]) -> None:
    import numpy as np

    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.isa.addr import geometry
    from neurondbg.machine.neff.checks import _flagged, _side_problem
    from neurondbg.machine.neff.model import Descriptor, DescriptorTable, Subgraph, Var

    made = tuple(Descriptor(s[0], d[0], "float32", "float32", 0, 0,
                            tuple(n for n, _ in s[1]), tuple(n for n, _ in d[1]),
                            tuple(k for _, k in s[1]), tuple(k for _, k in d[1]))
                 for s, d in kinds)
    rows = [(k % len(made), a, b) for k, a, b in rows]
    table = DescriptorTable(made, np.array([k for k, _, _ in rows], dtype=np.intp),
                            np.array([a for _, a, _ in rows], dtype=np.int64),
                            np.array([b for _, _, b in rows], dtype=np.int64))
    sub = Subgraph("sg00", vars={"X": Var("X", "input", 1, 1 << 24), "Y": Var("Y", "virtual")})
    sbuf = geometry(Gen.SUNDA).sbuf_bytes
    flagged = _flagged(sub, table, sbuf)
    assert flagged is not None
    want = [(_side_problem(sub, d.src, d.src_off, d.src_sizes, d.src_steps, sbuf)
             or _side_problem(sub, d.dst, d.dst_off, d.dst_sizes, d.dst_steps, sbuf)) is not None
            for d in (table.row(i) for i in range(len(table)))]
    assert flagged.tolist() == want
    # and the findings, entries of up to three rows, are those of the same descriptors
    # held as tuples
    from neurondbg.machine.neff.checks import _bounds_checks
    from neurondbg.machine.neff.model import DescriptorRange, DmaEntry, Engine

    ranges = [DescriptorRange(table, a, min(a + 3, len(table)))
              for a in range(0, len(table), 3)]

    def entries(held: list[Any]) -> Subgraph:
        return Subgraph("sg00", vars=sub.vars, entries={Engine.SP: tuple(
            DmaEntry("qSPIO0", i, 8, d) for i, d in enumerate(held))})

    assert (_bounds_checks(entries(ranges), Gen.SUNDA)
            == _bounds_checks(entries([tuple(r) for r in ranges]), Gen.SUNDA))


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("with_object", [False, True])
@pytest.mark.parametrize("joined", [True, False])
def test_descriptors_of_several_lengths_read_as_parsed(sort_keys: bool, with_object: bool,
                                                       joined: bool,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    from neurondbg.machine.neff import descscan

    if not joined:  # the reduced text made as for a large NEFF
        monkeypatch.setattr(descscan, "_JOINED", 0)
    plain = {"from": "X", "from_dtype": "float32", "from_off": 0, "from_sizes": [4],
             "from_steps": [1], "to": "SB", "to_dtype": "float32", "to_off": 0,
             "to_sizes": [4], "to_steps": [1]}
    long = {**plain, "from": "out_0", "transpose_op": "WZXY", "transpose_shape": [2, 3],
            "transpose_element_size": 4}
    nested = {**plain, "extra": {"a": [1]}}
    desc = [dict(d, from_off=k * 10 ** (k % 7), to_off=k) for k, d in
            enumerate([long, plain, plain, long, nested if with_object else plain,
                       plain] * 3)]
    doc = {"dma": [_entry(0, desc[:7]), _entry(1, desc[7:]), _entry(2, [])], "name": "SP.json"}
    data = json.dumps(doc, separators=(",", ":"), sort_keys=sort_keys).encode()
    got, want = _read(data, fast=True), _read(data, fast=False)
    assert not isinstance(want, str)
    # an object inside a descriptor may end its text too soon: then it is declined
    assert got == want or (with_object and got == "declined")


@pytest.mark.parametrize("data", [
    b'{"dma":[' + b",".join([b'{"from":"X"}'] * 3000) + b'],"from_off":0}',
    b'{"dma":[{"desc":[{"from":"' + b"x" * 10_000 + b'","from_off":0}]}]}',
])
def test_the_scan_declines_descriptors_without_their_keys_nearby(data: bytes) -> None:
    assert scan_engine_json(data, MAX_JSON_DEPTH, _descriptor_fast) is None
