"""The panes of each debugger layout: pane id -> title, in layout order (focus order,
keys 1..9). The one declaration the screens, `pane NAME`, its completion and its help
read; kept free of Textual so the console can list them before the first frame."""

from __future__ import annotations

# one program (neurondbg/screens/main.py)
PANES: dict[str, str] = {
    "program": "Program", "registers": "Registers", "accum": "DVE acc / idx", "plot": "Plot",
    "struct": "Struct", "legality": "Legality", "memory": "SBUF", "lanes": "Convert trace",
    "console": "Console",
}
# a kernel: several engine queues (neurondbg/screens/core.py)
CORE_PANES: dict[str, str] = {
    "program": "Program", "engines": "Engines", "timeline": "Timeline",
    "registers": "Registers", "semaphores": "Semaphores", "struct": "Struct",
    "legality": "Legality", "memory": "SBUF", "console": "Console",
}


def every_pane() -> list[str]:
    """Every pane id of either layout, each once, program layout first."""
    return list(dict.fromkeys([*PANES, *CORE_PANES]))
