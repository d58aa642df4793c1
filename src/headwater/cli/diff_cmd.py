"""``headwater diff``: what a change to the SQL (or two times of a store) does to lineage, and
whether it breaks anything downstream (``headwater.diff``).

Four ways to name the two states: two times of one store (``--from``/``--to``), two project
directories (``OLD_DIR NEW_DIR``), two git revisions of a repository (``--git-base``/``--git-head``,
read with git, nothing checked out), or two dbt targets (``--dbt OLD_TARGET NEW_TARGET``: the
artifacts of ``dbt compile`` at each revision). Projects are extracted as ``headwater ingest`` (or
``ingest --dbt``) extracts them;
``--store`` adds the deployed catalog (the store's tables bind the project's reads) and the deployed
downstream (other projects' jobs, reports, decisions).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from headwater.cli.display import fail
from headwater.cli.ingest_cmd import CatalogSource, Statements, base_catalog
from headwater.cli.options import CatalogUrlOpt, DefaultCatalogOpt, DefaultDbOpt, SchemaOpt
from headwater.cli.store_cmd import StoreOpt
from headwater.cli.stores import open_cli_store
from headwater.diff.changes import DiffReport, Verdict
from headwater.diff.formats import Format
from headwater.diff.project_graph import ProjectOptions
from headwater.diff.run import Side, dbt_side, diff, project_side, store_side
from headwater.project import collect_files
from headwater.store import LineageStore

if TYPE_CHECKING:
    from headwater.project.dbt import Artifacts


class FailOn(StrEnum):
    breaking = "breaking"
    possibly_breaking = "possibly-breaking"

    @property
    def verdict(self) -> Verdict:
        return Verdict.BREAKING if self is FailOn.breaking else Verdict.POSSIBLY_BREAKING


def read_project_dir(directory: Path) -> dict[str, str]:
    """The SQL files below ``directory`` (relative path → text), as ``headwater ingest DIR`` reads them."""
    if not directory.is_dir():
        fail(f"{directory}: not a directory (give the project directories OLD_DIR NEW_DIR)")
    out = {}
    for pf in collect_files([directory], directory):
        try:
            out[pf.relpath] = pf.path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeError) as exc:
            fail(f"{pf.path}: cannot read it ({exc})")
    return out


def _mode(paths: list[Path], since: str | None, until: str | None, base: str | None, dbt: bool) -> str:
    if since is not None or until is not None:
        if paths or base is not None or dbt:
            fail("--from/--to compare two times of one store: give no directories, no --git-base and no --dbt")
        if since is None:
            fail("--from: the earlier time is required (an ISO time or a duration back from now: 7d)")
        return "store"
    if dbt:
        if base is not None:
            fail("--dbt compares two dbt targets: `dbt compile` each revision into a directory, give no --git-base")
        if len(paths) != 2:
            fail("--dbt: give two dbt project or target directories (OLD_TARGET NEW_TARGET), each with manifest.json")
        return "dbt"
    if base is not None:
        if len(paths) > 1:
            fail("--git-base compares two revisions of one project: give at most its directory")
        return "git"
    if len(paths) != 2:
        fail("give two project directories (OLD_DIR NEW_DIR), --git-base REV, or --from TIME")
    return "dirs"


def _dbt_targets(paths: list[Path]) -> tuple[Artifacts, Artifacts]:
    """The artifacts of ``--dbt OLD_TARGET NEW_TARGET``; one line naming the file and the fix when unreadable."""
    from headwater.project.dbt import DbtArtifactError, load_artifacts

    try:
        return load_artifacts(paths[0]), load_artifacts(paths[1])
    except DbtArtifactError as exc:
        fail(f"--dbt {exc}")


def _render(report: DiffReport, fmt: Format, fail_on: Verdict) -> None:
    from headwater.diff.formats.json_report import render_json
    from headwater.diff.formats.junit import render_junit
    from headwater.diff.formats.markdown import render_markdown
    from headwater.diff.formats.sarif import render_sarif
    from headwater.diff.formats.table import print_table

    if fmt is Format.table:
        print_table(report, Console())
        return
    text = {
        Format.json: render_json,
        Format.markdown: render_markdown,
        Format.sarif: render_sarif,
    }.get(fmt)
    sys.stdout.write(text(report) if text else render_junit(report, fail_on))


def diff_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="OLD_DIR NEW_DIR: two versions of a project; with --git-base: the project's directory in "
            "the repository (default: the current one); with --dbt: two dbt project or target directories.",
            metavar="OLD_DIR NEW_DIR | DIR | OLD_TARGET NEW_TARGET",
            show_default=False,
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--from", help="Store mode: the earlier time (ISO 8601, or a duration: 7d).")
    ] = None,
    until: Annotated[str | None, typer.Option("--to", help="Store mode: the later time (default: now).")] = None,
    git_base: Annotated[str | None, typer.Option("--git-base", help="Git mode: the revision before.")] = None,
    git_head: Annotated[str, typer.Option("--git-head", help="Git mode: the revision after.")] = "HEAD",
    dbt: Annotated[
        bool,
        typer.Option(
            "--dbt",
            help="dbt mode: the two paths are dbt projects or target directories (manifest.json, catalog.json "
            "when present, e.g. of `dbt compile` at each revision), extracted as ingest --dbt extracts them.",
        ),
    ] = False,
    store: StoreOpt = None,
    dialect: Annotated[
        str, typer.Option(help="SQL dialect of the scripts (with --dbt: the adapter's, from the manifest).")
    ] = "doris",
    default_db: DefaultDbOpt = None,
    default_catalog: DefaultCatalogOpt = "internal",
    schema: SchemaOpt = None,
    catalog_url: CatalogUrlOpt = None,
    statements: Annotated[
        Statements, typer.Option(help="doris: INSERT, CTAS, views; all: also SELECT, UPDATE, MERGE.")
    ] = Statements.doris,
    fmt: Annotated[Format, typer.Option("--format", help="table, json, markdown (a PR comment), sarif, junit.")] = (
        Format.table
    ),
    fail_on: Annotated[
        FailOn, typer.Option("--fail-on", help="Exit 1 from this verdict on: breaking, possibly-breaking.")
    ] = FailOn.breaking,
) -> None:
    """Compare two states of lineage: per column, edges added, removed and changed, columns and tables
    added or removed, jobs changed, renames; then each change's downstream and a verdict, BREAKING,
    POSSIBLY_BREAKING or SAFE, with the reason.

    Store mode: --from TIME [--to TIME] compares two times of the store. Project mode: OLD_DIR NEW_DIR, or
    --git-base REV [--git-head REV] [DIR] (the files at each revision, read with git: nothing is checked
    out), extracted as headwater ingest extracts a project; or --dbt OLD_TARGET NEW_TARGET, two dbt targets
    (of dbt compile at each revision) extracted as ingest --dbt extracts them. With --store, the store's
    tables bind them and the downstream is the deployed one (else the old version's own).
    Exit code 0 when safe, 1 when the verdict reaches --fail-on (default: breaking), 2 for a usage error.
    """
    from headwater.catalog import CatalogError, open_catalog
    from headwater.cli.extract_cmd import check_dialect
    from headwater.diff.git_tree import GitError, sql_files_at
    from headwater.project.dbt import read_manifest
    from headwater.store.errors import InvalidInput
    from headwater.store.jobs import parse_since

    mode = _mode(list(paths or []), since, until, git_base, dbt)
    deployed: LineageStore | None = None
    if mode == "store" or store is not None:
        deployed = open_cli_store(store)
    label = store or "the store"
    if mode == "store":
        assert deployed is not None
        times: list[int | None] = []
        for option, value in (("--from", since), ("--to", until)):
            try:
                times.append(parse_since(value) if value not in (None, "now") else None)
            except InvalidInput as exc:
                fail(f"{option}: {exc.message}")
        t0, t1 = times
        old = store_side(deployed, t0, f"--from {since}")
        new = store_side(deployed, t1, f"--to {until or 'now'}")
        report = diff(old, new)
    else:
        if mode == "dbt":  # the adapter's dialect, as for ingest --dbt (--dialect does not apply)
            targets = _dbt_targets(list(paths or []))
            dialect = read_manifest(targets[1].manifest).dialect
        check_dialect(dialect)
        try:
            if deployed is not None:
                catalog, recorded = base_catalog(
                    schema, catalog_url, CatalogSource.store, deployed, dialect, default_catalog
                )
            else:
                catalog, recorded = open_catalog(schema, catalog_url, dialect, default_catalog), None
        except CatalogError as exc:
            fail(str(exc))
        views = recorded if recorded is not None else ()
        sides: tuple[Side, Side]
        options = ProjectOptions(dialect, default_db, default_catalog, statements.value, catalog, views)
        if mode == "dbt":
            old_dir, new_dir = (paths or [])[:2]
            sides = dbt_side(targets[0], options, str(old_dir)), dbt_side(targets[1], options, str(new_dir))
        elif mode == "git":
            where = (paths or [Path(".")])[0]
            try:
                before, after = sql_files_at(where, git_base or ""), sql_files_at(where, git_head)
            except GitError as exc:
                fail(str(exc))
            sides = (
                project_side(before, options, git_base or ""),
                project_side(after, options, git_head),
            )
        else:
            old_dir, new_dir = (paths or [])[:2]
            sides = (
                project_side(read_project_dir(old_dir), options, str(old_dir)),
                project_side(read_project_dir(new_dir), options, str(new_dir)),
            )
        report = diff(*sides, deployed=deployed, deployed_label=label)
    _render(report, fmt, fail_on.verdict)
    if report.verdict is not Verdict.SAFE and report.verdict.rank >= fail_on.verdict.rank:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``headwater diff`` to ``app``."""
    app.command("diff")(diff_command)
