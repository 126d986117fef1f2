"""`neurondbg explain TEXT`: what a clause / predicate name or a pasted compiler message
means.

TEXT is a clause or predicate name (`s4d4_tr_same_src_dst_type`, `tensor4d_valid(dst)`,
`is_valid_copy`) or a compiler line (`inst failed assertion check:
'start_addr_active_channels'`, `NCC_IINAR001 ISA validation failed: Copy; ...`). For each
wire clause found: the rule, provenance and confidence, the fields it reads, the
generations and engines it applies to, a minimal instruction that fails it and its
checked fixed form, both as assembly that re-assembles to the same bytes. A name the
references do not document is said to be unknown, with the nearest known names.
Exit 0 when something was found, 1 when nothing was, 2 on an empty TEXT.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from neurondbg.errors import InputError

if TYPE_CHECKING:
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.legality.lookup import Found, NkiRule, Site
    from neurondbg.machine.legality.wire.clause import Predicate

MAX_SITES = 4  # sites shown in full per name (the first predicate's); the rest listed


def _assembly(raw: bytes, gen: Gen) -> str:
    """One instruction as assembly, checked to re-assemble to `raw`."""
    from neurondbg.machine.asm.assembler import assemble
    from neurondbg.machine.asm.disasm import format_instruction
    from neurondbg.machine.isa.codec import decode

    text = format_instruction(decode(raw), gen)
    again = assemble(text, "<explain>", gen).records
    return text if bytes(again) == raw else f"{text}  # (does not re-assemble exactly)"


def site_lines(site: Site) -> list[str]:
    """The full explanation of one clause site."""
    import numpy as np

    from neurondbg.machine.isa.structs import STRUCTS
    from neurondbg.machine.legality.explain import explain
    from neurondbg.machine.legality.lookup import engines, failing_example, generations
    from neurondbg.machine.legality.wire.registry import predicate_for
    from neurondbg.machine.legality.wire.repair import apply

    cl, pred = site.clause, site.predicate
    prov = cl.provenance
    gens = generations(site)
    lines = [f"{site.path_text}  [wire clause of {pred.name}"
             + (", note: reported, never fatal" if cl.note else "") + "]",
             f"  provenance: {prov} — confidence {prov.confidence}",
             f"  reads:      {', '.join(cl.fields) or '(no field)'}",
             f"  applies to: generations {', '.join(g.label for g in gens) or 'none'}; "
             f"engines {', '.join(engines(pred)) or 'any'}"]
    fail = failing_example(site)
    if fail is None:
        why = ("it fails only when the predicate is forced on another opcode"
               if "header.opcode" in cl.fields else
               "no record of this opcode fails it on a generation that has the opcode")
        lines.append(f"  no failing instruction: {why}")
        return lines
    v = explain(fail.raw, fail.gen)
    node = v.node(site.path_text)
    lines.append(f"  rule:       {node.message}")
    lines.append(f"  fails ({fail.gen.label}): {_assembly(fail.raw, fail.gen)}")
    if fail.also:
        lines.append(f"    (also fails: {', '.join(fail.also)})")
    if cl.note:
        lines.append("  a note: the instruction stays valid"
                     + (f"; {node.fix}" if node.fix else ""))
    elif v.fix_fields is not None:
        struct = STRUCTS[predicate_for(fail.raw[0]).struct]
        fixed = apply(struct, np.frombuffer(fail.raw, dtype=struct.dtype).copy(),
                      v.fix_fields).tobytes()
        lines.append(f"  fixed:      {_assembly(fixed, fail.gen)}")
        lines.append(f"    ({node.fix})")
    else:
        lines.append(f"  no fix:     {v.no_fix}")
    return lines


def predicate_lines(pred: Predicate) -> list[str]:
    from neurondbg.machine.dtypes import Gen
    from neurondbg.machine.isa.opcodes import mnemonic
    from neurondbg.machine.legality.lookup import engines
    from neurondbg.machine.legality.wire.samples import EXAMPLES, example

    ops = ", ".join(f"{mnemonic(c)} (0x{c:02X})" for c in pred.opcodes) or "any other opcode"
    lines = [f"{pred.name}  [wire predicate over {pred.struct}: {ops}]",
             f"  provenance: {pred.provenance} — confidence {pred.provenance.confidence}",
             f"  engines:    {', '.join(engines(pred)) or 'any'}",
             "  clauses:    " + ", ".join(c.name for c in pred.clauses_for(Gen.CAYMAN)
                                          if not c.informational)]
    if pred.name in EXAMPLES:
        lines.append(f"  valid:      {_assembly(example(pred.name), Gen.CAYMAN)}")
    return lines


def nki_lines(name: str, rules: Sequence[NkiRule]) -> list[str]:
    lines: list[str] = []
    for r in rules:
        prov = r.spec.provenance
        lines += [f"{r.spec.name}  [NKI rule of {r.intrinsic}"
                  + (", note" if r.spec.note else "") + "]",
                  f"  rule:       {r.spec.rule}",
                  f"  provenance: {prov} — confidence {prov.confidence}",
                  f"  reads:      {', '.join(r.spec.reads)}",
                  "  check a call with `neurondbg check-nki CALLS.json`"]
    return lines


def explain_text(text: str) -> tuple[list[str], bool]:
    """(report lines, found anything): the console's `explain` prints the same."""
    from neurondbg.machine.legality.lookup import lookup

    found = lookup(text)
    if found.empty:
        return [no_match_line(text, found)], False
    lines: list[str] = []
    shown: set[int] = set()  # sites already explained in full (by a message)
    for hit in found.messages:
        rules = [s.path_text + f" ({s.predicate.name})" for s in hit.sites]
        rules += [f"{r.spec.name} ({r.intrinsic})" for r in hit.nki]
        lines.append(f"message {hit.pattern.text!r} (quoted in {hit.pattern.source}) is "
                     f"raised by: {', '.join(rules)}")
        for s in hit.sites[:MAX_SITES]:
            if id(s) not in shown:
                shown.add(id(s))
                lines += site_lines(s)
        lines += nki_lines(hit.pattern.text, hit.nki)
    for ref in found.documented:
        lines += [f"{ref.name}  [named by {ref.provenance}; not a clause neurondbg checks]",
                  f"  {ref.text}"]
    for query, sites in found.sites.items():
        first = sites[0].predicate  # every operand's clause in the first predicate, in full
        for s in [s for s in sites if s.predicate is first][:MAX_SITES]:
            lines += site_lines(s)
        rest = sorted({s.predicate.name for s in sites if s.predicate is not first})
        if rest:
            lines.append(f"{query!r} also appears in: {', '.join(rest)}")
    for pred in found.predicates:
        lines += predicate_lines(pred)
    for name, nki in found.nki.items():
        lines += nki_lines(name, nki)
    for cl in found.engines:
        engine = cl.name[cl.name.index("(") + 1:-1]
        lines += [f"{cl.name}  [neurondbg clause, added by --engine / the run's queue]",
                  f"  rule:       the {engine} engine's dispatch table holds the opcode "
                  "(SEQ control opcodes run on every engine)",
                  f"  provenance: {cl.provenance} — confidence {cl.provenance.confidence}",
                  "  reads:      header.opcode",
                  "  no field edit fixes it: run the program on an engine that has the opcode"]
    for name in found.intrinsics:
        lines.append(f"{name}  [NKI intrinsic, reference 004]: see `neurondbg check-nki`")
    for name, near in found.unknown.items():
        lines.append(f"{name!r} is not a name the references document"
                     + (f"; nearest known: {', '.join(near)}" if near else ""))
    return lines, True


def no_match_line(text: str, found: Found) -> str:
    """The one line for a text that names no rule and quotes no message: the nearest
    rule names and messages, if any are close."""
    from neurondbg.machine.legality.lookup import nearest_to_text

    near = nearest_to_text(text, found)
    if list(found.unknown) == [text.strip()]:  # one name, nothing else
        return (f"{text.strip()!r} is not a name the references document"
                + (f"; nearest known: {', '.join(near)}" if near else ""))
    shown = text if len(text) <= 60 else text[:57] + "..."
    return (f"no rule matches {shown!r}"
            + (f"; nearest: {', '.join(near)}" if near else
               "; give a clause, predicate or NKI rule name, or a compiler message"))


@click.command("explain")
@click.argument("text", nargs=-1, required=True)
def command(text: tuple[str, ...]) -> None:
    """Explain a clause or predicate name, or a pasted compiler message: the rule, where
    it comes from, and an instruction that fails it, with its fix."""
    joined = " ".join(text).strip()
    if not joined:
        raise InputError("explain: expected a clause or predicate name, or a compiler message")
    lines, found = explain_text(joined)
    for line in lines:
        click.echo(line)
    sys.exit(0 if found else 1)
