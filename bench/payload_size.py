"""Size of the event's JSON form and of its payload form on the TPC-DS INSERT corpus.

python bench/payload_size.py [--corpus DIR]
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path

from extract_bench import DEFAULT_CORPUS, load_catalog, load_statements
from headwater.extract import ExtractOptions, Extractor
from headwater.model import event_to_json
from headwater.model.payload import dumps, loads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    catalog = load_catalog(args.corpus / "tpcds_schema.json")
    sizes = {"json": 0, "payload": 0, "json_z": 0, "payload_z": 0}
    n = 0
    for _, sql in load_statements(args.corpus / "insert_tpcds.sql"):
        event = Extractor(catalog, ExtractOptions(dialect="generic")).run(sql).events[0]
        as_json, as_payload = event_to_json(event).encode(), dumps(event).encode()
        assert loads(as_payload.decode()) == event
        sizes["json"] += len(as_json)
        sizes["payload"] += len(as_payload)
        sizes["json_z"] += len(zlib.compress(as_json))
        sizes["payload_z"] += len(zlib.compress(as_payload))
        n += 1
    print(f"TPC-DS: {n} events, mean bytes per event")
    print(f"  JSON     {sizes['json'] / n:9,.0f}   zlib {sizes['json_z'] / n:7,.0f}")
    print(
        f"  payload  {sizes['payload'] / n:9,.0f}   zlib {sizes['payload_z'] / n:7,.0f}"
        f"   ({sizes['payload'] / sizes['json']:.0%} of JSON, {sizes['payload_z'] / sizes['json_z']:.0%} compressed)"
    )


if __name__ == "__main__":
    main()
