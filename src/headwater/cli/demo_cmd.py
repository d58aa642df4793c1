"""``headwater demo``: the Doris guide's example, end to end on the embedded default store."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from headwater.cli.display import line, lit
from headwater.cli.extract_cmd import OutputFormat, print_result, run_demo
from headwater.cli.store_cmd import StoreOpt

ORIGIN_OF = "lineage_customer_summary.region_group"
IMPACT_OF = "lineage_orders.amount"


def demo(
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format of the event.")] = OutputFormat.table,
    store: StoreOpt = None,
    serve: Annotated[bool, typer.Option(help="Serve the explorer on the demo's lineage (a fresh store).")] = False,
    host: Annotated[str, typer.Option(help="With --serve: address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="With --serve: port.")] = 8077,
) -> None:
    """Run the Doris guide's example script: print its event, store it, and query the store."""
    if serve:
        from headwater.service.demo import serve_demo

        serve_demo(host, port)
        return
    result = run_demo()
    console = Console()
    if format != OutputFormat.table:
        print_result(result, format, console, explain_skips=True, namespace="headwater")
        return
    console.print("[bold]headwater demo[/]: the Apache Doris 4.x Data Lineage guide's example script\n")
    print_result(result, format, console, explain_skips=True, namespace="headwater")

    from headwater.cli.store_cmd import impact, origin
    from headwater.cli.stores import open_cli_store

    s = open_cli_store(store, create=True)
    s.record_batch(result.events)
    where = s.engine.url.render_as_string(hide_password=True)
    console.print()
    console.print(line(lit("Stored", "bold"), f" {len(result.events)} event in {where}; asking it:"))
    console.print(f"\n$ headwater query origin {ORIGIN_OF} --indirect")
    origin(ORIGIN_OF, store=store, indirect=True)
    console.print(f"\n$ headwater query impact {IMPACT_OF}")
    impact(IMPACT_OF, store=store)


def register(app: typer.Typer) -> None:
    app.command()(demo)
