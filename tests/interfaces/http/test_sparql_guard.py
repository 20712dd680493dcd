"""``/sparql`` under attack: SERVICE however spelled, bad dataset IRIs, long queries, slow
queries from one scope; each with its control."""

from __future__ import annotations

import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from tests.interfaces.conftest import AGENT, BOB, Server, config_text
from tests.reads.test_sparql_guard import Listener

from doxa.errors import InvalidInput, StoreError
from doxa.interfaces.http import checker as checking
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.checker import Abandoned, QueryChecker
from doxa.interfaces.http.config import ScopeKeys, ServerConfig, parse_config
from doxa.interfaces.http.errors import Problem
from doxa.interfaces.http.runner import QueryRunner
from doxa.store import EmbeddedStore

ALICE = "urn:doxa:scope:alice"
TIMEOUT = 3.0
MAX_QUERY = 62_000


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    server = serve(
        config_text(
            timeout=TIMEOUT, max_running=4, max_running_per_scope=2, max_query_bytes=MAX_QUERY
        )
    )
    with server.client(AGENT) as alice, server.client(BOB) as bob:
        for index in range(12):
            body = {"text": f"Alice note {index}", "topic": "notes"}
            assert alice.post("/remember", json=body).json()["outcome"] == "admitted"
        marker = {"text": "bobsecret marker", "topic": "drinks", "authority": "owner"}
        assert bob.post("/remember", json=marker).json()["outcome"] == "admitted"
        # queries answered by warm workers (each takes seconds to start on a loaded machine),
        # as on a server that has run a while: the timings below are the queries', not a start
        deadline = time.monotonic() + 120
        with ThreadPoolExecutor(4) as pool:
            while (
                sorted(r.status_code for r in pool.map(_ask, [alice, alice, bob, bob])) != [200] * 4
            ):
                assert time.monotonic() < deadline, "the query workers never started"
    return server


def _ask(client: httpx.Client) -> httpx.Response:
    return query(client, "ASK {}")


@pytest.fixture(scope="module")
def alice(server: Server) -> Iterator[httpx.Client]:
    with server.client(AGENT) as client:
        yield client


@pytest.fixture(scope="module")
def bob(server: Server) -> Iterator[httpx.Client]:
    with server.client(BOB) as client:
        yield client


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.socket.close()


def query(client: httpx.Client, text: str, **params: str) -> httpx.Response:
    return client.post(
        "/sparql",
        params=params,
        content=text.encode(),
        headers={"content-type": "application/sparql-query"},
    )


# -- finding 3: SERVICE ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p 1SERVICE <{u}> {{ ?a ?b ?c }} }}", 400),
        ("SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p trueSERVICE <{u}> {{ ?a ?b ?c }} }}", 400),
        ("SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p 1SERVICE SILENT <{u}> {{ ?a ?b ?c }} }}", 400),
        ("SELECT ?a WHERE {{ ?r ?p ?o \\u0053ERVICE <{u}> {{ ?a ?b ?c }} }}", 403),
        ("SELECT ?a WHERE {{ ?r ?p ?o FILTER EXISTS {{ service <{u}> {{ }} }} }}", 403),
    ],
    ids=["1SERVICE", "trueSERVICE", "1SERVICE SILENT", "escaped", "in EXISTS"],
)
def test_service_never_reaches_the_network(
    alice: httpx.Client, listener: Listener, text: str, status: int
) -> None:
    """SERVICE spelled to slip past a tokenizer is refused (400 not a query, 403 SERVICE) and
    no connection is made; a query that only names "service" in an IRI answers (control)."""
    before = listener.connections
    refused = query(alice, text.format(u=listener.url))
    assert refused.status_code == status, refused.text
    assert refused.json()["error"]["type"] == {400: "InvalidInput", 403: "ScopeViolation"}[status]
    time.sleep(0.05)
    assert listener.connections == before
    control = query(alice, f"SELECT * WHERE {{ ?s ?p <{listener.url}> }}")
    assert control.status_code == 200


