"""Theme 13: storage paths are datasets, named as OpenLineage names them, with column lineage
where the columns are known; they survive the store and the OpenLineage output."""

from __future__ import annotations

import json

import pytest
from openlineage.client.serde import Serde

from headwater.extract import extract_script
from headwater.model import SourceCommand, Status, TableRef
from headwater.model.ol_naming import OpenLineageNaming
from headwater.model.openlineage import to_run_event
from headwater.model.storage import storage_uri
from headwater.store import open_store
from tests.extract.helpers import catalog_of


def events_of(sql: str, dialect: str, schema: dict[str, list[str]] | None = None, statements: str = "all"):
    res = extract_script(
        sql, dialect=dialect, catalog=catalog_of(schema) if schema else None, database="db", statements=statements
    )
    return res, res.events


def lineage(e) -> tuple[list[str], str, list[tuple[str, list[str]]]]:
    """(sources as URIs or names, target, [(column, its source columns)]); names in lower case."""

    def name(t: TableRef) -> str:
        return storage_uri(t) if "://" in t.catalog else t.qualified.lower()

    cols = [(d.target_column.lower(), [f"{name(c.table)}.{c.column.lower()}" for c in d.sources]) for d in e.direct]
    return [name(t) for t in e.sources], name(e.target.table), cols


@pytest.mark.parametrize(
    ("dialect", "sql", "source"),
    [
        ("snowflake", "COPY INTO t FROM 's3://bucket/path/' FILE_FORMAT = (TYPE = CSV)", "s3://bucket/path/"),
        ("snowflake", "COPY INTO t FROM 'gcs://lake/p/' STORAGE_INTEGRATION = si", "gs://lake/p/"),
        ("postgres", "COPY t FROM '/var/load/t.csv' WITH (FORMAT csv)", "file:///var/load/t.csv"),
        ("postgres", "COPY t (a, b) FROM 's3://b/x.csv'", "s3://b/x.csv"),
        ("redshift", "COPY t FROM 's3://lake/t/' IAM_ROLE 'arn:aws:iam::1:role/r' FORMAT AS PARQUET", "s3://lake/t/"),
        ("redshift", "COPY t FROM 's3a://lake/t/' CREDENTIALS 'aws_iam_role=x' CSV", "s3://lake/t/"),
        ("duckdb", "COPY t FROM '/tmp/in.csv'", "file:///tmp/in.csv"),
    ],
)
def test_copy_into_a_table_reads_the_path(dialect: str, sql: str, source: str) -> None:
    _, events = events_of(sql, dialect)
    (e,) = events
    assert e.source_command is SourceCommand.COPY
    assert lineage(e)[:2] == ([source], "db.t")
    assert e.direct == ()  # the file's columns are unknown: table lineage only
    assert e.status is Status.UNAVAILABLE


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [
        ("postgres", "COPY t TO '/var/export/t.csv'"),
        ("duckdb", "COPY t TO '/var/export/t.csv' (FORMAT CSV)"),
        ("snowflake", "COPY INTO 'file:///var/export/t.csv' FROM t"),
    ],
)
def test_copy_a_table_to_a_path_writes_its_columns(dialect: str, sql: str) -> None:
    schema = {"DB.T": ["A", "B"]} if dialect == "snowflake" else {"db.t": ["a", "b"]}  # as Snowflake folds
    _, (e,) = events_of(sql, dialect, schema)
    assert lineage(e) == (
        ["db.t"],
        "file:///var/export/t.csv",
        [("a", ["db.t.a"]), ("b", ["db.t.b"])],
    )
    assert e.status is Status.COMPLETE


def test_copy_a_query_to_a_path() -> None:
    sql = "COPY (SELECT c.id, upper(c.name) AS name FROM customers c JOIN orders o ON o.cid = c.id) TO '/tmp/c.csv'"
    _, (e,) = events_of(sql, "postgres")
    assert lineage(e) == (
        ["db.customers", "db.orders"],
        "file:///tmp/c.csv",
        [("id", ["db.customers.id"]), ("name", ["db.customers.name"])],
    )
    assert [i.type.value for i in e.dataset_indirect] == ["JOIN"]


