"""Security fixtures: the service's (the API over a store on each backend) and ``stored_text``,
everything a store holds as one string, to check that no secret is kept anywhere."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from headwater.store import LineageStore
from headwater.store.schema import edges, event_document, events, nodes
from tests.service.conftest import api_store, client, pg_url, store_url  # noqa: F401  (fixtures)


def stored_names(store: LineageStore) -> str:
    """Every node name, short name and properties of ``store``, one per line."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(nodes.c.name, nodes.c.short, nodes.c.properties)).all()
    return "\n".join(str(v) for row in rows for v in row if v is not None)


def stored_text(store: LineageStore) -> str:
    """``stored_names``, every event document and every edge expression of ``store``, one per line."""
    out: list[str] = [stored_names(store)]
    with store.engine.connect() as conn:
        for payload, packed in conn.execute(select(events.c.payload, events.c.payload_zlib)):
            out.append(event_document(payload, packed) or "")
        out.extend(e for (e,) in conn.execute(select(edges.c.expression)) if e)
    return "\n".join(out)


@pytest.fixture
def secret() -> str:
    """A password no name or document may hold."""
    return "S3cr3tPW"
