"""Reading a plugin's own settings with clear errors (an error makes ``initialize`` fail).

>>> from headwater.dispatch.spi import PluginContext, PluginNotConfigured
>>> ctx = PluginContext("p", None, {"n": 3, "s": "x"})
>>> integer(ctx, "n", 1, minimum=0), string(ctx, "s"), number(ctx, "absent", 0.5)
(3, 'x', 0.5)
>>> string(ctx, "url")
Traceback (most recent call last):
...
headwater.dispatch.spi.PluginNotConfigured: lineage plugin p needs the setting 'url'

A missing required setting raises ``PluginNotConfigured`` (the plugin is merely not configured);
a present but wrong one raises ``ValueError``.
"""

from __future__ import annotations

from typing import Any

from headwater.dispatch.spi import PluginContext, PluginNotConfigured

_REQUIRED: Any = object()


def _get(ctx: PluginContext, key: str, default: Any) -> Any:
    value = ctx.settings.get(key, default)
    if value is _REQUIRED:
        raise PluginNotConfigured(ctx.name, key)
    return value


def string(ctx: PluginContext, key: str, default: Any = _REQUIRED, choices: tuple[str, ...] = ()) -> str:
    value = _get(ctx, key, default)
    if not isinstance(value, str) or (choices and value not in choices):
        allowed = f"one of {', '.join(choices)}" if choices else "a string"
        raise ValueError(f"lineage plugin {ctx.name}: setting {key!r} must be {allowed}, got {value!r}")
    return value


def integer(ctx: PluginContext, key: str, default: Any = _REQUIRED, minimum: int = 0) -> int:
    value = _get(ctx, key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"lineage plugin {ctx.name}: setting {key!r} must be an integer >= {minimum}, got {value!r}")
    return value


def number(ctx: PluginContext, key: str, default: Any = _REQUIRED, minimum: float = 0.0) -> float:
    value = _get(ctx, key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise ValueError(f"lineage plugin {ctx.name}: setting {key!r} must be a number >= {minimum}, got {value!r}")
    return float(value)


def table(ctx: PluginContext, key: str, default: Any = _REQUIRED) -> dict[str, Any]:
    value = _get(ctx, key, default)
    if not isinstance(value, dict):
        raise ValueError(f"lineage plugin {ctx.name}: setting {key!r} must be a table, got {value!r}")
    return dict(value)