@pytest.mark.parametrize(
    ("dialect", "sql"),
    [("snowflake", "COPY INTO t FROM @my_stage/path/"), ("postgres", "COPY t FROM STDIN")],
)
def test_a_stage_or_stdin_is_no_dataset(dialect: str, sql: str) -> None:
    res, events = events_of(sql, dialect)
    assert list(events) == []
    assert res.statements[0].skip_reason and res.statements[0].skip_reason.startswith("COPY")


def test_copy_makes_no_event_under_the_doris_rules() -> None:
    res, events = events_of("COPY INTO t FROM 's3://b/p/'", "snowflake", statements="doris")
    assert list(events) == [] and res.statements[0].skip_reason.startswith("COPY")


def test_redshift_unload_reads_its_query_and_writes_the_path() -> None:
    sql = (
        "UNLOAD ('select o.id, c.region from orders o join customers c on o.cid = c.id where c.region = ''EU''') "
        "TO 's3://exports/eu_' IAM_ROLE 'arn:aws:iam::1:role/r' PARQUET"
    )
    _, (e,) = events_of(sql, "redshift")
    assert e.source_command is SourceCommand.UNLOAD
    assert lineage(e) == (
        ["db.orders", "db.customers"],
        "s3://exports/eu_",
        [("id", ["db.orders.id"]), ("region", ["db.customers.region"])],
    )
    assert ("FILTER", "customers.region = 'EU'") in [(i.type.value, i.expression) for i in e.dataset_indirect]


@pytest.mark.parametrize(
    ("dialect", "sql", "target"),
    [
        (
            "hive",
            "INSERT OVERWRITE DIRECTORY 's3://bucket/out' SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "s3://bucket/out",
        ),
        (
            "spark",
            "INSERT OVERWRITE DIRECTORY 'hdfs://nn:8020/x' STORED AS PARQUET SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "hdfs://nn:8020/x",
        ),
        (
            "hive",
            "INSERT OVERWRITE LOCAL DIRECTORY '/tmp/out' SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "file:///tmp/out",
        ),
        ("hive", "INSERT OVERWRITE DIRECTORY '/user/out' SELECT a, SUM(v) AS v FROM t GROUP BY a", "hdfs:///user/out"),
    ],
)
def test_insert_overwrite_directory_writes_the_path(dialect: str, sql: str, target: str) -> None:
    _, (e,) = events_of(sql, dialect, statements="doris")  # an INSERT OVERWRITE: an event under the Doris rules
    assert e.source_command is SourceCommand.INSERT_OVERWRITE
    assert lineage(e) == (["db.t"], target, [("a", ["db.t.a"]), ("v", ["db.t.v"])])
    assert e.status is Status.COMPLETE and not e.diagnostics  # the path's columns are the query's


