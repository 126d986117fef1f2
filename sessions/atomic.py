"""Crash-safe output files: a kill mid-save leaves the previous file intact.

    write_atomic("s.toml", data)                 # whole file at once
    with atomic_open("run.jsonl", "w") as fh:    # streamed; renamed into place on success
        fh.write(...)
    with atomic_path("p.bin.data.npz") as tmp:   # for writers that take a file name
        save_data(tmp, inits)
    check_output(out, inputs=[prog, sbuf], what="--trace",   # before a long run
                 kind=FileKind.TRACE)

Replacing a file of another kind is refused: a write over an existing file whose
content is of another kind (sniff_kind: an assembly source, a program binary, a
session, a kernel manifest, an SBUF image, a data sidecar, a trace, a NEFF, JSON,
other text or unknown bytes) raises KindMismatch (an OSError, worded as one line by
every caller) unless replacing is forced: a command's `--force` sets that for its
run (allow_replacing), or a call passes `force=True`. The new content's kind is
sniffed from the temporary just before the rename, so every writer is covered
without saying what it writes; check_output takes the kind to refuse before a long
run instead of after it. Writing over a file of the same kind (the last build of
`asm -o`, the last save of a session) is what an output is for, and is allowed.

Decisions (where the specification leaves it open, as an editor's save behaves):
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
- An empty file is of no kind: anything may replace it, and an empty output replaces
  only an empty file. Kinds are told from the first SNIFF_BYTES (machine.files'
  formats: the NEFF header, NumPy magics, NUL bytes for records, the trace header
  key, a session's `schema =`, a manifest's `[kernel]` / `[engines]`, the first
  word of assembly), so a check costs one small read whatever the file's size.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar, Token
from enum import Enum
from functools import cache
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, overload

from neurondbg.sessions.errors import SessionError

_TMP_SUFFIX = ".tmp"
_NEW_FILE_MODE = 0o666  # minus the umask, applied by open(2)


def write_atomic(path: str | Path, data: bytes, *, force: bool | None = None) -> None:
    """Write `data` to `path` via a temporary file in the same folder: flush, fsync, rename.

    OSError when the target cannot be written (see the module docstring for what is
    refused; `force`: replace a file of another kind, default the command's --force);
    the previous contents stay intact whatever happens midway.
    """
    with atomic_open(path, "wb", force=force) as fh:
        fh.write(data)


@overload
def atomic_open(path: str | Path, mode: Literal["wb"] = "wb", *, encoding: None = None,
                force: bool | None = None) -> contextlib.AbstractContextManager[BinaryIO]: ...


@overload
def atomic_open(path: str | Path, mode: Literal["w"], *, encoding: str | None = None,
                force: bool | None = None) -> contextlib.AbstractContextManager[TextIO]: ...


def atomic_open(path: str | Path, mode: Literal["w", "wb"] = "wb", *,
                encoding: str | None = None, force: bool | None = None
                ) -> contextlib.AbstractContextManager[BinaryIO] | \
        contextlib.AbstractContextManager[TextIO]:
    """A file object on a temporary beside `path`, renamed over it when the block ends
    normally; on an exception (Ctrl+C too) the temporary is removed and `path` untouched.
    Text (mode "w", UTF-8 unless `encoding` says otherwise) or bytes ("wb")."""
    if mode == "w":
        return _atomic_text(path, encoding or "utf-8", force)
    if mode == "wb":
        return _atomic_bytes(path, force)
    raise ValueError(f"atomic_open: mode must be 'w' or 'wb', not {mode!r}")


@contextlib.contextmanager
def _atomic_text(path: str | Path, encoding: str, force: bool | None) -> Iterator[TextIO]:
    with atomic_path(path, force=force) as tmp, open(tmp, "w", encoding=encoding) as fh:
        yield fh


@contextlib.contextmanager
def _atomic_bytes(path: str | Path, force: bool | None) -> Iterator[BinaryIO]:
    with atomic_path(path, force=force) as tmp, open(tmp, "wb") as fh:
        yield fh


@contextlib.contextmanager
def atomic_path(path: str | Path, *, force: bool | None = None) -> Iterator[Path]:
    """The path of a new temporary beside `path` for a writer that takes a file name
    (e.g. numpy's savez); when the block ends normally it is fsynced and renamed over
    `path`, on an exception removed. OSError for a target that must not be replaced,
    KindMismatch (an OSError) when it holds another kind of file than the temporary
    and replacing is not forced."""
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
        if not _forced(force):
            refuse_other_kind(target, sniff_kind(tmp))
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
                 what: str = "output", kind: FileKind | None = None,
                 force: bool | None = None) -> Path:
    """The resolved target of output `path`, or SessionError (one line) when it names one of
    `inputs` ((label, path) pairs) or cannot be written: folder missing or read-only, target
    a folder / device / read-only file, or (with the `kind` to be written) a file of
    another kind while replacing is not forced. Called before a run so nothing is lost
    after it."""
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
        if kind is not None and not _forced(force):
            refuse_other_kind(target, kind)
    except OSError as e:
        raise SessionError(f"{path}: cannot write {what}: {e.strerror}") from None
    return target


# -- the kind of a file, and replacing another kind --------------------------------------------
class FileKind(Enum):
    """What a file holds, as told by sniff_kind; the value names it in messages."""

    ASSEMBLY = "an assembly source"
    PROGRAM = "a program binary (64-byte records)"
    SESSION = "a session"
    MANIFEST = "a kernel manifest"
    SBUF_IMAGE = "an SBUF image or array (.npy)"
    DATA = "program data (.npz)"
    TRACE = "a trace"
    NEFF = "a NEFF"
    JSON = "a JSON document"
    TEXT = "a text file"
    OTHER = "a file of unknown content"


class KindMismatch(OSError):
    """A write would replace a file of another kind (its strerror is the one line)."""


SNIFF_BYTES = 64 * 1024  # what sniff_kind reads of a file
# True: replacing is forced; False: not, and the block offers --force (the console's
# export); None: not set (a command's own --force option is looked up in click's context)
_FORCE: ContextVar[bool | None] = ContextVar("neurondbg_force_replace", default=None)
_NPY_MAGIC, _ZIP_MAGICS = b"\x93NUMPY", (b"PK\x03\x04", b"PK\x05\x06")
_TRACE_KEY = b'"neurondbg_trace"'  # sessions.trace.HEADER_KEY, quoted as JSON writes it
_SESSION = re.compile(rb"(?m)^[ \t]*schema[ \t]*=")
_MANIFEST = re.compile(rb"(?m)^[ \t]*\[[ \t]*(?:engines|kernel)[ \t]*\]")
_TOML_TABLE = re.compile(rb"(?m)^[ \t]*\[\[?[ \t]*[A-Za-z_][\w.-]*[ \t]*\]\]?[ \t]*(?:#.*)?$")
_TOML_START = re.compile(r"\[\[?[ \t]*[A-Za-z_][\w.-]*[ \t]*\]|[A-Za-z_][\w.-]*[ \t]*=")
# the first word of an assembly line: an optional `label:`, then a directive or a name
_ASM_HEAD = re.compile(r"(?:[A-Za-z_][\w.]*[ \t]*:[ \t]*)?(\.?[A-Za-z_]\w*)?")


@contextlib.contextmanager
def allow_replacing(force: bool = True) -> Iterator[None]:
    """Within the block, writes replace files of another kind when `force` (a command's
    --force; calls passing force= decide for themselves)."""
    token = _FORCE.set(force)
    try:
        yield
    finally:
        _FORCE.reset(token)


def set_replacing(force: bool) -> Token[bool | None]:
    """allow_replacing for the rest of a command: returns the token that `reset_replacing`
    takes when the command ends (neurondbg.force's --force option)."""
    return _FORCE.set(force)


def reset_replacing(token: Token[bool | None]) -> None:
    _FORCE.reset(token)


def replacing_forced() -> bool:
    """Whether the running command allows replacing files of another kind (--force)."""
    return bool(_FORCE.get())


def _forced(force: bool | None) -> bool:
    return bool(_FORCE.get()) if force is None else force


def sniff_kind(path: str | Path) -> FileKind | None:
    """The kind of the regular file at `path` from its first SNIFF_BYTES; None when it is
    absent, empty or cannot be read (the write then reports why, if it matters)."""
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    return kind_of(head, size) if head else None


def kind_of(head: bytes, size: int) -> FileKind:
    """The kind of a file of `size` bytes that starts with `head` (sniff_kind)."""
    from neurondbg.machine.neff.sniff import looks_like_neff

    if looks_like_neff(head):
        return FileKind.NEFF
    if head.startswith(_NPY_MAGIC):
        return FileKind.SBUF_IMAGE
    if head.startswith(_ZIP_MAGICS):
        return FileKind.DATA
    text = _text(head, size)
    if text is None:
        return FileKind.PROGRAM if size % 64 == 0 else FileKind.OTHER
    return _text_kind(head, text)


def _text(head: bytes, size: int) -> str | None:
    """`head` as UTF-8 text, or None when it is not (a NUL byte, an invalid sequence; one
    cut by the end of the sniffed bytes is text)."""
    if b"\0" in head:
        return None
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as e:
        if size > len(head) and e.start >= len(head) - 3:
            return head[:e.start].decode("utf-8", errors="replace")
        return None


def _text_kind(head: bytes, text: str) -> FileKind:
    first = next((line.strip() for line in text.splitlines()
                  if line.strip() and not line.lstrip().startswith("#")), "")
    if first.startswith("{"):
        return FileKind.TRACE if _TRACE_KEY in head.split(b"\n", 1)[0] else FileKind.JSON
    if _TOML_START.match(first):  # a table or `key = value`: TOML
        if _MANIFEST.search(head) and not _SESSION.search(head):
            return FileKind.MANIFEST
        if _SESSION.search(head) and _TOML_TABLE.search(head):
            return FileKind.SESSION
    if first.startswith("[") and not _TOML_TABLE.match(first.encode()):
        return FileKind.JSON
    return FileKind.ASSEMBLY if _is_assembly_line(first) else FileKind.TEXT


def _is_assembly_line(line: str) -> bool:
    """Does `line` start as assembly does: a label, a directive or an opcode's name?"""
    m = _ASM_HEAD.match(line)
    if m is None or not m.group(0):
        return False
    word = m.group(1)
    if word is None:  # a label alone on its line
        return m.group(0).rstrip().endswith(":")
    return word.startswith(".") or word.upper() in _mnemonics()


@cache
def _mnemonics() -> frozenset[str]:
    from neurondbg.machine.isa.opcodes import OPCODES  # only when a text file is sniffed

    return frozenset(info.name for info in OPCODES.values())


def _offers_force() -> bool:
    """Whether the running command has --force: set for this block (allow_replacing), or
    an option of the click command running (looked up only when click is loaded)."""
    if _FORCE.get() is not None:
        return True
    click = sys.modules.get("click")
    ctx = click.get_current_context(silent=True) if click is not None else None
    return ctx is not None and any(p.name == "force" for p in ctx.command.params)


def refuse_other_kind(target: Path, new: FileKind | None) -> None:
    """KindMismatch when the file at `target` holds another kind than `new` (None: empty);
    its hint names --force where the running command offers it (allow_replacing)."""
    old = sniff_kind(target)
    if old is None or old == new:
        return
    what = "nothing (an empty file)" if new is None else new.value
    hint = "--force replaces it" if _offers_force() else "choose another file"
    raise KindMismatch(errno.EEXIST, f"it holds {old.value}, not {what}: refusing to replace "
                                     f"it ({hint})", str(target))
