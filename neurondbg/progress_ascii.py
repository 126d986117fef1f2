"""The progress bar on a terminal whose locale is not UTF-8 (`LANG=C`, `POSIX`, a Latin-1
locale): ASCII only, as such a terminal shows it.

    if not locale_is_utf8(os.environ, sys.flags.utf8_mode):
        console = Console(file=AsciiFile(sys.stderr))    # rich then draws ASCII
        columns = [SpinnerColumn("line"), ..., ascii_bar()]

The locale is the one the user set (LC_ALL, else LC_CTYPE, else LANG, as setlocale
reads them; none set is the C locale). Python itself runs a C locale as UTF-8 (PEP 538
sets LC_CTYPE=C.UTF-8 in its own environment, PEP 540's UTF-8 mode), so its stderr
encoding says nothing about the terminal: that coerced LC_CTYPE is skipped.

rich draws its own parts in ASCII for a console whose encoding is not UTF-8 (borders,
ellipses aside); the bar itself (rich's is `━` in two colours, which ASCII would make
one undivided line of `-`) is `[####------]`, and a pulse a `<=>` moving across. The
file wrapper replaces whatever non-ASCII text remains (a `…` rich truncates with, a
file name), so nothing but ASCII reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

BAR_WIDTH = 20  # cells between the brackets (rich's own bar takes ~20 on 80 columns)
PULSE = "<=>"
PULSE_SPEED = 12.0  # cells a second
COERCED = "C.UTF-8"  # the LC_CTYPE Python sets for itself in a C locale (PEP 538)
# what rich may still write in a console it knows is ASCII, in its nearest ASCII
REPLACEMENTS = str.maketrans({"…": ".", "━": "-", "╸": "-", "╺": "-", "•": "*"})


def locale_is_utf8(environ: Mapping[str, str], utf8_mode: int) -> bool:
    """Whether the locale the user set (LC_ALL, LC_CTYPE, LANG: the first set) is UTF-8.
    `utf8_mode` is sys.flags.utf8_mode: with it, an LC_CTYPE of C.UTF-8 is Python's own
    coercion of a C locale, not the user's (module docstring)."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = environ.get(name, "")
        if name == "LC_CTYPE" and utf8_mode and value == COERCED:
            continue
        if value:
            codeset = value.partition(".")[2].partition("@")[0].lower().replace("-", "")
            return codeset == "utf8"
    return False  # nothing set: the C locale


class AsciiFile:
    """A text stream passing on only ASCII to `file`; rich, told its encoding is
    "ascii", draws its own parts in ASCII."""

    encoding = "ascii"

    def __init__(self, file: TextIO) -> None:
        self.file = file

    def write(self, text: str) -> int:
        ascii_text = text.translate(REPLACEMENTS).encode("ascii", "replace").decode("ascii")
        return self.file.write(ascii_text)

    def flush(self) -> None:
        self.file.flush()

    def isatty(self) -> bool:
        return self.file.isatty()

    def fileno(self) -> int:
        return self.file.fileno()


def ascii_bar(width: int = BAR_WIDTH) -> ProgressColumn:
    """A bar column in ASCII: `[#####-----]` done out of the total, or, while the total
    is unknown, a `<=>` bouncing between the brackets."""
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class AsciiBar(ProgressColumn):
        def render(self, task: Task) -> Text:
            if not task.total:
                span = width - len(PULSE)
                step = int((task.elapsed or 0.0) * PULSE_SPEED) % (2 * span or 1)
                at = step if step <= span else 2 * span - step
                return Text(f"[{' ' * at}{PULSE}{' ' * (span - at)}]")
            filled = max(0, min(width, int(width * task.completed / task.total)))
            return Text(f"[{'#' * filled}{'-' * (width - filled)}]")

    return AsciiBar()
