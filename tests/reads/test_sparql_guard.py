"""The SPARQL guard decides on the parsed query: SERVICE and updates refused however spelled,
deep nesting refused before the store's parser sees it, and no check super-linear in the text."""

from __future__ import annotations

import contextlib
import itertools
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pyoxigraph as ox
import pytest
from tests.timing import side_by_side

import doxa
from doxa.judges.screen import instruction_sign
from doxa.reads.sparql import SERVICE_REFUSED, UPDATE_REFUSED, check_query
from doxa.store.remote import rewrite


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections made to it."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = int(self.socket.getsockname()[1])
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/internal"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.socket.accept()
            except OSError:
                return
            self.connections += 1
            client.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.socket.close()


@pytest.fixture
def seeded(memory: doxa.Memory) -> doxa.Memory:
    """A memory with one fact, so a pattern like ``?r ?p ?o`` has rows to join SERVICE with."""
    memory.remember("Alice prefers tea", topic="drinks")
    return memory


BYPASSES = {
    "plain": "SELECT * WHERE {{ SERVICE <{u}> {{ ?a ?b ?c }} }}",
    "glued to a number": "SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p 1SERVICE <{u}> {{ ?a ?b ?c }} }}",
    "glued to true": "SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p trueSERVICE <{u}> {{ ?a ?b ?c }} }}",
    "glued, silent": "SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p 1SERVICE SILENT <{u}> {{ ?a ?b ?c }} }}",
    "glued to a decimal": "SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p 1.5e3SERVICE <{u}> {{ ?a ?b ?c }} }}",
    "after a string": 'SELECT ?a WHERE {{ ?r ?p ?o . ?r ?p "x"SERVICE <{u}> {{ ?a ?b ?c }} }}',
    "mixed case": "SELECT * WHERE {{ ?r ?p ?o sErViCe <{u}> {{ ?a ?b ?c }} }}",
    "after a comment": "SELECT * WHERE {{ ?r ?p ?o #x\nSERVICE <{u}> {{ ?a ?b ?c }} }}",
    "u escape": "SELECT * WHERE {{ ?r ?p ?o \\u0053ERVICE <{u}> {{ ?a ?b ?c }} }}",
    "U escape": "SELECT * WHERE {{ ?r ?p ?o \\U00000053ERVICE <{u}> {{ ?a ?b ?c }} }}",
    "escape spelling an escape": "SELECT * WHERE {{ ?r ?p ?o \\u005Cu0053ERVICE <{u}> {{ }} }}",
    "in a subquery": "SELECT * WHERE {{ {{ SELECT * WHERE {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }} }}",
    "in FILTER EXISTS": "SELECT * WHERE {{ ?r ?p ?o FILTER EXISTS {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "in BIND EXISTS": "SELECT * WHERE {{ BIND(EXISTS {{ SERVICE <{u}> {{ ?a ?b ?c }} }} AS ?x) }}",
    "in OPTIONAL": "SELECT * WHERE {{ ?r ?p ?o OPTIONAL {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "in UNION": "SELECT * WHERE {{ {{ ?r ?p ?o }} UNION {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "in MINUS": "SELECT * WHERE {{ ?r ?p ?o MINUS {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "in GRAPH": "SELECT * WHERE {{ GRAPH ?g {{ SERVICE <{u}> {{ ?a ?b ?c }} }} }}",
    "by variable": "SELECT * WHERE {{ BIND(<{u}> AS ?u) SERVICE ?u {{ ?a ?b ?c }} }}",
    "in ASK": "ASK {{ SERVICE SILENT <{u}> {{ ?a ?b ?c }} }}",
    "in CONSTRUCT": "CONSTRUCT {{ ?a ?b ?c }} WHERE {{ SERVICE <{u}> {{ ?a ?b ?c }} }}",
    # rdflib's comment runs to a line feed, Oxigraph's ends at a carriage return too
    "comment ended by a CR": "SELECT * WHERE {{ # \r SERVICE <{u}> {{ ?a ?b ?c }} \n }}",
    "comment ended by \\u000D": "SELECT * WHERE {{ # \\u000D SERVICE <{u}> {{ ?a ?b ?c }} \n }}",
    "comment ended by \\U0000000D": (
        "SELECT * WHERE {{ # \\U0000000D SERVICE <{u}> {{ ?a ?b ?c }} \n }}"
    ),
    "comment ended by two CRs": "SELECT * WHERE {{ #\r\rSERVICE <{u}> {{ ?a ?b ?c }}\r\n }}",
    "CR in a subquery": (
        "SELECT * WHERE {{ {{ SELECT * WHERE {{ # \r SERVICE <{u}> {{ ?a ?b ?c }} \n }} }} }}"
    ),
    "CR in EXISTS": "ASK {{ FILTER EXISTS {{ #\rSERVICE SILENT <{u}> {{ ?a ?b ?c }}\n }} }}",
}


@pytest.mark.parametrize("shape", sorted(BYPASSES))
def test_service_is_refused_however_spelled(
    seeded: doxa.Memory, listener: Listener, shape: str
) -> None:
    """Every spelling of SERVICE is refused and no connection is made; a plain query runs."""
    before = listener.connections
    with pytest.raises((doxa.ScopeViolation, doxa.InvalidInput)):
        seeded.rdf.sparql(BYPASSES[shape].format(u=listener.url))
    time.sleep(0.05)  # a connection attempt would have reached the listener by now
    assert listener.connections == before
    assert seeded.rdf.sparql("SELECT * WHERE { ?r ?p ?o }").rows


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT * WHERE { ?s ?p ?o . ?r ?p ?o SERVICE <http://127.0.0.1:9/x> { } }",
        "SELECT * WHERE { \\u0053ERVICE <http://127.0.0.1:9/x> { } }",
        "ASK { FILTER NOT EXISTS { SERVICE <http://127.0.0.1:9/x> { } } }",
    ],
    ids=["keyword", "escaped", "nested"],
)
def test_a_parsed_service_says_so(memory: doxa.Memory, sparql: str) -> None:
    """A query that parses with SERVICE in it is refused with the SERVICE message."""
    with pytest.raises(doxa.ScopeViolation) as refused:
        memory.rdf.sparql(sparql)
    assert str(refused.value) == SERVICE_REFUSED


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT ?service WHERE { ?service ?p ?o }",
        "SELECT * WHERE { ?s <http://example.org/SERVICE> ?o }",
        'SELECT ?x WHERE { BIND("SERVICE <http://127.0.0.1:9/x> { }" AS ?x) }',
        "PREFIX service: <urn:service#> SELECT * WHERE { ?s service:SERVICE ?o }",
        "SELECT * WHERE { ?s ?p ?o } # SERVICE <http://127.0.0.1:9/x> { }",
        'SELECT ?x WHERE { BIND("\\u0053ERVICE" AS ?x) }',
    ],
    ids=["variable", "iri", "string", "prefixed name", "comment", "escaped in a string"],
)
def test_service_as_a_word_is_allowed(seeded: doxa.Memory, sparql: str) -> None:
    """A variable, IRI, string, prefixed name or comment that says "service" is no SERVICE."""
    assert seeded.rdf.sparql(sparql).form == "select"


