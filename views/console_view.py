"""Console: output log and a command line with history (↑/↓) and completion (Tab), and the
thread worker that runs a slow command's work (`run_work`) while the UI stays live."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from rich.text import Text
from textual import events, on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.suggester import SuggestFromList
from textual.widgets import Input, RichLog
from textual.worker import Worker, WorkerState, get_current_worker

from neurondbg.views.kept import KeptPaint

MAX_LINES = 2000  # the console keeps this much output
WORK_GROUP = "console"  # the worker group of a slow command's work


CompleteLine = Callable[[str], Sequence[str]]  # a line -> whole-line candidates


class Output(Protocol):
    """What a slow command's work returns: lines of (text, style)."""

    @property
    def lines(self) -> Sequence[tuple[str, str]]: ...


Work = Callable[[Callable[[], bool]], Output]  # cancelled() -> its output


class CommandSuggester(SuggestFromList):
    """The grey rest of a command word; after one leading `:` too (the console takes
    `:break` as `break`, so the suggestion keeps the colon and any blanks after it)."""

    async def get_suggestion(self, value: str) -> str | None:
        if not value.startswith(":"):
            return await super().get_suggestion(value)
        word = value[1:].lstrip()
        if not word:
            return None
        found = await super().get_suggestion(word)
        return None if found is None else value[:len(value) - len(word)] + found


def complete(prefix: str, words: Sequence[str]) -> str:
    """The longest common extension of `prefix` among `words` (prefix itself if none)."""
    matches = [w for w in words if w.startswith(prefix)]
    if not matches:
        return prefix
    common = matches[0]
    for m in matches[1:]:
        while not m.startswith(common):
            common = common[:-1]
    return common


class ConsoleLog(RichLog, KeptPaint):
    """The console's output (its lines kept between repaints: views.kept)."""


class ConsoleInput(Input, KeptPaint):
    """An Input with command history and Tab completion of the first word."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", "previous", show=False, id="console.prev"),
        Binding("down", "history(1)", "next", show=False, id="console.next"),
        Binding("tab", "complete", "complete", show=False, priority=True, id="console.complete"),
        Binding("escape", "stop_work", "stop", show=False, id="console.stop",
                tooltip="stop the slow command that is running (diagnose)"),
    ]

    def __init__(self, words: Sequence[str], complete_line: CompleteLine | None = None,
                 **kwargs) -> None:
        # select_on_focus off: a prefilled command (e.g. "goto 3 ") is completed, not replaced
        super().__init__(suggester=CommandSuggester(words, case_sensitive=True),
                         select_on_focus=False, **kwargs)
        self.words = list(words)
        self.complete_line = complete_line  # whole-line candidates for an argument
        self.history: list[str] = []
        self._pos = 0

    def remember(self, line: str) -> None:
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self._pos = len(self.history)

    def action_history(self, delta: int) -> None:
        if not self.history:
            return
        self._pos = max(0, min(len(self.history), self._pos + delta))
        self.value = self.history[self._pos] if self._pos < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_stop_work(self) -> None:
        """Esc: stop the console's slow command; with none running, Esc goes on to the
        App's own binding (leave the console)."""
        view = self.parent
        if not (isinstance(view, ConsoleView) and view.cancel_work()):
            raise SkipAction()

    def action_complete(self) -> None:
        if " " in self.value.strip():  # an argument: the command's own completion, if any
            if self.complete_line is not None:
                self.value = complete(self.value, self.complete_line(self.value))
                self.cursor_position = len(self.value)
            return
        typed = self.value.strip()
        colon = ":" if typed.startswith(":") else ""  # `:br` completes as `br` does
        word = complete(typed[len(colon):], self.words)
        self.value = colon + word + (" " if word in self.words else "")
        self.cursor_position = len(self.value)


class ConsoleView(Vertical, KeptPaint):
    """Posts `ConsoleView.Command` for every line entered; `write` adds output.

    RichLog wraps a line once, at the width it has when written; the console keeps
    what it wrote (bounded) and writes it again when its width changes (a resize,
    the compact / wide layouts, a maximised pane), so no line is cut or left narrow.
    """

    DEFAULT_CSS = """
    ConsoleView { height: 1fr; }
    ConsoleView RichLog { height: 1fr; scrollbar-size: 1 1; }
    ConsoleView ConsoleInput { height: 1; border: none; padding: 0; }
    """

    class Command(Message):
        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    def __init__(self, words: Sequence[str] = (), complete_line: CompleteLine | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.messages: list[str] = []  # every line written, unwrapped
        self.words = words
        self.complete_line = complete_line
        self._written: deque[Text] = deque(maxlen=MAX_LINES)  # to re-wrap on a resize
        self._width = 0
        self._work: Worker | None = None  # the slow command's work that runs, if any
        self._work_name = ""

    def compose(self) -> ComposeResult:
        # min_width: RichLog renders at least 78 columns wide by default and then crops
        # to the pane; 20 lets long lines (notes, errors) wrap at the pane's width.
        yield ConsoleLog(id="console-log", wrap=True, markup=False, max_lines=MAX_LINES,
                      min_width=20)
        yield ConsoleInput(self.words, self.complete_line,
                           placeholder="help · step · break pc:0x80 · print R5",
                           compact=True, id="console-input")

    def write(self, text: str | Text, style: str = "") -> None:
        log = self.query_one(RichLog)
        line = Text(text, style=style) if isinstance(text, str) else text
        self.messages.append(line.plain)  # the unwrapped text, for tests and scripts
        del self.messages[:-MAX_LINES]
        self._written.append(line)
        log.write(line)

    # -- a slow command's work (neurondbg.console: Reply.work) ----------------------------
    @property
    def working(self) -> bool:
        """A slow command's work is running."""
        return self._work is not None and not self._work.is_finished

    def run_work(self, line: str, work: Work) -> None:
        """Run `work` (console line `line`'s) in a thread worker: the UI stays live; its
        lines are written when it is done. Esc in the command line (or `cancel_work`) stops it
        at once: "stopped" is written and whatever it still returns is dropped (it sees
        `cancelled()` turn True). One at a time: a new one stops the one running."""
        self.cancel_work()
        self._work_name = line.split()[0] if line.split() else "work"
        self.write(f"{self._work_name}: working… Esc stops", "dim")

        def job() -> Output:
            worker = get_current_worker()
            return work(lambda: worker.is_cancelled)

        self._work = self.run_worker(job, name=line, group=WORK_GROUP, thread=True,
                                     exclusive=True, exit_on_error=False)

    def cancel_work(self) -> bool:
        """Stop the running work, if any (True if there was one)."""
        if not self.working:
            return False
        assert self._work is not None
        self._work.cancel()
        self.write(f"{self._work_name}: stopped", "yellow")
        return True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker is not self._work or worker.is_cancelled:
            return  # a stopped one (its "stopped" is written) or another node's
        if event.state == WorkerState.SUCCESS and worker.result is not None:
            for text, style in worker.result.lines:
                self.write(text, style)
        elif event.state == WorkerState.ERROR:  # the work contains its errors: a bug here
            self.write(f"error: {self._work_name}: internal error: {worker.error!r}",
                       "bold red")

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if width and self._width and width != self._width:
            log = self.query_one(RichLog)
            log.clear()
            for line in self._written:
                log.write(line)
            log.scroll_end(animate=False)
        if width:
            self._width = width

    @on(Input.Submitted, "#console-input")
    def _submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        box = self.query_one(ConsoleInput)
        box.remember(line)
        box.value = ""
        if line:
            self.write(Text(f"> {line}", style="bold"))
            self.post_message(self.Command(line))
