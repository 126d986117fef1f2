"""Crash-safe output files: a kill mid-save leaves the previous file intact.

    write_atomic("s.toml", data)                 # whole file at once
    with atomic_open("run.jsonl", "w") as fh:    # streamed; renamed into place on success
        fh.write(...)
    with atomic_path("p.bin.data.npz") as tmp:   # for writers that take a file name
        save_data(tmp, inits)
    check_output(out, inputs=[prog, sbuf], what="--trace")   # before a long run

Decisions (where the issue leaves it open, as an editor's save behaves):
- The data goes to `.NAME.<pid>.<token>.tmp` beside the target, is flushed and
  fsynced, then renamed over the target; the folder is fsynced after.
- A target that is a symlink is resolved: the link's target is replaced and the
  link stays. A hard-linked target is replaced by a new file (the other names
  keep the old contents), as `mv` and most editors do.
- A target that exists but is not a regular file (folder, device, FIFO, socket)
  is never replaced; nor is a read-only file (its mode is the user's "keep").
- A new file gets 0o666 minus the umask (the kernel applies it); a replaced file
  keeps its permission bits.
- Temporary files of an interrupted save are removed by the next save of the
  same target when the process that wrote them is gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from sessions.errors import SessionError

_TMP_SUFFIX = ".tmp"
_NEW_FILE_MODE = 0o666  # minus the umask, applied by open(2)


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary file in the same folder: flush, fsync, rename.

    OSError when the target cannot be written (see the module docstring for what is
    refused); the previous contents stay intact whatever happens midway.
    """
    with atomic_open(path, "wb") as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "wb", *,
                encoding: str | None = None) -> Iterator[IO[Any]]:
    """A file object on a temporary beside `path`, renamed over it when the block ends
    normally; on an exception (Ctrl+C too) the temporary is removed and `path` untouched."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', not {mode!r}")
    text = {"encoding": encoding or "utf-8"} if mode == "w" else {}
    with atomic_path(path) as tmp, open(tmp, mode, **text) as fh:
        yield fh


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """The path of a new temporary beside `path` for a writer that takes a file name
    (e.g. numpy's savez); when the block ends normally it is fsynced and renamed over
    `path`, on an exception removed. OSError for a target that must not be replaced."""
    target = resolve_target(path)
    _refuse_unsafe_target(target)
    remove_stale_temporaries(target)
    fd, tmp = _create_temporary(target)
    try:
        _copy_mode(target, fd)
        os.close(fd)
        yield tmp
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            os.fsync(fd)  # the data is on disk before the name points at it
        finally:
            os.close(fd)
        os.replace(tmp, target)  # atomic on POSIX and Windows (same volume)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(target.parent)


def resolve_target(path: str | Path) -> Path:
    """The file a write to `path` must replace: symlinks (also dangling ones) followed."""
    return Path(os.path.realpath(path))


def temporary_prefix(target: Path) -> str:
    """Every temporary of `target` starts with this (and ends with `.tmp`)."""
    return f".{target.name}."


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside `target`, created exclusively with the umask's mode
    (mkstemp would give 0600); its name carries our pid for stale cleanup."""
    for _ in range(100):
        tmp = target.with_name(f"{temporary_prefix(target)}{os.getpid()}."
                               f"{secrets.token_hex(4)}{_TMP_SUFFIX}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                         _NEW_FILE_MODE)
        except FileExistsError:
            continue
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))


def _copy_mode(target: Path, fd: int) -> None:
    """A replaced file keeps its permission bits (chmod is best effort: not every
    filesystem has POSIX modes)."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError, AttributeError):  # no fchmod on Windows
        os.fchmod(fd, mode)


def _refuse_unsafe_target(target: Path) -> None:
    """OSError unless `target` is absent or a regular file we may write."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise OSError(errno.EINVAL, f"{kind}: refusing to replace it", str(target))
    # No write bit at all is a "keep" even for root (for whom os.access always says yes).
    if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only: refusing to replace it",
                              str(target))


def remove_stale_temporaries(target: Path) -> list[Path]:
    """Delete `.NAME.<pid>.<token>.tmp` files beside `target` left by a process that is
    gone (a save killed midway); returns those removed. Ours and live ones are kept."""
    removed: list[Path] = []
    prefix = temporary_prefix(target)
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid_text = name[len(prefix):-len(_TMP_SUFFIX)].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        stale = target.parent / name
        with contextlib.suppress(OSError):
            os.unlink(stale)
            removed.append(stale)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or we cannot tell: keep its file
    return True


def _sync_dir(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every OS can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- checks before a long run ----------------------------------------------------------------
def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file: same inode (hard links, symlinks, `..`), or the
    same resolved path when either does not exist yet."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return resolve_target(a) == resolve_target(b)


def check_output(path: str | Path, inputs: Iterable[tuple[str, str | Path]] = (), *,
                 what: str = "output") -> Path:
    """The resolved target of output `path`, or SessionError (one line) when it names one of
    `inputs` ((label, path) pairs) or cannot be written: folder missing or read-only, target
    a folder / device / read-only file. Called before a run so nothing is lost after it."""
    for label, inp in inputs:
        if same_file(path, inp):
            raise SessionError(f"{path}: {what} would overwrite {label} {inp}; "
                               f"choose another file")
    target = resolve_target(path)
    folder = target.parent
    if not folder.is_dir():
        raise SessionError(f"{path}: cannot write {what}: no such folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SessionError(f"{path}: cannot write {what}: the folder {folder} is not writable")
    try:
        _refuse_unsafe_target(target)
    except OSError as e:
        raise SessionError(f"{path}: cannot write {what}: {e.strerror}") from None
    return target
