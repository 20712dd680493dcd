"""``doxa mcp``: the agent's memory over the Model Context Protocol (stdio, one scope).

With :mod:`~doxa.interfaces.mcp.outputs` and :mod:`~doxa.interfaces.mcp.transport`, the
only package that imports the ``mcp`` SDK (2.x renamed ``FastMCP`` to ``MCPServer``; keeping
every import here makes the next rename a one-file change). The server is a thin skin over one
:class:`~doxa.Memory` bound to one scope for the whole session: it holds no state of its own.

The agent's table has seven tools: ``remember`` (the gated write), ``forget`` (a request to
retract a fact, held for the owner) and five reads marked read-only (``recall``, ``facts``,
``history``, ``why``, ``vocabulary``). Every tool has an
input and an output schema. Owner verbs (``memory.owner``'s: approve, reject, retract, erase,
grant, revoke, clearing an alarm …) are not on the table, and an agent cannot write as the
owner or write a standing rule: those belong to the owner's interfaces (CLI, review page, and
over HTTP the owner key's table: ``held`` and one tool per row of
:data:`doxa.memory.decisions.DECISIONS`, :func:`add_owner_tools`). A doxa error comes back as
a tool error (``isError``) carrying doxa's message, so the model can read it and correct its
call.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import (
    ToolAnnotations,
)
from pydantic import Field
from starlette.types import ASGIApp

from doxa import __version__
from doxa.errors import DoxaError
from doxa.interfaces.failures import message_for
from doxa.interfaces.mcp.outputs import (
    FactList,
    FactPage,
    ForgetOut,
    HeldList,
    HeldOut,
    HistoryOut,
    ReceiptList,
    ReceiptOut,
    RememberOut,
    VocabularyOut,
    WhyOut,
    fact_out,
    history_out,
    receipt_out,
    remember_out,
    why_out,
)
from doxa.interfaces.mcp.transport import (
    MAX_MESSAGE_BYTES,
    CheckedRequests,
    check_message,
    serve_stdio,
    tool_arguments,
)
from doxa.interfaces.memory_tool import MAX_CHANGES, MemoryToolHandler
from doxa.interfaces.presentation import plain
from doxa.interfaces.read_schema import read_signature
from doxa.interfaces.write_schema import json_fields
from doxa.memory import Memory
from doxa.memory.decisions import DECISIONS, Decision, Returns
from doxa.reads.parameters import FACTS, RECALL, Read, newest
from doxa.writes import Role, remember_arguments

__all__ = [
    "AGENT_TOOLS",
    "FILE_TOOLS",
    "MAX_MESSAGE_BYTES",
    "OWNER_TOOLS",
    "HttpTools",
    "add_decision_tool",
    "build_server",
    "check_message",
    "serve_memory",
    "serve_stdio",
]

#: the agent's tool table: name -> read-only; a test pins it
AGENT_TOOLS: dict[str, bool] = {
    "remember": False,
    "recall": True,
    "facts": True,
    "history": True,
    "why": True,
    "vocabulary": True,
    "forget": False,
}

#: what the owner's key adds over HTTP (``doxa serve`` at /mcp): name -> read-only; an agent's
#: key never sees them (its server has no such tool, so a call by name is an unknown tool)
OWNER_TOOLS: dict[str, bool] = {
    "held": True,
    # every owner decision (doxa.memory.decisions.DECISIONS), built from its row
    **{decision.name: False for decision in DECISIONS},
}

#: the file-shaped tools ``doxa mcp --files`` adds (docs/files.md): name -> read-only
FILE_TOOLS: dict[str, bool] = {
    "memory_view": True,
    "memory_create": False,
    "memory_str_replace": False,
    "memory_insert": False,
    "memory_delete": False,
    "memory_rename": False,
}

INSTRUCTIONS = (
    "doxa is your long-term memory for one scope. Write facts with `remember` (every write "
    "passes a gate and returns a receipt: admitted, merged, held for the owner, rejected or "
    "quarantined); find them with `recall` (words) or `facts` (filters, two clocks: valid_at "
    "for the world, as_of for what was believed); follow a fact with `history` and `why`. "
    "A fact marked needs_rerun is an empty search result: run its query again before trusting "
    "it. A fact with a recheck line rests on something that ended: re-check it before "
    "relying on it.\n\n"
    "How to write well:\n"
    "- Always give `text` (one fact, as a person would say it) and a lower-case `topic`.\n"
    "- Give structure when the fact is one value of one thing: `subject` (who or what), "
    "`predicate` (which attribute) and `object` (the value), as the IRIs or names the store "
    "already uses (see `facts` or `recall` results). Structure lets the gate see that a new "
    "value replaces an old one; text alone is compared as text.\n"
    "- When you correct or update something you found in memory, pass its id as `revises`. "
    "Look it up first with `recall` or `facts`; never guess an id. The gate still decides "
    "(replaces, was_wrong, adds_detail, same or unclear) and may hold the write for the "
    "owner: naming a fact never forces it closed.\n"
    "- Do not re-assert what you only remember from this conversation: `recall` first. A "
    "value the owner corrected stays corrected; writing the old one again is held or merged, "
    "not believed.\n"
    "- Cite where a fact came from: `sources` (IRIs of pages, files, tool runs) for anything "
    "you read or observed, with `authority` 'tool' for a tool's output and 'external' for "
    "outside text (which needs a source); 'agent' (the default) is your own inference.\n"
    "- Times are ISO 8601 date-times with a zone (2026-03-09T14:00:00Z); give `valid_from` "
    "when the fact started to hold, if you know it. `confidence` is from 0 to 1; leave it out "
    "when unrated.\n"
    "- Read the receipt: `matched` names each stored fact the write matched (same), refined, "
    "replaced or would replace once the owner approves (held), with its id and text."
)

_READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


# -- output schemas -------------------------------------------------------------------


T = TypeVar("T")


def _guarded(call: Callable[[], T]) -> T:
    """Run one Memory call; a doxa error becomes a tool error carrying doxa's message."""
    try:
        return call()
    except DoxaError as error:
        raise ToolError(message_for(error, "mcp")) from error


