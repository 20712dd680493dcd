"""Where the CLI's ``--store`` points: a directory, ``:memory:``, or a SPARQL server's URL.

The string is parsed by :func:`doxa.store.open_store`, as for ``doxa serve`` and
:meth:`doxa.Memory.open_at`: an ``http``/``https`` URL is a SPARQL 1.1 query endpoint, with
updates going to ``--update-url`` when given (Oxigraph server: ``/query`` and ``/update``),
else to the same URL (Virtuoso: ``/sparql``). HTTP basic credentials come from
``$DOXA_STORE_USER`` and ``$DOXA_STORE_PASSWORD``, never from the command line, where other
users could read them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from doxa.clock import Clock
from doxa.judges import configured_judge
from doxa.memory import Memory
from doxa.reads.embeddings import EmbedConfig, OpenAIEmbedder
from doxa.store.location import MEMORY, is_server_url
from doxa.text import DEFAULT_LANGUAGE

__all__ = ["MEMORY", "is_url", "open_memory"]


def is_url(store: str) -> bool:
    """Whether ``--store`` names a SPARQL server rather than a directory.

    >>> is_url("http://localhost:7878/query"), is_url("./memory")
    (True, False)
    """
    return is_server_url(store)


def open_memory(
    store: str,
    update_url: str | None,
    *,
    scope: str,
    clock: Clock | None,
    judge: str | None = None,
    environ: Mapping[str, str] = os.environ,
    language: str = DEFAULT_LANGUAGE,
) -> Memory:
    """Open the memory ``--store`` names (the caller closes it), with the judge ``--judge``
    names (:func:`doxa.judges.configured_judge`) and the stemming language ``--language``
    names: by default the rule judge and, when
    ``DOXA_LLM_*`` configures one, the LLM judge as its fallback; recall and writes use the
    embeddings endpoint ``DOXA_EMBED_*`` configures (none: recall by words only)."""
    chosen = configured_judge(environ, name=judge)
    embedding = EmbedConfig.from_env(environ)
    return Memory.open_at(
        store,
        update_url=update_url,
        environ=environ,
        scope=scope,
        clock=clock,
        judge=chosen,
        language=language,
        embedder=None if embedding is None else OpenAIEmbedder(embedding),
    )
