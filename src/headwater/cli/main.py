"""Entry point of the ``headwater`` command: each command group lives in its own module."""

from __future__ import annotations

import logging

import typer

from headwater.cli import catalog_cmd, demo_cmd, diff_cmd, dispatch_cmd, extract_cmd, history_cmd, ingest_cmd, store_cmd
from headwater.extract.collector import freeze_import_heap

app = typer.Typer(
    name="headwater",
    help="Column-level data lineage for SQL warehouses.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # help paragraphs join their lines; `code` shows as code
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

for module in (extract_cmd, demo_cmd, catalog_cmd, dispatch_cmd, ingest_cmd, store_cmd, history_cmd, diff_cmd):
    module.register(app)

freeze_import_heap()  # the collector never walks the import-time heap again


if __name__ == "__main__":  # pragma: no cover
    app()
