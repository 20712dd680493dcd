"""The exceptions doxa raises.

Every error is a :class:`DoxaError`; each leaf also subclasses the builtin it refines, so
callers that only know Python's exceptions still catch it::

    DoxaError
    ├── NotFound (LookupError)           an id, fact or held write that does not exist
    │   └── UnknownScope                 a scope nobody created in this store (a typo?)
    ├── InvalidInput (ValueError)        a value that cannot be written or read as given
    │   ├── ShapeViolation               the write broke one or more SHACL constraints
    │   ├── ErasedContent                the content was erased and may not come back
    │   ├── Forbidden                    only the owner may: an agent's owner words (403)
    │   └── ScopeViolation               a query tried to leave its scope
    │       └── ReadOnly                 a write through a read-only view (memory.rdf.dataset)
    ├── StoreError (OSError)             the store cannot be opened, read or written
    │   ├── StoreLocked                  another process holds the store directory
    │   ├── StoreBehindJournal           the store lost decisions its journal acknowledged
    │   ├── WriteConflict                another process kept writing the same scope first
    │   └── ChainBroken                  the receipt hash chain does not verify
    ├── ShapeCheckFailed (RuntimeError)  pySHACL itself failed: not a verdict on the write
    ├── JudgeUnavailable (RuntimeError)  the judge could not answer; the write waits unchecked
    └── EmbeddingUnavailable (RuntimeError) the embeddings endpoint could not give a vector
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ChainBroken",
    "ConstraintFailure",
    "DoxaError",
    "EmbeddingUnavailable",
    "ErasedContent",
    "Forbidden",
    "InvalidInput",
    "JudgeUnavailable",
    "Listing",
    "NotFound",
    "ReadOnly",
    "ScopeViolation",
    "ShapeCheckFailed",
    "ShapeViolation",
    "StoreBehindJournal",
    "StoreError",
    "StoreLocked",
    "UnknownScope",
    "UnsafeFile",
    "WriteConflict",
]


class DoxaError(Exception):
    """Root of every error doxa raises."""


class Listing(enum.Enum):
    """A list of ids a reader can look at, named in the CLI's words.

    A :class:`NotFound` names the listings where the id it missed would have shown; the HTTP
    and MCP servers say how to reach the same listing in their own terms
    (:func:`doxa.interfaces.failures.message_for`), so no reader is told to run a command it
    does not have.
    """

    FACTS = "`doxa facts`"
    ENDED_FACTS = "`doxa facts --include-ended`"
    HELD = "`doxa held`"
    QUARANTINE = "`doxa quarantine`"
    ALARMS = "`doxa alarms`"
    FLAGGED = "`doxa flagged`"


class NotFound(DoxaError, LookupError):
    """Something named by id does not exist in this scope.

    ``str()`` is the message with the CLI's way to the ``listings`` (``list ids with `doxa
    facts```); :meth:`told` gives it with another interface's way to them.
    """

    def __init__(
        self, message: str, *, listings: tuple[Listing, ...] = (), lead: str = "list ids with"
    ) -> None:
        self.bare = message
        self.listings = listings
        self.lead = lead
        super().__init__(self.told(lambda listing: listing.value))

    def told(self, name: Callable[[Listing], str]) -> str:
        """The message, each listing named by ``name``."""
        if not self.listings:
            return self.bare
        return f"{self.bare}; {self.lead} {' or '.join(name(x) for x in self.listings)}."


class UnknownScope(NotFound):
    """A command named a scope nobody created in this store (most often a typo).

    ``suggestion`` is the known scope whose normalised name is closest, if any.
    """

    def __init__(self, message: str, *, name: str, suggestion: str | None) -> None:
        super().__init__(message)
        self.name = name
        self.suggestion = suggestion


class InvalidInput(DoxaError, ValueError):
    """A value cannot be written or read as given."""


class UnsafeFile(InvalidInput):
    """A file in a rendered folder is not one doxa may read or write: a link, a hard link,
    a device or pipe, a name outside the folder, a file another user owns, or too large.

    Whoever can write the folder (an agent) must not be able to make a sync read or write
    anything else; the message names the file and what to do about it."""


@dataclass(frozen=True)
class ConstraintFailure:
    """One failed SHACL constraint: where it failed and why."""

    focus_node: str
    path: str | None
    message: str
    constraint: str

    def __str__(self) -> str:
        where = f" {self.path}" if self.path else ""
        return f"{self.focus_node}{where}: {self.message}"


class ShapeViolation(InvalidInput):
    """The write broke SHACL constraints; ``failures`` lists each one.

    Nothing but a rejection receipt was written.
    """

    def __init__(self, failures: tuple[ConstraintFailure, ...], receipt_id: str | None = None):
        self.failures = failures
        self.receipt_id = receipt_id
        lines = "; ".join(sorted(f.message for f in failures))
        super().__init__(
            f"The write was rejected by {len(failures)} constraint(s): {lines}. "
            "Fix the listed fields and write again."
        )


class ErasedContent(InvalidInput):
    """The same content was erased before; erasure is final."""


class Forbidden(InvalidInput):
    """Only the owner may do this, and the caller is an agent: a write with authority
    ``owner``, a standing rule or the owner's standpoint (refused by the one parse of a
    write, :func:`doxa.writes.remember_arguments`), or an owner's verb over an agent's key.

    Nothing was written. The message says what the agent may send instead; HTTP answers 403.
    """


class ScopeViolation(InvalidInput):
    """A query tried to reach outside its scope, or to make a network call."""


class ReadOnly(ScopeViolation):
    """A write was asked of a read-only view (``memory.rdf.dataset``): doxa is written
    through the gate only, so a write gets its verdict and receipt."""


class StoreError(DoxaError, OSError):
    """The store cannot be opened, read or written."""


class StoreLocked(StoreError):
    """Another process has the store directory open for writing."""


class StoreBehindJournal(StoreError):
    """The store ends before decisions doxa's journal acknowledged (a crash lost them)."""


class WriteConflict(StoreError):
    """Another process published to the same scope first, every time the gate tried.

    Nothing of the write was stored; writing it again judges it against what is there now.
    """


class ChainBroken(StoreError):
    """The receipt hash chain does not verify: the record was altered or truncated."""


class ShapeCheckFailed(DoxaError, RuntimeError):
    """pySHACL itself failed while checking a write; the write was not judged."""


class JudgeUnavailable(DoxaError, RuntimeError):
    """The judge could not answer (down, timed out, or gave an invalid answer)."""


class EmbeddingUnavailable(DoxaError, RuntimeError):
    """The embeddings endpoint gave no usable vector (down, timed out, or answered garbage).

    A write never fails for it: the fact is admitted, recorded as missing its vector and
    found by its words until ``doxa reindex`` fills the vector in.
    """
