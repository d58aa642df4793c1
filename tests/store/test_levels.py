"""Origin and impact levels (direct, field, all) and labels by the strongest path (issue 11 item 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.store.helpers import events_of, record_sql
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.model import event_to_json
from headwater.service import create_app
from headwater.store import InvalidInput, LineageStore

runner = CliRunner()

# f.v is raw.v copied through three layers (DIRECT, four hops), and the last statement also filters
# on raw.v (INDIRECT, one hop): the shortest path is the FILTER, the strongest the copies.
LAYERS = """
CREATE TABLE stg.s1 AS SELECT o.k, o.v FROM raw.src o;
CREATE TABLE stg.s2 AS SELECT s1.k, s1.v FROM stg.s1 s1;
CREATE TABLE stg.s3 AS SELECT s2.k, s2.v FROM stg.s2 s2;
CREATE TABLE rpt.f AS SELECT s3.v AS v FROM stg.s3 s3 JOIN raw.src r ON r.k = s3.k WHERE r.v > 0;
"""

# segment is a CASE two layers down: it has no DIRECT input, only its condition column
SEGMENT = """
CREATE TABLE mart.dim_customer AS
SELECT c.c_customer_sk, c.c_last_name,
       CASE WHEN c.c_preferred_cust_flag = 'Y' THEN 'preferred' ELSE 'standard' END AS segment
