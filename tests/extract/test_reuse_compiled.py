"""``extract.reuse`` in the optional mypyc build: listed with the hot modules, and its code paths that
differ between the builds (a template's events made by the class where a native class has no slots'
setters; ``_make_template`` called through the module) give the same values."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from headwater.extract import Extractor, RunInfo, reuse
from headwater.extract.compiled import HOT_MODULES, compiled_modules
from headwater.extract.reuse import _Event, _merging, _new_tevent

ROOT = Path(__file__).resolve().parents[2]


def _build_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("mypyc_build", ROOT / "build_support" / "mypyc_build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mypyc_build", module)
    spec.loader.exec_module(module)
    return module


def test_reuse_is_a_compiled_module_of_the_build() -> None:
    assert "headwater.extract.reuse" in HOT_MODULES
    assert "src/headwater/extract/reuse.py" in _build_module().COMPILED


def test_a_template_event_is_made_by_its_slots_only_where_reuse_is_interpreted() -> None:
    compiled = "headwater.extract.reuse" in compiled_modules()
    assert reuse._TEVENT_SLOTS is (not compiled)
    assert (_new_tevent is _Event) is compiled


def test_a_template_event_is_the_same_made_either_way() -> None:
    ex = Extractor(database="db", reuse=reuse.StatementReuse(size=10))
    sql = "INSERT INTO t SELECT a, b FROM s WHERE d = 'x' AND k > 3 AND d = 'y'"
    for k in range(3):
        ex.run(sql, RunInfo(query_id=f"q{k}"))
    templates = [t for t in ex.reuse._entries.values() if isinstance(t, reuse._Template)]
    assert templates
    for t in templates:
        for te in t.events:
            plain = _Event(te.event, te.slots, te.parts, te.diagnostics, te.name)
            assert plain == te and plain.merging == te.merging == _merging(te.parts, te.slots)
            if reuse._TEVENT_SLOTS:
                made = _new_tevent(te.event, te.slots, te.parts, te.diagnostics, te.name, te.merging)
                assert made == te and type(made) is _Event


def test_make_template_is_called_through_the_module(monkeypatch) -> None:
    """A wrapper put in the module's ``_make_template`` sees every first sight (also compiled)."""
    calls = []
    made = reuse._make_template

    def counted(*args, **kw):  # type: ignore[no-untyped-def]
        calls.append(args[1])
        return made(*args, **kw)

    monkeypatch.setattr(reuse, "_make_template", counted)
    ex = Extractor(database="db", reuse=reuse.StatementReuse(size=10))
    for day in ("2024-01-01", "2024-01-02"):
        ex.run(f"INSERT INTO t SELECT a FROM s WHERE d = '{day}'", RunInfo(query_id=day))
    assert len(calls) == 1 and "hw@lit0@" in calls[0]
