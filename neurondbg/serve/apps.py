"""The app process behind each page: textual-serve's AppService started in the visitor's
own folder, and a pool of app processes started before any visitor asks, so that a
page's first screen does not wait for Python, Textual and the model to import.

    pool = WarmPool(waiting_command, folders, size=1)
    pool.fill()                         # at server start (and after each take, by take)
    warm = pool.take()                  # a started process and its folder, or None
    app = VisitorApp(command, folder=where, warm=warm, write_bytes=..., write_str=...,
                     close=..., download_manager=...)
    await app.start(width, height)      # tells the waiting process the page's size
    await pool.close()                  # at server stop

A waiting process (neurondbg.serve.waiting) has imported what the app needs and waits
for one line on stdin: the page's terminal size. Only then does the app start, so it
draws its first screen once, at the page's size, as a process started for that page
would. It runs in a folder of the pool's, renamed to the visitor's when it is taken
(the process's working folder follows the rename). A waiting process that has died is
dropped, and that visitor's app is started afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
from asyncio.subprocess import PIPE, Process
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import NamedTuple

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from neurondbg.serve.folders import VisitorFolders

log = logging.getLogger("neurondbg.serve")

WAIT_SIZE = (80, 24)  # the environment's size while it waits (the app starts at the page's)
STOP_GRACE_S = 2.0  # a waiting app stopped with SIGTERM gets this long before SIGKILL


def app_environment(width: int, height: int) -> dict[str, str]:
    """The environment textual-serve gives an app process (its AppService's), for a
    terminal of `width` x `height`: the web driver, and colours as a browser shows them."""
    env = dict(os.environ)
    env.update({"TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver",
                "TEXTUAL_FPS": "60", "TEXTUAL_COLOR_SYSTEM": "truecolor",
                "TERM_PROGRAM": "textual", "TERM_PROGRAM_VERSION": version("textual-serve"),
                "COLUMNS": str(width), "ROWS": str(height)})
    return env


async def spawn(command: str, folder: Path, size: tuple[int, int]) -> Process:
    """Start `command` (a shlex-joined word list) in `folder` as an app process."""
    return await asyncio.create_subprocess_exec(
        *shlex.split(command), stdin=PIPE, stdout=PIPE, stderr=PIPE,
        env=app_environment(*size), cwd=folder)


async def stop(process: Process) -> None:
    """End a process nobody talks to: SIGTERM (the web driver exits on it), SIGKILL if
    it has not ended within STOP_GRACE_S (blocked writing into a full pipe)."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        async with asyncio.timeout(STOP_GRACE_S):
            await process.wait()
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


class Warm(NamedTuple):
    """An app process started before its visitor, and the folder it runs in."""

    process: Process
    folder: Path


class WarmPool:
    """Up to `size` processes of `command` (neurondbg.serve.waiting) started ahead of
    visitors (0: none, each page starts its own app)."""

    def __init__(self, command: str, folders: VisitorFolders, size: int) -> None:
        self.command = command
        self.folders = folders
        self.size = size
        self._ready: list[Warm] = []
        self._starting = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    @property
    def waiting(self) -> int:
        """Processes started and not yet taken."""
        return len(self._ready)

    def fill(self) -> None:
        """Start processes (in the background) until `size` wait or are starting."""
        while not self._closed and len(self._ready) + self._starting < self.size:
            self._starting += 1
            task = asyncio.get_running_loop().create_task(self._start())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _start(self) -> None:
        try:
            folder = self.folders.make_warm()
        except OSError as e:
            self._starting -= 1
            log.error("cannot make a folder for a waiting app: %s", e)
            return
        try:
            process = await spawn(self.command, folder, WAIT_SIZE)
        except OSError as e:
            log.error("cannot start a waiting app: %s", e)
            self.folders.release(folder)
            return
        finally:
            self._starting -= 1
        if self._closed:
            await stop(process)
            self.folders.release(folder)
            return
        self._ready.append(Warm(process, folder))

    def take(self) -> Warm | None:
        """The longest-waiting live process (its folder still the pool's: the caller
        adopts it), or None; the pool starts a replacement."""
        found = None
        while self._ready and found is None:
            warm = self._ready.pop(0)
            if warm.process.returncode is None:
                found = warm
            else:
                self.folders.release(warm.folder)
        self.fill()
        return found

    async def discard(self, warm: Warm) -> None:
        """Stop a taken process that will not be used, and remove its folder."""
        await stop(warm.process)
        self.folders.release(warm.folder)

    async def close(self) -> None:
        """Stop every waiting process (and those still starting), removing their folders."""
        self._closed = True
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError):
                await task
        ready, self._ready = self._ready, []
        for warm in ready:
            await self.discard(warm)


class VisitorApp(AppService):
    """textual-serve's AppService, its process run in the visitor's `folder`: the one
    `warm` (from the pool, already renamed to `folder`) when given, told the page's size
    to start the app, else a new process of `command`."""

    def __init__(self, command: str, *, folder: Path, warm: Warm | None,
                 write_bytes: Callable[[bytes], Awaitable[None]],
                 write_str: Callable[[str], Awaitable[None]],
                 close: Callable[[], Awaitable[object]],
                 download_manager: DownloadManager) -> None:
        super().__init__(command, write_bytes=write_bytes, write_str=write_str,
                         close=close,  # type: ignore[arg-type]  # aiohttp's close returns bool
                         download_manager=download_manager)
        self.folder = folder
        self._warm = warm

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return app_environment(width, height)

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        if self._warm is not None:
            process = self._warm.process
            assert process.stdin is not None
            size = json.dumps({"width": width, "height": height})
            process.stdin.write(f"{size}\n".encode())  # before any of the page's input
        else:
            process = await spawn(self.command, self.folder, (width, height))
        assert process.stdin is not None
        self._process = process
        self._stdin = process.stdin
        return process
