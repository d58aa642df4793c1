"""Example SQL shipped with headwater: the Apache Doris 4.x Data Lineage guide's script.

>>> e = guide_event()
>>> e.target.table.name, [d.type.value for d in e.direct]
('lineage_customer_summary', ['IDENTITY', 'TRANSFORMATION', 'AGGREGATION', 'TRANSFORMATION', 'TRANSFORMATION'])
"""

from __future__ import annotations

from importlib import resources

from headwater.model import LineageInfo

GUIDE_USER, GUIDE_CLIENT_IP = "lineage_user", "192.0.2.10"


def guide_script() -> str:
    """The complete example script of the Doris 4.x Data Lineage guide (DDL, inserts, the CTE insert)."""
    return resources.files(__name__).joinpath("doris_guide.sql").read_text()


def guide_event(
    query_id: str = "guide-q1",
    user: str | None = GUIDE_USER,
    timestamp: str | None = "2026-01-01T00:00:00Z",
    duration_ms: int = -1,
) -> LineageInfo:
    """The guide's one event, extracted from its script with a fixed query id and time."""
    from headwater.extract import Extractor, RunInfo

    script = guide_script()
    start = script.index("INSERT INTO lineage_customer_summary")
    end = script.index(";", start)
    extractor = Extractor()
    extractor.run(script[:start])  # the DDL and the VALUES inserts: no event
    run = RunInfo(query_id=query_id, user=user, client_ip=GUIDE_CLIENT_IP, timestamp=timestamp, duration_ms=duration_ms)
    [event] = extractor.run(script[start:end], run).events
    return event
