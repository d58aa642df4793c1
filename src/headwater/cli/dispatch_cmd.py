"""``headwater plugins list|status`` and ``headwater run-script``: argument parsing and rendering only."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from headwater.dispatch import Discovery, DispatchSettings, LineageDispatch, SettingsError, discover, load_settings
from headwater.dispatch.activation import FAILED, SELECTED, FactoryStatus, select
from headwater.dispatch.counters import PLUGIN_COUNTERS, STATEMENT_COUNTERS, CounterSnapshot
from headwater.hooks.script import CONNECTION_LOST, STOP_ON_ERROR, ScriptRun

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

ConfigOpt = Annotated[Path | None, typer.Option("--config", help="headwater.toml to read (default: ./headwater.toml)")]
PluginDirOpt = Annotated[
    Path | None,
    typer.Option("--plugin-dir", help="plugin_dir: the directory whose lineage/ entries are scanned"),
]
ActivateOpt = Annotated[
    str | None, typer.Option("--activate", help="activate_lineage_plugin: comma-separated factory names")
]
QueueOpt = Annotated[
    int | None, typer.Option("--queue-size", help="lineage_event_queue_size: events the queue holds (positive)")
]


def _settings(
    config: Path | None, plugin_dir: Path | None, activate: str | None, queue: int | None
) -> DispatchSettings:
    size = None if queue is None else str(queue)  # validated (and explained) as the settings file's value
    overrides = {"plugin_dir": plugin_dir, "activate_lineage_plugin": activate, "lineage_event_queue_size": size}
    try:
        return load_settings(config, overrides=overrides)
    except SettingsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is when a record is emitted."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def _log_to_stderr() -> None:
    """Show the dispatch log lines operators grep for (``Loaded lineage plugin: …``) on stderr."""
    logger = logging.getLogger("headwater")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)


def _setting_lines(s: DispatchSettings) -> list[str]:
    values = {
        "plugin_dir": str(s.plugin_dir),
        "activate_lineage_plugin": ",".join(s.activate_lineage_plugin) or "(empty: every discovered factory)",
        "lineage_event_queue_size": str(s.lineage_event_queue_size),
        "lineage_dispatch_batch": str(s.lineage_dispatch_batch),
    }
    return [f"{k} = {v}  ({s.origins.get(k, 'default')})" for k, v in values.items()]


def _status_lines(statuses: list[FactoryStatus], discovery: Discovery) -> list[str]:
    order = {name: k for k, name in enumerate(discovery.names())}
    rows = sorted(statuses, key=lambda s: order.get(s.name, len(order)))
    width = max([len(s.name) for s in rows] + [7])
    lines = [f"{'FACTORY':<{width}}  STATE"]
    for s in rows:
        why = f": {s.reason}" if s.reason else ""
        lines.append(f"{s.name:<{width}}  {s.state}{why}  [{s.origin}; pluginPath={s.plugin_path}]")
    lines += [f"refused  {r.where}: {r.reason}" for r in discovery.refused]
    return lines


def plugins_list(config: ConfigOpt = None, plugin_dir: PluginDirOpt = None, activate: ActivateOpt = None) -> None:
    """Discovered factories, which are selected by activate_lineage_plugin, and why the others are not.

    Nothing is instantiated; ``headwater plugins status`` starts them for real.
    """
    settings = _settings(config, plugin_dir, activate, None)
    _log_to_stderr()
    discovery = discover(settings.plugin_dir)
    chosen, activation = select(discovery, settings)
    statuses = activation.statuses + [FactoryStatus(f.name, f.origin, f.plugin_path, SELECTED) for f in chosen]
    lines = [*_setting_lines(settings), "", *_status_lines(statuses, discovery)]
    lines += [f"unknown  {name}: named in activate_lineage_plugin, not discovered" for name in activation.unknown]
    typer.echo("\n".join(lines))


def _counter_lines(snap: CounterSnapshot) -> list[str]:
    lines = ["lineage: " + " ".join(f"{k}={getattr(snap, k)}" for k in (*STATEMENT_COUNTERS, "queue_depth"))]
    for name, counts in snap.plugins.items():
        lines.append(f"plugin {name}: " + " ".join(f"{k}={getattr(counts, k)}" for k in PLUGIN_COUNTERS))
    return lines


def _status_doc(d: LineageDispatch) -> dict[str, Any]:
    return {
        "plugins": [
            {
                "name": s.name,
                "state": s.state,
                "reason": s.reason,
                "origin": s.origin,
                "plugin_path": str(s.plugin_path),
            }
            for s in d.activation.statuses
        ],
        "unknown": d.activation.unknown,
        "refused": [{"where": r.where, "reason": r.reason} for r in d.discovery.refused],
        "counters": d.snapshot().as_dict(),
    }


def plugins_status(
    config: ConfigOpt = None,
    plugin_dir: PluginDirOpt = None,
    activate: ActivateOpt = None,
    queue_size: QueueOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Start the configured plugins (create + initialize), show their state and the counters, then close.

    Exit code 1 when a plugin failed to create/initialize or activate_lineage_plugin names one that was
    not discovered; 0 otherwise (a plugin skipped as not configured is not a failure); 2 for bad settings.
    """
    settings = _settings(config, plugin_dir, activate, queue_size)
    _log_to_stderr()
    from headwater.dispatch import start_dispatch

    d = start_dispatch(settings)
    d.close()
    failed = d.activation.unknown or any(s.state == FAILED for s in d.activation.statuses)
    if as_json:
        typer.echo(json.dumps(_status_doc(d), indent=2))
    else:
        lines = [*_setting_lines(settings), "", *_status_lines(d.activation.statuses, d.discovery)]
        lines += [f"unknown  {name}: named in activate_lineage_plugin, not discovered" for name in d.activation.unknown]
        typer.echo("\n".join([*lines, "", *_counter_lines(d.snapshot())]))
    if failed:
        raise typer.Exit(EXIT_FAILED)


