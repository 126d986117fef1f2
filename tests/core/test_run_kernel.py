"""`neurondbg run KERNEL`: each shipped example kernel's outcome, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

from neurondbg.cli import cli
from neurondbg.machine.isa.programs import kernel_text
from neurondbg.sessions import examples

KERNELS = examples.folder() / "kernels"
SCHEDULES = ["rr", "in-order", "random:0", "random:1", "random:2", "random:5"]


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["run", *map(str, args)])
    return r.exit_code, r.stdout, r.stderr


def run_json(name: str, *args: str) -> tuple[int, dict]:
    code, out, err = run(KERNELS / f"{name}.asm", "--json", *args)
    assert "Traceback" not in err, err
    return code, json.loads(out)


def inputs(count: int) -> np.ndarray:
    """The examples' `.fill ... start=1.0 step=0.25 pstep=0.5`: (128, count) fp32."""
    k, p = np.arange(count), np.arange(128)[:, None]
    return (1.0 + 0.25 * k + 0.5 * p).astype(np.float32)


def widened(x: np.ndarray) -> np.ndarray:
    """fp32 -> bf16 (round to nearest even) -> fp32, as the POOL and DVE Casts do."""
    return x.astype(ml_dtypes.bfloat16).astype(np.float32)


def sbuf_after(tmp_path: Path, name: str, *args: str) -> np.ndarray:
    out = tmp_path / f"{name}.npy"
    code, _, err = run(KERNELS / f"{name}.asm", "--dump-sbuf", out, *args)
    assert code in (0, 1), err
    return np.load(out)


def test_every_shipped_kernel_is_tested() -> None:
    names = {p.stem for p in KERNELS.glob("*.asm")}
    assert names == {"producer_consumer", "missing_wait", "read_vs_complete", "deadlock",
                     "double_buffer"}


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_producer_consumer_halts_race_free_with_the_widened_tile(tmp_path: Path,
                                                                 schedule: str) -> None:
    code, d = run_json("producer_consumer", "--schedule", schedule)
    assert code == 0 and d["stop"]["reason"] == "halt" and d["races"] == []
    assert {e: v["status"] for e, v in d["engines"].items()} == {"pool": "halted",
                                                                  "dve": "halted"}
    assert d["semaphores"] == {"0": 1} and d["steps"] == 4 and d["halted"]
    assert d["schedule"] == schedule
    sb = sbuf_after(tmp_path, "producer_consumer", "--schedule", schedule)
    want = widened(inputs(16))
    np.testing.assert_array_equal(sb[:, 0x200:0x240].view(np.float32), want)
    np.testing.assert_array_equal(sb[:, 0x100:0x120].view(ml_dtypes.bfloat16).astype(np.float32),
                                  want)


def race_of(d: dict) -> tuple:
    (r,) = d["races"]
    return (tuple(sorted((x["engine"], x["pc"], x["opcode"], x["access"])
                         for x in (r["a"], r["b"]))), r["space"], r["partitions"], r["bytes"])


THE_TILE = ((("dve", 0, "CAST", "read"), ("pool", 0, "CAST", "write")), "sbuf", [0, 128],
            [0x100, 0x120])


def test_missing_wait_is_a_race_although_rr_runs_it_safely(tmp_path: Path) -> None:
    code, d = run_json("missing_wait")
    assert code == 1 and d["stop"]["reason"] == "halt"  # a race is a defect: exit 1
    assert race_of(d) == THE_TILE
    r = d["races"][0]
    assert (r["a"]["engine"], r["a"]["access"], r["b"]["engine"]) == ("pool", "write", "dve")
    assert r["missing"].startswith("DVE should wait for sem[0] >= 1 before 0x0")
    assert r["fix"] == {"engine": "dve", "pc": 0, "wait_mode": "SEM_GE_IMM", "semaphore": 0,
                        "value": 1}
    assert r["a"]["source"].endswith("missing_wait.asm:16:5")
    # rr happened to run POOL first: the output is right, the race is still there
    np.testing.assert_array_equal(sbuf_after(tmp_path, "missing_wait")[:, 0x200:0x240]
                                  .view(np.float32), widened(inputs(16)))


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_missing_wait_is_reported_under_every_schedule(schedule: str) -> None:
    code, d = run_json("missing_wait", "--schedule", schedule)
    assert code == 1 and race_of(d) == THE_TILE


def test_missing_wait_under_a_schedule_that_runs_dve_first_reads_zeros(tmp_path: Path) -> None:
    sb = sbuf_after(tmp_path, "missing_wait", "--schedule", "random:0")
    assert not sb[:, 0x200:0x240].any()


def test_read_vs_complete_races_on_the_producers_writes() -> None:
    code, d = run_json("read_vs_complete")
    assert code == 1 and race_of(d) == THE_TILE
    assert d["races"][0]["a"] == {"engine": "pool", "pc": 0, "opcode": "CAST",
                                  "access": "write", "source": d["races"][0]["a"]["source"]}
    assert "use SEM_INC_COMPLETE instead of SEM_INC_READ" in d["races"][0]["missing"]


