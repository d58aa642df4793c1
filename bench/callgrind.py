"""Instructions a command executes, counted by valgrind's callgrind (the ``*_instructions.py`` scripts).

count_instructions([sys.executable, "script.py", "--run", "x"])            # -> int
count_instructions(cmd, out_file=Path("keep/cg.out"), env={"PYTHONHASHSEED": "0"})
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path


def count_instructions(cmd: Sequence[str], out_file: Path | None = None, env: Mapping[str, str] | None = None) -> int:
    """Run ``cmd`` under callgrind and return the instructions it executed; ``out_file`` keeps the
    profile for ``callgrind_annotate``; ``env`` is added to this process's environment."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file or Path(tmp) / 'cg.out'}", *cmd],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **(env or {})},
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1))