def _statement_lines(result: ScriptRun) -> list[str]:
    """One line per executed statement (a multi-line database message continues, indented), then the stop."""
    lines = []
    for s in result.statements:
        head = f"statement {s.index + 1} (line {s.line}): "
        first = " ".join(s.sql.split())[:70]
        if s.error is None:
            lines.append(f"{head}ok  {first}")
            continue
        message, *more = s.error.splitlines() or [""]
        lines.append(f"{head}error: {message}  {first}")
        lines += [f"    {m}" for m in more]
    if result.stopped is not None and (result.not_run or result.stopped == CONNECTION_LOST):
        why = "--stop-on-error" if result.stopped == STOP_ON_ERROR else result.stopped
        lines.append(f"stopped ({why}): {result.not_run} statement(s) not run")
    return lines


def run_script_cmd(
    file: Annotated[Path, typer.Argument(help="SQL script to execute", exists=True, dir_okay=False)],
    catalog_url: Annotated[str, typer.Option("--catalog-url", help="SQLAlchemy URL of the database to run it on")],
    config: ConfigOpt = None,
    plugin_dir: PluginDirOpt = None,
    activate: ActivateOpt = None,
    queue_size: QueueOpt = None,
    stop_on_error: Annotated[
        bool, typer.Option("--stop-on-error", help="stop at the first statement the database rejects")
    ] = False,
) -> None:
    """Execute a SQL script on a real database through the hooks and dispatch its lineage events.

    Statements run in order in autocommit mode. A statement the database rejects is reported (statement
    number, line, the database's message) and the next ones still run, unless --stop-on-error; only
    statements that succeeded make lineage. Exit code 1 when any statement failed.
    """
    import sqlalchemy as sa

    from headwater.catalog.live import SqlAlchemyCatalog
    from headwater.dispatch import start_dispatch
    from headwater.hooks.script import dialect_of, run_script

    settings = _settings(config, plugin_dir, activate, queue_size)
    script = file.read_text(encoding="utf-8-sig")
    try:
        engine = sa.create_engine(catalog_url)
    except (sa.exc.ArgumentError, ImportError) as exc:
        typer.echo(f"error: --catalog-url: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None
    _log_to_stderr()
    dialect = dialect_of(engine)
    catalog = SqlAlchemyCatalog(catalog_url, dialect=dialect)
    d = start_dispatch(settings, catalog=catalog, dialect=dialect)
    try:
        result = run_script(engine, script, d.collector, stop_on_error=stop_on_error)
    except sa.exc.OperationalError as exc:
        typer.echo(f"error: cannot connect: {exc.orig}", err=True)
        raise typer.Exit(EXIT_FAILED) from None
    finally:
        d.close()
        catalog.close()
        engine.dispose()
    typer.echo("\n".join([*_statement_lines(result), *_counter_lines(d.snapshot())]))
    failures = result.failures
    if failures:
        where = ", ".join(f"statement {s.index + 1} (line {s.line})" for s in failures)
        typer.echo(
            f"error: {len(failures)} of {len(result.statements) + result.not_run} statements failed: {where}", err=True
        )
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    """Add ``plugins list``, ``plugins status`` and ``run-script`` to ``app``."""
    plugins = typer.Typer(help="Lineage plugins: discovery, activation, state and counters.", no_args_is_help=True)
    plugins.command("list")(plugins_list)
    plugins.command("status")(plugins_status)
    app.add_typer(plugins, name="plugins")
    app.command("run-script")(run_script_cmd)
