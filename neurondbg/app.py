"""The Textual application: the debugger layout, or the Convert Lab alone.

`NeurondbgApp(program, gen=..., engine=...)` opens a program (the bundled demo
when none is given) in the debugger layout; `NeurondbgApp(lab_only=True)`
opens just the Convert Lab. Widgets send messages up; the App drives the
model (debug.session.Session: a program or a kernel on a Core) and pushes one Snapshot
down after every stop.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import App, SystemCommand
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input

from neurondbg import console
from neurondbg.console import REGISTRY, Action
from neurondbg.debug.snapshot import Snapshot
from neurondbg.machine.dtypes import DEFAULT_GEN, Gen
from neurondbg.machine.words import counted
from neurondbg.panes import PANES, Layout
from neurondbg.screens.main import DebuggerScreen
from neurondbg.views.console_view import ConsoleView
from neurondbg.views.pane import Pane
from neurondbg.views.program import ProgramView

if TYPE_CHECKING:  # the model, the palette and the numpy views load after the first frame
    from neurondbg.debug.session import Session
    from neurondbg.palette import Entry
    from neurondbg.views.lanes import LaneTable
    from neurondbg.views.memory import MemoryView
    from neurondbg.views.races import RacesView
    from neurondbg.views.timeline import TimelineView

CSS_FILE = Path(str(resources.files("neurondbg.views").joinpath("neurondbg.tcss")))  # package data


def throttled(report: Callable[[int, int], None],
              every: float = 0.05) -> Callable[[int, int], None]:
    """`report(done, total)` at most once per `every` seconds: the model may call a
    progress hook thousands of times a second, and each report is a UI callback."""
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last >= every:
            last = now
            report(done, total)

    return progress


def _is_kernel(path: str | Path) -> bool:
    """A kernel source or kernel session (an unreadable path is not: the loader then
    says why it cannot open it)."""
    from neurondbg.sessions.kernel_kind import opens_as_kernel  # not the core session's model

    return opens_as_kernel(path)


def _looks_like_kernel(path: str | Path) -> bool:
    """`_is_kernel`'s quick guess, before the first frame: it reads no file fully and
    imports neither numpy nor the assembler (sessions.kernel_kind.looks_like_kernel)."""
    from neurondbg.sessions.kernel_kind import looks_like_kernel

    return looks_like_kernel(path)


def _open_session(path: str | Path | None, gen: Any, engine: str,
                  **options: Any) -> Session:
    from neurondbg.debug.session import Session  # imported by the load worker, not before the frame

    return Session(path, gen, engine, **options)


def _palette_commands() -> type[Provider]:
    """The palette's own provider, imported when the palette first opens."""
    from neurondbg.palette import DynamicCommands

    return DynamicCommands


