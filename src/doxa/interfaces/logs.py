"""What the libraries doxa uses may log, at the entry points (the CLI, its servers).

rdflib logs a warning with a traceback for every literal whose lexical form does not fit its
datatype (``"x"^^xsd:integer``) as it builds the term: a SPARQL result, an ontology or an
export holding one prints pages of tracebacks on stderr. Such a literal is a value doxa keeps
as it is (RDF allows it; the gate refuses new ones, see :func:`doxa.terms.literal`), not a
fault, so the entry points drop exactly that message; every other log record passes.
"""

from __future__ import annotations

import logging

__all__ = ["quiet_libraries"]

_RDFLIB_TERM = "rdflib.term"
_ILL_TYPED = "Failed to convert Literal lexical form to value"


class _IllTypedLiteral(logging.Filter):
    """Drops rdflib's "Failed to convert Literal lexical form" records, nothing else."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_ILL_TYPED)


def quiet_libraries() -> None:
    """Install the filter once (idempotent: a command run twice in one process adds none)."""
    logger = logging.getLogger(_RDFLIB_TERM)
    if not any(isinstance(f, _IllTypedLiteral) for f in logger.filters):
        logger.addFilter(_IllTypedLiteral())
