"""Where the CLI's ``--store`` points: a directory, ``:memory:``, or a SPARQL server's URL.

A URL (``http://`` or ``https://``) is a SPARQL 1.1 query endpoint; updates go to
``--update-url`` when given (Oxigraph server: ``/query`` and ``/update``), else to the same URL
(Virtuoso: ``/sparql``). HTTP basic credentials come from ``$DOXA_STORE_USER`` and
``$DOXA_STORE_PASSWORD``, never from the command line, where other users could read them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from doxa.clock import Clock
from doxa.judges import configured_judge
from doxa.memory import Memory

__all__ = ["is_url", "open_memory"]

MEMORY = ":memory:"


def is_url(store: str) -> bool:
    """Whether ``--store`` names a SPARQL server rather than a directory.

    >>> is_url("http://localhost:7878/query"), is_url("./memory")
    (True, False)
    """
    return store.startswith(("http://", "https://"))


def open_memory(
    store: str,
    update_url: str | None,
    *,
    scope: str,
    clock: Clock | None,
    environ: Mapping[str, str] = os.environ,
) -> Memory:
    """Open the memory ``--store`` names (the caller closes it), with the rule judge and,
    when ``DOXA_LLM_*`` configures one, the LLM judge as its fallback."""
    judge = configured_judge(environ)
    if is_url(store):
        user, password = environ.get("DOXA_STORE_USER"), environ.get("DOXA_STORE_PASSWORD")
        auth = (user, password or "") if user else None
        return Memory.connect(store, update_url, scope=scope, auth=auth, clock=clock, judge=judge)
    path = None if store == MEMORY else Path(store)
    return Memory.open(path, scope=scope, clock=clock, judge=judge)