class NeurondbgApp(App[None]):
    """neurondbg's terminal UI."""

    TITLE = "neurondbg"
    ALLOW_IN_MAXIMIZED_VIEW = "KeyFooter"  # the screens' footer (views.chrome)
    position_is_work: ClassVar[bool] = True  # steps taken count as unsaved work (see q)
    CSS_PATH = CSS_FILE
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = \
        App.COMMANDS | {_palette_commands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "step", "step", id="app.step", tooltip="step one instruction"),
        Binding("c", "continue", "continue", id="app.continue",
                tooltip="continue to the next stop (off the UI thread)"),
        Binding("r", "reverse", "reverse", id="app.reverse",
                tooltip="reverse-step: undo one step exactly"),
        Binding("b", "breakpoint", "break", id="app.break",
                tooltip="toggle a breakpoint at the Program cursor"),
        Binding("z", "zoom", "max/restore", id="app.zoom",
                tooltip="maximise / restore the focused pane"),
        Binding("L", "lab", "lab", id="app.lab", tooltip="open the Convert Lab"),
        Binding("colon", "console", "console", show=False, priority=True, id="app.console",
                tooltip="type a command in the console"),
        Binding("escape", "stop", "stop", show=False, id="app.stop",
                tooltip="stop a run, reverse or load; leave the console; restore a pane"),
        Binding("ctrl+c", "stop", "stop", show=False, priority=True, id="app.interrupt"),
        Binding("question_mark", "help", "help", id="app.help", tooltip="this help"),
        Binding("q", "quit", "quit", id="app.quit",
                tooltip="quit (asks first when there is unsaved work)"),
    ]

    def __init__(self, program: str | Path | None = None, gen: str | Gen = DEFAULT_GEN,
                 engine: str = "pool", lab_only: bool = False,
                 subgraph: str | None = None,
                 inputs: Sequence[tuple[str, Path]] = ()) -> None:
        super().__init__()
        self.subgraph = subgraph  # a NEFF's (sessions.neff_open), else its first with work
        self.inputs = tuple(inputs)  # a NEFF's input tensors: (name, .npy path)
        self.program_path = program
        self.gen = gen
        self.engine = engine
        self.lab_only = lab_only
        self.session: Session | None = None
        self.load_error: str | None = None
        self.running = False
        self.loading = False
        self._load_interrupt = threading.Event()  # set by Esc / Ctrl+C while loading
        # Set once the first load's worker has started (never, in the Lab alone): until
        # then `wait_loaded` waits, even before the debugger screen is mounted.
        self._load_started = asyncio.Event()
        if lab_only:
            self._load_started.set()
        self._ticker: Timer | None = None  # the status line of a `step N`
        self._note: Any = None
        self._saved_mark: tuple[Any, ...] | None = None  # the work as last loaded or saved
        self._quit_pending = False  # q during long work: quit (or ask) once it has stopped
        self.recent: list[str] = []  # files opened in this run, newest first (the palette)
        self._opening: str | Path | None = None  # the path the load worker is opening
        # A kernel (several engine queues) gets the core layout; decided at start: the
        # window keeps its layout, so `open` of the other kind says so (_load_worker).
        # A quick guess here (the first frame must not wait for an assembly); the first
        # load checks it and changes the layout when it was wrong (_relayout).
        self.core_mode = program is not None and _looks_like_kernel(program)
        self._race_shown: object = None  # the race stop whose overlap the SBUF pane shows

    def get_default_screen(self) -> Screen[None]:
        if self.lab_only:
            from neurondbg.screens.lab import LabScreen  # imported on demand: a faster start

            return LabScreen(closable=False)
        return self._debugger_screen(self.debugger_ready)

    def _debugger_screen(self, on_ready: Callable[[], None]) -> DebuggerScreen:
        return DebuggerScreen(Layout.KERNEL if self.core_mode else Layout.PROGRAM,
                              REGISTRY.names,
                              lambda line: REGISTRY.completions(line, self.session),
                              on_ready=on_ready)

    def _greet(self) -> None:
        self.say("neurondbg: s step · c continue · r reverse · b break · ? help · "
                 "Ctrl+P palette; type `help` here", "dim")

    def _relayout(self, kernel: bool) -> AwaitComplete:
        """The first load found the other kind than App() guessed: a debugger screen of
        that layout replaces the one shown (the screens opened above it while it was
        loading go first). Awaiting the result waits until it is mounted."""
        self.core_mode = kernel
        while len(self.screen_stack) > 1 and not isinstance(self.screen, DebuggerScreen):
            self.pop_screen()

        def ready() -> None:
            self._greet()
            self._status(f"loading {self.program_path}… Esc stops")
            screen.build_views()

        screen = self._debugger_screen(ready)
        # Two Textual internals (8.x; tests/ui/test_layout_guess.py holds them): the
        # default screen has no result callback for switch_screen to pop, and the App's
        # own queries (self.query_one) search the screen it composed first.
        first = self.screen
        if not first._result_callbacks:
            first._push_result_callback(first, None)
        switched = self.switch_screen(screen)
        self._compose_screen = screen
        return switched

    def debugger_ready(self) -> None:
        """Called by DebuggerScreen.on_mount: the panes exist; load the program off the UI
        thread (assembling and validating a large file must not freeze the first frame)."""
        self._greet()
        self.open_program(self.program_path, first=True)

    def open_program(self, path: str | Path | None, first: bool = False) -> None:
        """Load a program or session file in a worker, with progress while a session
        replays to its saved step; Esc / Ctrl+C stops it. On error (or stop) the console
        says why and the current session (if any) stays."""
        self.loading = True
        self._opening = path
        self._load_interrupt = threading.Event()
        self._status(f"loading {path or 'the demo program'}… Esc stops")
        if not first:
            self._load_worker(path, first, self._load_interrupt)
            return
        # The first load starts once the first frame is painted: its imports (numpy, the
        # model) and its assembly would otherwise compete with composing that frame for
        # the interpreter, and the frame needs none of them (the panes say "loading").
        self._load_started.clear()
        self.call_after_refresh(self._start_first_load, path, self._load_interrupt)

    def _start_first_load(self, path: str | Path | None, interrupt: threading.Event) -> None:
        # The views that import numpy are built now, before the load (views.deferred)
        if (screen := self._debugger()) is not None:
            screen.build_views()
        self._load_started.set()
        self._load_worker(path, True, interrupt)

    @work(thread=True, exclusive=True, group="load")
    def _load_worker(self, path: str | Path | None, first: bool,
                     interrupt: threading.Event) -> None:
        name = Path(path).name if path is not None else "the demo"

        def progress(done: int, total: int) -> None:
            share = f" ({100 * done / total:.1f}%)" if total else ""
            self.call_from_thread(self._status, f"loading {name}: replaying step "
                                  f"{done:,} of {total:,}{share} · Esc stops")

        try:
            kernel = path is not None and _is_kernel(path)
            if first and kernel != self.core_mode:
                self.call_from_thread(self._relayout, kernel)  # App() guessed wrong
            if path is not None and kernel != self.core_mode:
                raise ValueError(f"{path}: {'not ' if self.core_mode else ''}a kernel: this "
                                 f"window shows {'a kernel' if self.core_mode else 'one program'}"
                                 f"; open it with `neurondbg tui {path}`")
            extra: dict[str, object] = {}
            if self.core_mode and self.subgraph:
                extra["subgraph"] = self.subgraph
            if self.core_mode and self.inputs and path == self.program_path:
                extra["inputs"] = self.inputs  # the command line's, for its own NEFF
            session = _open_session(path, self.gen, self.engine,
                                    progress=throttled(progress), interrupt=interrupt, **extra)
            error = None
        except (ValueError, OSError) as exc:  # shown in the console, not a traceback
            session, error = None, str(exc)
        except Exception as exc:  # containment boundary: a loader bug is a console line
            self.log.error(traceback.format_exc())
            session, error = None, f"{path or name}: cannot load: {type(exc).__name__}: {exc}"
        self.call_from_thread(self._load_done, session, error, first)

    def _load_done(self, session: Session | None, error: str | None, first: bool) -> None:
        self.loading = False
        if self._quit_pending:
            self._quit_pending = False
            self.call_later(self.action_quit)
        if session is None:
            if first:
                self.load_error = error
                self._loaded()
            else:
                self.say(f"error: {error}", "bold red")
                self.refresh_views()
            return
        # An Esc that came as the load finished stopped nothing: the new session's event
        # (the load's own) must not stop its first command.
        session.interrupt.clear()
        self.session, self.load_error = session, None
        if self._opening is not None:
            from neurondbg.palette import RECENT_MAX

            opened = str(self._opening)
            self.recent = [opened, *(p for p in self.recent if p != opened)][:RECENT_MAX]
        self._mark_saved()
        self._loaded()

    async def wait_loaded(self) -> None:
        """Wait until the first load (and any later load or run) has finished: for tests
        and scripts. Called right after the App starts, it waits for the first load too
        (before, it returned at once when called before the screen was mounted, and keys
        pressed next were refused as "loading")."""
        await self._load_started.wait()
        await self.workers.wait_for_complete()

    def _loaded(self) -> None:
        """After a program or session is (re)loaded: views, warnings, layout, tour note."""
        self._note = None
        self.refresh_views()
        if self.load_error:
            self.say(f"error: {self.load_error}", "bold red")
            return
        session = self.session
        assert session is not None
        # The file name, not the path: the screen (and its snapshots) must not depend on
        # where the checkout lives.
        if self.core_mode:
            engines = session.engines
            self.say(f"loaded kernel {session.path.name} ({len(engines)} engines: "
                     f"{', '.join(engines)}; {session.gen.label}); S steps the core, s the "
                     "focused engine, e focuses the next", "green")
        else:
            self.say(f"loaded {session.path.name} ({len(session.lines)} records, "
                     f"{session.gen.label}, {session.engine})", "green")
        for w in session.warnings:
            self.say(f"warning: {w}", "yellow")
        focus = session.layout.get("focus")
        typing = self.focused is not None and self.focused.id == "console-input"
        if typing:  # `open` / `load` typed in the console: keep typing there
            return
        if focus in self._panes() and focus != "console":
            widget = self.query_one(f"#{focus}")
            target = widget if widget.focusable else next(
                (w for w in widget.query("*") if w.focusable), widget)
            target.focus()
        else:
            self.query_one(ProgramView).focus()


    # -- model -> views ----------------------------------------------------------
    def snapshot(self) -> Snapshot:
        if self.session is None:
            return Snapshot(stop=f"error: {self.load_error}" if self.load_error else "loading…")
        return self.session.snapshot()

    def refresh_views(self) -> None:
        screen = self._debugger()
        if screen is None:
            return
        snap = self.snapshot()
        screen.show(snap)  # each pane inside views.pane.contain
        self._show_note()
        self._show_race(snap)

    def _show_race(self, snap: Snapshot) -> None:
        """After a race stop, scroll the SBUF pane to the overlap (highlighted) once."""
        races = snap.races
        stop = self.session.last_stop if self.session is not None else None
        if races and stop is not self._race_shown:
            self._race_shown = stop
            r = races[0]
            self._memory().goto(r.partitions[0], r.bytes[0], r.space)
            for n, race in enumerate(races, start=1):  # the two listing lines, in full
                self.say(f"race #{n}: {race.text}", "bold red")
                self.say(f"  1st {race.a_line}: {race.a_listing}")
                self.say(f"  2nd {race.b_line}: {race.b_listing}")
                self.say(f"  fix: {race.missing}", "yellow")

    def _show_note(self) -> None:
        """A tour's note for the current step, printed once when it changes."""
        note = self.session.note() if self.session is not None else None
        if note is not None and note is not self._note:
            self._note = note
            self.say(Text.assemble(("▌ ", "bold magenta"), (note.title or "note", "bold")))
            # Single line breaks in a note are the TOML source's; the console wraps itself.
            text = re.sub(r"(?<!\n)\n(?!\n)", " ", note.text.strip())
            self.say(Text(text, style="italic"))

    def _panes(self) -> dict[str, str]:
        """The panes of this window's layout (a kernel's differ from a program's)."""
        screen = self._debugger()
        return screen.panes if screen is not None else PANES

    def _debugger(self) -> DebuggerScreen | None:
        for s in self.screen_stack:
            if isinstance(s, DebuggerScreen):
                return s
        return None

    def _memory(self) -> MemoryView:
        """The SBUF pane's view (built first if the first frame has not built it yet)."""
        from neurondbg.views.memory import MemoryView

        screen = self._debugger()
        if screen is not None:
            screen.build_views()
        return self.query_one(MemoryView)

    def say(self, text: str | Text, style: str = "") -> None:
        screen = self._debugger()
        if screen is not None:
            screen.query_one(ConsoleView).write(text, style)

    def _say_once(self, text: str, style: str) -> None:
        """`say`, unless the console's last line already says it (keys pressed while a
        run or a load goes on would otherwise fill the console with one line)."""
        screen = self._debugger()
        if screen is not None:
            console = screen.query_one(ConsoleView)
            if not console.messages or console.messages[-1] != text:
                console.write(text, style)

    def _guard(self) -> Session | None:
        """The session when an action may touch the model now; else say why not."""
        if self.running:
            self._say_once("running: Esc or Ctrl+C stops", "yellow")
            return None
        if self.loading:
            self._say_once("loading the program…", "yellow")
            return None
        if self.session is None:
            self.say(f"error: no program loaded ({self.load_error})", "bold red")
            return None
        return self.session

    def _do(self, fn: Callable[[], str]) -> None:
        """Run a model call; its ValueError becomes one red console line."""
        try:
            text = fn()
        except ValueError as exc:
            self.say(f"error: {exc}", "bold red")
            return
        except Exception as exc:  # the app never dies on a model error: report it
            self.say(f"internal error: {type(exc).__name__}: {exc}", "bold red")
            return
        if text:
            self.say(text)
        self.refresh_views()

    # -- unsaved work -------------------------------------------------------------------
    def _work_mark(self) -> tuple[Any, ...]:
        """What `q` compares with the last load or save: the step count (unless the App
        says moving is no work, as a tour does), the `set` edits applied (the machine
        journals them: reversing past one undoes it) and every breakpoint's state."""
        s = self.session
        if s is None:
            return ()
        steps, edits = s.position
        return (steps if self.position_is_work else None, edits,
                tuple((bp.describe(), bp.enabled) for bp in s.breakpoints()))

    def _mark_saved(self) -> None:
        self._saved_mark = self._work_mark()

    def unsaved(self) -> list[str]:
        """What quitting now would lose, one phrase each ([] when nothing)."""
        if self.session is None or self._saved_mark is None:
            return []
        (steps, edits, bps), (steps0, edits0, bps0) = self._work_mark(), self._saved_mark
        out = []
        if steps != steps0:
            out.append(f"the machine is at step {steps:,} (loaded at {steps0:,})")
        if edits != edits0:
            out.append("values changed with `set`")
        if bps != bps0:
            out.append("breakpoints changed")
        return out

    def action_quit(self) -> None:
        """Quit at once, or (unsaved work) ask once: save / quit / cancel.

        Decided (gdb asks before killing a live process; pudb does not ask): the
        question comes only when there is something to lose, and the save goes
        where a bare `save` writes (PROGRAM.session.toml in the current folder)."""
        from neurondbg.screens.quit import QuitScreen

        if self.running or self.loading:
            if self._quit_pending:  # asked twice: do not wait for the worker
                self.exit()
                return
            # stop the long work first (within ~100 ms); its end comes back here
            self._quit_pending = True
            self._load_interrupt.set()
            if self.session is not None:
                self.session.interrupt.set()
            return
        work = [] if self.lab_only else self.unsaved()
        if not work:
            self.exit()
            return
        if isinstance(self.screen, QuitScreen):
            return
        path = console.default_session_path(self.session)

        def chosen(choice: str | None) -> None:
            if choice == "discard" or (choice == "save" and self._save(path)):
                self.exit()

        self.push_screen(QuitScreen(work, path), chosen)

    def _save(self, path: str) -> bool:
        """Save the session to `path`; False (and a console line) when it failed."""
        session = self.session
        if session is None:
            return False
        try:
            text = session.save(path, {"focus": self._focused_pane()})
        except (ValueError, OSError) as exc:
            self.say(f"error: save: {exc}", "bold red")
            return False
        self.say(text, "green")
        self._mark_saved()
        self._deliver(path)
        return True

    def _deliver(self, path: str) -> None:
        """Under `neurondbg serve` a file written on the server (a saved session, an
        exported trace) is also handed to the browser, as a download."""
        if self.is_web:
            self.deliver_binary(Path(path), save_filename=Path(path).name)

    # -- actions (keys, palette, console) -------------------------------------------
    def action_step(self) -> None:
        if (s := self._guard()) is not None:
            self._do(lambda: s.step(1))

    def action_step_core(self) -> None:
        """S: one scheduler step of the core (a kernel only)."""
        if (s := self._guard()) is not None and self.core_mode:
            self._do(s.step_core)

    def action_focus_engine(self, by: int = 1) -> None:
        """e / E: focus the next / previous engine; the panes follow it."""
        if (s := self._guard()) is not None and self.core_mode:
            self._do(lambda: s.cycle_focus(by))

    def action_reverse(self) -> None:
        if (s := self._guard()) is not None:
            self._do(lambda: s.reverse(1))

    def action_breakpoint(self) -> None:
        if (s := self._guard()) is not None:
            index = self.query_one(ProgramView).cursor
            self._do(lambda: s.toggle_breakpoint(index))

    def action_continue(self) -> None:
        if (s := self._guard()) is None:
            return
        self._begin_run(s)
        self._status("running… Esc or Ctrl+C stops")
        self._run_worker(s)

    def _begin_run(self, session: Session) -> None:
        """Before any run worker starts, on the UI thread: clear the session's interrupt,
        then mark the App running (from then on Esc / Ctrl+C set it).

        The model no longer clears `interrupt` when a run starts (it clears it when it
        stops because of it), so an Esc pressed after this point and before the worker's
        run begins stops that run at its first check instead of being lost. Esc is only
        taken as a stop while `running`, and a run's or load's end clears the flag, so
        the clear here guards against any other caller of `Session.stop` while idle."""
        session.interrupt.clear()
        self.running = True

    @work(thread=True, exclusive=True, group="run")
    def _run_worker(self, session: Session) -> None:
        def progress(steps: int, rate: float) -> None:
            self.call_from_thread(self._progress, steps, rate)

        try:
            text = session.run(progress)
        except Exception as exc:  # containment boundary: a model bug ends the run, not the App
            self.log.error(traceback.format_exc())
            text = f"error: internal error: {type(exc).__name__}: {exc}"
        self.call_from_thread(self._run_done, text)

    def run_to_cursor(self) -> None:
        """`until` with no address: run until the PC is the Program cursor's record."""
        if (s := self._guard()) is None:
            return
        try:
            s.arm("until", s.pc_of(self.query_one(ProgramView).cursor))
        except ValueError as exc:
            self.say(f"error: until: {exc}", "bold red")
            return
        self.action_continue()

    def start_steps(self, session: Session, n: int) -> None:
        """`step N` off the UI thread (it stops early at breakpoints); the status line
        counts the steps; Esc / Ctrl+C stops it at the machine's next check."""
        self._begin_run(session)
        start = session.state.steps
        self._status(f"stepping {n:,}… Esc or Ctrl+C stops")
        # the model's fast path reports nothing: the UI reads the count (an int) itself
        self._ticker = self.set_interval(0.1, lambda: self._status(
            f"stepping… {session.state.steps - start:,} of {n:,} steps · Esc stops"))
        self._steps_worker(session, n)

    @work(thread=True, exclusive=True, group="run")
    def _steps_worker(self, session: Session, n: int) -> None:
        try:
            text = session.step(n)
        except Exception as exc:  # containment boundary, as in _run_worker
            self.log.error(traceback.format_exc())
            text = f"error: internal error: {type(exc).__name__}: {exc}"
        self.call_from_thread(self._run_done, text)

    def start_reverse(self, session: Session, n: int) -> None:
        """`reverse N` off the UI thread, with progress; Esc / Ctrl+C stops it."""
        self._begin_run(session)
        self._status(f"reversing {counted(n, 'step')}… Esc or Ctrl+C stops")
        self._reverse_worker(session, n)

    @work(thread=True, exclusive=True, group="run")
    def _reverse_worker(self, session: Session, n: int) -> None:
        def progress(done: int, total: int) -> None:
            self.call_from_thread(self._status,
                                  f"reversing… {done:,} of {total:,} steps · Esc stops")

        try:
            text = session.reverse(n, throttled(progress))
        except Exception as exc:  # containment boundary, as in _run_worker
            self.log.error(traceback.format_exc())
            text = f"error: internal error: {type(exc).__name__}: {exc}"
        self.call_from_thread(self._run_done, text)

    def _progress(self, steps: int, rate: float) -> None:
        self._status(f"running… {steps:,} steps · {rate:,.0f} steps/s · Esc stops")

    def _status(self, text: str) -> None:
        """The header line under the title (the debugger screen's sub-title)."""
        screen = self._debugger()
        if screen is not None:
            screen.sub_title = text

    def _run_done(self, text: str) -> None:
        self.running = False
        if self.session is not None:
            # An Esc that came after the run had stopped for another reason (a halt, a
            # breakpoint) has nothing left to stop: it must not stop the next command
            # (a `reverse` on this thread checks the same event).
            self.session.interrupt.clear()
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if self._quit_pending:
            self._quit_pending = False
            self.call_later(self.action_quit)
        self.say(text, "bold red" if text.startswith("error") else "")
        self.refresh_views()

    def _focused_pane(self) -> str:
        """The id of the pane holding the focus (saved in a session's layout)."""
        node = self.screen.focused
        while node is not None:
            if node.id is not None and node.id.startswith("pane-"):
                return node.id.removeprefix("pane-")
            node = node.parent
        return "program"

    def action_stop(self) -> None:
        if self.loading:
            self._load_interrupt.set()
            return
        if self.running and self.session is not None:
            self.session.interrupt.set()
            return
        if (screen := self._debugger()) is not None and \
                screen.query_one(ConsoleView).cancel_work():  # a slow console command
            return
        focused = self.screen.focused
        if isinstance(focused, Input) and focused.id == "console-input":
            # Esc leaves the command line, so s / c / r act on the program again
            self.screen.set_focus(self.query_one(ProgramView))
            return
        if self.screen.maximized is not None:
            self.screen.minimize()

    def action_zoom(self) -> None:
        """Maximise the pane holding the focus, from whatever part of it has the focus (a
        scrolling container inside a pane may not be maximised itself); restore."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif (focused := screen.focused) is not None:
            pane = next((a for a in focused.ancestors_with_self if isinstance(a, Pane)), None)
            if pane is not None:
                screen.maximize(pane, container=False)
            else:  # a screen without panes (the Lab): Textual's own choice
                screen.maximize(focused)

    def action_lab(self, value: str = "", src: str = "", dst: str = "") -> None:
        from neurondbg.debug.lab_model import parse_input
        from neurondbg.machine.convert.formats import parse_format
        from neurondbg.screens.lab import LabScreen

        src, dst, value = src or "fp32", dst or "bf16", value or "1.00390625"
        try:  # bad input is a console line, not a crash while composing the screen
            parse_format(dst)
            parse_input(value, parse_format(src))
        except ValueError as exc:
            self.say(f"error: lab: {exc}", "bold red")
            return
        self.push_screen(LabScreen(value, src, dst))

    def _lab_iss(self, name: str, value: str) -> None:
        from neurondbg.debug.lab_model import parse_input
        from neurondbg.machine.convert.iss import ISS_PRIMITIVES
        from neurondbg.screens.lab import LabScreen
        from neurondbg.views.lab import iss_formats

        prim = ISS_PRIMITIVES[name]
        try:  # no value: the lab starts on the lane 0
            if value:
                parse_input(value, iss_formats(prim, prim.bind())[0])
        except ValueError as exc:
            self.say(f"error: lab iss {name}: {exc}", "bold red")
            return
        self.push_screen(LabScreen(value, iss=name))

    def action_help(self) -> None:
        from neurondbg.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.screen))

    def action_console(self) -> None:
        """`:` gives the command line the keyboard before the next key is handled. A
        priority binding and the screen's own `set_focus`: a plain binding runs only once
        the key has bubbled up from the focused widget, and `Widget.focus()` waits for the
        queued keys, so `:break` typed fast or pasted would run `b`, `r`, ... as hotkeys.
        In a text box, or off the debugger screen, `:` is an ordinary key."""
        screen = self.screen
        if isinstance(self.focused, Input) or not isinstance(screen, DebuggerScreen):
            raise SkipAction
        box = screen.query_one("#console-input", Input)
        screen.set_focus(box)

    def _prefill(self, text: str) -> None:
        """Focus the console with `text` typed, for palette commands that take a path."""
        box = self.query_one("#console-input", Input)
        box.value = text
        box.cursor_position = len(text)
        box.focus()

    def action_pane(self, name: str) -> None:
        screen = self._debugger()
        if screen is None:
            return
        if not name:
            screen.minimize()
            return
        if name not in screen.panes:
            self.say(f"error: pane: expected one of: {', '.join(screen.panes)}", "bold red")
            return
        screen.build_views()
        widget = screen.query_one(f"#{name}")
        pane = screen.query_one(f"#pane-{name}", Pane)
        # the keyboard goes to the pane: its view, else the first part of it that takes
        # the focus (a view that does not, such as Semaphores, scrolls in a container)
        target = next((w for w in (widget, *widget.query("*"), *pane.query("*"))
                       if w.focusable), None)
        if target is not None:
            target.focus()
        screen.maximize(pane, container=False)
        if name == "console":  # keep typing in the command line, not into the log's keys
            screen.query_one("#console-input").focus()

    @on(Pane.Failed)
    def _pane_failed(self, event: Pane.Failed) -> None:
        self.say(f"error: {event.pane} pane: {event.text}", "bold red")

    # Handlers named after their messages (Textual's on_<namespace>_<message>) rather than
    # @on(MemoryView.GotoPrompt): the App's module does not import those views (the numpy
    # ones are built after the first frame; the timeline is the kernel layout's only).
    def on_timeline_view_travel(self, event: TimelineView.Travel) -> None:
        if (s := self._guard()) is not None and self.core_mode:
            self._do(lambda: s.travel(event.step))

    def on_races_view_jump(self, event: RacesView.Jump) -> None:
        """Enter on a race: travel to the step that found it (as gdb's `frame N`)."""
        if (s := self._guard()) is not None and self.core_mode:
            self._do(lambda: s.travel(event.step))

    def on_memory_view_goto_prompt(self, event: MemoryView.GotoPrompt) -> None:
        box = self.query_one("#console-input", Input)
        box.value = f"goto {self._memory().cursor} "
        box.focus()
        box.cursor_position = len(box.value)

    def on_lane_table_open_in_lab(self, event: LaneTable.OpenInLab) -> None:
        from neurondbg.screens.lab import LabScreen

        # The lane's own bits, formats and set-up (profile, mode, sat, gen, FP8 config):
        # they come from the model, so there is nothing to validate.
        self.push_screen(LabScreen(event.value, event.src, event.dst, setup=event.setup))

    # -- console ------------------------------------------------------------------------
    @on(ConsoleView.Command)
    def _command(self, event: ConsoleView.Command) -> None:
        self.run_command(event.line)

    def run_command(self, line: str) -> None:
        """Execute one console line (also used by tests and the palette). A command that
        needs the program is refused, with the reason, while there is none or it runs."""
        cmd = REGISTRY.split(line)[1]
        if cmd is not None and cmd.needs_program and (
                self.session is None or self.running or self.loading):
            self._guard()
            return
        reply = console.execute(line, self.session, defer_long=True, defer_slow=True)
        for text, style in reply.lines:
            self.say(text, style)
        if reply.work is not None and (screen := self._debugger()) is not None:
            screen.query_one(ConsoleView).run_work(line, reply.work)  # slow: off the UI thread
        self._apply(reply)

    async def run_command_async(self, line: str) -> None:
        """`run_command`, then let the UI settle (for scripts and snapshot set-up)."""
        self.run_command(line)
        await self.workers.wait_for_complete()

    def reply_handlers(self) -> dict[Action, Callable[..., None]]:
        """What the App does for each console Action (a test checks none is missing)."""
        memory = self._memory
        return {
            Action.REFRESH: self.refresh_views,
            Action.CONTINUE: self.action_continue,
            Action.STEPS: lambda n: self.start_steps(self._session(), n),
            Action.REVERSE_STEPS: lambda n: self.start_reverse(self._session(), n),
            Action.BREAK_CURSOR: self.action_breakpoint,
            Action.UNTIL_CURSOR: self.run_to_cursor,
            Action.LAB: self.action_lab,
            Action.LAB_ISS: self._lab_iss,
            Action.GOTO: lambda *args: memory().goto(*args),
            Action.DTYPE: lambda name: memory().set_dtype(name),
            Action.PANE: lambda name="": self.action_pane(name),
            Action.QUIT: self.action_quit,
            Action.OPEN: self._open,
            Action.SAVE: self._save,
            Action.DELIVER: self._deliver,
        }

    def _session(self) -> Session:
        """The session, for a Reply that only a loaded program produces."""
        assert self.session is not None
        return self.session

    def _apply(self, reply: console.Reply) -> None:
        if reply.action is not None:
            self.reply_handlers()[reply.action](*reply.args)

    def _open(self, path: str) -> None:
        """`open`, `load`, `tour`: with unsaved work, ask first as `q` does (OpenScreen)."""
        from neurondbg.screens.quit import OpenScreen

        if self.running or self.loading:  # one machine at a time in the workers
            self._guard()
            return
        work = self.unsaved()
        if not work:
            self.open_program(path)
            return
        if isinstance(self.screen, OpenScreen):
            return
        save_to = console.default_session_path(self.session)

        def chosen(choice: str | None) -> None:
            if choice == "discard" or (choice == "save" and self._save(save_to)):
                self.open_program(path)
            elif choice is None:
                self.say(f"open {path}: cancelled; the work is kept", "dim")

        self.push_screen(OpenScreen(work, save_to, f"opening {path}"), chosen)

    def action_goto_label(self, name: str) -> None:
        """Move the Program cursor to label `name`'s record (the palette's Go to label)."""
        if self.session is None or name not in self.session.labels:
            self.say(f"error: no label {name!r}", "bold red")
            return
        offset = self.session.labels[name]
        index = next((i for i, line in enumerate(self.session.lines)
                      if line.offset == offset), None)
        if index is None:
            self.say(f"error: label {name!r} is past the last record", "bold red")
            return
        screen = self._debugger()
        if screen is not None:
            program = screen.query_one(ProgramView)
            program.cursor = index
            program.focus()

    # -- command palette ---------------------------------------------------------------
    async def run_entry(self, entry: Entry) -> bool:
        """Carry out a palette entry; False when it names no command or action."""
        if entry.line:
            if REGISTRY.split(entry.line)[1] is None:
                return False
            if entry.line.endswith(" "):
                self._prefill(entry.line)
            else:
                self.run_command(entry.line)
            return True
        screen = self._debugger()
        if not entry.target:
            return await self.run_action(entry.action, self)
        return screen is not None and await self.run_action(entry.action,
                                                            screen.query_one(entry.target))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from neurondbg.palette import system_commands

        yield from system_commands(self, super().get_system_commands(screen))