#: characters that end a line somewhere (Python's str.splitlines, Unicode) but end a SPARQL
#: comment for neither rdflib nor Oxigraph: the SERVICE after them stays inside the comment
NOT_LINE_ENDS = {
    "form feed": "\f",
    "vertical tab": "\v",
    "NEL": "\u0085",
    "line separator": "\u2028",
    "paragraph separator": "\u2029",
    "file separator": "\x1c",
}


@pytest.mark.parametrize("name", sorted(NOT_LINE_ENDS))
def test_other_line_ends_keep_the_comment_going(
    seeded: doxa.Memory, listener: Listener, name: str
) -> None:
    """After ``#``, a form feed, NEL or U+2028 does not end the comment for the checker or for
    the store: the SERVICE behind it is comment to both, the query runs and nothing connects;
    the same SERVICE after a line feed is refused (control)."""
    char = NOT_LINE_ENDS[name]
    before = listener.connections
    hidden = f"SELECT * WHERE {{ ?r ?p ?o # {char} SERVICE <{listener.url}> {{ ?a ?b ?c }} \n }}"
    assert seeded.rdf.sparql(hidden).rows
    time.sleep(0.05)
    assert listener.connections == before
    with pytest.raises(doxa.ScopeViolation):
        seeded.rdf.sparql(hidden.replace(char, "\n"))


