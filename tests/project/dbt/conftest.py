"""The dbt test project (``tests/fixtures/dbt_project``) built for real: a copy in a temporary
directory, its raw tables in a PostgreSQL schema of its own, ``profiles.yml`` written beside it,
``dbt`` and ``dbt-ol`` from their own virtualenv (``dbt_env``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.pg_schema import POSTGRES_URL
from tests.project.dbt.dbt_env import dbt_bin

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "dbt_project"
LAYERS = ("raw", "staging", "intermediate", "marts", "seeds", "snapshots")
PROFILE = """hw_shop:
  target: test
  outputs:
    test:
      type: postgres
      host: 127.0.0.1
      port: 5432
      user: postgres
      password: ""
      dbname: test
      schema: {schema}
      threads: 1
"""
RAW = """
CREATE TABLE {s}.customers (id integer PRIMARY KEY, first_name text, last_name text, email text, country_code varchar(2));
CREATE TABLE {s}.orders (id integer PRIMARY KEY, user_id integer, order_date date, status text);
CREATE TABLE {s}.payments (id integer PRIMARY KEY, order_id integer, payment_method text, amount integer);
INSERT INTO {s}.customers VALUES (1, 'Ada', 'Lovelace', 'ADA@example.org', 'DE'), (2, 'Alan', 'Turing', 'alan@example.org', 'FR');
INSERT INTO {s}.orders VALUES (10, 1, '2024-01-01', 'placed'), (11, 2, '2024-01-02', 'shipped');
INSERT INTO {s}.payments VALUES (100, 10, 'card', 1250), (101, 10, 'gift_card', 500), (102, 11, 'card', 999);
"""


@dataclass
class DbtProject:
    """A built copy of the test project: ``dbt(...)`` runs dbt in it."""

    dir: Path
    schema: str
    bin: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENLINEAGE", "DBT_"))}
        env.update(
            DBT_PROFILES_DIR=str(self.dir.parent),
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
            DBT_USE_COLORS="false",
            PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}",
        )
        env.pop("VIRTUAL_ENV", None)
        env.update(extra)
        return env

    def run(self, tool: str, *args: str, ok: bool = True, **env: str) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(self.bin / tool), *args], cwd=self.dir, env=self.env(**env), capture_output=True, text=True
        )
        if ok and proc.returncode != 0:
            raise AssertionError(
                f"{tool} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-4000:]}{proc.stderr[-2000:]}"
            )
        return proc

    def dbt(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("dbt", *args, ok=ok)

    def build(self) -> None:
        """``dbt build``, then the catalog (``dbt docs generate --no-compile`` keeps the build's
        manifest and run results)."""
        self.dbt("build")
        self.dbt("docs", "generate", "--no-compile")

    def rel(self, layer: str, name: str) -> str:
        """A relation's store name: ``test.<schema>_<layer>.<name>``."""
        return f"test.{self.schema}_{layer}.{name}"

    def edit(self, relpath: str, old: str, new: str) -> None:
        path = self.dir / relpath
        text = path.read_text()
        assert old in text, f"{old!r} not in {relpath}"
        path.write_text(text.replace(old, new))


def _admin() -> sa.Engine:
    return sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")


@contextmanager
def make_project(root: Path) -> Iterator[DbtProject]:
    """A fresh copy of the project with its raw tables; its schemas are dropped afterwards."""
    schema = f"hw_dbt_{uuid.uuid4().hex[:8]}"
    project = DbtProject(root / "hw_shop", schema, dbt_bin())
    shutil.copytree(FIXTURE, project.dir)
    (root / "profiles.yml").write_text(PROFILE.format(schema=schema))
    admin = _admin()
    with admin.connect() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}_raw"))
        for statement in RAW.format(s=f"{schema}_raw").strip().split(";\n"):
            conn.execute(sa.text(statement))
    try:
        yield project
    finally:
        from headwater.store import close_all

        close_all()
        with admin.connect() as conn:
            for layer in ("", *(f"_{x}" for x in LAYERS)):
                conn.execute(sa.text(f"DROP SCHEMA IF EXISTS {schema}{layer} CASCADE"))
        admin.dispose()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DbtProject]:
    """The project built once per test module (``dbt build``, then its catalog)."""
    with make_project(tmp_path_factory.mktemp("dbt")) as project:
        project.build()
        yield project
