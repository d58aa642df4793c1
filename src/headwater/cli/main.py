"""Entry point of the ``headwater`` command: each command group lives in its own module.

The modules are imported when their command runs (``_LazyGroup``): ``headwater extract`` never loads
the service, the store or SQLAlchemy, and ``headwater --help`` loads none of them: it lists the
commands from ``SUMMARIES`` (kept equal to each command's own help by a test).
"""

from __future__ import annotations

import gc
import importlib
import logging

import click
import typer
from typer.core import TyperGroup

# Each command's module, in the order the help lists them (commands first, then groups, each in
# the order of their modules here).
MODULES = (
    "extract_cmd",
    "demo_cmd",
    "catalog_cmd",
    "dispatch_cmd",
    "ingest_cmd",
    "store_cmd",
    "history_cmd",
    "diff_cmd",
)
COMMANDS = {
    "extract": "extract_cmd",
    "demo": "demo_cmd",
    "catalog": "catalog_cmd",
    "plugins": "dispatch_cmd",
    "run-script": "dispatch_cmd",
    "ingest": "ingest_cmd",
    "query": "store_cmd",
    "serve": "store_cmd",
    "db": "store_cmd",
    "ingest-log": "history_cmd",
    "spark-ingest": "history_cmd",
    "diff": "diff_cmd",
}
SUMMARIES = {  # the first line of each command's help, in the order ``headwater --help`` lists them
    "extract": "Extract lineage events from SQL scripts.",
    "demo": "Run the Doris guide's example script: print its event, store it, and query the store.",
    "run-script": "Execute a SQL script on a real database through the hooks and dispatch its lineage events.",
    "ingest": "Record lineage from SQL scripts (through the extractor) and event files into the store.",
    "serve": "Serve the REST API (and the explorer) over the store; with --grpc-port also gRPC (docs/api.md).",
    "ingest-log": "Record the lineage of a query log's successful statements into the store (incremental).",
    "spark-ingest": "Extract a query log on Spark (local mode by default) into JSON lines / Parquet and/or the store.",
    "diff": "Compare two states of lineage: per column, edges added, removed and changed, columns and tables added "
    "or removed, jobs changed, renames; then each change's downstream and a verdict, BREAKING, POSSIBLY_BREAKING or "
    "SAFE, with the reason.",
    "catalog": "Schemas for binding: snapshot a live database into a schema file.",
    "plugins": "Lineage plugins: discovery, activation, state and counters.",
    "query": "Query the lineage store (names relative to the default catalog internal).",
    "db": "The store itself: create or upgrade its tables, its revision, delete lineage.",
}
_SETTINGS = {"rich_markup_mode": "markdown"}  # help paragraphs join their lines; `code` shows as code
_loaded: dict[str, typer.Typer] = {}  # each module registers its commands once per process


def _module_app(name: str) -> typer.Typer:
    """A Typer app holding the commands of ``headwater.cli.<name>``, imported now if it was not."""
    sub = _loaded.get(name)
    if sub is None:
        module = importlib.import_module(f"headwater.cli.{name}")
        sub = typer.Typer(**_SETTINGS)  # type: ignore[arg-type]
        module.register(sub)
        _loaded[name] = sub
        gc.freeze()  # the collector never walks the heap the module brought in again (extract/collector.py)
    return sub


def _commands_of(name: str) -> dict[str, object]:
    return dict(typer.main.get_group(_module_app(name)).commands)


class _LazyGroup(TyperGroup):
    """The ``headwater`` group: a command's module is imported when the command is asked for; the
    group's own help lists ``SUMMARIES`` without importing any."""

    _listing = False

    def get_command(self, ctx: object, cmd_name: str) -> object:  # type: ignore[override]
        if self._listing and cmd_name in SUMMARIES:
            return click.Command(cmd_name, help=SUMMARIES[cmd_name], short_help=SUMMARIES[cmd_name])
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            found = _commands_of(COMMANDS[cmd_name]).get(cmd_name)
            if found is not None:
                self.commands[cmd_name] = found  # type: ignore[assignment]
        return super().get_command(ctx, cmd_name)  # type: ignore[arg-type]

    def list_commands(self, ctx: object) -> list[str]:  # type: ignore[override]
        return list(SUMMARIES)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _group() -> None:
    pass  # the group itself does nothing; a callback makes Typer build a group with no command yet


app = typer.Typer(
    name="headwater",
    help=(
        "Column-level data lineage for SQL warehouses.\n\n"
        "**Start here:**\n\n"
        "* `headwater demo`: an example script extracted, stored and queried, end to end\n\n"
        "* `headwater ingest examples/warehouse --store lineage.db`: record your SQL files\n\n"
        "* `headwater query origin TABLE.COLUMN --store lineage.db`: where a column comes from\n\n"
        "Then `query impact`, `query upstream|downstream`, `serve` (the explorer); each command has --help."
    ),
    cls=_LazyGroup,
    callback=_group,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    **_SETTINGS,  # type: ignore[arg-type]
)


def _no_type_for_flags() -> None:
    """Help lists an option's value type; a flag (``--verbose``, ``--help``) has none to give."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_headwater", False):
        return

    def display_type_rich(self: TyperOption, ctx: object) -> str | None:
        return None if self.is_flag else shown(self, ctx)  # type: ignore[arg-type]

    display_type_rich._headwater = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_no_type_for_flags()

# sqlglot warns on the log when it falls back to an opaque command; headwater reports such
# statements itself (skip rules and diagnostics), so keep the terminal clean.
logging.getLogger("sqlglot").setLevel(logging.ERROR)

gc.freeze()  # the collector never walks the import-time heap again (extract/collector.py)


if __name__ == "__main__":  # pragma: no cover
    app()