def test_deadlock_names_both_waits() -> None:
    code, d = run_json("deadlock")
    assert code == 1 and d["stop"]["reason"] == "deadlock" and d["steps"] == 0
    waiting = [{k: w[k] for k in ("engine", "pc", "semaphore", "value", "condition",
                                  "can_be_updated")} for w in d["stop"]["waiting"]]
    assert waiting == [
        {"engine": "pool", "pc": 0, "semaphore": 1, "value": 0, "condition": "sem[1] >= 1",
         "can_be_updated": True},
        {"engine": "dve", "pc": 0, "semaphore": 0, "value": 0, "condition": "sem[0] >= 1",
         "can_be_updated": True}]
    assert [w["source"].rsplit(":", 2)[1] for w in d["stop"]["waiting"]] == ["16", "21"]
    assert {v["status"] for v in d["engines"].values()} == {"waiting"}


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_double_buffer_is_race_free_and_the_same_under_every_schedule(
        tmp_path: Path, schedule: str) -> None:
    code, d = run_json("double_buffer", "--schedule", schedule)
    assert code == 0 and d["stop"]["reason"] == "halt" and d["races"] == []
    assert d["semaphores"] == {"0": 4, "1": 4} and d["steps"] == 10
    sb = sbuf_after(tmp_path, "double_buffer", "--schedule", schedule)
    want = widened(inputs(64))
    for k in range(4):  # tile k went through A / B and out to 0x300 + 0x40 k
        out = sb[:, 0x300 + 0x40 * k:0x340 + 0x40 * k].view(np.float32)
        np.testing.assert_array_equal(out, want[:, 16 * k:16 * (k + 1)])


def test_text_output_has_a_line_per_engine_and_the_race_in_words() -> None:
    code, out, _ = run(KERNELS / "read_vs_complete.asm")
    lines = out.splitlines()
    assert code == 1 and lines[0] == "stop: halt: every engine halted"
    assert lines[1].startswith("pool: halted at pc 0x80, 2 steps")
    assert lines[2].startswith("dve: halted at pc 0x80, 2 steps")
    assert lines[3] == "semaphores: sem[0]=1"
    assert lines[4].startswith("race 1: pool CAST at pc 0x0 (") and "read_vs_complete.asm:16:5" \
        in lines[4]
    assert "writes and dve CAST at pc 0x0" in lines[4] and "reads sbuf partitions [0, 128) " \
        "bytes [0x100, 0x120)" in lines[4] and "use SEM_INC_COMPLETE" in lines[4]
    assert lines[5] == "steps: 4  gen: cayman  schedule: rr  1 race"


def test_text_output_of_a_deadlock() -> None:
    code, out, _ = run(KERNELS / "deadlock.asm")
    lines = out.splitlines()
    assert code == 1 and lines[0] == "stop: deadlock: no engine can run and pool, dve have " \
                                     "not halted"
    assert lines[1].startswith("  pool waits at pc 0x0 (") and "sem[1] >= 1, sem[1] = 0; an " \
        "instruction left in a queue can still update it" in lines[1]
    assert lines[3].startswith("pool: waiting at pc 0x0")


def test_break_race_stops_after_the_racing_step() -> None:
    code, d = run_json("missing_wait", "--break", "race")
    assert code == 1 and d["stop"]["reason"] == "race" and d["stop"]["engine"] == "dve"
    assert d["steps"] == 2 and len(d["races"]) == 1


def test_engine_qualified_breakpoint_and_max_steps() -> None:
    code, d = run_json("double_buffer", "--break", "op:CAST@dve")
    assert code == 0 and d["stop"]["reason"] == "breakpoint" and d["stop"]["engine"] == "dve"
    assert d["engine"] == "dve" and d["engines"]["pool"]["steps"] == 1
    code, d = run_json("double_buffer", "--max-steps", "3")
    assert code == 0 and d["stop"]["reason"] == "max-steps" and d["steps"] == 3
    assert d["engines"]["pool"]["steps"] + d["engines"]["dve"]["steps"] == 3


def test_break_wait_stops_when_an_engine_blocks() -> None:
    # in-order runs POOL until its third Cast waits for DVE to free tile A
    code, d = run_json("double_buffer", "--break", "wait@pool", "--schedule", "in-order")
    assert code == 0 and d["stop"]["reason"] == "wait" and d["stop"]["engine"] == "pool"
    assert d["stop"]["pc"] == 0x80 and d["stop"]["source"].endswith("double_buffer.asm:24:5")
    assert d["engines"]["pool"]["status"] == "waiting" and d["semaphores"] == {"0": 2}
    code, d = run_json("deadlock", "--break", "deadlock")
    assert code == 1 and d["stop"]["reason"] == "deadlock"


def test_races_off_skips_the_check() -> None:
    code, d = run_json("missing_wait", "--races", "off")
    assert code == 0 and d["races"] == [] and d["stop"]["reason"] == "halt"
    code, out, _ = run(KERNELS / "missing_wait.asm", "--races", "off")
    assert out.splitlines()[-1].endswith("races not checked")