@pytest.mark.parametrize("end", ["\r\n", "\\u000D\\u000A"], ids=["typed", "escaped"])
def test_windows_line_ends_are_read_alike(seeded: doxa.Memory, end: str) -> None:
    """A CR before a LF ends a comment for both parsers: a query with Windows line ends runs,
    and a SERVICE on the line after such a comment is refused as SERVICE."""
    lines = ["SELECT * WHERE {", "  # the facts", "  ?r ?p ?o", "}"]
    assert seeded.rdf.sparql(end.join(lines)).rows
    lines.insert(2, "  SERVICE <http://127.0.0.1:9/x> { ?a ?b ?c }")
    with pytest.raises(doxa.ScopeViolation) as refused:
        seeded.rdf.sparql(end.join(lines))
    assert str(refused.value) == SERVICE_REFUSED


def test_a_lone_carriage_return_is_refused_with_the_reason(seeded: doxa.Memory) -> None:
    """A lone CR anywhere (outside a comment too) is refused as invalid with what to write
    instead; the escape ``\\r`` in a string is the character CR and runs (control)."""
    for text in ["SELECT * WHERE {\r?r ?p ?o }", 'SELECT * WHERE { BIND("""a\rb""" AS ?x) }']:
        with pytest.raises(doxa.InvalidInput, match="carriage return"):
            seeded.rdf.sparql(text)
    result = seeded.rdf.sparql('SELECT ?x WHERE { BIND("a\\rb" AS ?x) }')
    assert [str(v) for v in result.rows[0]] == ["a\rb"]


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT * { BIND('\\uD800' AS ?x) }",
        "SELECT * { BIND('\\uDFFF' AS ?x) }",
        "SELECT * { BIND('\\uD83D\\uDE00' AS ?x) }",
        "SELECT * { BIND('\ud800' AS ?x) }",
        "SELECT * { ?s ?p ?o } # \\uD800",
        "SELECT * { ?s <urn:\\uD800> ?o }",
    ],
    ids=["high", "low", "escaped pair", "raw", "in a comment", "in an IRI"],
)
def test_a_lone_surrogate_is_invalid_input(memory: doxa.Memory, sparql: str) -> None:
    """A surrogate (escaped, a pair of \\u escapes, or raw) is no character: invalid input with
    the reason, not an encoding error from the store; one \\U escape for the same character
    runs (control)."""
    with pytest.raises(doxa.InvalidInput, match="lone surrogate"):
        memory.rdf.sparql(sparql)
    result = memory.rdf.sparql("SELECT ?x { BIND('\\U0001F600' AS ?x) }")
    assert [str(v) for v in result.rows[0]] == ["\U0001f600"]


def test_escapes_are_read_as_the_store_reads_them(memory: doxa.Memory) -> None:
    """A \\u escape in a string is the character it names, in the checked text and the answer."""
    result = memory.rdf.sparql('SELECT ?x WHERE { BIND("\\u0053\\u00e9" AS ?x) }')
    assert [str(v) for v in result.rows[0]] == ["Sé"]


@pytest.mark.parametrize(
    "sparql",
    [
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "insert data { <urn:a> <urn:b> <urn:c> }",
        "LOAD <http://127.0.0.1:9/data.ttl>",
        "CLEAR ALL",
        "DELETE WHERE { ?s ?p ?o }",
        "WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
        "# a comment\nDROP SILENT GRAPH <urn:g>",
        "\\u0049NSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "CREATE GRAPH <urn:g> ; COPY <urn:a> TO <urn:b>",
    ],
    ids=["insert", "lower", "load", "clear", "delete", "with", "comment", "escaped", "two"],
)
def test_updates_are_refused(memory: doxa.Memory, sparql: str) -> None:
    """Text that parses as an update, not a query, is refused with the read-only message."""
    with pytest.raises(doxa.ScopeViolation) as refused:
        memory.rdf.sparql(sparql)
    assert str(refused.value) == UPDATE_REFUSED
    assert memory.rdf.sparql("ASK {}").boolean is True


