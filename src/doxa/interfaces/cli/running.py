"""What every ``doxa`` command shares: the global options' settings, and running one action.

A command opens the memory the settings name, runs one action on it, closes it, and turns
doxa's errors into a line on stderr (``error: <message>``, or a JSON document with
``--json``) and the exit code :mod:`doxa.interfaces.failures` gives.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import click

from doxa.clock import Clock
from doxa.errors import DoxaError, InvalidInput, StoreLocked
from doxa.interfaces.client import RemoteMemory, Served
from doxa.interfaces.discovery import Discovered, Ignored, discover, server_url
from doxa.interfaces.failures import EXIT_OK, EXIT_REJECTED, exit_code
from doxa.interfaces.location import is_url, open_memory
from doxa.interfaces.presentation import plain
from doxa.memory import Memory
from doxa.model import Receipt
from doxa.store.location import store_directory
from doxa.text import DEFAULT_LANGUAGE

__all__ = ["MEMORY", "Rejected", "Settings", "attempt", "emit", "print_error", "run"]

T = TypeVar("T")

#: ``--store :memory:`` keeps the store in memory for one command
MEMORY = ":memory:"


@dataclass(frozen=True)
class Settings:
    """What the global options said, handed to every command."""

    store: str
    scope: str
    json: bool
    clock: Clock | None = None
    update_url: str | None = None
    #: ``--judge`` as given (a :class:`~doxa.judges.JudgeName` value), parsed when the
    #: memory opens so a wrong name is an invalid input like any other
    judge: str | None = None
    #: ``--language``: the Snowball language recall stems the scope's words in
    language: str = DEFAULT_LANGUAGE

    #: whether the scope was named (``--scope`` or ``$DOXA_SCOPE``) rather than left at
    #: ``default``: a named scope must exist (docs/decisions.md, "Scopes are created")
    scope_named: bool = False
    #: ``--server`` (``$DOXA_SERVER``): a running doxa server's URL; every command then goes
    #: through its REST API instead of opening the store
    server: str | None = None
    #: ``$DOXA_KEY``: the API key for the server (never an option: others could read it)
    key: str | None = dataclasses.field(default=None, repr=False)

    @property
    def checks_scope(self) -> bool:
        """Whether a command refuses this scope unless it exists: a named scope in a store
        that outlives the command (an in-memory store starts empty every time)."""
        return self.scope_named and self.store != MEMORY

    @property
    def path(self) -> Path | None:
        """The store directory, or ``None`` for an in-memory store or a server."""
        if self.store == MEMORY or is_url(self.store):
            return None
        return store_directory(Path(self.store))


class Rejected(Exception):
    """A write the shapes rejected: its receipt, printed before exiting with code 1."""

    def __init__(self, receipt: Receipt) -> None:
        super().__init__(receipt.reason)
        self.receipt = receipt


def emit(value: object) -> None:
    """Print ``value`` as one JSON document (the form :func:`~doxa.interfaces.presentation.plain`
    gives, the REST API's too)."""
    click.echo(json.dumps(plain(value), indent=2, ensure_ascii=False))


def _within(
    settings: Settings,
    action: Callable[[Memory], None],
    served: Callable[[RemoteMemory], None] | None,
    creates: bool,
    *,
    local: bool,
) -> None:
    # The memory lives only in this frame, so nothing keeps the store open once the
    # command is over (an open store keeps its directory locked).
    if settings.server is not None:
        if local:
            raise InvalidInput(
                f"This command serves the store itself and cannot go through the server at "
                f"{settings.server}; leave out --server (and unset $DOXA_SERVER)."
            )
        _through(_explicit(settings), served, creates, _named(settings))
        return
    try:
        memory = open_memory(
            settings.store,
            settings.update_url,
            scope=settings.scope,
            clock=settings.clock,
            judge=settings.judge,
            language=settings.language,
        )
    except StoreLocked as locked:
        if local:
            raise
        remote = _discovered(settings, locked)  # re-raises the lock when no server is found
    else:
        with memory:
            _forget_stale(settings)
            if settings.checks_scope and not creates:
                memory.require_scope()  # a typo is refused, never a fresh empty memory
            action(memory)
            if creates:
                memory.admin.create_scope()  # after the action: a failed import creates no scope
        return
    _through(remote, served, creates, _named(settings))


def _named(settings: Settings) -> str | None:
    """The scope the user named (``--scope``, ``$DOXA_SCOPE``), which a key must reach."""
    return settings.scope if settings.scope_named else None


def _explicit(settings: Settings) -> RemoteMemory:
    """The server ``--server`` names, with ``$DOXA_KEY``."""
    assert settings.server is not None
    url = server_url(settings.server)
    if not settings.key:
        raise InvalidInput(
            f"--server {url} needs an API key in $DOXA_KEY (the owner key or an agent key "
            "that `doxa serve` printed, or one from its configuration)."
        )
    return RemoteMemory(url, settings.key)


def _discovered(settings: Settings, locked: StoreLocked) -> RemoteMemory:
    """The local server that holds the locked store, found by its discovery file; else the
    lock is the answer (with the reason a discovery file was not trusted)."""
    found = discover(settings.path, settings.scope) if settings.path is not None else None
    if isinstance(found, Ignored):
        click.echo(f"note: ignored {found.path}: {found.reason}", err=True)
    if not isinstance(found, Discovered):
        raise locked
    key = settings.key or found.token
    if key is None:
        raise InvalidInput(
            f"The store is held by the doxa server at {found.url}, which does not serve scope "
            f"{settings.scope!r}; name a scope it serves, or put a key in $DOXA_KEY."
        )
    click.echo(
        f"note: the store is held by the doxa server at {found.url} (pid {found.pid}); "
        "going through it",
        err=True,
    )
    return RemoteMemory(found.url, key)


def _forget_stale(settings: Settings) -> None:
    """With the store's lock held no server runs on it: a discovery file left by a server
    that was killed is removed, and the user told so (the file named a dead pid)."""
    if settings.path is None:
        return
    found = discover(settings.path, settings.scope)
    if isinstance(found, Ignored) and found.stale:
        found.path.unlink(missing_ok=True)
        click.echo(f"note: removed {found.path}: {found.reason}", err=True)


def _through(
    remote: RemoteMemory,
    action: Callable[[RemoteMemory], None] | None,
    creates: bool,
    scope: str | None,
) -> None:
    """Run ``action`` on the server's REST API, as if it were the memory; a command that
    needs the store itself (``action`` None) is refused by name, and so is a named ``scope``
    the key does not reach (the key decides the scope: without this check ``--scope bob``
    with alice's key in ``$DOXA_KEY`` would read and write alice's memory)."""
    with remote:
        if scope is not None:
            reached, role = remote.whoami()
            if reached != scope:
                raise InvalidInput(
                    f"The key in $DOXA_KEY reaches scope {reached!r} (as {role}), but the command "
                    f"names scope {scope!r}; put {scope!r}'s key in $DOXA_KEY, or leave out "
                    "--scope (and unset $DOXA_SCOPE) to use the key's scope."
                )
        if creates:
            raise InvalidInput(
                f"This command creates or fills a scope, which the doxa server at {remote.url} "
                "does not do over REST; stop the server and run it on the store."
            )
        if action is None:
            raise InvalidInput(
                f"This command cannot go through the doxa server at {remote.url} (the REST API "
                "has no route for it); stop the server (Ctrl-C where `doxa serve` runs) and run "
                "the command again on the store, or use the REST API (see /docs)."
            )
        action(remote)


def run(settings: Settings, action: Callable[[Served], None], *, creates: bool = False) -> None:
    """Open the memory, run ``action``, close; turn doxa's errors into a line and a code.

    ``action`` uses only what a running server's REST API offers (:class:`Served`, which
    mypy checks), so it runs on the store or, when a local ``doxa serve`` holds the store or
    ``--server`` names one, through that server. ``creates``: the command creates the scope
    (``doxa init``); every other command refuses a named scope the store does not know
    (:class:`~doxa.UnknownScope`).
    """
    _guarded(settings, lambda: _within(settings, action, action, creates, local=False))


def run_store(
    settings: Settings,
    action: Callable[[Memory], None],
    *,
    creates: bool = False,
    serves: bool = False,
) -> None:
    """:func:`run` for a command that needs the store itself (an export into a file, a
    backup, an import, rendering files …): through a server it is refused, naming the two
    ways on. ``serves``: the command serves the store (``doxa mcp``), so ``--server`` is
    refused and a locked store stays an error."""
    _guarded(settings, lambda: _within(settings, action, None, creates, local=serves))


def _guarded(settings: Settings, work: Callable[[], None]) -> None:
    code, message, name = EXIT_OK, "", ""
    receipt: Receipt | None = None
    try:
        work()
    except Rejected as rejected:
        code, receipt = EXIT_REJECTED, rejected.receipt
    except DoxaError as error:
        code, message, name = exit_code(error), str(error), type(error).__name__
    # exit outside the handlers, so the exception (and the frames holding the store) is gone
    if receipt is not None:
        _print_rejection(settings, receipt)
    elif code:
        print_error(settings, name, message, code)
    if code:
        raise SystemExit(code)


def attempt(settings: Settings, work: Callable[[], T]) -> T:
    """Run ``work`` without opening the memory (reading a file, an offline store, the
    command's own options); a doxa error stops the command as in :func:`run`."""
    code, message, name = EXIT_OK, "", ""
    try:
        return work()
    except DoxaError as error:
        code, message, name = exit_code(error), str(error), type(error).__name__
    # exit outside the handler, so the exception (and the frames it holds) is gone
    print_error(settings, name, message, code)
    raise SystemExit(code)


def print_error(settings: Settings, name: str, message: str, code: int) -> None:
    """The error line on stderr; with ``--json`` also the error document on stdout."""
    if settings.json:
        emit({"error": {"type": name, "message": message, "exit_code": code}})
    click.echo(f"error: {message}", err=True)


def _print_rejection(settings: Settings, receipt: Receipt) -> None:
    if settings.json:
        emit(receipt)
    count = len(receipt.failures)
    click.echo(
        f"error: the write was rejected by {count} constraint(s); nothing was stored but "
        f"receipt {receipt.id}. Fix these and write again:",
        err=True,
    )
    for failure in receipt.failures:
        click.echo(f"  {failure}", err=True)