def _doc(description: str) -> Any:
    """A parameter's description in the tool's input schema."""
    return Field(description=description)


AsOf = Annotated[str | None, _doc("As believed at this time, ISO 8601 (default now).")]
FactId = Annotated[str, _doc("The fact id, as remember, recall or facts returned it.")]
MemoryPath = Annotated[str, _doc("A path under /memories, e.g. /memories/meetings.md.")]


def _agent_write(memory: Memory, given: dict[str, Any]) -> dict[str, Any]:
    """``Memory.remember``'s arguments for a tool call: the one parse of a write, as an
    agent (:func:`doxa.writes.remember_arguments`), which refuses authority ``owner``, a
    ``rule`` and the owner's standpoint on the parsed values (the schema's enum is a hint to
    the model, not the guard). Over HTTP the owner's key gets the same ``remember``: the
    owner's own words come through the owner's interfaces (CLI, REST, review page)."""
    return remember_arguments(given, role=Role.AGENT, scope=memory.scope)


def _read_tool(server: MCPServer, read: Read, tool: Callable[..., Any], returns: type) -> None:
    """Add the read-only tool ``tool`` serving ``read``: the SDK reads its input schema from
    the signature, built from the reads' one definition (:mod:`doxa.reads.parameters`) with
    the agent's defaults."""
    signature = read_signature(read, agent=True, describe=Field, returns=returns)
    tool.__signature__ = signature  # type: ignore[attr-defined]
    server.tool(annotations=_READ, structured_output=True)(tool)


def _remember_signature() -> inspect.Signature:
    """The ``remember`` tool's parameters: the fields of a write an agent may give, each
    with its JSON type, default and doc (:func:`doxa.interfaces.write_schema.json_fields`)."""
    parameters = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[kind, info])
        for name, (kind, info) in json_fields(agent=True).items()
    ]
    return inspect.Signature(parameters, return_annotation=RememberOut)