@pytest.mark.parametrize(
    ("dialect", "sql", "target"),
    [
        (
            "spark",
            "INSERT OVERWRITE DIRECTORY '/wmf/tmp/out' USING csv OPTIONS ('compression' 'uncompressed', 'sep' ' ')"
            " SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "hdfs:///wmf/tmp/out",
        ),
        (
            "hive",
            'INSERT OVERWRITE DIRECTORY "s3://b/out"\n  -- the format\n  USING json\n'
            "SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "s3://b/out",
        ),
        (
            "databricks",
            "WITH s AS (SELECT a, v FROM t) INSERT OVERWRITE LOCAL DIRECTORY '/tmp/o' USING parquet"
            " OPTIONS (compression = 'snappy') SELECT a, SUM(v) AS v FROM s GROUP BY a",
            "file:///tmp/o",
        ),
        (  # a relative path (or a template's variable): resolved by the engine, kept as written
            "spark",
            "INSERT OVERWRITE DIRECTORY '${out_dir}' USING csv SELECT a, SUM(v) AS v FROM t GROUP BY a",
            "${out_dir}",
        ),
    ],
)
def test_insert_overwrite_directory_using_a_format_writes_the_path(dialect: str, sql: str, target: str) -> None:
    """Spark's ``INSERT OVERWRITE DIRECTORY 'path' USING fmt [OPTIONS (…)] SELECT …``, which sqlglot
    does not read: the format and its options carry no lineage, the path is the dataset written."""
    res, (e,) = events_of(sql, dialect, statements="doris")
    assert e.source_command is SourceCommand.INSERT_OVERWRITE
    assert lineage(e) == (["db.t"], target, [("a", ["db.t.a"]), ("v", ["db.t.v"])])
    assert e.context.sql == sql  # the statement's own text
    assert [s.line for s in res.statements] == [1]


@pytest.mark.parametrize(
    ("dialect", "sql", "source"),
    [
        ("spark", "INSERT INTO out SELECT p.a FROM parquet.`s3://bucket/path` p", "s3://bucket/path"),
        ("databricks", "INSERT INTO out SELECT a FROM delta.`/mnt/lake/orders`", "dbfs:///mnt/lake/orders"),
        ("spark", "INSERT INTO out SELECT a FROM json.`s3a://lake/events/`", "s3://lake/events/"),
        (
            "doris",
            "INSERT INTO out SELECT a FROM S3('uri' = 's3://lake/o/*.parquet', 'format' = 'parquet')",
            "s3://lake/o/*.parquet",
        ),
        (
            "doris",
            "INSERT INTO out SELECT a FROM hdfs('uri' = 'hdfs://nn:8020/p/f.csv', 'format' = 'csv')",
            "hdfs://nn:8020/p/f.csv",
        ),
        ("duckdb", "INSERT INTO out SELECT a FROM read_parquet('s3://b/x/*.parquet')", "s3://b/x/*.parquet"),
        ("duckdb", "INSERT INTO out SELECT a FROM 's3://b/people.parquet'", "s3://b/people.parquet"),
        (
            "clickhouse",
            "INSERT INTO out SELECT a FROM s3('https://lake.s3.amazonaws.com/x.csv', 'CSV')",
            "https://lake.s3.amazonaws.com/x.csv",
        ),
    ],
)
def test_a_path_read_in_from_is_a_dataset_with_its_columns(dialect: str, sql: str, source: str) -> None:
    _, (e,) = events_of(sql, dialect, statements="doris")
    assert lineage(e) == ([source], "db.out", [("a", [f"{source}.a"])])
    assert not [d for d in e.diagnostics if d.code == "unsupported_construct"]


@pytest.mark.parametrize(
    ("dialect", "sql", "catalog"),
    [
        ("spark", "INSERT INTO out SELECT a FROM parquet.`relative/path/`", "hdfs://"),
        ("databricks", "INSERT INTO out SELECT p.a FROM delta.`lake/orders` AS p", "dbfs://"),
    ],
)
def test_a_relative_path_is_a_path_dataset_not_a_table(dialect: str, sql: str, catalog: str) -> None:
    """Spark ``parquet.`relative/path/` ``: a path the engine resolves against its working directory,
    kept relative, on the engine's file system; never a table named ``parquet``."""
    _, (e,) = events_of(sql, dialect, statements="doris")
    (src,) = e.sources
    assert (src.catalog, src.database) == (catalog, None)
    assert lineage(e) == ([src.name], "db.out", [("a", [f"{src.name}.a"])])
    assert src.name in ("relative/path/", "lake/orders")


