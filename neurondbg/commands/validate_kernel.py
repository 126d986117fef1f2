"""`neurondbg validate KERNEL`: each queue judged on its own engine (machine.core.validate).

The validate command dispatches here when `machine.core.kernel.is_kernel_source(PROGRAM)`:

    from machine.core.kernel import is_kernel_source
    if is_kernel_source(program):  # each queue on its own engine; --engine does not apply
        from neurondbg.commands.validate_kernel import validate_kernel_command
        sys.exit(validate_kernel_command(program, gen, gen_given, as_json, summary))

Output: `--json` is machine.core.validate.validate_kernel's document (per engine the
one-program `--json` document, plus totals); `--summary` is `{"gen", "count",
"invalid", "engines": {engine: <the one-program summary>}}`; the text lists each
engine's invalid instructions (with file:line:column for assembly) and its count line.
Exit 1 when any instruction is invalid, 2 on bad input (one line), else 0.
"""

from __future__ import annotations

import json

import click

from machine.dtypes import Gen
from neurondbg.documents import Kind, stamp
from neurondbg.errors import InputError
from neurondbg.progress import progress


def validate_kernel_command(program: str, gen: Gen, gen_given: bool, as_json: bool,
                            summary: bool) -> int:
    """Print the verdicts of the kernel at `program`; its exit code. `gen` applies when
    `gen_given` (an explicit --gen wins), else the kernel's own generation does."""
    from machine.asm import AsmError
    from machine.core.kernel import load_kernel
    from machine.core.validate import validate_kernel, validate_queues
    from neurondbg.commands.validate import _summary, _text

    try:
        kernel = load_kernel(program, gen if gen_given else None)
    except AsmError as e:
        raise InputError(e.one_line) from None
    except OSError as e:
        raise InputError(f"{program}: cannot read: {e.strerror or e}") from None
    except ValueError as e:  # KernelError, InputFileError, IsaFormatError: one line each
        raise InputError(str(e)) from None
    judging = f"validate {kernel.path.name}"
    if as_json:
        with progress(None, judging):
            doc = validate_kernel(kernel)
        click.echo(json.dumps(stamp(Kind.VALIDATE, doc)))
        return 1 if doc["invalid"] else 0
    with progress(None, judging):
        results = validate_queues(kernel)
    invalid = sum(r.invalid for r in results.values())
    if summary:
        click.echo(json.dumps(stamp(Kind.VALIDATE_SUMMARY, {
            "gen": kernel.gen.label, "count": sum(r.count for r in results.values()),
            "invalid": invalid, "engines": {e: _summary(r) for e, r in results.items()}})))
    else:
        for q in kernel.queues:
            _text(results[q.engine], q.program.program.raw, q.program)
    return 1 if invalid else 0
