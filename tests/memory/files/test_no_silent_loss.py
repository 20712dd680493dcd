"""Random edit sequences never lose a fact silently: every old fact is live, ended through
the gate, or has a retraction request waiting for the owner (a held rewrite keeps the
facts it drops live)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doxa import DoxaError, Memory
from doxa.reads.projection import MANIFEST

EDITS = st.lists(
    st.tuples(st.sampled_from(["edit", "delete", "add", "move", "rewrite"]), st.integers(0, 9)),
    min_size=1,
    max_size=5,
)


def run(edits: list[tuple[str, int]]) -> None:
    mem = Memory.open(None, scope="alice")
    for n in range(4):
        mem.remember(f"Alice fact number {n}", topic="a" if n < 2 else "b", authority="owner")
    original = {f.id for f in mem.facts()}
    texts, manifest = dict(mem.files.render().files), mem.files.render().manifest
    for kind, n in edits:
        names = sorted(t for t in texts if t.endswith(".md") and t != "MEMORY.md")
        if not names:
            break
        name = names[n % len(names)]
        lines = texts[name].splitlines()
        facts = [i for i, line in enumerate(lines) if line.startswith("- ")]
        if kind == "add" or not facts:
            lines.append(f"- Alice new line {n}")
        elif kind == "edit":
            lines[facts[n % len(facts)]] = lines[facts[n % len(facts)]].replace("fact", "item")
        elif kind == "delete":
            del lines[facts[n % len(facts)]]
        elif kind == "move":
            moved = lines.pop(facts[n % len(facts)])
            texts["c.md"] = texts.get("c.md", "# c\n") + moved + "\n"
        else:
            lines = ["- Alice everything in one line"]
        texts[name] = "\n".join(lines) + "\n"
        _report, rendered = mem.files.sync_texts(manifest, texts, authority="agent")
        texts, manifest = dict(rendered.files), rendered.manifest
        assert MANIFEST not in texts
    live = {f.id for f in mem.facts()}
    ended = {f.id for f in mem.facts(include_ended=True)} - live
    waiting = {t for h in mem.held() for t in h.targets}
    for fact in original:
        assert fact in live or fact in ended or fact in waiting, fact
    # and the ended ones ended through a receipt, never a silent delete
    assert all(mem.history(f).events for f in ended)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS)
def test_random_edits_never_lose_a_fact(edits: list[tuple[str, int]]) -> None:
    """A few random sequences, fast."""
    run(edits)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS)
def test_random_edits_never_lose_a_fact_many(edits: list[tuple[str, int]]) -> None:
    """The same, with many more sequences."""
    run(edits)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=4))
def test_any_text_renders_and_syncs_to_nothing(texts: list[str]) -> None:
    """Whatever a fact's text holds (bullets, hashes, comments, other line breaks), an
    untouched render syncs to nothing: reading a line back gives the line rendered."""
    mem = Memory.open(None, scope="alice")
    for text in texts:
        try:
            mem.remember(text, topic="t", authority="owner")
        except DoxaError:
            continue  # a text the gate refuses is not rendered
    rendered = mem.files.render()
    report, _ = mem.files.sync_texts(rendered.manifest, dict(rendered.files), authority="owner")
    assert not report.changed, report.lines()