def test_a_path_written_then_read_knows_its_columns() -> None:
    sql = (
        "INSERT OVERWRITE DIRECTORY 's3://lake/stage' SELECT id, amount FROM orders;\n"
        "INSERT INTO out SELECT * FROM parquet.`s3://lake/stage`;"
    )
    _, (_, e) = events_of(sql, "spark", statements="doris")
    assert lineage(e)[2] == [("id", ["s3://lake/stage.id"]), ("amount", ["s3://lake/stage.amount"])]
    assert e.status is Status.COMPLETE


def test_storage_datasets_in_openlineage_are_named_by_scheme() -> None:
    _, (e,) = events_of("INSERT INTO t SELECT a FROM S3('uri' = 's3://lake/x/y.parquet')", "doris", statements="doris")
    doc = json.loads(Serde.to_json(to_run_event(e, naming=OpenLineageNaming())))
    assert [(i["namespace"], i["name"]) for i in doc["inputs"]] == [("s3://lake", "x/y.parquet")]
    field = doc["outputs"][0]["facets"]["columnLineage"]["fields"]["a"]["inputFields"][0]
    assert (field["namespace"], field["name"], field["field"]) == ("s3://lake", "x/y.parquet", "a")
    _, (local,) = events_of("COPY t TO '/tmp/t.csv'", "postgres", {"db.t": ["a"]})
    out = json.loads(Serde.to_json(to_run_event(local, naming=OpenLineageNaming())))["outputs"][0]
    assert (out["namespace"], out["name"]) == ("file", "/tmp/t.csv")


def test_storage_datasets_survive_the_store_from_both_producers() -> None:
    """A path read by one statement and one written by an OpenLineage producer are the same node."""
    store = open_store("sqlite://")
    _, (e,) = events_of("INSERT INTO t SELECT a FROM S3('uri' = 's3://lake/x/y.parquet')", "doris", statements="doris")
    store.record(e)
    origin = store.get_field_origin("db.t.a").origins
    assert [o.field.name for o in origin] == ["s3://lake.x/y.parquet.a"]
    run = json.loads(Serde.to_json(to_run_event(e, naming=OpenLineageNaming())))
    run["run"]["runId"] = "0b7b0a55-3b2c-4a8e-9d2a-7f0f6f0c0001"
    run["job"]["name"] = "other"
    store.record_openlineage(run)
    graph = store.get_downstream("DATASET:s3://lake.x/y.parquet")
    assert sorted(n.name for n in graph.nodes if n.type == "DATASET") == ["internal.db.t", "s3://lake.x/y.parquet"]
    assert OpenLineageNaming().table("s3://lake", "x/y.parquet") == TableRef("s3://lake", None, "x/y.parquet")


@pytest.mark.parametrize("dialect", ["spark", "databricks"])
@pytest.mark.parametrize(
    "ddl",
    [
        "CREATE TABLE t (a INT) USING parquet OPTIONS ('path' = '/data/x'); INSERT INTO t SELECT * FROM s",
        "CREATE TABLE t (a INT) USING parquet LOCATION '/data/x'; INSERT INTO t SELECT * FROM s",
        "CREATE TABLE t USING csv OPTIONS (path '/x', header 'true') AS SELECT a FROM s",
        "CREATE TABLE t USING csv LOCATION '/x' AS SELECT a FROM s",
    ],
)
def test_a_data_source_tables_path_option_is_read_as_its_location(dialect: str, ddl: str) -> None:
    """A Spark data-source table whose data is at ``OPTIONS ('path' = …)`` is the table, as one with a
    ``LOCATION`` is: the table's name is the dataset (its storage is not a second one), its columns
    those its DDL or query gives."""
    res, (e,) = events_of(ddl, dialect)
    assert [s.error for s in res.statements] == [None] * len(res.statements)
    assert (e.target.table.qualified, [c.name for c in e.target.columns], list(e.sources)) == (
        "db.t",
        ["a"],
        [TableRef("internal", "db", "s")],
    )
    assert not any("path" in k or "location" in k for k in e.context.external_catalog_properties)
