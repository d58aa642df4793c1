"""A SparkSession for headwater jobs: local mode by default, executors on this Python."""

from __future__ import annotations

import os
import sys
from typing import Any


def local_session(master: str = "local[*]", app_name: str = "headwater", conf: dict[str, str] | None = None) -> Any:
    """A SparkSession on ``master`` whose Python workers run this interpreter (where headwater is
    installed), with the UI off. On a cluster, headwater must be installed on the executors too."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "8")
    )
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
