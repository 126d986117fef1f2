"""Session files, trace export and shipped tours (never imports Textual).

    from sessions import save_session, load_session, SessionError
    save_session("s.toml", core, program_path="prog.asm", layout={"focus": "memory"})
    loaded = load_session("s.toml")   # .core at the saved step; .warnings; .program_changed

The names below load on first use (PEP 562 `__getattr__`): importing a submodule
such as `sessions.errors`, or locating the shipped tours, must not pull in the
model (numpy) through `sessions.schema` / `sessions.store` (`neurondbg tour`
lists the tours without numpy).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

# public name -> the submodule that defines it
_LAZY = {
    "SessionError": "neurondbg.sessions.errors",
    "SCHEMA_VERSION": "neurondbg.sessions.schema",
    "SessionSpec": "neurondbg.sessions.schema",
    "session_from_dict": "neurondbg.sessions.schema",
    "session_to_dict": "neurondbg.sessions.schema",
    "LoadedSession": "neurondbg.sessions.store",
    "load_session": "neurondbg.sessions.store",
    "read_session": "neurondbg.sessions.store",
    "save_session": "neurondbg.sessions.store",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sessions' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later look-ups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