def build_server(
    memory: Memory, *, files: bool = False, owner: bool = False, quiet: bool = False
) -> MCPServer:
    """The MCP server over ``memory``: the agent's tools, bound to its scope; with
    ``files``, also the file-shaped tools of :data:`FILE_TOOLS` (:func:`add_file_tools`);
    with ``owner``, also the owner's of :data:`OWNER_TOOLS` (:func:`add_owner_tools`).
    ``quiet`` keeps the SDK's logging at warnings (the SDK configures the root logger on
    the first server it builds: at INFO, an HTTP server would log every request)."""
    server: MCPServer = MCPServer(
        "doxa",
        title=f"doxa memory (scope {memory.scope.name})",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING" if quiet else "INFO",
    )

    def remember(**given: Any) -> RememberOut:
        """Write one fact through doxa's gate and get the receipt of the decision.

        A write that breaks the shapes or has a value of the wrong type comes back as an
        error listing what to fix; a rejected write stores no fact. Give the object as
        ``object``, or as ``literal`` with a ``datatype`` (``xsd:gYear``) or a ``language``.
        To correct a fact you found, pass its id as ``revises``. The receipt's ``matched``
        names each stored fact the write matched, refined or would replace, with its text.
        """
        sent = {name: value for name, value in given.items() if value is not None}
        arguments = _guarded(lambda: _agent_write(memory, sent))
        receipt = _guarded(lambda: memory.remember(**arguments, strict=True))
        return remember_out(receipt, memory)

    # the SDK reads the tool's input schema from its signature: the definition's fields
    remember.__signature__ = _remember_signature()  # type: ignore[attr-defined]
    server.tool(annotations=_WRITE, structured_output=True)(remember)

    def recall(**given: Any) -> FactList:
        """Find facts whose words match ``text``, best first."""
        text = given.pop("text")
        return FactList(facts=[fact_out(f) for f in _guarded(lambda: memory.recall(text, **given))])

    def facts(**given: Any) -> FactPage:
        """List facts true at ``valid_at`` as believed at ``as_of``, oldest record first."""
        limit = given.pop("limit")
        found = _guarded(lambda: memory.facts(**given))
        # an agent's context is small: the newest facts, and how many were left out
        kept = _guarded(lambda: newest(found, limit))
        return FactPage(facts=[fact_out(f) for f in kept], more=len(found) - len(kept))

    _read_tool(server, RECALL, recall, FactList)
    _read_tool(server, FACTS, facts, FactPage)

    @server.tool(annotations=_READ, structured_output=True)
    def history(
        fact: FactId,
        as_of: AsOf = None,
    ) -> HistoryOut:
        """A fact and every event that refined, corroborated, superseded or retracted it."""
        return history_out(_guarded(lambda: memory.history(fact, as_of=as_of)))

    @server.tool(annotations=_READ, structured_output=True)
    def why(fact: FactId) -> WhyOut:
        """A fact's evidence, sources and the receipt that admitted it."""
        return why_out(_guarded(lambda: memory.why(fact)))

    @server.tool(annotations=_READ, structured_output=True)
    def vocabulary(
        search: Annotated[str | None, _doc("Only names matching these words.")] = None,
        limit: Annotated[int, _doc("At most this many of each list (1-1000).")] = 50,
    ) -> VocabularyOut:
        """The predicates (with one-or-many values) and entities this memory knows, most used
        first: reuse their names or IRIs in remember's subject, predicate and object."""
        found = _guarded(lambda: memory.vocabulary(search, limit=limit))
        return VocabularyOut.model_validate(plain(found))

    @server.tool(annotations=_WRITE, structured_output=True)
    def forget(
        fact: FactId,
        reason: Annotated[str, _doc("Why the fact is wrong or should go (the owner reads it).")],
    ) -> ForgetOut:
        """Ask the owner to retract a live fact you found wrong. Nothing ends now: the
        request waits for the owner, who approves (the fact is retracted, its history kept)
        or rejects it. To record that the world changed, remember the new value instead."""
        held = _guarded(lambda: memory.request_retraction(fact, reason=reason))
        if held is None:
            return ForgetOut(
                requested=False,
                receipt=None,
                note="A request to retract this fact already waits for the owner.",
            )
        return ForgetOut(
            requested=True,
            receipt=receipt_out(held),
            note="The request waits for the owner; the fact stays until they approve it.",
        )

    if files:
        add_file_tools(server, memory)
    if owner:
        add_owner_tools(server, memory)
    return server


