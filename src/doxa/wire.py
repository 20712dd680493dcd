"""JSON as it arrives from a caller (a REST body, an MCP message, a line of a claims file):
one strict parse, below every layer that reads such JSON so that all of them share it.

Python's ``json.loads`` is lenient where a guard must not be: a repeated key silently keeps
the last value (``{"authority": "agent", "authority": "owner"}``), ``NaN`` and ``Infinity``
pass as numbers, and a document nested past the interpreter's recursion limit raises
``RecursionError``. :func:`parse_json` refuses all of these with
:class:`~doxa.InvalidInput`, so what a guard checks is what the handler uses, and a proxy or
a log that reads the first of two keys can never disagree with doxa.

>>> parse_json('{"authority": "agent"}')
{'authority': 'agent'}
>>> parse_json('{"authority": "agent", "authority": "owner"}')
Traceback (most recent call last):
...
doxa.errors.InvalidInput: The JSON repeats the key 'authority'; send each key once.
"""

from __future__ import annotations

import json
from typing import Any

from doxa.errors import InvalidInput

__all__ = ["MAX_DEPTH", "parse_json"]

#: arrays and objects inside one another; doxa's own requests need fewer than ten
MAX_DEPTH = 64


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            shown = repr(key) if len(key) <= 40 else repr(key[:37]) + "..."
            raise InvalidInput(f"The JSON repeats the key {shown}; send each key once.")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise InvalidInput(f"The JSON holds {name}, which is not a JSON number; send a number.")


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (iterative: no recursion limit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in children)
    return deepest


def parse_json(text: str | bytes, *, what: str = "The body") -> Any:
    """Parse one JSON document strictly; raises :class:`~doxa.InvalidInput` with the reason,
    naming the document as ``what`` ("The body", "Line 3") where it cannot be read at all.

    Refused: text that is not JSON (or bytes that are not UTF-8: UTF-16 and UTF-32 too),
    a key repeated within one object,
    ``NaN``/``Infinity``, and arrays or objects nested more than :data:`MAX_DEPTH` deep.
    """
    try:
        # bytes are UTF-8 or refused: ``json.loads`` would detect UTF-16 and UTF-32 itself,
        # and a body the MCP endpoint refuses must not pass at the REST one
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except RecursionError:
        value = None
        deep = True
    except UnicodeDecodeError:
        raise InvalidInput(f"{what} is not UTF-8 text; send JSON encoded as UTF-8.") from None
    except json.JSONDecodeError as error:
        raise InvalidInput(
            f"{what} is not valid JSON ({error.msg} at line {error.lineno}, column "
            f"{error.colno}); send one JSON document."
        ) from None
    except ValueError as error:  # e.g. an integer with more digits than Python reads
        if isinstance(error, InvalidInput):
            raise
        raise InvalidInput(f"The JSON could not be read ({error}); send plain values.") from None
    else:
        deep = _depth(value) > MAX_DEPTH
    if deep:
        raise InvalidInput(
            f"The JSON nests arrays or objects more than {MAX_DEPTH} levels deep; send a flat "
            "document."
        )
    return value
