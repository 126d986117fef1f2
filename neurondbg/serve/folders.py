"""Each visitor's own folder under `neurondbg serve`: where the files saved or exported
in that visitor's app (`:save`, `export`, a session's default path) land, as the app
process's working folder.

    folders = VisitorFolders.open(None)      # a fresh 0700 folder in the temp dir
    vid = folders.issue()                    # a page's id; the page names folders.path(vid)
    folders.claim(vid)                       # True once: the page's WebSocket
    where = folders.make(vid)                # created 0700 when its app starts
    folders.release(where)                   # removed if nothing was saved in it

Decisions where the specification is silent:
- One folder per page load (not per browser): the id is made when the page is served
  and named in it; a reload is a new app, so a new folder. A folder a visitor saved
  into is kept (it is their work); an empty one is removed when its app ends, and the
  base folder when the server stops, if it is empty and the server made it.
- Ids are random (48 bits) and claimed once, by the page's own WebSocket: a socket
  with an id this server never issued, or one already in use, is refused, so two pages
  never share a folder by accident. The ids only keep visitors apart; all of them hold
  the server's token and run as its user (docs/security.md).
- Issued ids are remembered up to MAX_ISSUED (the oldest forgotten first): a server
  whose page is loaded without end keeps bounded memory.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

MAX_ISSUED = 1024  # page ids remembered until their WebSocket comes
ID_BYTES = 6  # 12 hex digits
PREFIX = "visitor-"
WARM_PREFIX = ".warm-"  # a waiting app's folder, renamed to a visitor's when taken


class FolderError(ValueError):
    """A base folder that cannot hold visitors' folders (one line for the user)."""


@dataclass
class VisitorFolders:
    """The folders of one server's visitors, under `base`."""

    base: Path
    owned: bool  # made by the server (removed at the end if empty)
    _issued: OrderedDict[str, None] = field(default_factory=OrderedDict)

    @classmethod
    def open(cls, requested: Path | None) -> VisitorFolders:
        """The folders under `requested` (created 0700 if missing), or under a fresh
        private folder of the system's temp dir; FolderError when it cannot be used."""
        if requested is None:
            return cls(Path(tempfile.mkdtemp(prefix="neurondbg-serve-")).resolve(), True)
        where = requested.expanduser()
        try:
            where.mkdir(mode=0o700, parents=True, exist_ok=True)
        except FileExistsError:
            raise FolderError(f"{requested}: not a folder") from None
        except OSError as e:
            raise FolderError(f"{requested}: cannot create: {e.strerror or e}") from None
        if not where.is_dir():
            raise FolderError(f"{requested}: not a folder")
        if not os.access(where, os.W_OK | os.X_OK):
            raise FolderError(f"{requested}: not writable")
        return cls(where.resolve(), False)

    def issue(self) -> str:
        """A new page's id (its folder is `path(id)`, made when its app starts)."""
        vid = secrets.token_hex(ID_BYTES)
        self._issued[vid] = None
        while len(self._issued) > MAX_ISSUED:
            self._issued.popitem(last=False)
        return vid

    def claim(self, vid: str) -> bool:
        """Whether `vid` was issued and not yet claimed; it is claimed from now on."""
        if vid not in self._issued:
            return False
        del self._issued[vid]
        return True

    def path(self, vid: str) -> Path:
        """The folder of page `vid`."""
        return self.base / f"{PREFIX}{vid}"

    def make(self, vid: str) -> Path:
        """Create page `vid`'s folder, readable by this user only; OSError if it cannot."""
        where = self.path(vid)
        where.mkdir(mode=0o700)
        os.chmod(where, 0o700)  # whatever the umask
        return where

    def make_warm(self) -> Path:
        """A private folder for an app that waits for a visitor (then `adopt`ed)."""
        return Path(tempfile.mkdtemp(prefix=WARM_PREFIX, dir=self.base))

    def adopt(self, warm: Path, vid: str) -> Path:
        """Rename a waiting app's folder to page `vid`'s: the app's working folder
        follows the rename, so what it saves from now on lands in the visitor's folder.
        OSError if it cannot (then the app is not used)."""
        where = self.path(vid)
        if where.exists():
            raise FileExistsError(str(where))
        warm.rename(where)
        return where

    def release(self, where: Path) -> None:
        """Remove `where` if nothing was saved in it (a visitor's files are kept)."""
        with contextlib.suppress(OSError):
            where.rmdir()

    def close(self) -> None:
        """At the server's end: remove the base folder if the server made it and no
        visitor saved anything."""
        if self.owned:
            self.release(self.base)
