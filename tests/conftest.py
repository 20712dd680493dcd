"""Shared fixtures: an in-memory store by default, a fixed clock, a small domain ontology.

The builders the tests share (``EX``, ``DOMAIN``, ``statement``, ``FlakyJudge``, ...) are
defined in tests/helpers.py; this module imports them for its fixtures and re-exports them for
the tests that import them from here (new tests import them from tests.helpers).

The store tests (tests/store) and the scenarios (tests/scenarios) run on every backend: the
embedded store, the Oxigraph server and Virtuoso 7 (started once per session, see
tests/servers.py). Every other test runs on the embedded store only, to keep CI short.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import DOMAIN
from tests.helpers import EX as EX  # re-exported: older tests import them from here
from tests.helpers import FlakyJudge as FlakyJudge
from tests.helpers import statement as statement
from tests.servers import Server, oxigraph_server, virtuoso_server

import doxa
from doxa.store import EmbeddedStore, Store


@pytest.fixture
def clock() -> doxa.FixedClock:
    return doxa.FixedClock("2026-03-01T09:00:00Z")


BACKENDS = ("embedded", "oxigraph", "virtuoso")
ACROSS_BACKENDS = ("store", "scenarios")  # test folders that run on every backend


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    folder = Path(str(metafunc.definition.fspath)).parent.name
    if "backend" in metafunc.fixturenames and folder in ACROSS_BACKENDS:
        metafunc.parametrize("backend", BACKENDS, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Which store the test runs on: 'embedded' unless the test folder runs on every backend."""
    return str(getattr(request, "param", "embedded"))


@pytest.fixture(scope="session")
def oxigraph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with oxigraph_server(tmp_path_factory.mktemp("oxigraph")) as server:
        yield server


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with virtuoso_server(tmp_path_factory.mktemp("virtuoso")) as server:
        yield server


@pytest.fixture
def server(backend: str, request: pytest.FixtureRequest) -> Server | None:
    """The running server behind ``backend``, emptied for this test (None when embedded)."""
    if backend == "embedded":
        return None
    found = request.getfixturevalue(backend)
    assert isinstance(found, Server)
    found.clear()
    return found


@pytest.fixture
def store(server: Server | None) -> Iterator[Store]:
    """An empty store of the test's backend."""
    opened: Store = EmbeddedStore() if server is None else server.store()
    yield opened
    opened.close()


@pytest.fixture
def memory(store: Store, clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    """An empty store, scope 'alice', with the example domain ontology loaded."""
    mem = doxa.Memory(store, scope="alice", clock=clock)
    mem.schema.add_ontology(DOMAIN)
    yield mem
    mem.close()


#: the long variants that take minutes each (docs/stress.md), longest first, measured in one
#: ``pytest -m slow -n 3 --durations`` run; parallel workers finish together only when these
#: start first (a worker handed the longest one last runs alone at the end)
LONGEST_FIRST = (
    "tests/stress/test_model.py::test_memory_matches_its_model_at_length",
    "tests/store/test_erasure_lifecycle.py::test_kill_9_during_an_erasure_many_times",
    "tests/store/test_erasure_lifecycle.py::test_erasing_under_load_many_times",
    "tests/stress/test_crash.py::test_sigkill_many_times",
    "tests/store/test_interrupted.py::test_a_kill_at_random_points_of_restore_many_times",
    "tests/interfaces/http/test_rest_fuzz.py::test_no_agent_body_fails_or_writes_as_the_owner_long",
    "tests/interfaces/langgraph_suites/test_langgraph_suites.py::"
    "test_langgraph_suites_fail_only_by_design",
    "tests/gate/test_bulk.py::test_import_decides_as_remember_on_many_streams",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the longest tests first (a stable sort: every other test keeps its place)."""
    rank = {nodeid: at for at, nodeid in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid, len(rank)))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection made (every test module, hypothesis' tables, the judges'
    patterns): collections then skip it. Closing an on-disk store runs a full
    ``gc.collect()`` (so RocksDB releases the directory at once, for the next open), and in a
    test process that walk over every long-lived object cost 0.27 s a call: tests/gate and
    tests/reads spent 23.8 s of 215 s in it, 3.2 s of 176 s frozen (stop 41)."""
    gc.collect()
    gc.freeze()


def _printable(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` escapes: what UTF-8 can carry."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _carries(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A report whose text holds a lone surrogate (a test of bad strings that failed, or
    printed one) is sent to the xdist controller as UTF-8, which cannot carry it: the whole
    run stopped with an INTERNALERROR and no test named (it happened once in a full run).
    Such a report's captured output and failure text are escaped instead, so the test's
    own result is what the run shows."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    report.sections = [
        (title, text if _carries(text) else _printable(text)) for title, text in report.sections
    ]
    if report.longrepr is not None and not _carries(str(report.longrepr)):
        report.longrepr = _printable(str(report.longrepr))
