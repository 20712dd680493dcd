"""One table from doxa's errors to the CLI's exit codes and the HTTP API's statuses.

Every interface that turns an error into a number reads it here: the ``doxa`` commands
(``doxa serve`` among them) for the exit code, the HTTP error handlers and the review page
for the status. The most specific error comes first; the first row whose error the raised
one is an instance of decides.

>>> exit_code(NotFound("no such fact")), http_status(NotFound("no such fact"))
(3, 404)
>>> exit_code(ChainBroken("altered")), http_status(ChainBroken("altered"))
(5, 409)
>>> exit_code(Forbidden("only the owner")), http_status(Forbidden("only the owner"))
(2, 403)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from doxa.errors import (
    ChainBroken,
    DoxaError,
    EmbeddingUnavailable,
    Forbidden,
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
    "error_from",
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
    Failure(Forbidden, EXIT_USAGE, 403, "an agent asked for what only the owner may"),
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


def error_from(type_name: str, message: str, status: int) -> DoxaError:
    """The error an HTTP error answer stands for: :data:`FAILURES` read backwards, so a
    command that went through a server ends with the exit code it would have had on the store.

    The answer's ``type`` names doxa's error when it is one (``NotFound``, ``StoreLocked``);
    the HTTP layer's own refusals (a missing key, a body that does not fit) are invalid
    input, and its ``Forbidden`` (not the owner) is :class:`~doxa.Forbidden`; any other
    status is the first row that answers with it.

    >>> exit_code(error_from("NotFound", "There is no fact 'x'.", 404))
    3
    >>> type(error_from("Forbidden", "Only the owner may do this.", 403)).__name__
    'Forbidden'
    >>> type(error_from("Unauthorized", "Send a key.", 401)).__name__
    'InvalidInput'
    """
    import doxa.errors as errors

    if type_name in ("NotFound", "UnknownScope"):
        message = _told_for_cli(message)
    known = getattr(errors, type_name, None) if type_name in errors.__all__ else None
    if isinstance(known, type) and issubclass(known, DoxaError):
        try:
            return known(message)
        except (TypeError, AttributeError):  # a richer error (ShapeViolation, UnknownScope)
            return next(
                row.error
                for row in FAILURES
                if issubclass(known, row.error) and row.error is not known
            )(message)
    if 400 <= status < 500:
        return InvalidInput(message)
    return next((row for row in FAILURES if row.status == status), FAILURES[-1]).error(message)


#: how each server reaches a listing a NotFound names (the CLI's own words are the default)
_LISTINGS: dict[str, dict[Listing, str]] = {
    "http": {
        Listing.FACTS: "`GET /facts`",
        Listing.ENDED_FACTS: "`GET /facts?include_ended=true`",
        Listing.HELD: "`GET /held`",
        Listing.QUARANTINE: "`GET /quarantine` (owner key)",
        Listing.ALARMS: "`GET /alarms`",
        Listing.FLAGGED: "`GET /flagged`",
    },
    "mcp": {
        Listing.FACTS: "the `facts` tool",
        Listing.ENDED_FACTS: "the `facts` tool with `include_ended`",
        Listing.HELD: "the owner's review page",
        Listing.QUARANTINE: "the owner's review page",
        Listing.ALARMS: "the owner's review page",
        Listing.FLAGGED: "the owner's review page",
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


def _told_for_cli(message: str) -> str:
    """A server's NotFound message with the CLI's listings (``doxa facts``) in place of the
    routes it named (``GET /facts``): the reader of a command is told of commands. Wording
    only, never a decision."""
    for listing, route in sorted(_LISTINGS["http"].items(), key=lambda pair: -len(pair[1])):
        message = message.replace(route, listing.value)
    return message