FROM raw.customer c JOIN raw.address a ON a.ca_address_sk = c.c_current_addr_sk
WHERE a.ca_state IS NOT NULL;
CREATE TABLE rpt.top_customers AS
SELECT d.c_customer_sk, d.segment, ROW_NUMBER() OVER (ORDER BY d.c_last_name) AS rn
FROM mart.dim_customer d WHERE d.c_customer_sk > 0;
"""


def _origins(store: LineageStore, field: str, **kw: object) -> set[tuple[str, str]]:
    return {(o.field.short, o.dependency) for o in store.get_field_origin(field, **kw).origins}  # type: ignore[arg-type]


def test_origin_labels_by_the_strongest_path(store: LineageStore) -> None:
    """Problem 4: with --indirect, a DIRECT origin reached more shortly by a FILTER was INDIRECT."""
    record_sql(store, LAYERS)
    assert _origins(store, "rpt.f.v", include_indirect=True) == {("src.v", "DIRECT"), ("src.k", "INDIRECT")}
    every = store.get_field_origin("rpt.f.v", level="all")
    by_field = {o.field.short: o for o in every.origins}
    src_v = by_field["src.v"]
    assert src_v.dependency == "DIRECT"
    assert src_v.types == ["IDENTITY", "IDENTITY", "IDENTITY", "IDENTITY"]
    assert all(e.dependency == "DIRECT" for e in src_v.path)
    assert src_v.depth == 4
    assert by_field["src.k"].dependency == "INDIRECT"  # only the join key
    assert set(by_field) == {"src.v", "src.k"}
    # impact agrees: raw.v reaches f.v DIRECT, whatever the level
    for level in ("direct", "field", "all"):
        impacted = {i.field.short: i.dependency for i in store.get_field_impact("raw.src.v", level=level).impacted}
        assert impacted["f.v"] == "DIRECT"


def test_case_origin_reaches_through_layers(store: LineageStore) -> None:
    """Problem 5: the default origin of a CASE column two layers up stopped at the layer below."""
    record_sql(store, SEGMENT)
    assert _origins(store, "rpt.top_customers.segment") == {("customer.c_preferred_cust_flag", "INDIRECT")}
    assert _origins(store, "rpt.top_customers.segment", level="direct") == {("dim_customer.segment", "DIRECT")}
    every = _origins(store, "rpt.top_customers.segment", level="all")
    assert ("customer.c_preferred_cust_flag", "INDIRECT") in every
    assert {"address.ca_state", "address.ca_address_sk", "customer.c_current_addr_sk"} <= {f for f, _ in every}
    # a window's ORDER BY column is the field's own input (WINDOW): level field follows it
    assert _origins(store, "rpt.top_customers.rn") == {("customer.c_last_name", "INDIRECT")}
    assert _origins(store, "rpt.top_customers.rn", level="direct") == {("top_customers.rn", "DIRECT")}
    # impact: the flag computes segment on both layers at level field, and nothing else
    impacted = store.get_field_impact("raw.customer.c_preferred_cust_flag")
    assert {(i.field.short, i.dependency) for i in impacted.impacted} == {
        ("dim_customer.segment", "INDIRECT"),
        ("top_customers.segment", "INDIRECT"),
    }
    assert impacted.level == "field"
    # the filter column reaches every column of dim_customer at level all only
    assert store.get_field_impact("raw.address.ca_state").total == 0
    assert store.get_field_impact("raw.address.ca_state", level="all").total == 6


def test_unknown_level_is_invalid_input(store: LineageStore) -> None:
    record_sql(store, SEGMENT)
    with pytest.raises(InvalidInput, match="'most' is not one of direct, field, all"):
        store.get_field_origin("rpt.top_customers.segment", level="most")


def test_cli_and_api_answer_alike(store: LineageStore, store_url: str, tmp_path: Path) -> None:
    events = events_of(LAYERS + SEGMENT)
    f = tmp_path / "events.jsonl"
    f.write_text("".join(event_to_json(e) + "\n" for e in events))
    assert runner.invoke(app, ["ingest", str(f), "--store", store_url]).exit_code == 0

    def cli(*args: str) -> dict[str, object]:
        r = runner.invoke(app, ["query", *args, "--store", store_url, "--format", "json"])
        assert r.exit_code == 0, r.output
        return json.loads(r.output)

    def labels(answer: dict[str, object], key: str) -> set[tuple[str, str]]:
        return {(o["field"]["short"], o["dependency"]) for o in answer[key]}  # type: ignore[index,attr-defined]

    with TestClient(create_app(store)) as client:

        def api(path: str, **params: str) -> dict[str, object]:
            r = client.get(f"/api/v1/{path}", params=params)
            assert r.status_code == 200, r.text
            return r.json()

        old = cli("origin", "rpt.f.v", "--indirect")
        assert labels(old, "origins") == {("src.v", "DIRECT"), ("src.k", "INDIRECT")}
        assert old["level"] == "all"
        assert labels(old, "origins") == labels(cli("origin", "rpt.f.v", "--level", "all"), "origins")
        assert labels(old, "origins") == labels(api("field-origin", field="rpt.f.v", level="all"), "origins")
        assert labels(old, "origins") == labels(
            api("field-origin", field="rpt.f.v", include_indirect="true"), "origins"
        )
        segment = {("customer.c_preferred_cust_flag", "INDIRECT")}
        assert labels(cli("origin", "top_customers.segment"), "origins") == segment
        assert labels(api("field-origin", field="top_customers.segment"), "origins") == segment
        flag = labels(cli("impact", "customer.c_preferred_cust_flag"), "impacted")
        assert flag == labels(api("field-impact", field="customer.c_preferred_cust_flag"), "impacted")
        assert flag == {("dim_customer.segment", "INDIRECT"), ("top_customers.segment", "INDIRECT")}
        # the explorer's side panel reads /field-origin; its drawing reads /explorer/field-paths at the same level
        paths = api("explorer/field-paths", field="rpt.f.v", level="all")
        assert {n["short"] for n in paths["upstream"]["nodes"]} >= {"src.v", "src.k"}  # type: ignore[index]
        assert paths["level"] == "all"
        table = runner.invoke(app, ["query", "origin", "rpt.f.v", "--indirect", "--store", store_url])
        assert table.exit_code == 0 and "(level all)" in table.output and "DIRECT" in table.output
    clash = runner.invoke(app, ["query", "origin", "rpt.f.v", "--indirect", "--level", "direct", "--store", store_url])
    assert clash.exit_code == 2 and "--indirect is --level all" in clash.output
