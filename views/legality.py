"""Legality: the predicate as a tree, failing clauses first, with message,
provenance and fix hint; the NKI-intrinsic verdict beside it where one applies.

Lines are wrapped to the pane's width (continuations indented under their
clause), so no message, provenance or fix is ever cut off.

`F` applies the checked fix of the instruction shown (the one at the PC; on a kernel,
the focused engine's) to the program in memory (the session's `apply_fix`: journaled,
`r` undoes it, a saved session keeps it) and says in the console what changed, or why
there is no fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from rich.console import Console
from rich.text import Text
from textual.binding import Binding, BindingType

from neurondbg.debug.snapshot import Snapshot
from neurondbg.views.lineview import LineView

if TYPE_CHECKING:
    from neurondbg.debug.controller import DebugSession
    from neurondbg.machine.legality.result import ClauseResult, Verdict

CONF_STYLE = {"HIGH": "green", "MED": "yellow", "LOW": "red"}
INDENT = 5  # continuation lines start under the clause's message
# Verdict texts kept for verdicts shown again: a loop's records come round every few steps
# and a kernel's core step moves the focus to another engine's instruction each step.
TEXTS_KEPT = 32


def wrap_lines(lines: list[Text], width: int, console: Console) -> list[Text]:
    """Each line wrapped to `width` cells; continuation lines indented by INDENT."""
    out: list[Text] = []
    for line in lines:
        if line.cell_len <= width or width <= INDENT + 10:
            out.append(line)
            continue
        parts = line.wrap(console, width - INDENT)
        out.append(parts[0])
        out += [Text(" " * INDENT) + part for part in parts[1:]]
    return out


def _detail(c: ClauseResult, pad: str) -> list[Text]:
    """Message, fix and provenance of a failing clause, under its name."""
    lines = [Text(f"{pad}  {c.message}")]
    if c.fix:
        checked = "  (checked)" if c.fix_fields is not None else ""
        lines.append(Text.assemble(f"{pad}  fix: ", (c.fix, "cyan"), (checked, "dim cyan")))
    prov = c.provenance
    lines.append(Text.assemble(f"{pad}  ", (f"{prov}", CONF_STYLE.get(prov.confidence, "dim")),
                               (f"  reads {', '.join(c.fields)}" if c.fields else "", "dim")))
    return lines


def _passing(c: ClauseResult, depth: int, expand: bool) -> list[Text]:
    pad = " " * (1 + 2 * depth)
    n = len(c.children)
    more = "" if expand or not n else f"  ▸ {n} sub-clause" + ("s" if n > 1 else "")
    lines = [Text.assemble(f"{pad}✓ ", (c.name, "green"), (f"  {c.message}", "dim"),
                           (more, "dim"))]
    if expand:
        for child in c.children:
            lines += _passing(child, depth + 1, expand)
    return lines


def clause_lines(c: ClauseResult, depth: int = 0, expand: bool = False) -> list[Text]:
    """One clause as tree lines: a failing one in full, its failing sub-clauses expanded
    below it and its passing ones folded into one line (all shown with `expand`)."""
    if c.passed:
        return _passing(c, depth, expand)
    pad = " " * (1 + 2 * depth)
    mark, style = ("✗", "bold red") if not c.note else ("!", "bold yellow")
    lines = [Text.assemble(f"{pad}{mark} ", (c.name, style)), *_detail(c, pad + "  ")]
    ok = [ch for ch in c.children if ch.passed]
    for child in c.children:
        if not child.passed or expand:
            lines += clause_lines(child, depth + 1, expand)
    if ok and not expand:
        names = ", ".join(ch.name for ch in ok)
        # "·", not "✓": the folded line belongs to the failing branch above it
        lines.append(Text(f"{pad}  · {len(ok)} more pass: {names}", style="dim green"))
    return lines


def verdict_lines(verdict: Verdict | None, title: str, expand: bool = False) -> list[Text]:
    """A verdict as a tree: header, the checked fix, failing clauses in full (their
    sub-clauses below them), then the passing ones."""
    if verdict is None:
        return []
    clauses = list(verdict.clauses)
    failed = [c for c in clauses if not c.passed and not c.note]
    notes = [c for c in clauses if not c.passed and c.note]
    passed = [c for c in clauses if c.passed]
    ok = not failed
    lines = [Text.assemble((f"{title} ", "dim"), (verdict.predicate, "bold"), "  ",
                           ("VALID" if ok else "INVALID", "bold green" if ok else "bold red"),
                           (f"  {len(failed)} of {len(clauses)} clauses fail", "dim"))]
    if verdict.fix_fields is not None:
        from neurondbg.machine.legality.wire.repair import describe
        lines.append(Text.assemble("  fix (checked: the whole predicate passes): ",
                                   (describe(verdict.fix_fields), "cyan")))
    elif verdict.no_fix:
        lines.append(Text.assemble("  no fix: ", (verdict.no_fix, "yellow")))
    for c in failed + notes:
        lines += clause_lines(c, 0, expand)
    for c in passed:
        lines += clause_lines(c, 0, expand)
    return lines


@runtime_checkable
class FixHost(Protocol):
    """What `F` needs of the App (neurondbg.app's has it): the loaded session, whether a
    worker is using it, the console and a repaint of every pane."""

    @property
    def session(self) -> DebugSession | None: ...

    running: bool
    loading: bool

    def say(self, text: str | Text, style: str = "") -> None: ...

    def refresh_views(self) -> None: ...


def apply_fix(host: FixHost) -> None:
    """Apply the fix of the record at the PC through the host's session, then repaint;
    the outcome (or why nothing was done) is one console line."""
    session = host.session
    if host.running or host.loading or session is None:
        host.say("fix: " + ("running: Esc or Ctrl+C stops it first" if host.running else
                            "no program loaded"), "yellow")
        return
    try:
        text = session.apply_fix()
    except ValueError as e:
        host.say(f"error: {e}", "bold red")
        return
    host.say(text)
    host.refresh_views()


@dataclass
class VerdictText:
    """The text of one pair of verdicts as shown (held: the pair is compared with `is`)."""

    verdicts: tuple[Verdict | None, Verdict | None]
    expand: bool
    logical: list[Text]  # one per message
    lines: list[Text]  # wrapped to `width`
    width: int
    version: int  # the key of its cached lines


class LegalityView(LineView):
    """Wire-level verdict, then the NKI-level one; the two compared. The clause tree is
    collapsed to the failing branches; `a` shows all the sub-clauses, `F` applies the fix.

    Decided: `a`, not `e`, since `e` focuses the next engine on the
    kernel screen and a key means one thing per screen (tests/ui/test_keys_and_suggestions).

    The text is rebuilt when the verdict objects differ (`is`, on the objects held, never
    id(): a freed verdict's id can be a new one's) and on `a` or a new width; its cached
    lines are keyed by a version counter bumped on each rebuild. The texts of the last
    TEXTS_KEPT verdict pairs are kept with their versions: a verdict shown again (a loop's
    records, a kernel's engines taking turns) is not rebuilt, rewrapped nor redrawn."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "toggle_expand", "all clauses", id="legality.expand",
                tooltip="the failing branches of the clause tree / every sub-clause"),
        Binding("F", "apply_fix", "apply fix", id="legality.fix",
                tooltip="apply the checked fix to the instruction at the PC (r undoes it)"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.expand = False  # every sub-clause, not only the failing branches
        self._snap: Snapshot | None = None
        self.lines: list[Text] = []  # as shown: wrapped to the width
        self.logical: list[Text] = []  # one per message, before wrapping
        self._wrapped_at = 0
        # The verdict objects shown, held so that `is` compares live objects (an id() of a
        # freed verdict can be reused by a new one); None: nothing shown, or redraw.
        self._shown: tuple[Verdict | None, Verdict | None] | None = None
        self._version = 0  # the text shown's: the key of its cached lines
        # the newest version given: a new text takes the next (the shown one may be a kept
        # text's older version, and its successor another kept text's)
        self._versions = 0
        self._texts: list[VerdictText] = []  # newest last
        self._widest = (-1, 0)  # (version, its widest line's cells)

    def action_apply_fix(self) -> None:
        if isinstance(self.app, FixHost):  # an App without a session has nothing to fix
            apply_fix(self.app)

    def action_toggle_expand(self) -> None:
        self.expand = not self.expand
        if self._snap is not None:
            self._shown = None
            self.show(self._snap)

    def show(self, snap: Snapshot) -> None:
        self._snap = snap
        shown = (snap.verdict, snap.nki_verdict)
        if snap.verdict is not None and self._shown is not None and all(
                a is b for a, b in zip(shown, self._shown, strict=True)):
            return  # the same verdict objects (a record's are cached): nothing to repaint
        self._shown = shown
        kept = self._kept(shown) if snap.verdict is not None else None
        before = self.on_screen()  # repaint only the lines that differ (update_size)
        if kept is not None:
            self.logical = kept.logical
            if kept.width == self.wrap_width():
                self.lines, self._version = kept.lines, kept.version
                self._wrapped_at = kept.width
                self.update_size(before)
            else:  # kept at another width: wrapped again, kept at this one
                self._wrap(before)
                kept.lines, kept.width, kept.version = self.lines, self._wrapped_at, \
                    self._version
        else:
            self.logical = self._build(snap)
            self._wrap(before)
            if snap.verdict is not None:
                self._texts.append(VerdictText(shown, self.expand, self.logical, self.lines,
                                               self._wrapped_at, self._version))
                del self._texts[:-TEXTS_KEPT]
        # a new verdict is a new text: read from its first line, the cursor there too (it
        # was left where it was, off screen once the view scrolled back to the top)
        self.cursor = 0
        if self.scroll_y:  # (scroll_to at the top still walks the scroll machinery)
            self.scroll_to(y=0, animate=False)

    def _kept(self, shown: tuple[Verdict | None, Verdict | None]) -> VerdictText | None:
        """The kept text of these verdict objects in the current `a` form, or None."""
        for kept in self._texts:
            if kept.expand == self.expand and all(
                    a is b for a, b in zip(shown, kept.verdicts, strict=True)):
                return kept
        return None

    def _build(self, snap: Snapshot) -> list[Text]:
        """The logical lines (one per message) of the snapshot's verdicts."""
        lines: list[Text] = []
        if snap.verdict is None:
            lines.append(Text("no instruction at the PC" if snap.instruction is None else
                              "no legality verdict for this instruction", style="dim"))
        else:
            lines += verdict_lines(snap.verdict, "wire", self.expand)
        if snap.nki_verdict is not None:
            lines.append(Text(""))
            lines += verdict_lines(snap.nki_verdict, "NKI ", self.expand)
            # The NKI verdict judges only the arguments the fields decide, so a wire failure
            # with an NKI pass is expected; the reverse is a real difference of the levels.
            if snap.verdict is not None and snap.verdict.valid and not snap.nki_verdict.valid:
                lines.append(Text("  ⚠ the NKI level refuses what the wire level accepts",
                                  style="bold yellow"))
        for d in snap.disagreements:
            lines.append(Text.assemble(("  ⚠ wire vs NKI: ", "bold yellow"), (d.topic, "bold")))
            lines.append(Text(f"     wire: {d.wire}"))
            lines.append(Text(f"     NKI:  {d.nki}"))
            lines.append(Text("     " + "; ".join(str(p) for p in d.provenance), style="dim"))
        return lines

    def wrap_width(self) -> int:
        """Cells per line: the pane's width less the scrollbar (78 before the first layout)."""
        return max(20, (self.size.width or 80) - 2)

    def _wrap(self, before: dict[int, object] | None = None) -> None:
        self._wrapped_at = self.wrap_width()
        self.lines = wrap_lines(self.logical, self._wrapped_at, self.app.console)
        self._versions += 1  # new lines (a new verdict, `a`, a new width): new keys
        self._version = self._versions
        self.update_size(before)

    def on_resize(self) -> None:
        if self.logical and self.wrap_width() != self._wrapped_at:
            self._wrap()

    def line_count(self) -> int:
        return len(self.lines)

    def content_width(self) -> int:
        if self._widest[0] != self._version:  # measured once a text (the version names it)
            self._widest = (self._version, max((t.cell_len for t in self.lines), default=0))
        return self._widest[1]

    def line_key(self, index: int) -> tuple[int, int]:
        return (self._version, index)

    def line_text(self, index: int) -> Text:
        return self.lines[index]

    def line_ident(self, index: int) -> object:
        return self.lines[index]
