"""store: events recorded into a real headwater store (a SQLite file), idempotently."""

from __future__ import annotations

from pathlib import Path

from headwater.dispatch import DispatchSettings, start_dispatch
from headwater.dispatch.discovery import discover
from headwater.dispatch.sample import guide_event
from headwater.dispatch.testing import ListExtract
from headwater.extract import RunInfo
from headwater.store import open_store

SQL = "INSERT INTO lineage_customer_summary WITH ..."


def test_events_land_in_the_store_once(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    settings = DispatchSettings(  # type: ignore[arg-type]
        plugin_dir=None, activate_lineage_plugin=("store",), plugin_settings={"store": {"url": url}}
    )
    with start_dispatch(settings, extract=ListExtract({SQL: [guide_event("q-store")]}), discovery=discover(None)) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-store"))
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q-store"))  # a replay of the same event
    assert d.snapshot().plugins["store"].dispatched == 2
    store = open_store(url)
    origins = store.get_field_origin("lineage_demo.lineage_customer_summary.total_amount").origins
    assert [o.field.name for o in origins] == ["internal.lineage_demo.lineage_orders.amount"]
    assert store.record(guide_event("q-store")).duplicates == 1
    store.close()


def test_store_without_url_uses_the_store_default(tmp_path: Path, monkeypatch: object) -> None:
    path = tmp_path / "default.db"
    monkeypatch.setenv("HEADWATER_STORE", f"sqlite:///{path}")  # type: ignore[attr-defined]
    settings = DispatchSettings(plugin_dir=None, activate_lineage_plugin=("store",))  # type: ignore[arg-type]
    with start_dispatch(settings, extract=ListExtract({SQL: [guide_event("q1")]}), discovery=discover(None)) as d:
        d.collector.statement_succeeded(SQL, RunInfo(query_id="q1"))
    assert d.snapshot().plugins["store"].dispatched == 1 and path.is_file()
