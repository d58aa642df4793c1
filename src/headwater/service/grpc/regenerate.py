"""Regenerate the committed Python stubs from the ``.proto`` files next to this module.

``python -m headwater.service.grpc.regenerate`` (needs ``grpcio-tools``, in the ``test`` extras) writes
``pipeline_pb2.py``, ``pipeline_pb2_grpc.py``, ``governance_pb2.py``, ``governance_pb2_grpc.py`` and
their ``.pyi``; ``--check`` writes nothing and exits 1 when a committed stub differs from what the
``.proto`` files give. The stubs are committed so that installing headwater needs no code generation.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[2]  # .../src: the proto import root, so stubs import as headwater.service.grpc.*
PROTOS = ("pipeline.proto", "governance.proto")
OUTPUTS = tuple(f"{Path(p).stem}{suffix}" for p in PROTOS for suffix in ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py"))


def generate(out: Path) -> None:
    """Run protoc (grpcio-tools) on the protos into ``out`` (laid out like ``src``)."""
    import grpc_tools
    from grpc_tools import protoc

    include = Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{SRC}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *(str((HERE / p).relative_to(SRC)) for p in PROTOS),
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")


def stale() -> list[str]:
    """The committed stubs that differ from freshly generated ones."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        fresh = Path(tmp) / HERE.relative_to(SRC)
        return [
            name
            for name in OUTPUTS
            if not (HERE / name).is_file() or (HERE / name).read_bytes() != (fresh / name).read_bytes()
        ]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        diff = stale()
        for name in diff:
            print(f"stale: {HERE / name}")
        return 1 if diff else 0
    generate(SRC)
    for name in OUTPUTS:
        print(f"wrote {HERE / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
