"""Doris-form events read through a view (base tables in ``sources``, the view in ``via``), as the
dispatch path emits them (one extractor per dialect, a live catalog that knows the view's definition)
and the ``store`` plugin records them, go through the view in the store: ``fct_sales →
v_customer_360 → top_customers``, with the answers of ingesting the SQL (issue 11, deliverable 3)."""

from __future__ import annotations

from pathlib import Path

from headwater.catalog import ChainCatalog, open_catalog
from headwater.dispatch.extraction import ExtractorStep
from headwater.dispatch.spi import PluginContext
from headwater.extract import RunInfo
from headwater.extract.split import split_script
from headwater.plugins.store import StorePlugin
from headwater.store import LineageStore, open_store
from headwater.store.catalog import StoreCatalog
from tests.project.conftest import WAREHOUSE
from tests.project.test_warehouse import assert_reader_answers, ingest

VIEW = "internal.mart.v_customer_360"


def _doris_events(url: str) -> list:
    """File 3's statements through the dispatch extract step: the Doris form."""
    live = ChainCatalog(  # stands in for the database's catalog: raw tables, and what files 1-2 created
        open_catalog(str(WAREHOUSE / "raw_schema.json"), None, "spark", "internal"),
        StoreCatalog(open_store(url), "spark"),
    )
    step = ExtractorStep("spark", live)
    events = []
    for k, piece in enumerate(split_script((WAREHOUSE / "03_reports.sql").read_text(), "spark")):
        events.extend(step(piece.sql, RunInfo(query_id=f"q{k}", user="etl"), "spark"))
    return events


def _record(url: str, events: list) -> None:
    plugin = StorePlugin()
    plugin.initialize(PluginContext("store", None, {"url": url}))
    plugin.exec_batch(events)
    plugin.close()


def test_doris_form_events_are_recorded_through_the_view(store_url: str) -> None:
    ingest(store_url, str(WAREHOUSE / "01_staging.sql"), str(WAREHOUSE / "02_marts.sql"))
    events = _doris_events(store_url)
    through = [e for e in events if e.via]
    assert [str(e.target.table) for e in through] == ["internal.rpt.top_customers", "internal.rpt.customer_trend"]
    assert all(VIEW not in {str(s) for s in e.sources} for e in through)  # the Doris form: base tables
    _record(store_url, events)

    assert_reader_answers(store_url, jobs=None)  # the view hop included: top_customers reads the view alone
    store = open_store(store_url)
    assert _value_sources(store_url, "rpt.top_customers.yearly_revenue") == [f"{VIEW}.yearly_revenue"]
    assert _value_sources(store_url, "rpt.customer_trend.revenue_change") == [f"{VIEW}.yearly_revenue"]
    impact = store.get_field_impact(f"{VIEW}.full_name", level="direct").impacted
    assert [i.field.name for i in impact] == ["internal.rpt.top_customers.full_name"]
    # the event as the producer sent it is kept (its base tables, its via)
    (version,) = store.job_history(_writer(store)).versions
    assert version.sql is not None and "FROM mart.v_customer_360" in version.sql


def _value_sources(url: str, column: str) -> list[str]:
    """The fields ``column``'s value comes from, one hop upstream (DIRECT edges)."""
    up = open_store(url).get_upstream(column, max_depth=1, node_types=["FIELD"])
    names = {n.id: n.name for n in up.nodes}
    return sorted(names[e.source] for e in up.edges if e.target == up.root.id and e.dependency == "DIRECT")


def _writer(store: LineageStore) -> int:
    up = store.get_upstream("rpt.top_customers", max_depth=1, node_types=["JOB"])
    (job,) = [n for n in up.nodes if n.type == "JOB"]
    return job.id


def test_a_view_the_store_has_no_lineage_of_stays_read_through(sqlite_url: str, tmp_path: Path) -> None:
    """Without the view's CREATE VIEW recorded, the Doris form is recorded as it was: the base columns,
    the view a dataset the job reads."""
    ingest(sqlite_url, str(WAREHOUSE / "01_staging.sql"), str(WAREHOUSE / "02_marts.sql"))
    events = _doris_events(sqlite_url)
    other = f"sqlite:///{tmp_path / 'other.db'}"
    _record(other, events)
    store = open_store(other)
    assert _value_sources(other, "rpt.top_customers.yearly_revenue") == [
        "internal.mart.fct_returns.return_amt",
        "internal.mart.fct_sales.net_paid",
    ]
    readers = store.get_downstream(VIEW, max_depth=1, node_types=["JOB"]).nodes
    assert len([n for n in readers if n.type == "JOB"]) == 2