def add_owner_tools(server: MCPServer, memory: Memory) -> None:
    """``held`` and every owner decision (one tool per row of
    :data:`~doxa.memory.decisions.DECISIONS`), for a client holding the scope's owner key
    (only ever added by :class:`HttpTools` for that key; stdio ``doxa mcp`` is the agent's)."""

    @server.tool(annotations=_READ, structured_output=True)
    def held() -> HeldList:
        """The writes waiting for the owner's decision, oldest first."""
        found = _guarded(memory.held)
        return HeldList(
            held=[
                HeldOut(
                    id=h.id,
                    fact=h.fact,
                    text=h.text,
                    topic=h.topic,
                    status=h.status.value,
                    relation=None if h.relation is None else h.relation.value,
                    targets=list(h.targets),
                    reason=h.reason,
                    held_at=h.held_at.isoformat(),
                )
                for h in found
            ]
        )

    for decision in DECISIONS:
        add_decision_tool(server, memory, decision)


def add_decision_tool(server: MCPServer, memory: Memory, decision: Decision[Any, Any]) -> None:
    """One owner decision as a tool: the row's target and arguments as its parameters, its
    method's docstring as its description; a doxa error is a tool error."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters: list[inspect.Parameter] = []
    if decision.target is not None:
        parameters.append(
            inspect.Parameter(
                decision.target.parameter,
                keyword,
                annotation=Annotated[str, _doc(decision.target.doc)],
            )
        )
    for argument in decision.arguments:
        extra: dict[str, Any] | None = (
            {"enum": [*argument.values, None]} if argument.values else None
        )
        if argument.required:
            annotation: Any = Annotated[str, _doc(argument.doc)]
            parameters.append(inspect.Parameter(argument.name, keyword, annotation=annotation))
        else:
            default = argument.default if isinstance(argument.default, str) else None
            annotation = Annotated[
                str | None, Field(description=argument.doc, json_schema_extra=extra)
            ]
            parameters.append(
                inspect.Parameter(argument.name, keyword, annotation=annotation, default=default)
            )
    many = decision.returns is Returns.RECEIPTS
    returns = ReceiptList if many else ReceiptOut
    target = decision.target

    def tool(**given: Any) -> ReceiptOut | ReceiptList:
        named = given.pop(target.parameter) if target is not None else None
        answer = _guarded(lambda: decision.call(memory.owner, named, given))
        if many:
            return ReceiptList(receipts=[receipt_out(r) for r in answer])
        return receipt_out(answer)

    tool.__name__ = decision.name
    tool.__doc__ = decision.doc
    tool.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    server.tool(name=decision.name, annotations=_WRITE, structured_output=True)(tool)


def add_file_tools(server: MCPServer, memory: Memory) -> None:
    """The memory tool's six commands as MCP tools (``memory_view`` …) over the Markdown
    projection, as the agent: every change goes through the gate, and an answer led by
    ``Error:`` is a tool error (nothing was done)."""
    handler = MemoryToolHandler(memory, authority="agent")

    def run(command: dict[str, object]) -> str:
        given = {key: value for key, value in command.items() if value is not None}
        said = handler.execute(given)
        if said.startswith("Error: "):
            raise ToolError(said[len("Error: ") :])
        return said

    @server.tool(annotations=_READ)
    def memory_view(
        path: MemoryPath,
        view_range: Annotated[list[int] | None, _doc("First and last line, e.g. [1, 10].")] = None,
    ) -> str:
        """List /memories, or show a topic file with its lines numbered (one fact a line)."""
        return run({"command": "view", "path": path, "view_range": view_range})

    @server.tool(annotations=_WRITE)
    def memory_create(
        path: MemoryPath,
        file_text: Annotated[
            str, _doc(f"The file's lines (at most {MAX_CHANGES}); empty: an empty file.")
        ],
    ) -> str:
        """Create a topic file (each line a new fact; empty text: an empty file to insert
        into), or rewrite one (held unless every fact it drops is accounted for)."""
        return run({"command": "create", "path": path, "file_text": file_text})

    @server.tool(annotations=_WRITE)
    def memory_str_replace(
        path: MemoryPath,
        old_str: Annotated[str, _doc("Text that occurs exactly once in the file.")],
        new_str: Annotated[str, _doc("What replaces it.")],
    ) -> str:
        """Replace text in a topic file: a line that keeps its id revises its fact."""
        return run({"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str})

    @server.tool(annotations=_WRITE)
    def memory_insert(
        path: MemoryPath,
        insert_line: Annotated[int, _doc("Insert after this line (0: at the top).")],
        insert_text: Annotated[str, _doc(f"The new lines (at most {MAX_CHANGES}): new facts.")],
    ) -> str:
        """Insert lines into a topic file: each a new fact in its topic."""
        return run(
            {
                "command": "insert",
                "path": path,
                "insert_line": insert_line,
                "insert_text": insert_text,
            }
        )

    @server.tool(annotations=_WRITE)
    def memory_delete(path: MemoryPath) -> str:
        """Ask the owner to retract every fact of a topic file (nothing is deleted)."""
        return run({"command": "delete", "path": path})

    @server.tool(annotations=_WRITE)
    def memory_rename(old_path: MemoryPath, new_path: MemoryPath) -> str:
        """Move a topic file's facts to another topic (held for the owner)."""
        return run({"command": "rename", "old_path": old_path, "new_path": new_path})


