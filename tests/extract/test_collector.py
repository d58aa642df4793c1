"""The collector around extraction: trees freed statement by statement, the import heap frozen."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from contextlib import contextmanager

from headwater.extract import ExtractOptions, Extractor, engine

SCRIPT = "INSERT INTO t SELECT a FROM s;\nINSERT INTO t SELECT b FROM s;\nINSERT INTO t SELECT c FROM s"


class _Probe:
    """Lives in a tree's ``meta`` and so dies with it (compiled sqlglot nodes take no weak reference)."""


def _probing_split(trees: list[weakref.ref]):
    """``engine.iter_script`` with a probe in each tree's meta, its weak reference added to ``trees``."""
    split = engine.iter_script

    def recording_split(sql: str, dialect: str, limits: object = None):
        for p in split(sql, dialect, limits):
            probe = _Probe()
            p.tree.meta["probe"] = probe
            trees.append(weakref.ref(probe))
            box = [p]
            del p, probe  # this generator holds no piece while suspended, as iter_script does not
            yield box.pop()

    return recording_split


def _record_young_collections(monkeypatch) -> tuple[list[weakref.ref], list[list[bool]]]:
    """Probe every statement's tree (``_probing_split``) and, after each pause of the collector and
    the young collection that ends it, record which trees are still alive."""
    trees: list[weakref.ref] = []
    alive_after: list[list[bool]] = []
    paused = engine.collector_paused

    @contextmanager
    def recording_paused():
        with paused():
            yield
        gc.collect(0)  # the young collection the end of the pause brings
        alive_after.append([ref() is not None for ref in trees])

    monkeypatch.setattr(engine, "iter_script", _probing_split(trees))
    monkeypatch.setattr(engine, "collector_paused", recording_paused)
    return trees, alive_after


def test_a_statements_tree_is_made_when_its_turn_comes_and_freed_once_it_is_done(monkeypatch) -> None:
    trees: list[weakref.ref] = []
    recording_split = _probing_split(trees)

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


def test_a_statements_tree_is_freed_by_the_young_collection_that_follows_it(monkeypatch) -> None:
    """The collection when a statement's pause ends finds its tree garbage already (else the tree
    would survive into an older generation and be walked again there)."""
    _, alive_after = _record_young_collections(monkeypatch)
    gc.collect()
    script = SCRIPT + ";\nINSERT INTO t SELECT d FROM s"
    result = Extractor(options=ExtractOptions(dialect="generic")).run(script)
    assert len(result.events) == 4
    # alive_after[k]: after the k-th statement (0: the first two taken at once, so that those two
    # outlive one collection); from the third on, each statement's tree dies with its pause
    assert [alive_after[3][2], alive_after[4][3]] == [False, False], alive_after


def test_a_single_statements_tree_is_freed_by_the_young_collection_after_it(monkeypatch) -> None:
    """One statement per call (history ingestion, the per-statement benchmark): its tree is parsed in
    the pause it is extracted in, so no collection sees it alive and the first young one frees it."""
    trees, alive_after = _record_young_collections(monkeypatch)
    extractor = Extractor(options=ExtractOptions(dialect="generic"))
    gc.collect()
    for sql in SCRIPT.split(";\n"):
        assert len(extractor.run(sql).events) == 1
    assert len(trees) == 3
    # after every pause of every call (its statement's, then the one that finds no more), no tree is
    # alive: none outlived the young collection (the statement's own pause takes its piece)
    assert len(alive_after) == 6 and not any(any(alive) for alive in alive_after), alive_after
