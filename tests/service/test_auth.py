"""Tokens configuration: ``parse_tokens`` / ``load_tokens`` and what the server then accepts."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from headwater.cli.main import app
from headwater.service import create_app
from headwater.service.auth import load_tokens, parse_tokens
from headwater.store import LineageStore

# the example of docs/operations.md, with a ';' inside a comment
TOKENS_FILE = """\
# /etc/headwater/tokens (chmod 600)
Zq3u0b6Xw1s-producers-token:write      # producers: POST; DELETE
Hk9v2Lr7mT_admin-token:read,write
c8PqN4yEo2_explorer-token:read         # people and dashboards
"""


def test_a_semicolon_in_a_comment_does_not_start_an_entry(tmp_path: Path) -> None:
    f = tmp_path / "tokens"
    f.write_text(TOKENS_FILE)
    assert load_tokens(f) == {
        "Zq3u0b6Xw1s-producers-token": frozenset({"write"}),
        "Hk9v2Lr7mT_admin-token": frozenset({"read", "write"}),
        "c8PqN4yEo2_explorer-token": frozenset({"read"}),
    }


def test_semicolons_still_separate_entries_and_a_comment_runs_to_the_end_of_its_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEADWATER_TOKENS", "s3cret:read,write;viewer:read")
    assert load_tokens() == {"s3cret": frozenset({"read", "write"}), "viewer": frozenset({"read"})}
    assert parse_tokens("a:write; b # c:read; d:write\ne;f:write") == {
        "a": frozenset({"write"}),
        "b": frozenset({"read"}),
        "e": frozenset({"read"}),
        "f": frozenset({"write"}),
    }


def test_a_word_from_a_comment_is_not_a_token(tmp_path: Path, api_store: LineageStore) -> None:
    f = tmp_path / "tokens"
    f.write_text(TOKENS_FILE)
    with TestClient(create_app(api_store, load_tokens(f))) as c:
        assert c.get("/api/v1/stats", headers={"Authorization": "Bearer DELETE"}).status_code == 401
        ok = c.get("/api/v1/stats", headers={"Authorization": "Bearer c8PqN4yEo2_explorer-token"})
        assert ok.status_code == 200


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("Xy9-secret-token:admin", "unknown scope 'admin' (scopes are read, write)"),
        (":read", "no token before ':'"),
        ("Xy9-secret-token:,", "no scope after ':' (scopes are read, write)"),
    ],
)
def test_a_malformed_entry_names_its_line_and_not_the_token(tmp_path: Path, line: str, why: str) -> None:
    f = tmp_path / "tokens"
    f.write_text(f"# tokens\nok-token:read\n{line}  # note\n")
    with pytest.raises(ValueError) as err:
        load_tokens(f)
    assert str(err.value) == f"{f}, line 3: bad token entry: {why}"
    assert "Xy9-secret-token" not in str(err.value)


def test_the_variable_is_named_in_its_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEADWATER_TOKENS", "a:read;b:admin")
    with pytest.raises(ValueError, match=r"^\$HEADWATER_TOKENS, line 1: bad token entry: unknown scope 'admin'"):
        load_tokens()


def test_serve_stops_on_a_bad_tokens_file(tmp_path: Path) -> None:
    f = tmp_path / "tokens"
    f.write_text("ok-token:read\nother-token:reed\n")
    r = CliRunner().invoke(app, ["serve", "--store", str(tmp_path / "l.db"), "--tokens-file", str(f)])
    assert r.exit_code == 2
    assert " ".join(r.output.split()) == (
        f"error: {f}, line 2: bad token entry: unknown scope 'reed' (scopes are read, write)"
    )


def test_a_missing_tokens_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "nonexist"
    with pytest.raises(ValueError, match=r"^cannot read tokens file '.*nonexist': No such file or directory$"):
        load_tokens(missing)
    r = CliRunner().invoke(app, ["serve", "--store", str(tmp_path / "l.db"), "--tokens-file", str(missing)])
    assert r.exit_code == 2
    assert " ".join(r.output.split()) == f"error: cannot read tokens file '{missing}': No such file or directory"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            "# tokens\nXy9-secret-token:read\nXy9-secret-token:write\n",
            "the token is given twice (first on line 2): give all its scopes in one entry",
        ),
        (
            "# tokens\nok-token:read\nXy9 secret-token:read\n",
            "a token holds visible ASCII characters only, no spaces (it must fit in a Bearer header)",
        ),
        (
            "# tokens\nok-token:read\nXy9\tsecret-token\n",
            "a token holds visible ASCII characters only, no spaces (it must fit in a Bearer header)",
        ),
        (
            "# tokens\nok-token:read\nXy9-sécret-token:read\n",
            "a token holds visible ASCII characters only, no spaces (it must fit in a Bearer header)",
        ),
    ],
)
def test_a_token_given_twice_or_that_cannot_be_sent_is_refused(tmp_path: Path, text: str, why: str) -> None:
    f = tmp_path / "tokens"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_tokens(f)
    assert str(err.value) == f"{f}, line 3: bad token entry: {why}"
    assert "secret" not in str(err.value)
    r = CliRunner().invoke(app, ["serve", "--store", str(tmp_path / "l.db"), "--tokens-file", str(f)])
    assert r.exit_code == 2 and " ".join(r.output.split()) == f"error: {f}, line 3: bad token entry: {why}"


def test_a_duplicate_on_one_line_of_the_variable_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEADWATER_TOKENS", "dup:read;dup:write")
    with pytest.raises(ValueError, match=r"^\$HEADWATER_TOKENS, line 1: bad token entry: the token is given twice"):
        load_tokens()
    assert parse_tokens("  spaced-token  :read ") == {"spaced-token": frozenset({"read"})}  # ends are trimmed
