"""The way back from :func:`~doxa.interfaces.presentation.plain`: JSON to the result objects.

The REST client (:mod:`doxa.interfaces.client`) hands the CLI the same objects
:class:`~doxa.Memory` returns (``Fact``, ``Receipt``, ``History`` …), so the CLI's printing
code is one code for both. Rather than a hand-written reader per class, each dataclass is
rebuilt from its own type hints: a field added to the model is read back with no change here.
Keys ``plain`` adds beside the fields (derived properties such as ``needs_rerun``, a fact's
``quotation``) are computed again by the object itself, so they are skipped.

>>> from doxa.model import Alarm
>>> revive(Alarm, {"id": "a1", "raised_at": "2026-03-09T00:00:00", "reason": "burst"})
Alarm(id='a1', raised_at=datetime.datetime(2026, 3, 9, 0, 0), reason='burst', fact=None, \
cleared_at=None, cleared_reason=None)
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from rdflib import Literal, URIRef

from doxa.errors import InvalidInput

__all__ = ["revive"]

T = TypeVar("T")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def revive(kind: type[T], value: Any) -> T:
    """``value`` (JSON as ``plain`` wrote it) as an instance of the type ``kind``.

    Raises :class:`~doxa.InvalidInput` when the JSON does not fit the type: a server of
    another version, say, answering with a shape this client does not know.
    """
    try:
        revived: T = _revive(kind, value)
        return revived
    except (TypeError, ValueError, KeyError) as error:
        if isinstance(error, InvalidInput):
            raise
        name = getattr(kind, "__name__", str(kind))
        raise InvalidInput(
            f"The server's answer does not read as {name} ({error}); use a doxa server of the "
            "same version as this client."
        ) from None


def _revive(kind: Any, value: Any) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        real = [option for option in options if option is not type(None)]
        if set(real) == {URIRef, Literal}:  # a Term: plain wrote its text either way
            return Literal(value)
        return _revive(real[0], value)
    if origin is tuple:
        inner = typing.get_args(kind)[0]
        return tuple(_revive(inner, item) for item in _items(value))
    if origin is list:
        inner = typing.get_args(kind)[0]
        return [_revive(inner, item) for item in _items(value)]
    if origin is dict:
        _, inner = typing.get_args(kind)
        if not isinstance(value, dict):
            raise TypeError(f"expected an object, got {type(value).__name__}")
        return {str(key): _revive(inner, item) for key, item in value.items()}
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return _dataclass(kind, value)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(value)
    return _scalar(kind, value)


def _items(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {type(value).__name__}")
    return value


def _dataclass(kind: type, value: Any) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object for {kind.__name__}, got {type(value).__name__}")
    hints = _hints(kind)
    given = {}
    for item in dataclasses.fields(kind):
        if item.init and item.name in value:
            given[item.name] = _revive(hints[item.name], value[item.name])
    return kind(**given)


def _scalar(kind: Any, value: Any) -> Any:
    if kind is datetime:
        return datetime.fromisoformat(value)
    if kind is timedelta:
        return timedelta(seconds=float(value))
    if kind is Decimal:
        return Decimal(str(value))
    if kind is URIRef:
        return URIRef(value)
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind in (str, int, bool) and type(value) is kind:
        return value
    if kind is Any:
        return value
    raise TypeError(f"expected {getattr(kind, '__name__', kind)}, got {value!r:.40}")
