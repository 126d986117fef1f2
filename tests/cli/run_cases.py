"""The `run` invocations whose output tests/cli/test_run_golden.py holds byte for byte.

Every shipped example program and kernel, text and `--json`, with the options that
change what is printed (`--break`, `--max-steps`, `--trace`, `--dump-sbuf`,
`--save-session`, `--execute-invalid`, kernel schedules), a one-queue program that
waits on a semaphore, and bad inputs. `record()` writes what today's code prints
(`python -m tests.cli.run_cases` rewrites tests/cli/data/run_golden.json); a change
that means to alter an output re-records it and says why in its commit.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("data") / "run_golden.json"
EXAMPLES = ROOT / "examples"
TMP = "<tmp>"  # the per-run folder, as it appears in the recorded text

WAITS = ("MOVE R1=1\nMOVE R2=2 events.wait_mode=SEM_GE_IMM events.wait_idx=0 "
         "events.semaphore_value=1\nHALT\n")
SPIN = ("top:\n  MOVE R1=1\n  COMPARE_BRANCH cmp_op=GT_IMM dtype=INT32 cmp_reg0=R1 "
        "cmp_immediate=0 target=top\n")
VARIANTS: dict[str, list[str]] = {
    "text": [],
    "json": ["--json"],
    "max5": ["--max-steps", "5"],
    "max5j": ["--max-steps", "5", "--json"],
    "max0": ["--max-steps", "0", "--json"],
    "brkcast": ["--break", "op:CAST", "--json"],
    "brkinv": ["--break", "invalid", "--break", "fault"],
    "brkpc": ["--break", "pc:0x40", "--break", "if:R1 > 2"],
    "trace": ["--trace", "{tmp}/t.jsonl", "--max-steps", "50"],
    "dump": ["--dump-sbuf", "{tmp}/s.npy", "--max-steps", "30"],
    "save": ["--save-session", "{tmp}/s.toml", "--max-steps", "7"],
    "exinv": ["--execute-invalid", "--json"],
    "lanes": ["--break", "saturate", "--break", "nan", "--break", "watch:R2", "--json"],
}
KERNEL_VARIANTS: dict[str, list[str]] = {
    "wait": ["--break", "wait"],
    "race": ["--break", "race", "--json"],
    "deadlock": ["--break", "deadlock", "--schedule", "in-order"],
    "random": ["--schedule", "random:7", "--races", "off", "--json"],
    "engine": ["--engine", "act"],
}


def cases() -> dict[str, list[str]]:
    """Case name -> `run` arguments ({tmp}: the run's own folder, {ex}: examples/)."""
    out: dict[str, list[str]] = {}
    programs = sorted(EXAMPLES.glob("*.asm")) + sorted(EXAMPLES.glob("*.bin"))
    kernels = sorted((EXAMPLES / "kernels").glob("*.asm"))
    for p in [*programs, *kernels]:
        rel = "{ex}/" + str(p.relative_to(EXAMPLES))
        for name, args in VARIANTS.items():
            out[f"{p.relative_to(EXAMPLES)}:{name}"] = [rel, *args]
    for p in kernels:
        rel = "{ex}/" + str(p.relative_to(EXAMPLES))
        for name, args in KERNEL_VARIANTS.items():
            out[f"{p.relative_to(EXAMPLES)}:{name}"] = [rel, *args]
    out |= {
        "waits:text": ["{tmp}/waits.asm"],
        "waits:json": ["{tmp}/waits.asm", "--json"],
        "waits:break-wait": ["{tmp}/waits.asm", "--break", "wait", "--break", "race"],
        "spin:max": ["{tmp}/spin.asm", "--max-steps", "1000"],
        "spin:max-json": ["{tmp}/spin.asm", "--max-steps", "1000", "--json"],
        "session:demo": ["{ex}/demo.toml"],
        "session:demo-json": ["{ex}/demo.toml", "--json", "--max-steps", "3"],
        "error:missing": ["{tmp}/nope.asm"],
        "error:folder": ["{ex}"],
        "error:break": ["{ex}/loop.asm", "--break", "bogus:1"],
        "error:gen": ["{ex}/loop.asm", "--gen", "bogus"],
        "error:engine": ["{ex}/loop.asm", "--engine", "nope"],
        "error:syntax": ["{tmp}/bad.asm"],
        "error:empty": ["{tmp}/empty.asm"],
        "error:output-is-input": ["{ex}/loop.asm", "--trace", "{ex}/loop.asm"],
        "error:no-sbuf": ["{ex}/loop.asm", "--sbuf", "{tmp}/none.npy"],
        "error:neff-option": ["{ex}/loop.asm", "--subgraph", "sg00"],
        "error:kernel-engine": ["{ex}/kernels/deadlock.asm", "--engine", "pe"],
    }
    return out


def _prepare(tmp: Path) -> None:
    (tmp / "waits.asm").write_text(WAITS)
    (tmp / "spin.asm").write_text(SPIN)
    (tmp / "bad.asm").write_text("junk !!\n")
    (tmp / "empty.asm").write_text("")


def _outputs(tmp: Path) -> dict[str, str]:
    """What a case left in its folder: the trace lines, the SBUF dump's sha256, the
    saved session's text (images by name and size)."""
    found: dict[str, str] = {}
    for f in sorted(tmp.iterdir()):
        if f.name in ("waits.asm", "spin.asm", "bad.asm", "empty.asm"):
            continue
        if f.suffix in (".jsonl", ".toml"):
            found[f.name] = f.read_text().replace(str(tmp), TMP)
        else:
            found[f.name] = hashlib.sha256(f.read_bytes()).hexdigest()
        f.unlink()
    return found


def run_case(args: list[str]) -> dict[str, object]:
    """Run one case in a fresh folder; what it printed, its exit code and its files."""
    from neurondbg.cli import cli

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _prepare(tmp)
        argv = [a.replace("{tmp}", str(tmp)).replace("{ex}", str(EXAMPLES)) for a in args]
        r = CliRunner().invoke(cli, ["run", *argv])
        clean = [(str(tmp), TMP), (str(EXAMPLES.resolve()), "<examples>"),
                 (str(EXAMPLES), "<examples>")]

        def scrub(text: str) -> str:
            for old, new in clean:
                text = text.replace(old, new)
            # a saved session names its program relative to the session's folder
            return re.sub(r'(?m)^path = ".*/([^/"]+)"$', r'path = ".../\1"', text)
        files = {k: scrub(v) for k, v in _outputs(tmp).items()}
        return {"exit": r.exit_code, "stdout": scrub(r.stdout), "stderr": scrub(r.stderr),
                "files": files}


def record() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    got = {name: run_case(args) for name, args in cases().items()}
    GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    record()
