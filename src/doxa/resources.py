"""Find the files doxa ships: the ontology, the SHACL shapes and the named SPARQL queries.

An installed wheel carries them inside the package (``doxa/data/``); a source checkout reads
them from the repository's top-level folders.

A query file ``queries/<name>.rq`` holds no ``PREFIX`` lines and may share pieces with other
queries; :func:`query` assembles the text a store runs in two steps:

1. **Fragments.** A line ``#include NAME`` (only that on the line, indented as you like) is
   replaced by ``queries/fragments/NAME.rq``, each of its lines indented like the marker and
   its leading comment lines (its description) left out. A fragment is a piece of a group
   pattern that reads the variables its header names (``live`` reads ``?claim``); fragments do
   not include others. The marker is a SPARQL comment, so a file still reads as one query.
2. **Prefixes.** The one prefix block, ``queries/fragments/prefixes.rq``, is the only place a
   prefix is declared: the text starts with the ``PREFIX`` lines of the block whose prefix it
   uses (outside comments, strings and IRIs), in the block's order, and with no other. A
   prefix the block lacks leaves the query unparsable, which ``tests/test_rdf_artefacts.py``
   reports.

The result is plain SPARQL 1.1 (the prologue, then the file's own text), so callers may still
bind ``VALUES`` into its first ``WHERE`` group or append a ``LIMIT``, and remote stores receive
it as it is.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path

from doxa.errors import NotFound

__all__ = ["data_file", "query"]

_CHECKOUT = Path(__file__).resolve().parents[2]

#: ``#include NAME`` on a line of its own: the marker a fragment replaces.
_INCLUDE = re.compile(r"^(?P<indent>[ \t]*)#include[ \t]+(?P<name>[a-z][a-z0-9_]*)[ \t]*$", re.M)
#: What may not count as a prefix's use: strings, IRIs and comments (leftmost match wins).
_NOT_CODE = re.compile(
    r"'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""
    r"|<[^<>\"{}|^`\\\s]*>|#[^\n]*",
    re.DOTALL,
)
#: A prefixed name's prefix: letters first, not part of a longer name or a variable.
_USE = re.compile(r"(?<![\w.:?$-])([A-Za-z][\w.-]*)?:")
_DECLARATION = re.compile(r"^PREFIX\s+([A-Za-z][\w.-]*)?:\s*<[^>]*>\s*$", re.IGNORECASE)


def data_file(folder: str, name: str) -> Path:
    """Path of ``folder/name`` (folder is ``ontology``, ``shapes`` or ``queries``; name may
    name a file in a subfolder, as ``fragments/live.rq``)."""
    parts = name.split("/")
    packaged = resources.files("doxa").joinpath("data", folder, *parts)
    if packaged.is_file():
        return Path(str(packaged))
    local = _CHECKOUT.joinpath(folder, *parts)
    if local.is_file():
        return local
    raise NotFound(f"doxa cannot find its data file {folder}/{name}; reinstall the package.")


@functools.cache
def query(name: str) -> str:
    """The text of ``queries/<name>.rq``, with its fragments spliced in and the prefixes it
    uses declared first (see the module's description).

    >>> "SELECT" in query("claim")
    True
    >>> query("live_claim").startswith("PREFIX doxa: <https://w3id.org/doxa#>\\n#")
    True
    """
    text = _INCLUDE.sub(_splice, data_file("queries", f"{name}.rq").read_text(encoding="utf-8"))
    return _prologue(text) + text


def _splice(marker: re.Match[str]) -> str:
    indent = marker.group("indent")
    lines = _fragment(marker.group("name")).splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    return "\n".join(indent + line if line.strip() else "" for line in lines)


@functools.cache
def _fragment(name: str) -> str:
    return data_file("queries", f"fragments/{name}.rq").read_text(encoding="utf-8")


def _prologue(text: str) -> str:
    """The PREFIX lines of the shared block whose prefix ``text`` uses."""
    used = {match.group(1) or "" for match in _USE.finditer(_NOT_CODE.sub(" ", text))}
    return "".join(line + "\n" for prefix, line in _prefixes() if prefix in used)


@functools.cache
def _prefixes() -> tuple[tuple[str, str], ...]:
    """The shared block's declarations: (prefix, its PREFIX line), in the block's order."""
    block = []
    for line in _fragment("prefixes").splitlines():
        found = _DECLARATION.match(line.strip())
        if found is not None:
            block.append((found.group(1) or "", line.strip()))
    return tuple(block)
