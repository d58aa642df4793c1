"""Frozen slotted dataclasses made through their slots' setters instead of their ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (~1.4 k
instructions a field); a slot's member descriptor sets it for about half. The hot paths (extraction's
column inputs and entries, a re-run's results, a log's run infos and outcomes) make their values so;
the values are the same: same class, same fields, same equality, still frozen.

>>> from headwater.model import TableRef
>>> make = frozen_maker(TableRef)
>>> make("internal", "db", "t") == TableRef("internal", "db", "t")
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from types import MemberDescriptorType
from typing import Any


def slot_setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of the fields of ``cls``, a dataclass with slots, in its fields' order; TypeError
    when a field is not a slot of ``cls`` itself."""
    names = tuple(f.name for f in fields(cls))
    slots = [cls.__dict__.get(name) for name in names]
    if not all(isinstance(d, MemberDescriptorType) for d in slots):
        raise TypeError(f"{cls.__name__}: its fields are not all slots of its own")
    return tuple(d.__set__ for d in slots)  # type: ignore[union-attr]  # member descriptors, tested above


_MAKERS: dict[tuple[type, bool], Callable[..., Any]] = {}


def frozen_maker(cls: type, post_init: bool = True) -> Callable[..., Any]:
    """A function of the field values of ``cls`` (in its fields' order) that makes ``cls(*values)``
    by ``object.__new__`` and its slots' setters, one generated line a field as ``dataclasses`` writes
    ``__init__``. ``cls`` itself where that would differ: a class with a ``__post_init__`` (unless
    ``post_init`` is False: the caller's values are those it leaves as they are), a field that is
    not a slot, a private field name."""
    made = _MAKERS.get((cls, post_init))
    if made is None:
        names = tuple(f.name for f in fields(cls))
        try:
            setters = slot_setters(cls)
        except TypeError:
            setters = None
        if setters is None or (post_init and hasattr(cls, "__post_init__")) or any(n.startswith("_") for n in names):
            made = cls
        else:
            scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
            scope.update((f"_set_{n}", s) for n, s in zip(names, setters, strict=True))
            lines = [f"def make({', '.join(names)}):", "    self = _new(_cls)"]
            lines += [f"    _set_{n}(self, {n})" for n in names]
            exec("\n".join([*lines, "    return self"]), scope)  # the text is made of field names only
            made = scope["make"]
        _MAKERS[cls, post_init] = made
    return made