# -- the transport: stdio, every message checked before the SDK reads it ----------------


#: the longest message (one line of JSON-RPC) the server reads; a longer one is refused
def serve_memory(memory: Memory, *, files: bool = False) -> None:
    """Serve MCP over stdio on ``memory`` until the client closes stdin (with ``files``,
    the file-shaped tools too).

    The caller keeps the store open (and its directory locked) for the whole session.
    Each message is one line of at most :data:`MAX_MESSAGE_BYTES` bytes, nested at most
    :data:`doxa.wire.MAX_DEPTH` levels deep; anything else gets a JSON-RPC
    error reply (``id`` null where it could not be read) and the session goes on.
    """
    anyio.run(serve_stdio, build_server(memory, files=files))


# -- the transport: Streamable HTTP, mounted by ``doxa serve`` at /mcp ------------------


class HttpTools:
    """The MCP tools of every scope over Streamable HTTP, for ``doxa serve``'s /mcp route.

    One server per scope and role, built up front: the agent's (:data:`AGENT_TOOLS`) and
    the owner's (those plus :data:`OWNER_TOOLS`), each bound to its scope's memory, so the
    caller's key picks the table and an agent's key has no owner tool to call. The
    transport is stateless with JSON responses (the 2026 revisions' model: no session to
    hijack or expire, every request carries its key, any worker can answer). Building a
    server is cheap next to a request (docs/decisions.md), and doing it once keeps a
    request from paying it; the SDK's session managers must be started before requests
    come, which :meth:`lifespan` does. The caller (the HTTP server) authenticates first.
    """

    def __init__(self, memories: Mapping[str, Memory], *, limit: int = MAX_MESSAGE_BYTES) -> None:
        self._limit = limit
        self._servers = {
            (scope, owner): build_server(memory, owner=owner, quiet=True)
            for scope, memory in memories.items()
            for owner in (False, True)
        }
        self._apps: dict[tuple[str, bool], ASGIApp] = {}

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """Run every server's session manager while the HTTP server runs."""
        async with AsyncExitStack() as stack:
            for key, server in self._servers.items():
                manager = StreamableHTTPSessionManager(
                    # the SDK's documented way to mount several servers in one app
                    app=server._lowlevel_server,
                    json_response=True,
                    stateless=True,
                    max_request_body_size=self._limit,
                )
                await stack.enter_async_context(manager.run())
                arguments = tool_arguments(await server.list_tools())
                self._apps[key] = CheckedRequests(manager.handle_request, self._limit, arguments)
            try:
                yield
            finally:
                self._apps.clear()

    def app_for(self, scope: str, owner: bool) -> ASGIApp:
        """The endpoint serving ``scope``'s tools to its owner (``owner``) or an agent."""
        return self._apps[(scope, owner)]


# -- the vocabulary tool's result (issue 16) ------------------------------------------
