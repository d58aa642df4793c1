"""Built-in lineage sinks, each a factory in the ``headwater.lineage_plugins`` entry-point group:
``jsonl``, ``openlineage``, ``webhook``, ``log`` and ``store``."""
