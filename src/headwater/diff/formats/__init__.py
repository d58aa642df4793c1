"""A ``DiffReport`` printed: ``table`` (rich, for a terminal), ``json``, ``markdown`` (a pull-request
comment), ``sarif`` (code scanning) and ``junit`` (CI test reports)."""

from __future__ import annotations

from enum import StrEnum


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    sarif = "sarif"
    junit = "junit"
