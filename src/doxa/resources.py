"""Find the files doxa ships: the ontology, the SHACL shapes and the named SPARQL queries.

An installed wheel carries them inside the package (``doxa/data/``); a source checkout reads
them from the repository's top-level folders.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from doxa.errors import NotFound

__all__ = ["data_file", "query"]

_CHECKOUT = Path(__file__).resolve().parents[2]


def data_file(folder: str, name: str) -> Path:
    """Path of ``folder/name`` (folder is ``ontology``, ``shapes`` or ``queries``)."""
    packaged = resources.files("doxa").joinpath("data", folder, name)
    if packaged.is_file():
        return Path(str(packaged))
    local = _CHECKOUT / folder / name
    if local.is_file():
        return local
    raise NotFound(f"doxa cannot find its data file {folder}/{name}; reinstall the package.")


@functools.cache
def query(name: str) -> str:
    """The text of ``queries/<name>.rq``.

    >>> "SELECT" in query("claim")
    True
    """
    return data_file("queries", f"{name}.rq").read_text(encoding="utf-8")