def test_from_cannot_widen_the_dataset(memory: doxa.Memory) -> None:
    """FROM and FROM NAMED naming another scope's graph see nothing of it; the scope's own
    graphs answer (control)."""
    other = doxa.Memory(memory.store, scope="bob")
    other.remember("bobsecret marker", topic="drinks", authority="owner")
    memory.remember("Alice prefers tea", topic="drinks")
    sneaky = (
        "SELECT ?t FROM <urn:doxa:scope:bob/topic/drinks> "
        "FROM NAMED <urn:doxa:scope:bob/topic/drinks> WHERE { "
        "{ ?c <https://w3id.org/doxa#text> ?t } UNION "
        "{ GRAPH ?g { ?c <https://w3id.org/doxa#text> ?t } } }"
    )
    found = {str(row[0]) for row in memory.rdf.sparql(sneaky).rows}
    assert "bobsecret marker" not in found
    assert "Alice prefers tea" in found


@pytest.mark.parametrize(
    "graph",
    ["urn:doxa:scope:alice/topic/a b", "urn:doxa:scope:alice/topic/a>b", "not an iri", ""],
    ids=["space", "angle", "relative", "empty"],
)
@pytest.mark.parametrize("which", ["default_graphs", "named_graphs"])
def test_an_invalid_graph_iri_is_invalid_input(memory: doxa.Memory, graph: str, which: str) -> None:
    """A dataset graph that is not an absolute IRI is InvalidInput; a topic graph works."""
    parameter = {"default_graphs": "default-graph-uri", "named_graphs": "named-graph-uri"}[which]
    with pytest.raises(doxa.InvalidInput) as refused:
        memory.rdf.sparql("ASK {}", **{which: [graph]})
    assert str(refused.value) == (
        f"The {parameter} {graph!r} is not an absolute IRI; name one of the scope's graphs, "
        "such as urn:doxa:scope:NAME/topic/TOPIC."
    )
    memory.rdf.sparql("ASK {}", **{which: [f"{memory.scope.iri}/topic/drinks"]})


def test_deep_nesting_is_refused_before_the_store_parses_it() -> None:
    """10,000 nested groups are InvalidInput (Oxigraph's own parser overflows its stack on
    them and takes the process down); 20 nested groups run (control)."""
    program = (
        "import doxa\nfrom doxa.store import EmbeddedStore\n"
        "memory = doxa.Memory(EmbeddedStore(None), scope='alice')\n"
        "print(memory.rdf.sparql('SELECT * WHERE ' + '{' * 20 + '}' * 20).form)\n"
        "try:\n"
        "    memory.rdf.sparql('SELECT * WHERE ' + '{' * 10000 + '}' * 10000)\n"
        "except doxa.InvalidInput as error:\n"
        "    print(str(error).split(' (')[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.splitlines()) == (
        0,
        ["select", "The SPARQL query is nested too deeply to be checked"],
    ), done.stderr[-2000:]


# -- linear time ----------------------------------------------------------------------


def _quietly(check: Callable[[str], object]) -> Callable[[str], object]:
    """``check``, with its refusal (an error) counted as an answer."""

    def run(text: str) -> object:
        try:
            return check(text)
        except (doxa.DoxaError, ValueError) as error:
            return error

    return run


