"""The checks every MCP request passes before the SDK sees it, on both transports.

stdio lines and the bodies ``/mcp`` receives over HTTP are read by :func:`check_message`:
size, nesting, duplicate keys, non-JSON and arguments a tool does not take are answered here
(the SDK's reader drops unknown arguments silently). :func:`serve_stdio` runs a server over
checked stdio; :class:`CheckedRequests` wraps the Streamable HTTP app.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol, cast

import anyio
import anyio.to_thread
from jsonschema import Draft202012Validator
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCResponse,
    TextContent,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from doxa.errors import InvalidInput
from doxa.wire import parse_json

__all__ = [
    "MAX_MESSAGE_BYTES",
    "CheckedRequests",
    "ToolInput",
    "check_message",
    "serve_stdio",
    "tool_arguments",
]


MAX_MESSAGE_BYTES = 1_048_576


def _refusal(code: int, message: str, id: object = None) -> SessionMessage:
    """A JSON-RPC error reply; ``id`` is null where the request's id could not be read."""
    known = id if isinstance(id, str | int) and not isinstance(id, bool) else None
    return SessionMessage(
        JSONRPCError(jsonrpc="2.0", id=known, error=ErrorData(code=code, message=message))
    )


def _tool_error(message: str, id: object) -> SessionMessage:
    """A tool call's answer that the call failed (``isError``), in a result the model reads:
    how MCP 2025-11-25 (SEP-1303) says a tool's input errors are reported, so the model can
    correct its call instead of the client failing the request."""
    result = CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
    return SessionMessage(
        JSONRPCResponse(
            jsonrpc="2.0",
            id=cast("str | int", id),
            result=result.model_dump(by_alias=True, mode="json", exclude_none=True),
        )
    )


@dataclass(frozen=True)
class ToolInput:
    """What one tool takes: its argument names, and its input schema's validator."""

    takes: frozenset[str]
    schema: Draft202012Validator

    @classmethod
    def of(cls, schema: Mapping[str, Any]) -> ToolInput:
        return cls(frozenset(schema.get("properties", {})), Draft202012Validator(dict(schema)))

    def problems(self, given: Mapping[str, Any]) -> list[str]:
        """What is wrong with ``given`` in its shape (a missing argument, a wrong JSON type,
        a value outside a list of choices), in words a model can act on: the schema's, not
        pydantic's with its documentation links. At most three, by argument. A value of the
        right type is left to doxa's own parse, whose message says more (a topic's rules)."""
        said = []
        for error in sorted(self.schema.iter_errors(dict(given)), key=lambda e: list(e.path)):
            if error.validator == "anyOf" and error.context:
                error = min(error.context, key=lambda e: e.validator != "enum")
            where = ".".join(str(p) for p in error.path)
            if error.validator == "required":
                said.append(error.message)
            elif error.validator == "type":
                said.append(f"argument {where!r}: {error.message}")
            elif error.validator == "enum" and isinstance(error.validator_value, list):
                choices = ", ".join(repr(c) for c in error.validator_value if c is not None)
                said.append(f"argument {where!r}: {error.instance!r} is not one of {choices}")
        return said[:3]


def check_message(
    raw: bytes,
    *,
    limit: int = MAX_MESSAGE_BYTES,
    arguments: Mapping[str, ToolInput] | None = None,
) -> SessionMessage | None:
    """The error reply for a message the server will not read, or None to read it.

    Refused: a message over ``limit`` bytes, one that is not UTF-8 JSON, repeats a key,
    nests more than :data:`doxa.wire.MAX_DEPTH` levels deep (the SDK alone
    would drop such a message without a reply), or is not a JSON-RPC message; and, given
    ``arguments`` (tool name -> the argument names it takes), a tool call with an argument
    its tool does not take (the SDK would drop it silently: ``rule`` on ``remember`` would
    write an ordinary fact while the agent believes it wrote a rule), or one its input
    schema refuses (a wrong type, a missing argument). Those two are a tool result with
    ``isError`` (the model sees it and can call again), not a protocol error.
    """
    if len(raw) > limit:
        return _refusal(
            INVALID_REQUEST,
            f"The message is larger than this server's limit of {limit} bytes; send less "
            "per request.",
        )
    try:
        value = parse_json(raw)
    except InvalidInput as error:
        return _refusal(PARSE_ERROR, f"Parse error: {error}")
    try:
        jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return _refusal(
            INVALID_REQUEST,
            "Invalid Request: this is not a JSON-RPC 2.0 message; send a request such as "
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}.',
            value.get("id") if isinstance(value, dict) else None,
        )
    if "id" in value and not _valid_id(value["id"]):
        # the SDK would take it for a notification (no reply, HTTP 202): say it is invalid
        return _refusal(
            INVALID_REQUEST,
            "Invalid Request: a JSON-RPC id is a string or an integer; send one such as "
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, or leave the id out for a '
            "notification.",
        )
    params = value.get("params") if value.get("method") == "tools/call" else None
    if arguments is not None and isinstance(params, dict):
        tool = arguments.get(str(params.get("name")))
        given = params.get("arguments", {})
        said = None
        if tool is not None and isinstance(given, dict):
            if unknown := sorted(set(given) - tool.takes):
                shown = ", ".join(repr(name[:40]) for name in unknown[:5])
                said = (
                    f"Tool {params['name']!r} takes no argument {shown}; call it again with "
                    f"only the arguments it takes: {', '.join(sorted(tool.takes))}."
                )
            elif problems := tool.problems(given):
                said = (
                    f"Tool {params['name']!r} cannot take these arguments: "
                    f"{'; '.join(problems)}. Call it again with arguments of its input schema."
                )
        if said is not None:
            if "id" not in value:
                return _refusal(INVALID_REQUEST, f"Invalid Request: {said}")
            return _tool_error(said, value["id"])
    return None


