"""Extraction: from SQL text to lineage events (pure: no I/O beyond asking the catalog).

Public surface::

    Extractor(catalog=None, options=ExtractOptions(), database=None, catalog_name="internal")
        .run(sql, run=RunInfo(...)) -> ScriptResult     # stateful: DDL / USE affect later calls
    extract_script(sql, *, dialect="doris", catalog=None, database=None, run=None,
                   statements="doris") -> ScriptResult
"""

from headwater.extract.engine import Extractor, extract_script
from headwater.extract.result import ExtractOptions, RunInfo, ScriptResult, StatementResult
from headwater.model.secrets import mask_secrets_in_log

mask_secrets_in_log("sqlglot")  # sqlglot's warnings quote the statements they are about

__all__ = ["ExtractOptions", "Extractor", "RunInfo", "ScriptResult", "StatementResult", "extract_script"]