LONG_INPUTS: dict[str, tuple[Callable[[str], object], Callable[[int], str]]] = {
    "guard, digits in BIND (finding 4)": (
        _quietly(check_query),
        lambda n: "SELECT * WHERE { BIND(" + "1" * n + " AS ?x) }",
    ),
    "guard, a long word": (
        _quietly(check_query),
        lambda n: "SELECT * WHERE { ?s ?p " + "a" * n + " }",
    ),
    "guard, unterminated strings": (
        _quietly(check_query),
        lambda n: 'SELECT * WHERE { ?s ?p "' + '\\"' * n + " }",
    ),
    "guard, escapes": (
        _quietly(check_query),
        lambda n: "SELECT * WHERE { ?s ?p " + "\\u0041" * n + " }",
    ),
    "dataset rewrite, unterminated strings": (
        _quietly(lambda s: rewrite.restrict(s, [], [])),
        lambda n: '"' + '\\"' * n,
    ),
    "dataset rewrite, IRIs that never close": (
        _quietly(lambda s: rewrite.restrict(s, [], [])),
        lambda n: "<a" * n,
    ),
    "instruction sign, spaces after a keyword list": (
        instruction_sign,
        lambda n: "ignore all" + " " * n + "x",
    ),
    "instruction screen, a long word with a lone % (URL-encoding views)": (
        instruction_sign,
        lambda n: "a%" * (n // 2),
    ),
    "instruction screen, a long word ending in %": (
        instruction_sign,
        lambda n: "a" * n + "%",
    ),
    "instruction screen, a long URL-encoded word (control: still decoded)": (
        instruction_sign,
        lambda n: "%41" * (n // 3),
    ),
}


def _growth(check: Callable[[str], object], make: Callable[[int], str]) -> float:
    """How many times longer ``check`` takes on sixteen times the text."""
    small, large = make(5_000), make(80_000)
    small_time, large_time = side_by_side(lambda: check(small), lambda: check(large))
    return large_time / small_time


def test_the_measure_tells_a_quadratic_check_from_a_linear_one() -> None:
    """The positive control of the test below: a check that looks at the rest of the text
    from every 50th character (quadratic) measures over 64x, a single scan (linear) under."""

    def quadratic(text: str) -> int:
        return sum(text.count("b", at) for at in range(0, len(text), 50))

    def linear(text: str) -> int:
        return text.count("b")

    assert _growth(quadratic, lambda n: "a" * n) > 64
    assert _growth(linear, lambda n: "a" * n) < 64


@pytest.mark.parametrize("name", sorted(LONG_INPUTS))
def test_checks_are_linear_in_the_text(name: str) -> None:
    """Sixteen times the text costs well under 64 times the time, measured side by side in
    this test: linear is 16x, quadratic 256x, and 64x is the geometric middle, so a
    machine whose caches favour the small text (4x at 4x the text was once 8x in CI) has
    a factor of four before it fails, as a quadratic check has."""
    check, make = LONG_INPUTS[name]
    ratios = []
    for _ in range(3):  # a busy machine can slow one run; a quadratic check is slow in every run
        ratios.append(_growth(check, make))
        if ratios[-1] < 64:
            return
    pytest.fail(f"{name}: 16x the text took {min(ratios):.1f}x the time")


_COLD_THREADS = """
import threading, doxa
mem = doxa.Memory.open(None, scope="alice")
errors, answered = [], []
def ask():
    for _ in range(100):
        try:
            mem.rdf.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
            answered.append(1)
        except BaseException as error:
            errors.append(repr(error))
            return
threads = [threading.Thread(target=ask) for _ in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(answered), errors[:1])
"""


def test_queries_checked_from_many_threads_at_once_all_pass() -> None:
    """rdflib's parser is not thread-safe while it first builds its grammar: three threads
    querying a fresh process's memory at once got TypeErrors and false "not valid" answers.
    The guard's parses take turns, so all 300 queries are answered (a fresh interpreter, as
    the first parse is the one that races)."""
    done = subprocess.run(
        [sys.executable, "-c", _COLD_THREADS], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["300", "[]"]


#: pieces that open or close comments, strings and IRIs in one grammar or the other
PIECES = ["#", "\r", "\n", "'", "'''", '"""', "\\", "\f", "\u2028", "<", ">", " ?a ?b ?c ", "}"]


def test_no_text_the_checker_passes_makes_the_store_call_out(listener: Listener) -> None:
    """Differential: every text of two pieces, a SERVICE, and one piece (comment marks, line
    ends, quotes, brackets) is checked, and each one the checker passes is run by a bare
    Oxigraph store: none connects. The first hole (``# \\r SERVICE … \\n``) is in this set."""
    service = f" SERVICE <{listener.url}> {{ ?a ?b ?c }} "
    store = ox.Store()
    before = listener.connections
    passed = []
    for first, second, third in itertools.product(PIECES, repeat=3):
        text = "SELECT * WHERE { " + first + second + service + third + " }"
        try:
            checked = check_query(text)
        except (doxa.ScopeViolation, doxa.InvalidInput):
            continue
        passed.append(text)
        with contextlib.suppress(SyntaxError, OSError):
            list(store.query(checked.text))  # type: ignore[arg-type]
    time.sleep(0.05)
    assert listener.connections == before
    # control: a comment that hides the SERVICE from both parsers passes, and is run
    assert "SELECT * WHERE { #\f" + service + "\n }" in passed
