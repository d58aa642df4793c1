"""The JSON Schema (draft 2020-12) of the event's readable JSON form.

The schema file ``lineage-event.schema.json`` ships inside the package; it describes exactly what
``event_to_dict`` writes (see ``docs/event-format.md``).

>>> schema = event_json_schema()
>>> schema["$schema"], schema["properties"]["version"]["const"]
('https://json-schema.org/draft/2020-12/schema', 'headwater.event/1')
>>> event_json_schema() is not event_json_schema()  # a fresh copy each time, safe to change
True
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

SCHEMA_RESOURCE = "lineage-event.schema.json"


@cache
def _schema_text() -> str:
    return files("headwater.model").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


def event_json_schema() -> dict[str, Any]:
    """The event's JSON Schema as a new dictionary."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema
