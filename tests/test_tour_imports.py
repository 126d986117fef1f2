"""`neurondbg tour` (the listing) imports neither numpy nor Textual, and its
fast listing is the one `sessions.tours.list_tours` gives (an import check, not a timing)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neurondbg.commands import tour
from neurondbg.sessions.tours import list_tours

_PROBE = """
import json, sys
sys.argv = ["neurondbg", "tour"]
from neurondbg.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
heavy = ("numpy", "ml_dtypes", "textual", "neurondbg.sessions.store", "neurondbg.sessions.tours")
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}),
      file=sys.stderr)
"""


def test_tour_listing_imports_no_numpy() -> None:
    r = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                       check=False)
    assert json.loads(r.stderr.strip().splitlines()[-1]) == {"code": 0, "loaded": []}
    assert r.stdout.splitlines() == [f"{t.name}  {t.description}" for t in list_tours()]


def test_importing_sessions_loads_no_numpy() -> None:
    code = ("import sys, neurondbg.sessions, neurondbg.sessions.errors; "
            "print([m for m in ('numpy', 'neurondbg.sessions.store') if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def test_sessions_names_load_on_use() -> None:
    from neurondbg import sessions
    from neurondbg.sessions.store import save_session

    assert sessions.save_session is save_session
    assert set(sessions.__all__) <= set(dir(sessions))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        sessions.nothing  # noqa: B018


def test_fast_listing_equals_list_tours() -> None:
    assert tour.tour_lines() == [f"{t.name}  {t.description}" for t in list_tours()]


def test_a_broken_tour_file_is_reported_by_the_session_reader(tmp_path: Path,
                                                              monkeypatch) -> None:
    (tmp_path / "bad.toml").write_text("[tour\n")
    from importlib.machinery import ModuleSpec

    spec = ModuleSpec("neurondbg.sessions.tours", None, is_package=True)
    spec.submodule_search_locations = [str(tmp_path)]
    monkeypatch.setattr("importlib.util.find_spec", lambda name: spec)
    monkeypatch.setattr("neurondbg.sessions.tours.TOURS_DIR", tmp_path)
    from neurondbg.sessions.errors import SessionError

    with pytest.raises(SessionError, match=r"bad\.toml:1:\d+: malformed TOML"):
        tour.tour_lines()
