"""The console's `explain TEXT`: the same report as `neurondbg explain TEXT`.

Declared with `@REGISTRY.command` like every console command; it is active once
neurondbg.console imports this module (`from neurondbg import console_explain  # noqa:
F401`, after REGISTRY is defined). Needs no program: it explains names, not state.
The legality tables load when it runs, not with its declaration (the App's
first frame reads the declarations).
"""

from __future__ import annotations

from neurondbg.console import REGISTRY, Reply
from neurondbg.registry import Arg, Args, Session, text

TEXT = Arg("TEXT", "a clause or predicate name, or a compiler message", text,
           missing="expected a clause or predicate name, or a compiler message: explain TEXT")


@REGISTRY.command("explain", "what a clause / predicate name or a compiler message means: the "
                  "rule, its provenance, an instruction that fails it and its fix",
                  args=(TEXT,), needs_program=False)
def _explain(session: Session, args: Args) -> Reply:
    from neurondbg.commands.explain import explain_text

    lines, found = explain_text(args[TEXT])
    reply = Reply()
    for line in lines:
        style = "" if found else "yellow"
        reply.say(line, "bold" if line and not line.startswith(" ") and found else style)
    return reply