@pytest.mark.parametrize(
    "text",
    [
        "SELECT ?a WHERE {{ # \r SERVICE <{u}> {{ ?x ?y ?a }} \n }}",
        "SELECT * WHERE {{ # \\u000D SERVICE <{u}> {{ ?a ?b ?c }} \n }}",
    ],
    ids=["typed CR", "escaped CR"],
)
@pytest.mark.parametrize("method", ["POST", "GET"])
def test_a_comment_ended_by_a_cr_hides_no_service(
    alice: httpx.Client, listener: Listener, text: str, method: str
) -> None:
    """A ``#`` comment ended by a lone CR (a comment to rdflib, query text to Oxigraph) is 400
    InvalidInput and no connection is made, by POST or by a plain GET; the same query with a
    space for the CR (the whole line a comment to both) answers 200 (control)."""
    sparql = text.format(u=listener.url)
    before = listener.connections
    if method == "GET":
        refused = alice.get("/sparql", params={"query": sparql})
    else:
        refused = query(alice, sparql)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["type"] == "InvalidInput"
    assert "carriage return" in refused.json()["error"]["message"]
    time.sleep(0.05)
    assert listener.connections == before
    control = sparql.replace("\r", " ").replace("\\u000D", " ")
    assert query(alice, control).status_code == 200


def test_a_lone_surrogate_is_400(alice: httpx.Client) -> None:
    """``\\uD800`` in a query is 400 InvalidInput, not a 500 from the store's encoder; the
    character spelled by one \\U escape answers (control)."""
    refused = query(alice, "SELECT * { BIND('\\uD800' AS ?x) }")
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["type"] == "InvalidInput"
    assert query(alice, "SELECT * { BIND('\\U0001F600' AS ?x) }").status_code == 200


# -- finding 7: the dataset's IRIs ----------------------------------------------------


@pytest.mark.parametrize("graph", [f"{ALICE}/topic/a b", f"{ALICE}/topic/a>b", "a b"])
@pytest.mark.parametrize("param", ["default-graph-uri", "named-graph-uri"])
def test_a_bad_dataset_iri_is_400(alice: httpx.Client, graph: str, param: str) -> None:
    """A dataset graph that is not an IRI gets 400 in doxa's error shape; a topic graph is
    fine (control)."""
    refused = alice.get("/sparql", params={"query": "ASK {}", param: graph})
    assert refused.status_code == 400
    assert refused.json() == {
        "error": {
            "type": "InvalidInput",
            "message": f"The {param} {graph!r} is not an absolute IRI; name one of the scope's "
            "graphs, such as urn:doxa:scope:NAME/topic/TOPIC.",
            "status": 400,
        }
    }
    fine = alice.get("/sparql", params={"query": "ASK {}", param: f"{ALICE}/topic/notes"})
    assert fine.status_code == 200


# -- finding 4: long queries ----------------------------------------------------------


def test_a_long_run_of_digits_is_answered_within_the_timeout(
    alice: httpx.Client, bob: httpx.Client
) -> None:
    """The 60 KB ``BIND(111…1 AS ?x)`` is answered within the timeout, and so is another
    scope's query sent meanwhile."""
    long = "SELECT * WHERE { BIND(" + "1" * 60_000 + " AS ?x) }"
    with ThreadPoolExecutor(2) as pool:
        start = time.monotonic()
        answer = pool.submit(query, alice, long)
        other = query(bob, "ASK {}")
        other_time = time.monotonic() - start
        answered = answer.result()
        long_time = time.monotonic() - start
    assert answered.status_code == 200, answered.text
    assert other.status_code == 200
    assert long_time < TIMEOUT
    assert other_time < TIMEOUT


def test_a_slow_parse_is_killed_at_the_timeout(alice: httpx.Client, bob: httpx.Client) -> None:
    """A query that takes rdflib many seconds to parse gets 503 QueryTimeout at the timeout,
    its parse is killed (the scope's workers are free again at once), and another scope is
    served meanwhile (control)."""
    slow = "SELECT * WHERE { BIND(" + "+".join(["1"] * 12_000) + " AS ?x) }"
    with ThreadPoolExecutor(2) as pool:
        start = time.monotonic()
        answers = [pool.submit(query, alice, slow, timeout="1") for _ in range(2)]
        time.sleep(0.3)
        other = query(bob, "ASK {}")
        results = [answer.result() for answer in answers]
        elapsed = time.monotonic() - start
    assert [r.json()["error"]["type"] for r in results] == ["QueryTimeout", "QueryTimeout"]
    # the timeout plus a margin for a loaded machine, far below the parse's tens of seconds
    assert elapsed < 1 + 5.0
    assert other.status_code == 200, other.text  # Busy or QueryTimeout: say which
    time.sleep(0.2)  # the killed checks hand back their slots
    assert query(alice, "ASK {}").status_code == 200


