"""One table from doxa's errors to the CLI's exit codes and the HTTP API's statuses.

Every interface that turns an error into a number reads it here: the ``doxa`` commands
(``doxa serve`` among them) for the exit code, the HTTP error handlers and the review page
for the status. The most specific error comes first; the first row whose error the raised
one is an instance of decides.

>>> exit_code(NotFound("no such fact")), http_status(NotFound("no such fact"))
(3, 404)
>>> exit_code(ChainBroken("altered")), http_status(ChainBroken("altered"))
(5, 409)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from doxa.errors import (
    ChainBroken,
    DoxaError,
    EmbeddingUnavailable,
    InvalidInput,
    JudgeUnavailable,
    Listing,
    NotFound,
    ScopeViolation,
    ShapeViolation,
    StoreError,
)

__all__ = [
    "EXIT_CHAIN",
    "EXIT_GATE",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_REJECTED",
    "EXIT_STORE",
    "EXIT_USAGE",
    "FAILURES",
    "Failure",
    "exit_code",
    "failure_of",
    "http_status",
    "message_for",
]

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_STORE = 4
EXIT_CHAIN = 5
EXIT_GATE = 6


@dataclass(frozen=True)
class Failure:
    """One kind of error: the exit code a command ends with and the status a route answers."""

    error: type[DoxaError]
    exit_code: int
    status: int
    meaning: str


#: most specific first: the first row that matches decides
FAILURES: tuple[Failure, ...] = (
    Failure(ShapeViolation, EXIT_REJECTED, 422, "the write was rejected by the shapes"),
    Failure(ScopeViolation, EXIT_USAGE, 403, "a query tried to leave its scope"),
    Failure(InvalidInput, EXIT_USAGE, 400, "a value doxa cannot take"),
    Failure(NotFound, EXIT_NOT_FOUND, 404, "an id or a file that does not exist"),
    Failure(ChainBroken, EXIT_CHAIN, 409, "the receipt hash chain does not verify"),
    Failure(StoreError, EXIT_STORE, 503, "the store cannot be opened, read or written"),
    Failure(JudgeUnavailable, EXIT_GATE, 503, "the judge could not answer"),
    Failure(EmbeddingUnavailable, EXIT_GATE, 503, "the embeddings endpoint could not answer"),
    Failure(DoxaError, EXIT_GATE, 500, "the gate itself failed"),
)


def failure_of(error: DoxaError) -> Failure:
    """The first row of :data:`FAILURES` that ``error`` is an instance of."""
    return next(row for row in FAILURES if isinstance(error, row.error))


def exit_code(error: DoxaError) -> int:
    """The exit code a ``doxa`` command ends with when ``error`` stops it."""
    return failure_of(error).exit_code


def http_status(error: DoxaError) -> int:
    """The HTTP status a route answers ``error`` with."""
    return failure_of(error).status


#: how each server reaches a listing a NotFound names (the CLI's own words are the default)
_LISTINGS: dict[str, dict[Listing, str]] = {
    "http": {
        Listing.FACTS: "`GET /facts`",
        Listing.ENDED_FACTS: "`GET /facts?include_ended=true`",
        Listing.HELD: "`GET /held`",
        Listing.QUARANTINE: "`GET /quarantine` (owner key)",
    },
    "mcp": {
        Listing.FACTS: "the `facts` tool",
        Listing.ENDED_FACTS: "the `facts` tool with `include_ended`",
        Listing.HELD: "the owner's review page",
        Listing.QUARANTINE: "the owner's review page",
    },
}


def message_for(error: DoxaError, interface: Literal["cli", "http", "mcp"]) -> str:
    """``error``'s message for a reader of ``interface``: a :class:`~doxa.NotFound` names the
    listings that interface has (``GET /facts``, the ``facts`` tool), not ``doxa facts``.

    >>> from doxa.errors import Listing, NotFound
    >>> missing = NotFound("There is no fact 'x'", listings=(Listing.FACTS,))
    >>> message_for(missing, "http")
    "There is no fact 'x'; list ids with `GET /facts`."
    >>> message_for(missing, "cli")
    "There is no fact 'x'; list ids with `doxa facts`."
    """
    if isinstance(error, NotFound) and interface in _LISTINGS:
        names = _LISTINGS[interface]
        return error.told(lambda listing: names[listing])
    return str(error)
