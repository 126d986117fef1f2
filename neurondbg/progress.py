"""The one progress bar of long command-line work: `run`, `validate`,
`replay`, `diagnose` and large `asm`.

    with progress(total, "run spin.asm", "steps", poll=lambda: m.state.steps) as advance:
        ...                      # or call advance(n) as work gets done
    with counted("replay t.jsonl", "steps") as report:
        replay(..., progress=report)   # work that reports (done, total) itself

A bar is drawn on stderr only when stderr is a terminal (or a `console` is given, which
tests use to force it); piped, the block runs with a no-op `advance` and prints nothing.

Decisions where the specification is silent (as cargo / pip / tqdm do it):
- The bar appears only after DELAY seconds, so a quick command prints nothing extra,
  and it is transient: when the work ends it is erased, so what stays on the terminal
  is exactly what a piped run prints.
- All drawing happens on one ticker thread, at most every REFRESH seconds (10 a
  second). `advance(n)` only adds to a counter, and `poll` (a function returning the
  count done, e.g. a machine's step counter) is read by the ticker: the loops doing the
  work pay nothing for the bar.
- `total=None` draws a pulse (work of unknown length, e.g. a run that stops when the
  program halts); `unit=""` shows no count at all, only the pulse and the elapsed
  time, for work that reports no progress of its own.
- `counted` is for work that learns its total as it goes and reports (done, total)
  through a callback (`assemble`, `replay`: the `progress` parameter of the library):
  until the first report it is a pulse with the elapsed time and no count (not
  `0/?`), then a bar counting `unit` with the time remaining. `report` only stores
  the pair (one reference, so the ticker never sees a done from one report with the
  total of another).
- A block that writes to stdout while it runs (`prints=True`, e.g. `validate --json`'s
  rows) gets a bar only when stdout is not the same terminal: there the output itself
  shows the progress, and a bar redrawn under it would tangle with it.
- Nothing here changes Ctrl+C: the bar is erased when the block ends, whether it ends
  normally, by the first Ctrl+C's clean stop or by the second one's KeyboardInterrupt
  (a Ctrl+C while the bar is being erased waits for the erase: `_Ticker.finish`).
- A terminal whose locale is not UTF-8 (`LANG=C`) gets a bar in ASCII
  (neurondbg.progress_ascii).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sized
from contextlib import contextmanager
from types import FrameType
from typing import IO, TYPE_CHECKING, TypeVar, cast

from neurondbg.progress_ascii import AsciiFile, ascii_bar, locale_is_utf8

if TYPE_CHECKING:  # rich is imported only when a bar is drawn (`--help` stays light)
    from rich.console import Console, RenderableType
    from rich.progress import ProgressColumn, Task

DELAY = 0.3  # seconds of work before a bar appears
REFRESH = 0.1  # seconds between redraws: at most 10 a second
FINISH_S = 5.0  # the most the end of a block waits for the bar to be erased

Advance = Callable[[int], None]
Report = Callable[[int, int], None]  # (done, total), the library's `progress` callback
S = TypeVar("S", bound=Sized)


def _ignore(n: int = 1) -> None:
    """The `advance` of a block without a bar."""


def _ignore_report(done: int, total: int) -> None:
    """The `report` of a block without a bar."""


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def stderr_is_terminal() -> bool:
    """Whether a bar may be drawn: stderr is a terminal (never when piped or captured)."""
    return _is_terminal(sys.stderr)


def stderr_console() -> Console:
    """The console a bar is drawn on when none is given: stderr's, passing on only ASCII
    when the locale is not UTF-8 (neurondbg.progress_ascii)."""
    from rich.console import Console

    if locale_is_utf8(os.environ, sys.flags.utf8_mode):
        return Console(stderr=True)
    # rich types `file` as IO[str]; it calls only the write, flush, isatty and fileno
    # (and reads the encoding) an AsciiFile has
    return Console(file=cast(IO[str], AsciiFile(sys.stderr)))


@contextmanager
def progress(total: int | None, label: str, unit: str = "", *,
             poll: Callable[[], int] | None = None, prints: bool = False,
             console: Console | None = None) -> Iterator[Advance]:
    """A bar `label` counting `unit` up to `total` while the block runs; yields
    `advance(n)`. `poll` (instead of advance) is read for the count done. A no-op
    unless `console` is given or stderr is a terminal, and, for a block that `prints`
    to stdout, stdout is not one (module docstring)."""
    if console is None and (not stderr_is_terminal()
                            or (prints and _is_terminal(sys.stdout))):
        yield _ignore
        return
    done = [0]

    def advance(n: int = 1) -> None:
        done[0] += n

    read = poll or (lambda: done[0])
    with _ticking(_Ticker(label, unit, lambda: (read(), total), console)):
        yield advance


def counting(blocks: Iterable[S], advance: Advance) -> Iterator[S]:
    """`blocks` unchanged, each counted (`advance(len(block))`) when its consumer asks
    for the next one or ends: a block is counted once it has been worked on, not when
    it is handed out (validate's blocks of records)."""
    done = 0
    for block in blocks:
        if done:
            advance(done)
        yield block
        done = len(block)
    if done:
        advance(done)


@contextmanager
def counted(label: str, unit: str, *, console: Console | None = None) -> Iterator[Report]:
    """A bar `label` counting `unit` as the block's work reports (done, total) through
    the `report` it yields (module docstring); a no-op unless `console` is given or
    stderr is a terminal."""
    if console is None and not stderr_is_terminal():
        yield _ignore_report
        return
    latest: list[tuple[int, int | None]] = [(0, None)]

    def report(done: int, total: int) -> None:
        latest[0] = (done, total)

    with _ticking(_Ticker(label, unit, lambda: latest[0], console, counted=True)):
        yield report


@contextmanager
def _ticking(ticker: _Ticker) -> Iterator[None]:
    """Run `ticker` while the block runs; the bar is gone when it ends, however."""
    ticker.prepare()
    ticker.start()
    try:
        yield
    finally:
        ticker.finish()


class _Ticker(threading.Thread):
    """Draws and redraws the bar until `finish`; the only thread that touches rich."""

    def __init__(self, label: str, unit: str, read: Callable[[], tuple[int, int | None]],
                 console: Console | None, counted: bool = False) -> None:
        super().__init__(name="neurondbg-progress", daemon=True)
        self.label, self.unit, self.read = label, unit, read  # read: (done, total)
        self.console = console
        self.counted = counted  # the total comes with the reports (`counted`)
        self.stopping = threading.Event()

    def prepare(self) -> None:
        """Import rich on the calling thread, before the work starts.
        Imported by this thread while the work runs, every file read of the import hands
        the GIL to the busy thread for a switch interval (5 ms): the bar of a 1M-line
        `asm` came 0.65 s late, after the work, and a Ctrl+C sent on seeing it landed
        after the work too. Costs ~45 ms, only where a bar can be drawn (a terminal)."""
        import rich.progress  # noqa: F401  (run's imports are then look-ups)

    def finish(self) -> None:
        """Stop the ticker and wait (up to FINISH_S) until it has erased the bar.

        A Ctrl+C meanwhile (the second of a double Ctrl+C, pressed as the first one's
        stop ends the work) is held until the bar is gone, then handled as it would have
        been: raised in `Event.set` or `join`, it could leave the ticker's lock taken or
        the process exiting with the bar's line still on the terminal."""
        held: list[int] = []
        previous = _hold_sigint(held)
        try:
            self.stopping.set()
            # it wakes at once and erases the bar before the command prints its result;
            # the bound only keeps a terminal that blocks writes from hanging the exit
            self.join(timeout=FINISH_S)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if held and callable(previous):
            previous(signal.SIGINT, None)  # default_int_handler: KeyboardInterrupt
        elif held:
            raise KeyboardInterrupt

    def run(self) -> None:
        if self.stopping.wait(DELAY):
            return  # quick work: no bar at all
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        total = self.read()[1]
        console = self.console or stderr_console()
        ascii_only = not console.encoding.startswith("utf")
        columns: list[ProgressColumn] = [SpinnerColumn("line" if ascii_only else "dots"),
                         TextColumn("{task.description}"),
                         ascii_bar() if ascii_only else BarColumn()]
        counts: list[ProgressColumn] = []
        if self.unit:
            counts += [MofNCompleteColumn(), TextColumn(self.unit)]
        if self.counted:  # no count until the work has said how much there is
            columns += [_when_total(c) for c in counts]
            columns += [TimeElapsedColumn(), _when_total(TimeRemainingColumn())]
        else:
            columns += counts
            columns.append(TimeElapsedColumn())
            if self.unit and total is not None:
                columns.append(TimeRemainingColumn())
        # stdout/stderr are not redirected: the work's own output comes after the block
        with Progress(*columns, console=console, transient=True, auto_refresh=False,
                      redirect_stdout=False, redirect_stderr=False) as bar:
            task = bar.add_task(self.label, total=total)
            while True:
                done, total = self.read()
                bar.update(task, completed=done if self.unit else 0, total=total)
                bar.refresh()
                if self.stopping.wait(REFRESH):
                    break


# what signal.signal returns: a Python handler, SIG_DFL / SIG_IGN, or None (not set in Python)
PreviousHandler = Callable[[int, FrameType | None], object] | int | None


def _hold_sigint(held: list[int]) -> PreviousHandler:
    """On the main thread, a SIGINT handler that only records the signal in `held`;
    returns the handler it replaced (None elsewhere: signals go to the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))


def _when_total(column: ProgressColumn) -> ProgressColumn:
    """`column`, drawn only once the task has a total (blank before: a pulse)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class WhenTotal(ProgressColumn):
        def render(self, task: Task) -> RenderableType:
            return column.render(task) if task.total is not None else Text("")

    return WhenTotal()