def test_a_query_over_the_size_limit_is_413(alice: httpx.Client) -> None:
    """A query above max_query_bytes gets 413 QueryTooLarge; one just under it answers."""
    filler = "#" + "x" * MAX_QUERY + "\n"
    refused = query(alice, filler + "ASK {}")
    assert refused.status_code == 413
    assert refused.json()["error"] == {
        "type": "QueryTooLarge",
        "message": f"The query is {MAX_QUERY + 8} bytes long, above this server's limit of "
        f"{MAX_QUERY}; shorten it (a VALUES list can often become a FILTER or several queries).",
        "status": 413,
    }
    fine = query(alice, "#" + "x" * (MAX_QUERY - 20) + "\nASK {}")
    assert fine.status_code == 200


# -- finding 9: one scope's slow queries ----------------------------------------------


def _cross_product(client: httpx.Client) -> str:
    count = query(client, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    triples = int(count.json()["results"]["bindings"][0]["n"]["value"])
    spread = max(1, 60_000_000 // triples**3)  # several seconds of joining
    values = " ".join(str(i) for i in range(min(spread, 5_000)))
    return (
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . "
        f"VALUES ?x {{ {values} }} }}"
    )


def test_one_scopes_slow_queries_leave_other_scopes_served(
    alice: httpx.Client, bob: httpx.Client
) -> None:
    """Four slow queries from one scope: two run and time out, two get Busy at once (the
    scope's limit, abandoned queries included), and another scope's ASK answers meanwhile."""
    slow = _cross_product(alice)
    with ThreadPoolExecutor(4) as pool:
        answers = [pool.submit(query, alice, slow, timeout="0.5") for _ in range(4)]
        kinds = sorted(answer.result().json()["error"]["type"] for answer in answers)
    assert kinds == ["Busy", "Busy", "QueryTimeout", "QueryTimeout"]
    busy = query(alice, "ASK {}")
    assert busy.status_code == 503
    assert busy.json()["error"]["message"] == (
        "All 2 query workers of this scope are busy (slow queries run until they end); try "
        "again shortly, or ask a narrower query."
    )
    served = query(bob, "ASK {}")
    assert (served.status_code, served.json()["boolean"]) == (200, True)
    deadline = time.monotonic() + 120
    while query(alice, "ASK {}").status_code == 503:
        assert time.monotonic() < deadline, "the abandoned queries never ended"
        time.sleep(0.2)


# -- the checker's workers ------------------------------------------------------------

SLOW = "SELECT * WHERE { BIND(" + "+".join(["1"] * 12_000) + " AS ?x) }"


class _Counted(checking._Worker):
    """A worker that counts the workers started (each a Python that imports rdflib: seconds
    on a loaded machine, paid out of the timeout of the query that waits for it)."""

    started = 0

    def __init__(self, context: object) -> None:
        type(self).started += 1
        super().__init__(context)


def _warm(checker: QueryChecker) -> None:
    checker.start()
    deadline = time.monotonic() + 120
    while not all(worker.ready() for worker in checker._idle):
        assert time.monotonic() < deadline, "the checker's workers never started"
        time.sleep(0.05)


@pytest.mark.parametrize(("keep", "started"), [(3, 0), (2, 1)], ids=["warm", "cold"])
def test_a_query_beside_two_slow_parses_finds_a_warm_worker(
    monkeypatch: pytest.MonkeyPatch, keep: int, started: int
) -> None:
    """With a warm worker for each query that may run (the server keeps ``max_running``), a
    query sent while two slow parses hold workers starts none; with two warm ones (the old
    default) it had to start its own, which under load took longer than a 3 s timeout."""
    monkeypatch.setattr(checking, "_Worker", _Counted)
    checker = QueryChecker(keep=keep)
    _warm(checker)
    stop = threading.Event()
    try:
        with ThreadPoolExecutor(2) as pool:
            slow = [pool.submit(checker.check, SLOW, stop=stop.is_set) for _ in range(2)]
            deadline = time.monotonic() + 30
            while len(checker._idle) > keep - 2:  # both slow checks hold a worker
                assert time.monotonic() < deadline
                time.sleep(0.01)
            _Counted.started = 0
            assert checker.check("ASK {}", stop=lambda: False).form == "ask"
            assert _Counted.started == started
            stop.set()
            for check in slow:
                with pytest.raises(Abandoned):
                    check.result()
    finally:
        checker.close()


def test_a_starting_worker_outlives_an_abandoned_query() -> None:
    """A query abandoned while its worker still starts leaves the worker to the next query
    (its import is not thrown away); one abandoned mid-parse has its worker killed (control)."""
    checker = QueryChecker(keep=1)
    try:
        checker.start()
        starting = checker._idle[0]
        with pytest.raises(Abandoned):
            checker.check("ASK {}", stop=lambda: True)
        assert checker._idle == [starting]
        assert starting.process.is_alive()
        _warm(checker)
        begun = time.monotonic()
        with pytest.raises(Abandoned):
            checker.check(SLOW, stop=lambda: time.monotonic() > begun + 0.3)
        assert not starting.process.is_alive()
        assert checker._idle != [starting]
    finally:
        checker.close()


@pytest.mark.parametrize("running", [1, 4])
def test_the_server_keeps_a_warm_worker_per_running_query(running: int) -> None:
    """The server's checker keeps ``max_running`` workers warm, not a fixed two."""
    config = ServerConfig(
        scopes=(ScopeKeys(scope="a", owner_key="a-owner-key-0123456789"),),
        sparql_max_running=running,
    )
    store = EmbeddedStore(None)
    try:
        assert create_app(store, config, rejudge_every=None).state.checker.keep == running
    finally:
        store.close()


# -- the runner itself ----------------------------------------------------------------


def test_runner_bounds_each_scope_and_the_process() -> None:
    """A scope past its limit gets Busy while another scope runs; the process limit holds
    across scopes; finished work hands its slot back (control)."""
    runner = QueryRunner(timeout=0.1, max_running=3, max_running_per_scope=2)
    release = threading.Event()

    def hang(stop: Callable[[], bool]) -> str:
        release.wait(10)
        return "late"

    for _ in range(2):
        with pytest.raises(Problem) as timed_out:
            runner.run(hang, scope="a")
        assert timed_out.value.type_name == "QueryTimeout"
    with pytest.raises(Problem) as busy:
        runner.run(hang, scope="a")
    assert (busy.value.type_name, runner.running("a")) == ("Busy", 2)
    with pytest.raises(Problem):
        runner.run(hang, scope="b")  # runs (and times out): b had a free slot
    with pytest.raises(Problem) as full:
        runner.run(lambda stop: "x", scope="c")
    assert full.value.message.startswith("All 3 query workers are busy")
    assert runner.running() == 3
    release.set()
    deadline = time.monotonic() + 10
    while runner.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert runner.running() == 0
    assert runner.run(lambda stop: "answered", scope="a") == "answered"


@pytest.mark.parametrize(
    ("table", "per_scope"),
    [
        ("max_running = 4", 2),
        ("max_running = 1", 1),
        ("max_running = 6\nmax_running_per_scope = 5", 5),
    ],
    ids=["half", "at least one", "given"],
)
def test_the_per_scope_limit_defaults_to_half(table: str, per_scope: int) -> None:
    """Without max_running_per_scope a scope gets half the workers (at least one)."""
    config = parse_config(
        _toml(f"[sparql]\n{table}\n[scopes.a]\nowner_key = 'a-owner-key-0123456789'\n")
    )
    runner = QueryRunner(
        timeout=1,
        max_running=config.sparql_max_running,
        max_running_per_scope=config.sparql_max_running_per_scope,
    )
    assert runner.max_running_per_scope == per_scope


def test_a_per_scope_limit_above_the_process_limit_is_refused() -> None:
    """max_running_per_scope above max_running is refused with what to use instead."""
    text = "[sparql]\nmax_running = 2\nmax_running_per_scope = 3\n"
    with pytest.raises(InvalidInput) as refused:
        parse_config(_toml(text + "[scopes.a]\nowner_key = 'a-owner-key-0123456789'\n"))
    assert str(refused.value) == (
        "max_running_per_scope = 3 is above max_running = 2; use at most max_running (less, so "
        "one scope cannot take every worker)."
    )


def _toml(text: str) -> dict[str, object]:
    return tomllib.loads(text)


def test_a_worker_that_dies_mid_parse_is_a_store_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed while it parses (from outside, or out of memory) closes its pipe: the
    check answers StoreError ("send it again", 503 at the endpoint), not an EOFError that
    was a 500 (the long fuzz found it under load). Control: the next check is answered by
    the worker that replaced it."""
    waiting = checking._wait_answer

    def killed_first(worker: checking._Worker, stop: Callable[[], bool]) -> None:
        worker.process.kill()  # the parse of SLOW takes seconds: no answer was sent yet
        worker.process.join()
        waiting(worker, stop)

    checker = QueryChecker(keep=1)
    try:
        _warm(checker)
        with monkeypatch.context() as patched:
            patched.setattr(checking, "_wait_answer", killed_first)
            with pytest.raises(StoreError, match="send the query again"):
                checker.check(SLOW, stop=lambda: False)
        _warm(checker)
        assert checker.check("ASK {}", stop=lambda: False).form == "ask"
    finally:
        checker.close()
