"""Two doxa processes writing one scope through one server: the publish is guarded.

Each decision claims the next place in the scope's receipt chain (a slot graph); a process
that finds it taken judges again. So a functional predicate never ends with two live values,
and no fact is closed twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from tests.conftest import DOMAIN, EX
from tests.servers import Server

import doxa
from doxa.judges.base import Evidence
from doxa.model import Proposal, Verdict
from doxa.store import Change, RemoteStore
from doxa.store.base import SLOT_TOKEN, SLOTS_GRAPH
from doxa.store.remote import LEASE

SERVERS = ["oxigraph", "virtuoso"]

WRITER = textwrap.dedent(
    """
    import json, os, sys, time
    import doxa
    from doxa.store import RemoteStore

    query_url, update_url, me, count, go = sys.argv[1:6]
    conflicts = 0

    class Counting(RemoteStore):
        def apply(self, change):
            global conflicts
            try:
                super().apply(change)
            except doxa.WriteConflict:
                conflicts += 1
                raise

    mem = doxa.Memory(Counting(query_url, update_url), scope="race")
    while not os.path.exists(go):
        time.sleep(0.005)
    outcomes = []
    for k in range(int(count)):
        r = mem.remember(
            f"The supplier call is on day {me}-{k}", topic="meetings", kind="schedule",
            subject="http://example.org/supplierCall",
            predicate="http://example.org/dayOfWeek",
            object=f"http://example.org/day-{me}-{k}", authority="owner",
        )
        outcomes.append([r.relation.value, r.outcome.value, list(r.targets)])
    print(json.dumps({"outcomes": outcomes, "conflicts": conflicts}))
    """
)


def _server(name: str, request: pytest.FixtureRequest) -> Server:
    server = request.getfixturevalue(name)
    assert isinstance(server, Server)
    server.clear()
    return server


@pytest.mark.parametrize("name", SERVERS)
def test_two_processes_never_leave_two_live_values(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Two OS processes racing on one functional predicate: one live value, each fact closed
    at most once, one unbroken receipt chain."""
    server = _server(name, request)
    store = server.store()
    mem = doxa.Memory(store, scope="race")
    mem.schema.add_ontology(DOMAIN)
    mem.owner.grant("schedule")
    count = 12
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER,
                server.query_url,
                server.update_url,
                me,
                str(count),
                str(go),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in ("a", "b")
    ]
    time.sleep(1.5)  # both imported doxa and wait at the start line
    go.touch()
    results = []
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        results.append(json.loads(out))
    outcomes = [o for r in results for o in r["outcomes"]]
    assert len(outcomes) == 2 * count
    # undated values of one slot: each replaces the last, starting when recorded
    assert {tuple(o[:2]) for o in outcomes} <= {("new", "admitted"), ("replaces", "admitted")}
    closed = [t for o in outcomes for t in o[2]]
    assert len(closed) == len(set(closed)), "a fact was closed twice"

    live = mem.facts(subject=EX + "supplierCall", predicate=EX + "dayOfWeek")
    assert len(live) == 1
    everything = mem.facts(include_ended=True)
    assert len(everything) == 2 * count
    assert sum(f.status is doxa.FactStatus.LIVE for f in everything) == 1
    ends = mem.rdf.sparql(
        "PREFIX doxa: <https://w3id.org/doxa#> "
        "SELECT ?t (COUNT(?e) AS ?n) WHERE { ?e doxa:ends ?t } GROUP BY ?t"
    )
    assert len(ends.rows) == 2 * count - 1
    assert all(int(str(n)) == 1 for _, n in ends.rows)
    assert mem.verify() == 2 * count + 1  # the grant and every write, in one chain
    store.close()


class _Racing(RemoteStore):
    """A connection that lets another writer publish just before its own next publish."""

    before_publish: Callable[[], object] | None = None

    def apply(self, change: Change) -> None:
        if change.slot is not None and self.before_publish is not None:
            act, self.before_publish = self.before_publish, None
            act()
        super().apply(change)


class _Counting(doxa.RuleJudge):
    calls = 0

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        self.calls += 1
        return super().judge(proposal, evidence)


def _day(mem: doxa.Memory, day: str) -> doxa.Receipt:
    return mem.remember(
        f"The supplier call is on {day}",
        topic="meetings",
        kind="schedule",
        subject=EX + "supplierCall",
        predicate=EX + "dayOfWeek",
        object=EX + day,
        authority="owner",
    )


@pytest.mark.parametrize("name", SERVERS)
def test_a_lost_race_runs_the_judge_again(name: str, request: pytest.FixtureRequest) -> None:
    """Another writer publishes between our judgement and our publish: the publish is refused
    by the server, the judge runs again and closes what is live now, not what it first read."""
    server = _server(name, request)
    judge = _Counting()
    racing = _Racing(server.query_url, server.update_url)
    mem = doxa.Memory(racing, scope="race", judge=judge)
    plain = server.store()
    other = doxa.Memory(plain, scope="race")
    mem.schema.add_ontology(DOMAIN)
    mem.owner.grant("schedule")
    wednesday = _day(mem, "Wednesday")
    assert judge.calls == 1  # control: no race, one judgement
    thursday: list[doxa.Receipt] = []
    racing.before_publish = lambda: thursday.append(_day(other, "Thursday"))

    friday = _day(mem, "Friday")

    assert judge.calls == 3  # Friday was judged twice: before and after Thursday landed
    assert thursday[0].targets == (wednesday.fact,)
    assert (friday.relation, friday.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.ADMITTED)
    assert friday.targets == (thursday[0].fact,)  # not Wednesday again
    live = mem.facts(subject=EX + "supplierCall")
    assert [f.id for f in live] == [friday.fact]
    assert mem.verify() == 4
    racing.close()
    plain.close()


@pytest.mark.parametrize("name", SERVERS)
def test_an_abandoned_claim_is_cleared_after_its_lease(
    name: str, request: pytest.FixtureRequest
) -> None:
    """A claim left by a writer that died long ago no longer blocks the slot; a fresh claim
    of a live writer does (control)."""
    server = _server(name, request)
    store = server.store()
    graph = URIRef("urn:test:g")
    slot, busy = URIRef("urn:test:slot:abandoned"), URIRef("urn:test:slot:busy")
    long_ago = Literal(f"{time.time() - LEASE - 5:.3f} dead")
    just_now = Literal(f"{time.time():.3f} alive")
    store.apply(
        Change(
            insert=[
                (slot, SLOT_TOKEN, long_ago, SLOTS_GRAPH),
                (busy, SLOT_TOKEN, just_now, SLOTS_GRAPH),
            ]
        )
    )
    store.apply(Change(insert=[(slot, SLOT_TOKEN, Literal("x"), graph)], slot=slot))
    with pytest.raises(doxa.WriteConflict):
        store.apply(Change(insert=[(busy, SLOT_TOKEN, Literal("y"), graph)], slot=busy))
    found = {str(o) for _, _, o, _ in store.quads(graph)}
    assert found == {"x"}
    tokens = {str(o) for s, _, o, _ in store.quads(SLOTS_GRAPH) if s == slot}
    assert len(tokens) == 1
    assert "dead" not in next(iter(tokens))  # the abandoned claim is gone, ours stays
    store.close()
