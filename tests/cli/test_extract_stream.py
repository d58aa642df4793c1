"""``headwater extract`` writes each statement's output as it is extracted and keeps no result."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest
from rich.console import Console
from typer.testing import CliRunner

from headwater.cli import extract_cmd
from headwater.cli.extract_cmd import OutputFormat, print_result
from headwater.cli.main import app
from headwater.extract import ExtractOptions, Extractor, RunInfo, StatementResult, engine
from headwater.extract.split import Piece

N = 60
# statement 3 fails to parse (an error line), statement 4 makes no event (a skip line)
SCRIPT = ";\n".join(
    "INSERT INTO t SELECT FROM WHERE"
    if k == 2
    else "CREATE TABLE z (a INT)"
    if k == 3
    else f"INSERT INTO t{k % 5} (a, b) SELECT a + {k}, UPPER(b) FROM s WHERE c > {k}"
    for k in range(N)
)
ARGS = ["--dialect", "mysql", "--query-id", "q", "--user", "etl"]


def _output_so_far() -> bytes:
    sys.stdout.flush()
    return sys.stdout.buffer.getvalue()  # type: ignore[attr-defined]  # CliRunner's BytesIO


def _alive(kind: type) -> int:
    return sum(isinstance(o, kind) for o in gc.get_objects())


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bytes, int]]:
    """(the command's standard output so far, the statement results alive) as each statement is taken."""
    monkeypatch.setattr(engine, "now_iso", lambda: "2026-12-01T00:00:00.000Z")
    taken: list[tuple[bytes, int]] = []
    split = extract_cmd.iter_script

    def watched(*args: object, **kwargs: object) -> Iterator[Piece]:
        for piece in split(*args, **kwargs):  # type: ignore[arg-type]
            taken.append((_output_so_far(), _alive(StatementResult)))
            yield piece

    monkeypatch.setattr(extract_cmd, "iter_script", watched)
    return taken


def _whole(fmt: OutputFormat, explain: bool = False) -> tuple[bytes, bytes]:
    """The output of the whole script extracted first and printed at once (``print_result``)."""
    from click.testing import CliRunner as ClickRunner

    extractor = Extractor(options=ExtractOptions(dialect="mysql"))
    result = extractor.run(SCRIPT, RunInfo(query_id="q", user="etl"))
    with ClickRunner().isolation(env={"COLUMNS": "100", "TERM": "dumb"}) as streams:
        out, err = streams[0], streams[1]  # (stdout, stderr[, both]) by click's version
        print_result(result, fmt, Console(highlight=False), explain, None, catalog=extractor.catalog, engine="mysql")
        sys.stdout.flush()
        sys.stderr.flush()
        return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt", list(OutputFormat))
def test_each_statement_is_written_before_the_next_is_parsed(tmp_path, seen, fmt) -> None:
    path = tmp_path / "script.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    r = CliRunner().invoke(
        app, ["extract", str(path), *ARGS, "--format", fmt.value], env={"COLUMNS": "100", "TERM": "dumb"}
    )
    assert r.exit_code == 1  # statement 3
    assert len(seen) == N
    last_taken = seen[-1][0]
    assert last_taken and r.stdout_bytes.startswith(last_taken)  # written, and never rewritten
    assert len(last_taken) > len(r.stdout_bytes) * (N - 5) / N  # all but the last statements' output
    assert (r.stdout_bytes, r.stderr_bytes) == _whole(fmt)  # the same as the whole script's at once


def test_no_result_is_kept_while_the_script_runs(tmp_path, seen) -> None:
    path = tmp_path / "script.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    before = _alive(StatementResult)
    r = CliRunner().invoke(app, ["extract", str(path), *ARGS, "--format", "jsonl"])
    assert r.exit_code == 1
    assert max(alive for _, alive in seen) - before <= 3  # not one per statement


def test_explained_skips_and_errors_keep_their_place(tmp_path, seen) -> None:
    path = tmp_path / "script.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    for fmt in (OutputFormat.table, OutputFormat.jsonl):
        args = ["extract", str(path), *ARGS, "--format", fmt.value, "--explain-skips"]
        r = CliRunner().invoke(app, args, env={"COLUMNS": "100", "TERM": "dumb"})
        assert r.exit_code == 1
        assert (r.stdout_bytes, r.stderr_bytes) == _whole(fmt, explain=True)
        said = (r.stdout if fmt == OutputFormat.table else r.stderr).splitlines()
        assert any(ln.startswith("error at line 3") for ln in said)
        assert any(ln.startswith("no event statement 4 (line 4)") for ln in said)


def test_json_is_one_array_streamed(tmp_path, seen) -> None:
    import json

    path = tmp_path / "script.sql"
    path.write_text(SCRIPT, encoding="utf-8")
    r = CliRunner().invoke(app, ["extract", str(path), *ARGS, "--format", "json"])
    assert len(json.loads(r.stdout)) == N - 2
    empty = tmp_path / "empty.sql"
    empty.write_text("CREATE TABLE z (a INT)", encoding="utf-8")
    assert CliRunner().invoke(app, ["extract", str(empty), *ARGS, "--format", "json"]).stdout == "[]\n"


def test_openlineage_inputs_are_typed_as_the_table_stood_at_the_statement(tmp_path) -> None:
    import json

    path = tmp_path / "script.sql"
    path.write_text(
        "CREATE TABLE s (a INT, b VARCHAR(10));\nINSERT INTO t SELECT a, b FROM s;\nALTER TABLE s DROP COLUMN b;\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(app, ["extract", str(path), *ARGS, "--format", "openlineage"])
    assert r.exit_code == 0, r.output
    (event,) = [e for e in map(json.loads, r.stdout.splitlines()) if e["eventType"] == "COMPLETE"]
    (read,) = event["inputs"]
    fields = {f["name"]: f.get("type") for f in read["facets"]["schema"]["fields"]}
    assert fields == {"a": "INT", "b": "VARCHAR(10)"}  # b: dropped after the statement, not before it
