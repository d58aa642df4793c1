"""``headwater diff --dbt OLD_TARGET NEW_TARGET`` over small hand-written dbt artifacts (no dbt run):
the jobs are named and located as ``ingest --dbt`` names them, the changes and verdict exact, exit
codes and one-line usage errors; ``--store`` gives the deployed downstream (``ingest --dbt`` of the
old target, and a report of another project reading it).

The project: source ``raw.orders`` → ``stg_orders`` (a view) → ``customer_revenue`` (a table) →
``top_customers`` (a view). The change drops ``stg_orders.status`` (``customer_revenue`` still reads
it in its filter) and turns ``SUM(amount)`` into ``AVG(amount)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from headwater.diff import ColumnKind, Verdict, dbt_side, diff
from headwater.project.dbt import load_artifacts
from tests.cli.conftest import invoke

STG = 'select o.id as order_id, o.customer_id, o.amount, o.status from "db"."raw"."orders" as o'
REVENUE = """select s.customer_id, sum(s.amount) as revenue
from "db"."analytics"."stg_orders" as s
where s.status <> 'test'
group by s.customer_id"""
TOP = 'select r.customer_id, r.revenue from "db"."analytics"."customer_revenue" as r where r.revenue > 100'
CATALOG = {
    "metadata": {},
    "nodes": {},
    "sources": {
        "source.shop.raw.orders": {
            "metadata": {"database": "db", "schema": "raw", "name": "orders"},
            "columns": {
                name: {"name": name, "type": type_, "index": i}
                for i, (name, type_) in enumerate(
                    [("id", "integer"), ("customer_id", "integer"), ("amount", "numeric"), ("status", "text")], 1
                )
            },
        }
    },
}
T = "db.analytics."


def _model(name: str, sql: str, materialized: str, *deps: str) -> dict[str, Any]:
    return {
        "resource_type": "model",
        "name": name,
        "database": "db",
        "schema": "analytics",
        "alias": name,
        "config": {"materialized": materialized},
        "compiled_code": sql,
        "depends_on": {"nodes": list(deps)},
        "original_file_path": f"models/{name}.sql",
        "fqn": ["shop", name],
    }


def write_target(directory: Path, stg: str = STG, revenue: str = REVENUE) -> Path:
    """A target directory as ``dbt compile`` leaves it: ``manifest.json`` (and ``catalog.json``)."""
    nodes = {
        "model.shop.stg_orders": _model("stg_orders", stg, "view", "source.shop.raw.orders"),
        "model.shop.customer_revenue": _model("customer_revenue", revenue, "table", "model.shop.stg_orders"),
        "model.shop.top_customers": _model("top_customers", TOP, "view", "model.shop.customer_revenue"),
    }
    source = {
        "resource_type": "source",
        "name": "orders",
        "database": "db",
        "schema": "raw",
        "identifier": "orders",
        "fqn": ["shop", "raw", "orders"],
    }
    manifest = {
        "metadata": {"project_name": "shop", "adapter_type": "postgres", "generated_at": "2026-12-01T00:00:00Z"},
        "nodes": nodes,
        "sources": {"source.shop.raw.orders": source},
    }
    directory.mkdir(parents=True)
    (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / "catalog.json").write_text(json.dumps(CATALOG))
    return directory


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    old = write_target(tmp_path / "base")
    new = write_target(
        tmp_path / "head",
        stg=STG.replace(", o.status", ""),
        revenue=REVENUE.replace("sum(s.amount)", "avg(s.amount)"),
    )
    return old, new


def test_the_changes_and_the_verdict(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    report = diff(dbt_side(load_artifacts(old), label="base"), dbt_side(load_artifacts(new), label="head"))
    got = [(c.column, c.kind, c.verdict, c.job, c.file, c.line) for c in report.columns]
    assert got == [
        (
            T + "customer_revenue.customer_id",  # its FILTER on status is gone
            ColumnKind.INDIRECT,
            Verdict.BREAKING,
            "model.shop.customer_revenue",
            "shop/models/customer_revenue.sql",
            1,
        ),
        (
            T + "customer_revenue.revenue",
            ColumnKind.EXPRESSION,
            Verdict.BREAKING,
            "model.shop.customer_revenue",
            "shop/models/customer_revenue.sql",
            1,
        ),
        (
            T + "stg_orders.status",
            ColumnKind.REMOVED,
            Verdict.BREAKING,
            "model.shop.stg_orders",
            "shop/models/stg_orders.sql",
            1,
        ),
    ]
    customer_id, revenue, status = report.columns
    assert [(e.source, e.subtype) for e in customer_id.removed] == [(T + "stg_orders.status", "FILTER")]
    assert [(e.source, e.old_expression, e.new_expression) for e in revenue.changed] == [
        (T + "stg_orders.amount", "SUM(stg_orders.amount)", "AVG(stg_orders.amount)")
    ]
    assert revenue.reason.startswith("its statement no longer extracts (unknown_column: ")
    assert status.impact is not None and sorted(r.column for r in status.impact.readers if r.broken) == [
        T + "customer_revenue.customer_id",  # its readers, and what is downstream of them with them
        T + "customer_revenue.revenue",
        T + "top_customers.customer_id",
        T + "top_customers.revenue",
    ]
    assert [(p.file, p.line, p.job, p.code) for p in report.problems] == [
        ("shop/models/customer_revenue.sql", 1, "model.shop.customer_revenue", "unknown_column")
    ]
    assert report.verdict is Verdict.BREAKING


def test_the_aggregation_alone_is_possibly_breaking(tmp_path: Path) -> None:
    old = write_target(tmp_path / "base")
    new = write_target(tmp_path / "head", revenue=REVENUE.replace("sum(s.amount)", "avg(s.amount)"))
    r = invoke("diff", "--dbt", str(old), str(new))
    assert r.exit_code == 0, r.output
    assert " ".join(r.stdout.split()).endswith(  # the verdict line, wrapped at 100 columns
        "verdict: POSSIBLY_BREAKING (0 breaking, 1 possibly breaking, 0 safe; 0 statement(s) no longer extract)"
    )
    r = invoke("diff", "--dbt", str(old), str(new), "--fail-on", "possibly-breaking", "--format", "json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    readers = {x["column"]: x["dependency"] for x in doc["columns"][0]["impact"]["readers"]}
    assert [(c["column"], c["kind"]) for c in doc["columns"]] == [(T + "customer_revenue.revenue", "expression")]
    assert readers == {T + "top_customers.revenue": "DIRECT", T + "top_customers.customer_id": "INDIRECT"}


def test_the_deployed_downstream_from_the_store(tmp_path: Path) -> None:
    old, new = _pair(tmp_path)
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    assert invoke("ingest", "--dbt", str(old), "--store", url).exit_code == 0
    report_sql = tmp_path / "finance" / "weekly.sql"
    report_sql.parent.mkdir()
    report_sql.write_text("CREATE TABLE db.finance.weekly AS SELECT w.status, w.amount FROM db.analytics.stg_orders w")
    r = invoke("ingest", str(report_sql), "--store", url, "--dialect", "postgres")
    assert r.exit_code == 0, r.output
    r = invoke("diff", "--dbt", str(old), str(new), "--store", url, "--format", "json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["impact_from"] == url
    status = next(c for c in doc["columns"] if c["column"] == T + "stg_orders.status")
    assert sorted(x["column"] for x in status["impact"]["readers"] if x["broken"]) == [
        T + "customer_revenue.customer_id",
        T + "customer_revenue.revenue",
        T + "top_customers.customer_id",
        T + "top_customers.revenue",
        "db.finance.weekly.status",
    ]


def test_usage_errors(tmp_path: Path) -> None:
    old = write_target(tmp_path / "base")
    cases = [
        (
            ["--dbt", str(old)],
            "error: --dbt: give two dbt project or target directories (OLD_TARGET NEW_TARGET), each with manifest.json",
        ),
        (
            ["--dbt", str(old), str(old), "--git-base", "main"],
            "error: --dbt compares two dbt targets: `dbt compile` each revision into a directory, give no --git-base",
        ),
        (
            ["--dbt", str(old), str(tmp_path / "nowhere")],
            f"error: --dbt {tmp_path / 'nowhere'}: no target/manifest.json there or in it: run `dbt build` (or "
            "`dbt compile`) in the project first",
        ),
        (
            ["--dbt", "--from", "7d"],
            "error: --from/--to compare two times of one store: give no directories, no --git-base and no --dbt",
        ),
    ]
    for args, message in cases:
        r = invoke("diff", *args)
        assert (r.exit_code, r.stderr.strip()) == (2, message)


def test_a_build_target_whose_model_failed(tmp_path: Path) -> None:
    """A ``dbt build`` target: the model whose run failed made no new version, so its statement is
    one that no longer extracts, and what it wrote is gone from the new side."""
    old = write_target(tmp_path / "base")
    new = write_target(tmp_path / "head")
    results = [
        {"unique_id": uid, "status": status, "execution_time": 0.1, "timing": [], "message": message}
        for uid, status, message in [
            ("model.shop.stg_orders", "success", None),
            ("model.shop.customer_revenue", "error", "division by zero"),
            ("model.shop.top_customers", "skipped", None),
        ]
    ]
    run_results = {"metadata": {"invocation_id": "inv-2"}, "args": {"which": "build"}, "results": results}
    (new / "run_results.json").write_text(json.dumps(run_results))
    report = diff(dbt_side(load_artifacts(old)), dbt_side(load_artifacts(new)))
    assert [(p.file, p.line, p.job, p.code, p.message) for p in report.problems] == [
        (
            "shop/models/customer_revenue.sql",
            1,
            "model.shop.customer_revenue",
            "not_recorded",
            "its run error: no new version",
        ),
        (
            "shop/models/top_customers.sql",
            1,
            "model.shop.top_customers",
            "not_recorded",
            "its run skipped: no new version",
        ),
    ]
    assert {(c.column, c.kind, c.verdict) for c in report.columns} == {
        (T + "customer_revenue.customer_id", ColumnKind.REMOVED, Verdict.BREAKING),
        (T + "customer_revenue.revenue", ColumnKind.REMOVED, Verdict.BREAKING),
        (T + "top_customers.customer_id", ColumnKind.REMOVED, Verdict.BREAKING),
        (T + "top_customers.revenue", ColumnKind.REMOVED, Verdict.BREAKING),
    }
