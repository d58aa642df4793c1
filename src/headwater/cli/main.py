"""Entry point of the ``headwater`` command: each command group lives in its own module.

The modules are imported when their command runs (``_LazyGroup``): ``headwater extract`` never loads
the service, the store or SQLAlchemy. The help lists every command, and so loads every module.
"""

from __future__ import annotations

import importlib
import logging

import typer
from typer.core import TyperGroup

from headwater.extract.collector import freeze_import_heap

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
        freeze_import_heap()  # the collector never walks the heap the module brought in again
    return sub


def _commands_of(name: str) -> dict[str, object]:
    return dict(typer.main.get_group(_module_app(name)).commands)


class _LazyGroup(TyperGroup):
    """The ``headwater`` group: a command's module is imported when the command is asked for."""

    def get_command(self, ctx: object, cmd_name: str) -> object:  # type: ignore[override]
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            found = _commands_of(COMMANDS[cmd_name]).get(cmd_name)
            if found is not None:
                self.commands[cmd_name] = found  # type: ignore[assignment]
        return super().get_command(ctx, cmd_name)  # type: ignore[arg-type]

    def list_commands(self, ctx: object) -> list[str]:  # type: ignore[override]
        every = [_commands_of(name) for name in MODULES]
        ordered = {k: c for cmds in every for k, c in cmds.items() if not isinstance(c, TyperGroup)}
        ordered |= {k: c for cmds in every for k, c in cmds.items() if isinstance(c, TyperGroup)}
        self.commands = ordered  # type: ignore[assignment]
        return list(ordered)


def _group() -> None:
    pass  # the group itself does nothing; a callback makes Typer build a group with no command yet


app = typer.Typer(
    name="headwater",
    help="Column-level data lineage for SQL warehouses.",
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

freeze_import_heap()  # the collector never walks the import-time heap again


if __name__ == "__main__":  # pragma: no cover
    app()
