"""The collector around extraction: trees freed statement by statement, the import heap frozen."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

from headwater.extract import ExtractOptions, Extractor, engine

SCRIPT = "INSERT INTO t SELECT a FROM s;\nINSERT INTO t SELECT b FROM s;\nINSERT INTO t SELECT c FROM s"


class _Probe:
    """Lives in a tree's ``meta`` and so dies with it (compiled sqlglot nodes take no weak reference)."""


def test_a_statements_tree_is_made_when_its_turn_comes_and_freed_once_it_is_done(monkeypatch) -> None:
    trees: list[weakref.ref] = []
    split = engine.iter_script

    def recording_split(sql: str, dialect: str, limits: object = None):
        for p in split(sql, dialect, limits):
            probe = _Probe()
            p.tree.meta["probe"] = probe
            trees.append(weakref.ref(probe))
            yield p

    alive_at: list[list[bool]] = []
    statement = engine.Extractor._statement

    def recording_statement(self, piece, run):
        gc.collect()
        alive_at.append([ref() is not None for ref in trees])
        return statement(self, piece, run)

    monkeypatch.setattr(engine, "iter_script", recording_split)
    monkeypatch.setattr(engine.Extractor, "_statement", recording_statement)
    result = Extractor(options=ExtractOptions(dialect="generic")).run(SCRIPT)
    assert [[d.expression for d in e.direct] for e in result.events] == [["s.a"], ["s.b"], ["s.c"]]
    # the first two statements are parsed together (a script of one statement has no statement ids),
    # then each when its turn comes, once the one before it is gone
    assert alive_at == [[True, True], [False, True], [False, False, True]]


def test_the_collector_is_enabled_again_after_a_script() -> None:
    assert gc.isenabled()
    Extractor(options=ExtractOptions(dialect="generic")).run(SCRIPT)
    assert gc.isenabled()


def test_the_headwater_command_freezes_the_import_heap() -> None:
    code = "import gc; import headwater.cli.main; print(gc.get_freeze_count() > 10000)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
