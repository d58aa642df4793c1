"""The ``headwater`` command imports a command's module only when that command runs."""

from __future__ import annotations

import subprocess
import sys

import typer

from headwater.cli import main

HEAVY = ("fastapi", "sqlalchemy", "grpc", "alembic", "uvicorn", "starlette")


def test_extract_loads_neither_the_service_nor_the_store(tmp_path) -> None:
    sql = tmp_path / "one.sql"
    sql.write_text("INSERT INTO t SELECT a FROM s;\nINSERT INTO u SELECT b FROM s")
    code = (
        "import sys\n"
        "from headwater.cli.main import app\n"
        f"sys.argv = ['headwater', 'extract', '--dialect', 'generic', '--format', 'jsonl', {str(sql)!r}]\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.count('"event_id"') == 2
    assert run.stderr.strip().splitlines()[-1] == "[]"


def test_every_command_is_named_with_its_module() -> None:
    assert set(main.COMMANDS.values()) == set(main.MODULES)
    for name in main.MODULES:
        registered = set(typer.main.get_group(main._module_app(name)).commands)
        assert registered == {cmd for cmd, module in main.COMMANDS.items() if module == name}, name