def _valid_id(id: object) -> bool:
    """Whether ``id`` is one the SDK reads as a request's (a string or an integer, never a
    boolean, null, fraction, array or object)."""
    return isinstance(id, str | int) and not isinstance(id, bool)


class _Replies(Protocol):
    """Where a refusal goes: the server's own write stream (so replies never interleave)."""

    async def send(self, item: SessionMessage, /) -> None: ...


class _CheckedLines:
    """stdin as the SDK's stdio transport reads it (one message per line), each line read
    with a bound and checked first: a refused line is answered with a JSON-RPC error on the
    server's own write stream and never reaches the SDK, which would otherwise drop it
    without a reply; the next line is served as usual."""

    def __init__(self, source: BinaryIO, limit: int, arguments: Mapping[str, ToolInput]) -> None:
        self._source = source
        self._limit = limit
        self._arguments = arguments
        self._replies: _Replies | None = None
        self._attached = anyio.Event()

    def attach(self, replies: _Replies) -> None:
        self._replies = replies
        self._attached.set()

    def __aiter__(self) -> _CheckedLines:
        return self

    def _read_line(self) -> bytes | None:
        """One line, at most limit + 1 bytes of it kept; None at the end of input."""
        line = self._source.readline(self._limit + 1)
        if not line:
            return None
        if len(line) > self._limit and not line.endswith(b"\n"):
            while True:  # too long: skip to its end without holding it
                rest = self._source.readline(65536)
                if not rest or rest.endswith(b"\n"):
                    break
        return line

    async def __anext__(self) -> str:
        await self._attached.wait()
        assert self._replies is not None
        while True:
            line = await anyio.to_thread.run_sync(self._read_line)
            if line is None:
                raise StopAsyncIteration
            raw = line.rstrip(b"\r\n")
            if not raw.strip():
                continue
            refusal = check_message(raw, limit=self._limit, arguments=self._arguments)
            if refusal is None:
                return raw.decode("utf-8")
            await self._replies.send(refusal)


async def serve_stdio(server: MCPServer, *, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Serve ``server`` over stdio, every message checked by :func:`check_message` first."""
    arguments = tool_arguments(await server.list_tools())
    lines = _CheckedLines(sys.stdin.buffer, limit, arguments)
    # the SDK still claims stdout (stray prints never reach the wire); stdin is read here
    async with stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (reads, writes):
        lines.attach(writes)
        # MCPServer.run_stdio_async, with checked stdin: the SDK offers no public hook
        lowlevel = server._lowlevel_server
        await lowlevel.run(reads, writes, lowlevel.create_initialization_options())


def tool_arguments(tools: list[Any]) -> dict[str, ToolInput]:
    """Tool name -> what its input schema takes (for :func:`check_message`)."""
    return {tool.name: ToolInput.of(tool.input_schema) for tool in tools}


class CheckedRequests:
    """One server's Streamable HTTP endpoint, each POST body checked by
    :func:`check_message` before the SDK reads it (as stdin is for stdio): a refused body
    is answered 400 with the JSON-RPC error and never reaches a tool. A JSON array (a
    batch, which the MCP revisions since 2025-06-18 no longer allow) is refused the same
    way, since it is not one JSON-RPC message."""

    def __init__(self, app: ASGIApp, limit: int, arguments: Mapping[str, ToolInput]) -> None:
        self._app = app
        self._limit = limit
        self._arguments = arguments

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            # stateless, JSON answers: no SSE stream to open (the SDK's would never end)
            await _answer(send, 405, _NO_STREAM, allow=b"POST")
            return
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._limit:
                break  # refused below without reading the rest
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        # over the limit: check_message refuses on the length alone, never reading the rest
        said = body if size <= self._limit else b" " * (self._limit + 1)
        refusal = check_message(said, limit=self._limit, arguments=self._arguments)
        if refusal is not None:
            payload = json.dumps(refusal.message.model_dump(by_alias=True, mode="json"))
            status = 413 if size > self._limit else 400
            if isinstance(refusal.message, JSONRPCResponse):
                status = 200  # a tool's answer (isError), not a refused request
            await _answer(send, status, payload.encode("utf-8"))
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self._app(scope, replay, send)


_NO_STREAM = json.dumps(
    {
        "error": {
            "type": "MethodNotAllowed",
            "message": "This MCP endpoint is stateless and opens no event stream; POST one "
            "JSON-RPC message and read the JSON answer.",
            "status": 405,
        }
    }
).encode("utf-8")


async def _answer(send: Send, status: int, payload: bytes, *, allow: bytes | None = None) -> None:
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if allow is not None:
        headers.append((b"allow", allow))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
