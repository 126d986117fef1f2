"""Kernel sessions (sessions.store) and kernel traces (run --trace, replay)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.core.kernel import load_kernel
from neurondbg.sessions import examples
from neurondbg.sessions.cli_support import open_kernel
from neurondbg.sessions.errors import SessionError
from neurondbg.sessions.store import (
    load_kernel_session,
    load_session,
    read_session,
    save_kernel_session,
)

KERNELS = examples.folder() / "kernels"


def cli_run(*args: object) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, [str(a) for a in args])
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    """A copy of double_buffer.asm (ten global steps, two engines) the test may edit."""
    p = tmp_path / "k" / "db.asm"
    p.parent.mkdir()
    shutil.copy(KERNELS / "double_buffer.asm", p)
    return p


def full_run(path: Path, schedule: str) -> dict:
    code, out, err = cli_run("run", path, "--json", "--schedule", schedule)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("schedule", ["rr", "in-order", "random:3"])
def test_a_saved_kernel_session_reloads_the_exact_state_and_continues(
        kernel: Path, tmp_path: Path, schedule: str) -> None:
    sess = tmp_path / "s.toml"
    code, out, _ = cli_run("run", kernel, "--max-steps", "5", "--schedule", schedule,
                           "--save-session", sess, "--json")
    first = json.loads(out)
    assert code == 0 and first["steps"] == 5
    spec = read_session(sess)
    assert spec.kernel is not None and spec.kernel.schedule == schedule and spec.steps == 5
    assert spec.kernel.streams == {q.engine: q.digest for q in load_kernel(kernel).queues}
    assert spec.program == "k/db.asm" and spec.digest == first["digest"]
    code, out, _ = cli_run("run", sess, "--json", "--max-steps", "0")  # the saved state
    again = json.loads(out)
    assert code == 0 and again["steps"] == 5 and again["digest"] == first["digest"]
    assert again["session"]["digest_ok"] and again["engines"] == first["engines"]
    code, out, _ = cli_run("run", sess, "--json")  # on to the end: as one uninterrupted run
    end = json.loads(out)
    assert code == 0 and end["stop"]["reason"] == "halt"
    assert end["digest"] == full_run(kernel, schedule)["digest"]


def test_a_changed_stream_is_refused_naming_it(kernel: Path, tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert cli_run("run", kernel, "--max-steps", "3", "--save-session", sess)[0] == 0
    kernel.write_text(kernel.read_text().replace("# consume tile k", "# (edited) consume"))
    assert cli_run("run", sess, "--max-steps", "0")[0] == 0  # a comment is not the stream
    kernel.write_text(kernel.read_text().replace("semaphore_value=4", "semaphore_value=3"))
    code, _, err = cli_run("run", sess)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "the dve stream" in err and "changed since the session was saved" in err
    with pytest.raises(SessionError, match="the dve stream"):
        load_kernel_session(read_session(sess))


def test_a_dropped_engine_is_refused(kernel: Path, tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert cli_run("run", kernel, "--max-steps", "0", "--save-session", sess)[0] == 0
    text = kernel.read_text()
    kernel.write_text(text[:text.index(".engine dve")])
    code, _, err = cli_run("run", sess)
    assert code == 2 and "the dve stream is gone" in err and len(err.strip().splitlines()) == 1


def test_the_tui_loader_refuses_a_kernel_session_in_one_line(kernel: Path,
                                                             tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert cli_run("run", kernel, "--max-steps", "2", "--save-session", sess)[0] == 0
    with pytest.raises(SessionError, match="a kernel session"):
        load_session(sess)


def test_forced_steps_and_breakpoints_are_saved(kernel: Path, tmp_path: Path) -> None:
    opened = open_kernel(kernel)
    core = opened.core
    core.step("dve")  # blocked: takes no step
    core.step("pool")
    core.step("pool")  # rr would have given step 1 to DVE
    core.add_breakpoint("op:CAST@dve")
    core.set_enabled(core.add_breakpoint("watch:R5@pool").id, False)
    assert core.forced == {1: "pool"}
    sess = tmp_path / "s.toml"
    save_kernel_session(sess, opened)
    spec = read_session(sess)
    assert spec.kernel is not None and spec.kernel.forced == {1: "pool"}
    assert [(b.spec, b.enabled) for b in spec.breakpoints] == [("op:CAST@dve", True)]
    assert [(b.spec, b.enabled) for b in spec.watchpoints] == [("watch:R5@pool", False)]
    back = load_kernel_session(spec)
    assert back.core.steps == 2 and back.core.digest() == core.digest()
    assert back.core.forced == {1: "pool"}
    assert [(b.text, b.enabled) for b in back.core.breakpoints] == [
        ("op:CAST@dve", True), ("watch:R5@pool", False)]
    assert back.core.cont().reason == "breakpoint"


def test_sbuf_input_is_saved_as_an_image(tmp_path: Path) -> None:
    image = np.arange(4 * 16, dtype=np.uint8).reshape(4, 16)
    np.save(tmp_path / "in.npy", image)
    src = tmp_path / "pc.asm"
    shutil.copy(KERNELS / "producer_consumer.asm", src)
    sess = tmp_path / "s.toml"
    code, out, _ = cli_run("run", src, "--sbuf", tmp_path / "in.npy", "--max-steps", "1",
                           "--save-session", sess, "--json")
    assert code == 0
    spec = read_session(sess)
    assert [(d.space, d.partition, d.offset) for d in spec.data] == [("sbuf", 0, 0)]
    assert np.array_equal(np.load(spec.resolve(spec.data[0].file)), image)
    back = load_kernel_session(spec)
    assert back.core.digest() == json.loads(out)["digest"]
    # the image is part of the step-0 state: reversing to step 0 brings it back
    back.core.cont()
    assert back.core.reverse(10).reason == "start"
    assert np.array_equal(back.core.state("pool").sbuf[:4, :16], image)


@pytest.mark.parametrize(("table", "fragment"), [
    ('[kernel]\npath = "k.asm"\nschedule = "fifo"\n[kernel.streams]\npool = "{d}"',
     "kernel.schedule: schedule 'fifo'"),
    ('[kernel]\npath = "k.asm"\n[kernel.streams]\ntpb = "{d}"', "kernel.streams.tpb: expected "
                                                                "an engine"),
    ('[kernel]\npath = "k.asm"\n[kernel.streams]\npool = "abc"', "kernel.streams.pool: "
                                                                 "expected a sha256"),
    ('[kernel]\npath = "k.asm"\n[kernel.streams]', "kernel.streams: expected the sha256"),
    ('[kernel]\npath = "k.asm"\n[kernel.streams]\npool = "{d}"\n[kernel.forced]\nx = "pool"',
     "kernel.forced.x: expected a global step number"),
    ('[kernel]\npath = "k.asm"\n[kernel.streams]\npool = "{d}"\n[program]\npath = "p.asm"',
     "a [program] or a [kernel], not both"),
])
def test_bad_kernel_tables_are_one_line_errors(tmp_path: Path, table: str,
                                               fragment: str) -> None:
    sess = tmp_path / "s.toml"
    sess.write_text("schema = 1\n[machine]\ngen = \"cayman\"\n"
                    + table.replace("{d}", "0" * 64) + "\n")
    with pytest.raises(SessionError) as e:
        read_session(sess)
    assert fragment in str(e.value) and str(sess) in str(e.value)
    code, _, err = cli_run("run", sess)
    assert code == 2 and len(err.strip().splitlines()) == 1


# -- traces and replay -------------------------------------------------------------------
def test_kernel_trace_lines_carry_the_engine_and_replay_follows_them(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    src = KERNELS / "double_buffer.asm"
    code, _, _ = cli_run("run", src, "--trace", trace, "--schedule", "random:3")
    assert code == 0
    header, *lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert header == {"neurondbg_trace": 1, "gen": "cayman", "engine": "pool",
                      "execute_invalid": False, "engines": ["pool", "dve"],
                      "schedule": "random:3"}
    assert [x["step"] for x in lines] == list(range(10))
    assert sorted(x["engine"] for x in lines) == ["dve"] * 5 + ["pool"] * 5
    assert [x["engine_step"] for x in lines if x["engine"] == "dve"] == list(range(5))
    code, out, _ = cli_run("replay", trace, src)
    assert code == 0 and out.strip() == f"no divergence: 10 steps match {trace}"
    # a replay follows the trace's engines, not the policy: rr replays it too
    header["schedule"] = "rr"
    trace.write_text("\n".join(json.dumps(x) for x in [header, *lines]) + "\n")
    assert cli_run("replay", trace, src)[0] == 0


def test_replay_reports_the_first_divergence(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    src = KERNELS / "producer_consumer.asm"
    assert cli_run("run", src, "--trace", trace)[0] == 0
    text = trace.read_text().splitlines()
    line = json.loads(text[2])
    line["engine"], line["pc"] = "dve", 0x40
    text[2] = json.dumps(line)
    trace.write_text("\n".join(text) + "\n")
    code, out, _ = cli_run("replay", trace, src, "--json")
    d = json.loads(out)
    assert code == 1 and d["divergence"]["step"] == 1 and d["divergence"]["line"] == 3
    assert d["divergence"]["field"] == "pc" and d["divergence"]["expected"] == 0x40


def test_kernel_and_program_traces_do_not_mix(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    assert cli_run("run", KERNELS / "producer_consumer.asm", "--trace", trace)[0] == 0
    code, _, err = cli_run("replay", trace, examples.path("loop.asm"))
    assert code == 2 and "a kernel's trace cannot replay" in err
    assert cli_run("run", examples.path("loop.asm"), "--trace", trace)[0] == 0
    code, _, err = cli_run("replay", trace, KERNELS / "producer_consumer.asm")
    assert code == 2 and "a one-queue program's trace" in err
    assert len(err.strip().splitlines()) == 1


def test_sbuf_into_a_kernel_session_is_refused(kernel: Path, tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert cli_run("run", kernel, "--max-steps", "2", "--save-session", sess)[0] == 0
    np.save(tmp_path / "in.npy", np.ones((1, 4), np.uint8))
    before = sess.read_bytes()
    code, _, err = cli_run("run", sess, "--sbuf", tmp_path / "in.npy", "--save-session",
                           tmp_path / "s2.toml")
    assert code == 2 and "a kernel session keeps its own memory images" in err
    assert len(err.strip().splitlines()) == 1
    assert sess.read_bytes() == before and not (tmp_path / "s2.toml").exists()


def test_a_trace_whose_engine_was_blocked_diverges_there(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    src = KERNELS / "producer_consumer.asm"
    assert cli_run("run", src, "--trace", trace)[0] == 0
    header, first, second, *rest = trace.read_text().splitlines()
    # DVE first: its wait on sem[0] does not hold yet, so it cannot take step 0
    swapped = [json.loads(second) | {"step": 0}, json.loads(first) | {"step": 1}]
    trace.write_text("\n".join([header, *map(json.dumps, swapped), *rest]) + "\n")
    code, out, _ = cli_run("replay", trace, src, "--json")
    d = json.loads(out)["divergence"]
    assert code == 1 and (d["step"], d["line"], d["field"]) == (0, 2, "waiting")
    assert d["expected"] is None
    assert d["actual"] == {"pc": 0, "semaphore": 0, "condition": "sem[0] >= 1"}


def test_options_a_kernel_session_decides_are_warned_about(kernel: Path,
                                                           tmp_path: Path) -> None:
    sess = tmp_path / "s.toml"
    assert cli_run("run", kernel, "--max-steps", "2", "--schedule", "in-order",
                   "--save-session", sess)[0] == 0
    r = CliRunner().invoke(cli, ["run", str(sess), "--schedule", "rr", "--races", "off",
                                 "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["schedule"] == "in-order"
    assert r.stderr.splitlines() == [
        "neurondbg: warning: --schedule: the session's in-order applies",
        "neurondbg: warning: --races: the session's on applies"]


@pytest.mark.parametrize("schedule", ["rr", "random:5"])
def test_a_kernel_session_keeps_its_edits_and_reloads_them_at_their_steps(
        kernel: Path, tmp_path: Path, schedule: str) -> None:
    """`set` and record edits made at several global steps are saved as [[edits]] in the
    core's words; loading makes each again at its step: the same state, digest and
    edits, and reverse undoes them on the reloaded core as on the first."""
    opened = open_kernel(kernel, schedule=schedule)
    core = opened.core
    core.cont(max_steps=2)
    engine = core.engines[1]
    assert core.edit(f"{engine}.R4", "7") == f"{engine}.R4 = 7 (0x00000007)"
    core.cont(max_steps=3)
    core.edit("sem[5]", "3")
    nop = core.machines[engine].program.record(0)  # its first record, over its second
    core.edit_record(1, nop, engine)
    core.cont(max_steps=2)
    save_kernel_session(tmp_path / "s.toml", opened)
    spec = read_session(tmp_path / "s.toml")
    assert [(e.step, e.target) for e in spec.edits] == [
        (2, f"{engine}.R4"), (5, "sem[5]"), (5, f"{engine}.record[1]")]
    back = load_kernel_session(spec)
    assert back.session is not None and back.session.digest_ok and back.warnings == []
    again = back.core
    assert again.steps == core.steps == 7 and again.digest() == core.digest()
    assert again.edits == core.edits
    assert again.machines[engine].program.record(1) == nop
    for c in (core, again):  # back past the record edit and the set: the loaded program
        c.reverse(3)
        assert (c.steps, len(c.edits)) == (4, 1)
    assert again.digest() == core.digest()
    assert again.machines[engine].program.record(1) == load_kernel(kernel).queue(
        engine).program.program.record(1)


def test_a_kernel_session_refuses_an_edit_its_kernel_cannot_take(kernel: Path,
                                                                   tmp_path: Path) -> None:
    opened = open_kernel(kernel)
    opened.core.edit("sem[5]", "3")
    save_kernel_session(tmp_path / "s.toml", opened)
    text = (tmp_path / "s.toml").read_text().replace('target = "sem[5]"',
                                                     'target = "act.R1"')
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(SessionError, match=r"edits\[0\]: act\.R1: .*no act queue"):
        load_kernel_session(read_session(tmp_path / "s.toml"))
