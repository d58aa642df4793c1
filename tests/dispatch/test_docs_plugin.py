"""The complete minimal plugin of docs/plugins.md, deployed as a plugin directory and run end to end."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from headwater.dispatch import DECLARATION_FILE, DispatchSettings, load_settings, start_dispatch
from headwater.dispatch.sample import tiny_event
from headwater.dispatch.testing import ListExtract
from headwater.extract import RunInfo

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def _block(after: str, lang: str) -> str:
    """The first ``lang`` code block that follows the line ``after`` in docs/plugins.md."""
    text = DOC.read_text()
    start = text.index(after)
    m = re.compile(rf"```{lang}\n(.*?)```", re.S).search(text, start)
    assert m is not None, f"no {lang} block after {after!r}"
    return m.group(1)


@pytest.fixture
def isolated_imports() -> Iterator[None]:
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        del sys.modules[name]


@pytest.mark.usefixtures("isolated_imports")
def test_minimal_plugin_from_the_docs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plugin = tmp_path / "plugins" / "lineage" / "example-lineage"
    plugin.mkdir(parents=True)
    (plugin / DECLARATION_FILE).write_text(_block("`headwater.lineage_plugins`:", "text"))
    (plugin / "example_lineage.py").write_text(_block("`example_lineage.py`:", "python"))
    config = tmp_path / "headwater.toml"
    config.write_text(f'plugin_dir = "{tmp_path / "plugins"}"\n' + _block("`headwater.toml`:", "toml"))
    settings = load_settings(config, env={})
    assert isinstance(settings, DispatchSettings)
    sql = "INSERT INTO t SELECT a FROM s"
    d = start_dispatch(settings, extract=ListExtract({sql: [tiny_event("q1")]}), entry_points_fn=list)
    assert [(p.name, p.plugin_path) for p in d.plugins] == [("example-lineage", plugin.resolve())]
    d.collector.statement_succeeded(sql, RunInfo(query_id="q1"))
    d.collector.statement_succeeded(sql, RunInfo(query_id="q1"))
    assert d.close()
    instance = d.plugins[0].plugin
    assert instance.seen == {"db.t": 2}  # type: ignore[attr-defined]
    event_id = tiny_event("q1").event_id
    assert capsys.readouterr().out.splitlines() == [
        f"demo: {event_id} -> db.t",
        f"demo: {event_id} -> db.t",
        "demo: closed after 2 events",
    ]
