"""Spark local mode and a generated log shared by the Spark tests.

pyspark is imported at the top: if it is missing or Java cannot start, these tests fail, never skip.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyspark  # noqa: F401  (a missing pyspark is an error here, not a skip)
import pytest
from tests.pg_schema import fresh_schema_url

from headwater.history import ExtractSpec, group_sessions, open_source
from headwater.history.synthetic import generate_log, synthetic_schema, write_audit_file, write_csv, write_jsonl
from headwater.history.window import Window
from headwater.model import event_to_json
from headwater.spark import local_session


@dataclass
class Generated:
    dir: Path
    schema: Path
    events: list[str]  # the single-machine path's events, as JSON, sorted
    kinds: Counter


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    session = _started()
    yield session
    session.stop()


def _started(attempts: int = 3) -> object:
    """The local session. On a loaded 2-core machine the JVM now and then exits before it hands
    over its port (``JAVA_GATEWAY_EXITED``; the next start works): up to ``attempts`` starts, then
    that error. Any other error is raised at once."""
    from pyspark.errors import PySparkRuntimeError

    for attempt in range(1, attempts + 1):
        try:
            return local_session("local[2]", "headwater-tests")
        except PySparkRuntimeError as exc:
            if attempt == attempts or "JAVA_GATEWAY_EXITED" not in str(exc):
                raise
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    """3,000 generated audit rows as JSONL, CSV and fe.audit.log, and what ``ingest-log``'s extraction
    makes of them on one machine."""
    d = tmp_path_factory.mktemp("spark-log")
    rows = generate_log(3000, seed=21, per_session=60)
    write_jsonl(rows, d / "log.jsonl")
    write_csv(rows, d / "log.csv")
    write_audit_file(rows, d / "fe.audit.log")
    schema = d / "schema.json"
    schema.write_text(json.dumps(synthetic_schema()))
    records = list(open_source("jsonl", [str(d / "log.jsonl")]).read(Window()))
    hx = ExtractSpec(schema_file=str(schema)).extractor()
    outcomes = [o for s in group_sessions(records) for o in hx.session(s.records)]
    events = sorted(event_to_json(e) for o in outcomes for e in o.events)
    return Generated(d, schema, events, Counter(o.kind for o in outcomes))


@pytest.fixture(scope="session")
def jsonl_outcomes(spark, generated) -> Iterator[object]:
    """The JSONL log extracted once (cached) for the summary and writer tests."""
    from headwater.spark import extract_events, read_log

    df = read_log(spark, [str(generated.dir / "log.jsonl")], "jsonl")
    outcomes = extract_events(df, str(generated.schema), num_partitions=2).cache()
    yield outcomes
    outcomes.unpersist()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL store URL in a fresh schema, dropped afterwards (fails if PostgreSQL is down)."""
    with fresh_schema_url("hw_spark") as url:
        yield url
