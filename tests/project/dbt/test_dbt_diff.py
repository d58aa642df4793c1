"""``headwater diff --dbt OLD_TARGET NEW_TARGET`` on the test project compiled by the real dbt: the
project as it is and a copy of it (a pull request's head) in which ``stg_customers`` drops ``email``
(the snapshot still reads it) and ``int_customer_orders`` takes ``max`` of the order date instead of
``min``; each ``dbt compile``d into a target directory of its own with the same profile, then diffed,
as docs/dbt.md's CI recipe does."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import invoke
from tests.project.dbt.conftest import DbtProject, make_project

EXPECTED = Path(__file__).with_name("expected") / "dbt_diff.md"


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DbtProject, Path, Path]]:
    """(the project, the base's target directory, the head's), each of ``dbt compile`` and ``dbt docs
    generate --no-compile`` (catalog.json: the raw tables' columns)."""
    with make_project(tmp_path_factory.mktemp("dbtdiff")) as base:
        head = DbtProject(base.dir.with_name("hw_shop_head"), base.schema, base.bin)
        shutil.copytree(base.dir, head.dir)
        head.edit("models/staging/stg_customers.sql", "    lower(email) as email,\n", "")
        head.edit("models/intermediate/int_customer_orders.sql", "min(o.order_date)", "max(o.order_date)")
        out = base.dir.parent
        for project, target in ((base, out / "base"), (head, out / "head")):
            project.dbt("compile", "--target-path", str(target))
            project.dbt("docs", "generate", "--no-compile", "--target-path", str(target))
        yield base, out / "base", out / "head"


def test_the_changes_and_the_verdict(targets: tuple[DbtProject, Path, Path]) -> None:
    project, base, head = targets
    r = invoke("diff", "--dbt", str(base), str(head), "--format", "json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    s = f"test.{project.schema}_"
    assert [(c["column"].removeprefix(s), c["kind"], c["verdict"], c["job"]) for c in doc["columns"]] == [
        (
            "intermediate.int_customer_orders.first_order_date",
            "expression",
            "POSSIBLY_BREAKING",
            "model.hw_shop.int_customer_orders",
        ),
        ("snapshots.customers_snapshot.email", "removed", "BREAKING", "snapshot.hw_shop.customers_snapshot"),
        ("staging.stg_customers.email", "removed", "BREAKING", "model.hw_shop.stg_customers"),
    ]
    first, snapshot_email, email = doc["columns"]
    assert [(e["source"].removeprefix(s), e["old_expression"], e["new_expression"]) for e in first["changed"]] == [
        ("staging.stg_orders.order_date", "MIN(stg_orders.order_date)", "MAX(stg_orders.order_date)")
    ]
    assert [(x["column"].removeprefix(s), x["broken"]) for x in first["impact"]["readers"]] == [
        ("marts.dim_customers.first_order_date", False)
    ]
    assert [e["source"].removeprefix(s) for e in email["removed"]] == ["raw.customers.email"]
    assert [(x["column"].removeprefix(s), x["broken"]) for x in email["impact"]["readers"]] == [
        ("snapshots.customers_snapshot.email", True)  # the snapshot still reads it
    ]
    assert snapshot_email["reason"].startswith("its statement no longer extracts (unknown_column: column email")
    assert [(p["file"], p["line"], p["job"], p["code"]) for p in doc["problems"]] == [
        ("hw_shop/snapshots/customers_snapshot.sql", 1, "snapshot.hw_shop.customers_snapshot", "unknown_column")
    ]
    assert [(j["job"], j["kind"]) for j in doc["jobs"]] == [
        ("model.hw_shop.int_customer_orders", "changed"),
        ("model.hw_shop.stg_customers", "changed"),
        ("snapshot.hw_shop.customers_snapshot", "changed"),
    ]
    assert doc["verdict"] == "BREAKING"


def test_the_markdown_report_with_the_deployed_store(targets: tuple[DbtProject, Path, Path], tmp_path: Path) -> None:
    """The base as deployed (``ingest --dbt`` of its target), the downstream read from that store."""
    project, base, head = targets
    url = f"sqlite:///{tmp_path / 'lineage.db'}"
    assert invoke("ingest", "--dbt", str(base), "--store", url).exit_code == 0
    r = invoke("diff", "--dbt", str(base), str(head), "--store", url, "--format", "markdown")
    assert r.exit_code == 1, r.output
    got = r.stdout.replace(project.schema, "SCHEMA").replace(str(base.parent), "TMP").replace(url, "STORE")
    assert got == EXPECTED.read_text()
