"""A fake OpenAI-compatible server for the LLM judge's tests: real HTTP on loopback, no model.

``POST /v1/chat/completions`` answers from a per-test script: queued :class:`Reply` values
first (one per request), then the standing responder, which by default judges by a small
deterministic rule (:func:`rule_judge`) so writes can go end to end through ``doxa.Memory``.
Every request body is recorded, parsed, in ``requests``.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeOpenAI",
    "Reply",
    "answer",
    "completion",
    "data_of",
    "garbage",
    "rule_judge",
    "running",
    "status",
]

ROUTE = "/v1/chat/completions"


@dataclass(frozen=True)
class Reply:
    """One HTTP answer: a status, a raw body, and how long to wait before sending it."""

    status: int = 200
    body: bytes = b""
    delay: float = 0.0
    content_type: str = "application/json"


def completion(
    content: str | None, *, refusal: str | None = None, finish_reason: str = "stop"
) -> Reply:
    """A well-formed chat completion whose message carries ``content`` (or a refusal)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    body = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    return Reply(body=json.dumps(body).encode())


def answer(
    relation: str,
    targets: list[str] | None = None,
    reason: str = "fake",
    *,
    statement: object = None,
) -> Reply:
    """A completion whose content is the JSON answer the schema asks for; ``statement`` (a
    dict of subject, predicate and object, or anything else to test garbage) when given."""
    content: dict[str, Any] = {"relation": relation, "targets": targets or [], "reason": reason}
    if statement is not None:
        content["statement"] = statement
    return completion(json.dumps(content))


def status(code: int, message: str = "fake failure") -> Reply:
    """An HTTP error with an OpenAI-style error body."""
    body = {"error": {"message": message, "type": "fake", "code": code}}
    return Reply(status=code, body=json.dumps(body).encode())


def garbage(body: bytes, *, content_type: str = "application/json") -> Reply:
    """A 200 response whose body is whatever the test says."""
    return Reply(body=body, content_type=content_type)


def data_of(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON document between ``<data>`` and ``</data>`` in a request's user message."""
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    inner = user.split("<data>\n", 1)[1].rsplit("\n</data>", 1)[0]
    parsed: dict[str, Any] = json.loads(inner)
    return parsed


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def rule_judge(request: dict[str, Any]) -> Reply:
    """Judge like a tiny, predictable model.

    External text that speaks to the assistant is an instruction; the same words as a shown
    fact are ``same``; a write that contains a rule's forbidden word (rule text "never WORD")
    clashes with it; "now" replaces and "actually" corrects the first shown fact; else new.
    """
    data = data_of(request)
    write = data["write"]
    text = _words(write["text"])
    facts, rules = data["facts"], data["rules"]
    if write["authority"] == "external" and re.search(r"\b(assistant|ignore)\b", text):
        return answer("instruction", [], "outside text addressed to the assistant")
    for fact in facts:
        if _words(fact["text"]) == text:
            return answer("same", [fact["id"]], "the same words")
    for rule in rules:
        forbidden = _words(rule["text"]).removeprefix("never ")
        if forbidden and forbidden in text:
            return answer("clashes_with_rule", [rule["id"]], "the rule forbids it")
    if facts and re.search(r"\bnow\b", text):
        return answer("replaces", [facts[0]["id"]], "the world changed")
    if facts and re.search(r"\bactually\b", text):
        return answer("was_wrong", [facts[0]["id"]], "a correction")
    return answer("new", [], "nothing shown says otherwise")


Responder = Callable[[dict[str, Any]], Reply]


class FakeOpenAI:
    """A scriptable chat completions endpoint on a free loopback port."""

    def __init__(self, *, route: str = ROUTE, responder: Responder = rule_judge) -> None:
        """``route`` and ``responder``: another endpoint (``tests/fake_embeddings.py``)."""
        self.requests: list[dict[str, Any]] = []
        self._queue: list[Reply] = []
        self.route = route
        self._default = responder
        self._responder: Responder = responder
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def reply(self, *replies: Reply) -> None:
        """Queue answers for the next requests, in order; then the standing responder."""
        with self._lock:
            self._queue.extend(replies)

    def always(self, responder: Reply | Responder) -> None:
        """Answer every request (after the queue) with this reply or function."""
        with self._lock:
            self._responder = (lambda _: responder) if isinstance(responder, Reply) else responder

    def reset(self) -> None:
        """Forget requests and queued replies; judge by the rule again."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self._responder = self._default

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()  # delayed replies stop waiting
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.pop(0)
            responder = self._responder
        return responder(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms stall

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if self.path != fake.route:
                    self._send(status(404, f"no route {self.path}"))
                    return
                try:
                    request = json.loads(raw)
                except ValueError:
                    self._send(status(400, "the request is not JSON"))
                    return
                self._send(fake._next(request))

            def _send(self, reply: Reply) -> None:
                if reply.delay and fake._release.wait(reply.delay):
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        return Handler


@contextmanager
def running() -> Iterator[FakeOpenAI]:
    """A started fake server, stopped on exit."""
    fake = FakeOpenAI().start()
    try:
        yield fake
    finally:
        fake.stop()