def test_a_manifest_runs_like_the_engine_file(tmp_path: Path) -> None:
    text = (KERNELS / "producer_consumer.asm").read_text()
    pool, dve = text.split(".engine pool")[1].split(".engine dve")
    (tmp_path / "pool.asm").write_text(pool)
    (tmp_path / "dve.asm").write_text(dve)
    manifest = tmp_path / "k.toml"
    manifest.write_text('[kernel]\ngen = "cayman"\n[engines]\npool = "pool.asm"\n'
                        'dve = "dve.asm"\n')
    code, out, _ = run(manifest, "--json")
    d = json.loads(out)
    _, want = run_json("producer_consumer")
    assert code == 0 and d["digest"] == want["digest"] and d["races"] == []


def test_sbuf_input_and_dump_for_a_kernel(tmp_path: Path) -> None:
    image = (2 * inputs(16)).view(np.uint8)  # replaces the kernel's own input
    np.save(tmp_path / "in.npy", image)
    sb = sbuf_after(tmp_path, "producer_consumer", "--sbuf", str(tmp_path / "in.npy"))
    np.testing.assert_array_equal(sb[:, 0x200:0x240].view(np.float32),
                                  widened(2 * inputs(16)))
    np.save(tmp_path / "big.npy", np.zeros((2, 300_000), np.uint8))  # cayman: 224 KiB
    code, _, err = run(KERNELS / "producer_consumer.asm", "--sbuf", tmp_path / "big.npy")
    assert code == 2 and f"--sbuf {tmp_path / 'big.npy'}: (2, 300000) at partition 0, byte " \
        "0 does not fit sbuf (128, 229376)" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("args", "fragment"), [
    (["--engine", "dve"], "--engine dve: a kernel names the engine of each queue"),
    (["--break", "op:CAST@tpb"], "--break 'op:CAST@tpb'"),
])
def test_bad_kernel_options_are_one_line_exit_2(args: list[str], fragment: str) -> None:
    code, _, err = run(KERNELS / "producer_consumer.asm", *args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_a_bad_kernel_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.asm"
    bad.write_text(".engine pool\n    HALT\n.engine dve\n    FROB x=1\n")
    code, _, err = run(bad)
    assert code == 2 and "bad.asm:4:" in err and len(err.strip().splitlines()) == 1
    missing = tmp_path / "k.toml"
    missing.write_text('[engines]\npool = "nowhere.asm"\n')
    code, _, err = run(missing)
    assert code == 2 and "nowhere.asm" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(KERNELS / "producer_consumer.asm", "--dump-sbuf",
                       KERNELS / "producer_consumer.asm")
    assert code == 2 and "the kernel" in err and len(err.strip().splitlines()) == 1


def test_an_output_naming_a_manifest_data_image_is_refused(tmp_path: Path) -> None:
    text = (KERNELS / "producer_consumer.asm").read_text()
    pool, dve = text.split(".engine pool")[1].split(".engine dve")
    (tmp_path / "pool.asm").write_text(pool)
    (tmp_path / "dve.asm").write_text(dve)
    np.save(tmp_path / "img.npy", np.ones((2, 8), np.uint8))
    manifest = tmp_path / "k.toml"
    manifest.write_text('[engines]\npool = "pool.asm"\ndve = "dve.asm"\n'
                        '[data]\nsbuf = "img.npy"\n')
    before = (tmp_path / "img.npy").read_bytes()
    code, _, err = run(manifest, "--dump-sbuf", tmp_path / "img.npy")
    assert code == 2 and "data image of the kernel" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "img.npy").read_bytes() == before
    code, _, err = run(manifest, "--dump-sbuf", tmp_path / "pool.asm")
    assert code == 2 and "the pool stream" in err


WRONG_ENGINE = kernel_text(
    pool="    MOVE R1=5\n    DVE_READ_ACCUMULATOR dst_element_count=1 dtype=FP32 nac=1 "
         "dst=sb[0, 0x220] step=1 num=1\n    HALT\n",
    dve="    MOVE R2=7\n    HALT\n")


def test_an_op_on_the_wrong_engine_stops_invalid_then_faults(tmp_path: Path) -> None:
    src = tmp_path / "wrong.asm"
    src.write_text(WRONG_ENGINE)
    code, out, _ = run(src, "--json")
    stop = json.loads(out)["stop"]
    assert code == 1 and stop["reason"] == "invalid" and stop["engine"] == "pool"
    assert stop["failed"] == ["engine_has_opcode(pool)"] and "engine_has_opcode(pool)" in \
        stop["fixes"] and stop["source"] == f"{src}:3:5" and stop["pc"] == 0x40
    code, out, _ = run(src)
    assert code == 1 and out.splitlines()[1].startswith("  engine_has_opcode(pool): ")
    code, out, _ = run(src, "--json", "--execute-invalid")
    d = json.loads(out)
    assert code == 1 and d["stop"]["reason"] == "fault" and d["engines"]["pool"]["status"] == \
        "faulted" and "does not run on the pool engine" in d["stop"]["detail"]
