"""Session files, trace export and shipped tours (never imports Textual).

    from sessions import save_session, load_session, SessionError
    save_session("s.toml", machine, program_path="prog.asm", layout={"focus": "memory"})
    loaded = load_session("s.toml")   # .machine at the saved step; .warnings; .program_changed
"""

from sessions.errors import SessionError
from sessions.schema import SCHEMA_VERSION, SessionSpec, session_from_dict, session_to_dict
from sessions.store import LoadedSession, load_session, read_session, save_session

__all__ = [
    "SCHEMA_VERSION", "LoadedSession", "SessionError", "SessionSpec", "load_session",
    "read_session", "save_session", "session_from_dict", "session_to_dict",
]
