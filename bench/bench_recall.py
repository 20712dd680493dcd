"""Recall quality and speed: exact words (recall before issue 21), stemmed BM25 and hybrid
(BM25 fused with meaning), side by side.

**Quality.** A seeded memory of made-up people (their names are no English words, so a name
matches only its own facts), ten facts each, and for every fact a question asked the way a
person would ask it, in four families:

- **morphology**: the question uses another form of the fact's words ("where does Kavo
  live" for "Kavo lives in Porto");
- **synonyms**: another word for the same thing ("what beverage does Kavo like" for "Kavo
  prefers green tea");
- **paraphrase**: another wording altogether ("what is Kavo's job" for "Kavo works as a
  nurse at the city hospital");
- **distractors**: the question shares words with another fact of the same person ("when
  is Kavo's supplier meeting" for the meeting, beside "Kavo drinks coffee with the
  supplier").

Printed for each way of matching: recall@5 (the fact is among the first five) and MRR (the
mean of 1/rank, 0 when not in the first ten), overall and per family. **Hybrid** is stemmed
BM25 fused by reciprocal rank with the nearest vectors of a fake but meaningful embedder in
process (``tests/fake_embeddings.py``: hashed bags of concepts over a small synonym table,
so "beverage" and "tea" share dimensions); it shows what the fusion does with vectors that
know the synonyms, not what a given real model scores.

**Speed.** Recall p50 and p95 over the same questions at 1k, 10k and 100k facts, for both
ways of matching and for hybrid (the query's vector computed before the clock starts: the
embedding call is not the store's part), plus the word index's build time and memory per
fact (tracemalloc) and the vector index's (its matrix, 64 float32 per fact here). The
1k store is written through the gate (``memory.admin.import_claims``); the larger ones are that
store bulk-loaded again 10 and 100 times with every person renamed per copy (a digit
suffix, which no stemmer touches) and every id moved, so a name stays as selective as in a
real memory while the shared words ("lives", "works") grow with the store (the vectors are
copied with their facts). Targets: stemmed recall p50 ≤ 5 ms and hybrid ≤ 10 ms at 100k.

**Write.** What stemming adds to a write: the seconds per gated write of the 1k fill (bulk
import) and the seconds per claim spent finding its stems, side by side; and one write at a
time (``Memory.remember``) with embeddings off and on, interleaved in one run: the store's
part with embeddings on (the embedding call timed apart and taken out) over the part with
them off.

**A real model beside the fake.** With ``--embed-url URL --embed-model NAME`` (any
OpenAI-compatible ``/embeddings`` endpoint: Ollama, vLLM, ``bench/embed_server.py``), a
fourth way, **real**, runs beside the three: hybrid as above, with that endpoint's vectors,
over a copy of the same 1k store (a claim keeps one model's vector) and the same questions,
reached through doxa's own client (``OpenAIEmbedder``). The embedding call is timed apart
from the store's part: per query (one question, one call) and per write (one at a time, as
above), and the reindex of the 1k facts (batches of 64). A few of its misses per family are
printed and kept in the JSON, to see what the model gets wrong.

    python bench/bench_recall.py            # 1k, 10k and 100k
    python bench/bench_recall.py --sizes 1000,10000 --questions 200
    python bench/bench_recall.py --sizes 1000 --embed-url http://127.0.0.1:8011/v1 \
        --embed-model all-MiniLM-L6-v2

Writes ``bench/results/recall.json`` and, with matplotlib, ``bench/results/recall.png``.
"""

from __future__ import annotations

import gc
import json
import random
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import click
import pyoxigraph as ox
from rdflib import Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake embedder is the tests' own

from tests.fake_embeddings import ConceptEmbedder  # noqa: E402

import doxa  # noqa: E402
from doxa.gate.index import claim_stems  # noqa: E402
from doxa.reads.embeddings import EmbedConfig, Embedder, OpenAIEmbedder  # noqa: E402
from doxa.reads.facts import FUSED_DEPTH, Matching, recall  # noqa: E402
from doxa.reads.vectors import Meaning, VectorIndex  # noqa: E402
from doxa.reads.word_index import WordIndex  # noqa: E402
from doxa.text import stems  # noqa: E402
from doxa.vocabulary import DOXA  # noqa: E402

SCOPE = "bench"
TOPIC = "people"
CITIES = ("Porto", "Lyon", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Bergen")
INSTRUMENTS = ("cello", "violin", "trumpet", "banjo")
PETS = ("dog", "cat", "parrot", "rabbit")

#: (family, the fact, the question asked about it); {n} is the person, {c} a city, …
TEMPLATES: tuple[tuple[str, str, str], ...] = (
    ("morphology", "{n} lives in {c}", "where does {n} live"),
    ("morphology", "{n} moved to {c2} last spring", "when did {n} move"),
    ("morphology", "{n} plays the {i} on weekends", "which instrument is {n} playing"),
    ("morphology", "{n} owns two {p}s", "does {n} own a {p}"),
    ("synonyms", "{n} prefers green tea", "what beverage does {n} like"),
    ("synonyms", "{n} is allergic to peanuts", "{n} nut allergy"),
    ("synonyms", "{n}'s car is a red hatchback", "what vehicle does {n} drive"),
    ("paraphrase", "{n} works as a nurse at the city hospital", "what is {n}'s job"),
    ("paraphrase", "{n} is learning Japanese in the evenings", "which language is {n} studying"),
    ("distractors", "{n} has a meeting with the tea supplier on Monday",
     "when is {n}'s supplier meeting"),
    ("distractors", "{n} drinks coffee with the supplier", "who does {n} drink coffee with"),
    ("distractors", "{n} reads books about city life in {c}", "what does {n} read"),
)  # fmt: skip
FACTS_PER_PERSON = len(TEMPLATES)


@dataclass(frozen=True)
class Question:
    family: str
    text: str
    person: int  # which person
    template: int  # which of their facts is the answer


def names(count: int, seed: int) -> list[str]:
    """Made-up names that no stemmer changes and that are no English word."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        name = "".join(rng.choice(("ka", "vo", "mi", "rel", "zu", "tan", "bo", "qui", "lex", "do"))
                       for _ in range(rng.randint(2, 3))).title()  # fmt: skip
        if stems(name) == [name.lower()] and len(name) >= 4:
            found.setdefault(name, None)
    return list(found)


def memory_rows(people: list[str], seed: int) -> tuple[list[dict[str, str]], list[Question]]:
    """The facts (``import_claims`` rows, person by person) and one question per fact."""
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    questions: list[Question] = []
    for who, name in enumerate(people):
        c, c2 = rng.sample(CITIES, 2)
        values = {"n": name, "c": c, "c2": c2, "i": rng.choice(INSTRUMENTS), "p": rng.choice(PETS)}
        for k, (family, fact, question) in enumerate(TEMPLATES):
            rows.append({"text": fact.format(**values), "topic": TOPIC, "authority": "owner"})
            questions.append(Question(family, question.format(**values), who, k))
    return rows, questions


def shuffled(rows: list[dict[str, str]], seed: int) -> tuple[list[dict[str, str]], list[int]]:
    """The rows in a seeded order (so no family is always the newest, which breaks ties),
    and where each row went."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    return [rows[i] for i in order], order


# -- filling -----------------------------------------------------------------------------


def fill(path: Path, rows: list[dict[str, str]]) -> tuple[list[str], float]:
    """Write the rows through the gate into a store at ``path``: the admitted fact ids, in
    row order, and the seconds per write."""
    with doxa.Memory.open(path, scope=SCOPE, durable=False) as mem:
        start = time.perf_counter()
        report = mem.admin.import_claims(rows)
        per_write = (time.perf_counter() - start) / len(rows)
        ids = [r.fact for r in report.receipts]
    if any(i is None for i in ids):
        raise SystemExit("a generated fact was not admitted; the generator needs fixing")
    return [str(i) for i in ids], per_write


def stemming_cost(rows: list[dict[str, str]]) -> float:
    """Seconds per write spent finding a claim's stems (what issue 21 adds to a write)."""
    pairs = [[(DOXA.text, Literal(row["text"]))] for row in rows]
    start = time.perf_counter()
    for claim in pairs:
        claim_stems(claim)  # type: ignore[arg-type]
    return (time.perf_counter() - start) / len(rows)


_ID = re.compile(r"/(fact|receipt|event|held)/([0-9a-f]{12})([0-9a-f]{8})")


def replicate(source: Path, target: Path, copies: int, people: list[str]) -> None:
    """``copies`` copies of the 1k store in one store: copy k renames every person (a digit
    suffix) and moves every id (its clock part, by k × 2^36 ms)."""
    store = ox.Store(str(source))
    named = re.compile(r"\b(" + "|".join(people) + r")\b", re.IGNORECASE)
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "one.nq"
        store.dump(str(dump), ox.RdfFormat.N_QUADS)
        del store
        lines = dump.read_text(encoding="utf-8").splitlines(keepends=True)
        out = ox.Store(str(target))
        for copy in range(copies):
            renamed = Path(scratch) / "copy.nq"
            with renamed.open("w", encoding="utf-8") as sink:
                for line in lines:
                    if copy:
                        if "/meaning>" not in line:  # a vector's base64 is no name
                            line = named.sub(lambda m, k=copy: f"{m.group(1)}{k}", line)
                        line = _ID.sub(
                            lambda m, k=copy: (
                                f"/{m.group(1)}/"
                                f"{(int(m.group(2), 16) + k * 2**36) % 2**48:012x}{m.group(3)}"
                            ),
                            line,
                        )
                    sink.write(line)
            out.bulk_load(path=str(renamed), format=ox.RdfFormat.N_QUADS, lenient=True)
        out.flush()
        del out
    gc.collect()


# -- measuring ---------------------------------------------------------------------------


#: how recall is asked: a way of matching words, and whether meaning is fused in
WAYS = {"exact": (Matching.EXACT, False), "stems": (Matching.STEMS, False),
        "hybrid": (Matching.STEMS, True)}  # fmt: skip
EMBEDDER = ConceptEmbedder()


#: the real endpoint's way: hybrid, its vectors from ``--embed-url``
REAL = "real"


def meaning_of(text: str, embedder: Embedder = EMBEDDER) -> Meaning:
    return Meaning(embedder.embed([text])[0], embedder.model)


def matching_of(way: str) -> tuple[Matching, bool]:
    return (Matching.STEMS, True) if way == REAL else WAYS[way]


def ranks(
    mem: doxa.Memory,
    questions: list[Question],
    ids: list[str],
    way: str,
    embedder: Embedder = EMBEDDER,
    misses: list[dict[str, object]] | None = None,
) -> list[int | None]:
    """The rank (1-based) of each question's answer in the first ten, or None; a question
    whose answer is not in the first five is added to ``misses`` (with what came first)."""
    now = mem.clock.now()
    matching, hybrid = matching_of(way)
    found: list[int | None] = []
    for q in questions:
        text = q.text
        answer = ids[q.person * FACTS_PER_PERSON + q.template]
        meaning = meaning_of(text, embedder) if hybrid else None
        got = recall(mem.store, mem.scope, None, text, valid_at=now, as_of=now, limit=10,
                     matching=matching, meaning=meaning)  # fmt: skip
        order = [f.id for f in got]
        rank = order.index(answer) + 1 if answer in order else None
        found.append(rank)
        if misses is not None and (rank is None or rank > 5):
            misses.append({"family": q.family, "question": text, "rank": rank,
                           "answer": q.person * FACTS_PER_PERSON + q.template,
                           "first": [f.text for f in got[:3]]})  # fmt: skip
    return found


def quality(found: list[int | None], questions: list[Question]) -> dict[str, dict[str, float]]:
    by: dict[str, list[int | None]] = defaultdict(list)
    for q, rank in zip(questions, found, strict=True):
        by[q.family].append(rank)
        by["all"].append(rank)
    return {
        family: {
            "recall@5": round(sum(r is not None and r <= 5 for r in got) / len(got), 3),
            "mrr": round(sum(1 / r for r in got if r is not None) / len(got), 3),
            "questions": len(got),
        }
        for family, got in sorted(by.items())
    }


def latencies(
    mem: doxa.Memory, texts: list[str], way: str, embedder: Embedder = EMBEDDER
) -> dict[str, float]:
    now = mem.clock.now()
    matching, hybrid = matching_of(way)
    timings = []
    for text in texts:
        meaning = meaning_of(text, embedder) if hybrid else None  # the embedding call: not timed
        start = time.perf_counter()
        recall(mem.store, mem.scope, None, text, valid_at=now, as_of=now, limit=10,
               matching=matching, meaning=meaning)  # fmt: skip
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    return {
        "p50_ms": round(statistics.median(timings), 3),
        "p95_ms": round(timings[int(len(timings) * 0.95) - 1], 3),
    }


def index_build(mem: doxa.Memory) -> dict[str, float]:
    """Build the word index from the store, timed, then again under tracemalloc for its size."""
    index = WordIndex(mem.scope)
    start = time.perf_counter()
    with index.reading(mem.store):
        pass
    seconds = time.perf_counter() - start
    del index
    gc.collect()
    tracemalloc.start()
    index = WordIndex(mem.scope)
    with index.reading(mem.store):
        size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    facts = max(len(index.entries), 1)
    return {"build_s": round(seconds, 3), "bytes_per_fact": round(size / facts), "facts": facts}


def vector_index(mem: doxa.Memory, model: str = EMBEDDER.model) -> dict[str, float]:
    """Build the vector index from the store, timed; its matrix's bytes per fact."""
    index = VectorIndex(mem.scope, model)
    start = time.perf_counter()
    with index.reading(mem.store):
        pass
    facts = max(len(index), 1)
    return {
        "vectors_build_s": round(time.perf_counter() - start, 3),
        "vector_bytes_per_fact": round(index.nbytes / facts),
        "vectors": len(index),
    }


class TimedEmbedder:
    """An embedder (the fake by default), with the seconds spent in its calls added up and
    each call's milliseconds kept, so the embedding call is reported apart from the store."""

    def __init__(self, inner: Embedder | None = None) -> None:
        self.inner: Embedder = ConceptEmbedder() if inner is None else inner
        self.seconds = 0.0
        self.calls_ms: list[float] = []

    @property
    def model(self) -> str:
        return self.inner.model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            spent = time.perf_counter() - start
            self.seconds += spent
            self.calls_ms.append(spent * 1000)


class WaitingEmbedder:
    """The fake embedder after waiting ``seconds`` without using the CPU: a control for the
    real endpoint's write cost (the same wait, no model competing for the machine's cores)."""

    def __init__(self, seconds: float) -> None:
        self.inner = ConceptEmbedder()
        self.wait = seconds

    @property
    def model(self) -> str:
        return self.inner.model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        time.sleep(self.wait)
        return self.inner.embed(texts)


def write_cost(
    rows: list[dict[str, str]], work: Path, timed: TimedEmbedder | None = None
) -> dict[str, float]:
    """One write at a time with embeddings off and on, interleaved: p50 of the store's part
    (the embedding call taken out) of each, and the embedding call's own p50."""
    timed = TimedEmbedder() if timed is None else timed
    off_ms: list[float] = []
    on_ms: list[float] = []
    call_ms: list[float] = []
    with (
        doxa.Memory.open(work / "off", scope=SCOPE, durable=False) as off,
        doxa.Memory.open(work / "on", scope=SCOPE, durable=False, embedder=timed) as on,
    ):
        for n, row in enumerate(rows):
            for mem in (off, on) if n % 2 else (on, off):  # neither always goes first
                before = timed.seconds
                start = time.perf_counter()
                mem.remember(row["text"], topic=row["topic"], authority=row["authority"])
                spent = (time.perf_counter() - start) * 1000
                if mem is on:
                    call = (timed.seconds - before) * 1000
                    on_ms.append(spent - call)
                    call_ms.append(call)
                else:
                    off_ms.append(spent)
    off_p50, on_p50 = statistics.median(off_ms), statistics.median(on_ms)
    return {
        "writes": len(rows),
        "off_p50_ms": round(off_p50, 3),
        "on_store_p50_ms": round(on_p50, 3),
        "on_over_off": round(on_p50 / off_p50, 3),
        "embedding_call_p50_ms": round(statistics.median(call_ms), 4),
    }


def meaning_alone(
    mem: doxa.Memory, questions: list[Question], ids: list[str], embedder: Embedder
) -> tuple[dict[str, float], dict[int, tuple[int | None, int]]]:
    """What the vector side alone brings to the fusion: per family, the share of questions
    whose answer is among the ``FUSED_DEPTH`` nearest vectors; and per question (by answer
    row) that rank, or None, with how many of those nearest are the same kind of fact about
    another person (the model found the topic, not the person)."""
    index = VectorIndex.of(mem.store, mem.scope, embedder.model)
    if index is None:
        raise SystemExit("no vector index on this store (numpy missing?)")
    iris = {str(mem.scope.fact(i)): n for n, i in enumerate(ids)}
    by: dict[str, list[bool]] = defaultdict(list)
    found: dict[int, tuple[int | None, int]] = {}
    with index.reading(mem.store) as held:
        for q in questions:
            answer = q.person * FACTS_PER_PERSON + q.template
            near = [
                iris.get(claim)
                for claim, _ in held.nearest(meaning_of(q.text, embedder).vector, FUSED_DEPTH)
            ]
            rank = near.index(answer) + 1 if answer in near else None
            kin = sum(
                1
                for n in near
                if n is not None and n != answer and n % FACTS_PER_PERSON == q.template
            )
            found[answer] = (rank, kin)
            by[q.family].append(rank is not None)
            by["all"].append(rank is not None)
    return {f: round(sum(v) / len(v), 3) for f, v in sorted(by.items())}, found


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[max(int(len(ordered) * 0.95) - 1, 0)], 3),
    }


def real_run(
    path: Path,
    asked: list[Question],
    ids: list[str],
    rows: list[dict[str, str]],
    timed: TimedEmbedder,
    texts: list[str],
) -> dict[str, object]:
    """Hybrid with the real endpoint's vectors over ``path`` (a copy of the 1k store without
    vectors): the reindex, the quality of every question, a few misses per family, and the
    embedding call per query beside the store's part of recall."""
    with doxa.Memory.open(path, scope=SCOPE, durable=False, embedder=timed) as mem:
        start = time.perf_counter()
        done = mem.admin.reindex()
        reindex_s = time.perf_counter() - start
        if done.missing:
            raise SystemExit(f"{done.missing} facts got no vector from the endpoint: {done.reason}")
        batches = list(timed.calls_ms)
        timed.calls_ms.clear()
        missed: list[dict[str, object]] = []
        found = ranks(mem, asked, ids, REAL, timed, missed)
        query_calls = list(timed.calls_ms)
        latencies(mem, texts[:20], REAL, timed)  # warm: the index and the caches
        store_part = latencies(mem, texts, REAL, timed)
        vectors = vector_index(mem, timed.model)
        depth, alone = meaning_alone(mem, asked, ids, timed)
    shown: dict[str, list[dict[str, object]]] = defaultdict(list)
    for miss in missed:
        family = str(miss["family"])
        if len(shown[family]) < 3:
            index = miss.pop("answer")
            assert isinstance(index, int)
            rank, kin = alone[index]
            shown[family].append({**miss, "answer": rows[index]["text"], "meaning_rank": rank,
                                  "same_kind_in_nearest": kin})  # fmt: skip
    return {
        "model": timed.model,
        "quality": quality(found, asked),
        "in_meaning_depth": depth,
        "same_kind_in_nearest_mean": round(statistics.mean(kin for _, kin in alone.values()), 2),
        "reindex": {
            "facts": done.filled,
            "seconds": round(reindex_s, 3),
            "ms_per_fact": round(reindex_s * 1000 / max(done.filled, 1), 3),
            "embedding_share": round(sum(batches) / 1000 / reindex_s, 3) if reindex_s else 0.0,
        },
        "query_embedding_call": percentiles(query_calls),
        "recall_store_part": store_part,
        "questions_timed": len(texts),
        **vectors,
        "misses_top5": sum(1 for r in found if r is None or r > 5),
        "misses": dict(shown),
    }


def plot(report: dict[str, object], out: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install 'doxa[bench]')"
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    qual = report["quality"]
    assert isinstance(qual, dict)
    families = [f for f in qual["stems"] if f != "all"] + ["all"]
    labels = (("exact", "exact words"), ("stems", "stemmed BM25"), ("hybrid", "hybrid"))
    bars = (*labels, (REAL, "hybrid, real model")) if REAL in qual else labels
    width = 0.8 / len(bars)
    for i, (way, label) in enumerate(bars):
        xs = [j + (i - (len(bars) - 1) / 2) * width for j in range(len(families))]
        left.bar(xs, [qual[way][f]["recall@5"] for f in families], width, label=label)
    left.set_xticks(range(len(families)), families)
    left.set_ylabel("recall@5")
    left.set_ylim(0, 1)
    left.legend()
    left.set_title("recall@5 by question family")
    speed = report["speed"]
    assert isinstance(speed, list)
    for way, label in labels:
        right.plot([r["facts"] for r in speed], [r[way]["p50_ms"] for r in speed], marker="o",
                   label=label)  # fmt: skip
    right.axhline(5, linestyle="--", color="grey", label="target (stems, 100k)")
    right.axhline(10, linestyle=":", color="grey", label="target (hybrid, 100k)")
    right.set_xscale("log")
    right.set_xlabel("facts")
    right.set_ylabel("recall p50 (ms)")
    right.legend()
    right.set_title("recall p50 by store size")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return f"plot: {out}"


@click.command()
@click.option("--people", default=84, show_default=True, help="People in the 1k store.")
@click.option("--sizes", default="1000,10000,100000", show_default=True,
              help="Store sizes, as multiples of the 1k store.")  # fmt: skip
@click.option("--questions", default=300, show_default=True, help="Questions timed per size.")
@click.option("--seed", default=21, show_default=True)
@click.option("--writes", default=300, show_default=True,
              help="Writes timed with embeddings off and on.")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path), default=Path("bench/results"))
@click.option(
    "--embed-url",
    default=None,
    help="An OpenAI-compatible /embeddings base URL: adds hybrid with its vectors.",
)
@click.option("--embed-model", default=None, help="The model that --embed-url serves.")
@click.option(
    "--embed-timeout",
    default=120.0,
    show_default=True,
    help="Seconds one embeddings request may take (a batch of 64 on a busy CPU).",
)
def main(
    people: int,
    sizes: str,
    questions: int,
    seed: int,
    writes: int,
    out: Path,
    embed_url: str | None,
    embed_model: str | None,
    embed_timeout: float,
) -> None:
    """Measure recall quality (exact, stemmed, hybrid) and speed at several store sizes."""
    real: TimedEmbedder | None = None
    if (embed_url is None) != (embed_model is None):
        raise click.UsageError("give --embed-url and --embed-model together")
    if embed_url is not None and embed_model is not None:
        config = EmbedConfig(base_url=embed_url, model=embed_model, timeout=embed_timeout)
        real = TimedEmbedder(OpenAIEmbedder(config))
        try:  # before the fill: an endpoint that is down is said at once
            real.embed(["is the endpoint up"])
        except doxa.EmbeddingUnavailable as error:
            raise click.ClickException(str(error)) from None
        real.calls_ms.clear()
    out.mkdir(parents=True, exist_ok=True)
    who = names(people, seed)
    rows, asked = memory_rows(who, seed)
    report: dict[str, object] = {"facts_in_quality_set": len(rows), "questions": len(asked)}
    speed: list[dict[str, object]] = []
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as work:
        one = Path(work) / "one"
        written, order = shuffled(rows, seed)
        admitted, per_write = fill(one, written)
        stemming = stemming_cost(written)
        report["write"] = {
            "gated_write_ms": round(per_write * 1000, 3),
            "stemming_ms": round(stemming * 1000, 4),
            "stemming_share": round(stemming / per_write, 4),
        }
        ids = [""] * len(rows)
        for position, row in enumerate(order):
            ids[row] = admitted[position]
        report["write_embeddings"] = write_cost(written[:writes], Path(work))
        if real is not None:  # before the fake's vectors: a claim keeps one model's vector
            replicate(one, Path(work) / REAL, 1, who)
        with doxa.Memory.open(one, scope=SCOPE, durable=False, embedder=EMBEDDER) as mem:
            mem.admin.reindex()  # the 1k facts' vectors; the larger stores copy them
            report["quality"] = {way: quality(ranks(mem, asked, ids, way), asked) for way in WAYS}
            if real is not None:
                fake_depth, fake_alone = meaning_alone(mem, asked, ids, EMBEDDER)
        if real is not None:
            sampled = random.Random(seed).sample(asked, min(questions, len(asked)))
            timed_texts = [q.text for q in sampled]
            found = real_run(Path(work) / REAL, asked, ids, rows, real, timed_texts)
            report["quality"][REAL] = found.pop("quality")  # type: ignore[index]
            writing = Path(work) / "real-writes"
            writing.mkdir()
            found["write"] = write_cost(written[:writes], writing, real)
            call_s = float(found["write"]["embedding_call_p50_ms"]) / 1000  # type: ignore[index]
            waiting = Path(work) / "waiting-writes"
            waiting.mkdir()
            found["write_waiting_control"] = write_cost(
                written[:writes], waiting, TimedEmbedder(WaitingEmbedder(call_s))
            )
            found["fake_in_meaning_depth"] = fake_depth
            found["fake_same_kind_in_nearest_mean"] = round(
                statistics.mean(kin for _, kin in fake_alone.values()), 2
            )
            report[REAL] = {"url": embed_url, **found}
        for size in (int(s) for s in sizes.split(",")):
            copies = max(1, round(size / len(rows)))
            path = one if copies == 1 else Path(work) / f"x{copies}"
            if copies > 1:
                replicate(one, path, copies, who)
            sample = rng.sample(asked, min(questions, len(asked)))
            texts = []
            for q in sample:  # ask about a person of any copy
                k = rng.randrange(copies)
                name = who[q.person]
                texts.append(q.text.replace(name, f"{name}{k}") if k else q.text)
            with doxa.Memory.open(path, scope=SCOPE, durable=False) as mem:
                built = index_build(mem)
                built.update(vector_index(mem))
                latencies(mem, texts[:20], "stems")  # warm: the index and the caches
                latencies(mem, texts[:20], "hybrid")
                row: dict[str, object] = {"facts": copies * len(rows), **built}
                for way in ("stems", "exact", "hybrid"):
                    row[way] = latencies(mem, texts, way)
            speed.append(row)
            click.echo(f"  {row['facts']:>7} facts: {json.dumps(row)}", err=True)
    report["speed"] = speed
    (out / "recall.json").write_text(json.dumps(report, indent=2) + "\n")

    qual = report["quality"]
    assert isinstance(qual, dict)
    click.echo(f"recall quality, {len(asked)} questions over {len(rows)} facts")
    shown = ("exact", "stems", "hybrid", REAL) if REAL in qual else ("exact", "stems", "hybrid")
    head = [f"{w} r@5" for w in shown] + [f"{w} MRR" for w in shown]
    click.echo(f"  {'family':<12} " + " ".join(f"{h:>10}" for h in head))
    for family in qual["stems"]:
        cells = [qual[w][family][m] for m in ("recall@5", "mrr") for w in shown]
        click.echo(f"  {family:<12} " + " ".join(f"{c:>10}" for c in cells))
    click.echo("recall speed (ms; hybrid without the embedding call)")
    click.echo(f"  {'facts':>7} {'stems p50':>9} {'stems p95':>9} {'exact p50':>9} {'ratio':>6} "
               f"{'hybrid p50':>10} {'hybrid p95':>10} {'index build s':>13} {'bytes/fact':>10} "
               f"{'vector B/fact':>13}")  # fmt: skip
    for row in speed:
        s, e, h = row["stems"], row["exact"], row["hybrid"]
        assert isinstance(s, dict)
        assert isinstance(e, dict)
        assert isinstance(h, dict)
        click.echo(f"  {row['facts']:>7} {s['p50_ms']:>9} {s['p95_ms']:>9} {e['p50_ms']:>9} "
                   f"{round(e['p50_ms'] / s['p50_ms'], 2):>6} {h['p50_ms']:>10} {h['p95_ms']:>10} "
                   f"{row['build_s']:>13} {row['bytes_per_fact']:>10} "
                   f"{row['vector_bytes_per_fact']:>13}")  # fmt: skip
    write = report["write"]
    assert isinstance(write, dict)
    click.echo(
        f"write: {write['gated_write_ms']} ms per gated write (bulk import), of which "
        f"stemming {write['stemming_ms']} ms ({write['stemming_share']:.2%})"
    )
    embedded = report["write_embeddings"]
    assert isinstance(embedded, dict)
    click.echo(
        f"write one at a time ({embedded['writes']} each, interleaved): p50 "
        f"{embedded['off_p50_ms']} ms with embeddings off, "
        f"{embedded['on_store_p50_ms']} ms store's part with them on "
        f"(x{embedded['on_over_off']}); the embedding call itself p50 "
        f"{embedded['embedding_call_p50_ms']} ms (in process, fake)"
    )
    if real is not None:
        echo_real(report[REAL])  # type: ignore[arg-type]
    largest = speed[-1]
    stems_p50 = largest["stems"]["p50_ms"]  # type: ignore[index]
    hybrid_p50 = largest["hybrid"]["p50_ms"]  # type: ignore[index]
    verdict = "met" if stems_p50 <= 5 else "NOT met"
    click.echo(f"target stems p50 ≤ 5 ms at {largest['facts']} facts: {verdict} ({stems_p50} ms)")
    verdict = "met" if hybrid_p50 <= 10 else "NOT met"
    click.echo(
        f"target hybrid p50 ≤ 10 ms at {largest['facts']} facts: {verdict} ({hybrid_p50} ms)"
    )
    click.echo(plot(report, out / "recall.png"))


def echo_real(found: dict[str, object]) -> None:
    """The real endpoint's timings, its call apart from the store's part, and its misses."""
    call, part, again, writes = (found[k] for k in ("query_embedding_call", "recall_store_part",
                                                    "reindex", "write"))  # fmt: skip
    assert isinstance(call, dict)
    assert isinstance(part, dict)
    assert isinstance(again, dict)
    assert isinstance(writes, dict)
    click.echo(f"real: {found['model']} at {found['url']}, {found['vector_bytes_per_fact']} "
               f"vector bytes/fact")  # fmt: skip
    click.echo(
        f"  per query: the embedding call p50 {call['p50_ms']} ms (p95 {call['p95_ms']}); "
        f"the store's part of hybrid recall p50 {part['p50_ms']} ms (p95 {part['p95_ms']})"
    )
    click.echo(
        f"  reindex of {again['facts']} facts: {again['seconds']} s ({again['ms_per_fact']} ms "
        f"per fact, {again['embedding_share']:.0%} in the calls)"
    )
    click.echo(
        f"  write one at a time ({writes['writes']} each, interleaved): p50 "
        f"{writes['off_p50_ms']} ms off, {writes['on_store_p50_ms']} ms store's part on "
        f"(x{writes['on_over_off']}); the embedding call p50 {writes['embedding_call_p50_ms']} ms"
    )
    control = found["write_waiting_control"]
    assert isinstance(control, dict)
    click.echo(
        f"  control, a fake that waits as long ({control['embedding_call_p50_ms']} ms) without "
        f"using the CPU: p50 {control['off_p50_ms']} ms off, {control['on_store_p50_ms']} ms "
        f"store's part on (x{control['on_over_off']})"
    )
    fake, depth = found["fake_in_meaning_depth"], found["in_meaning_depth"]
    assert isinstance(fake, dict)
    assert isinstance(depth, dict)
    kin = f"{found['fake_same_kind_in_nearest_mean']} / {found['same_kind_in_nearest_mean']}"
    click.echo(f"  answer among the {FUSED_DEPTH} nearest vectors (what meaning brings to the "
               f"fusion), fake / real; facts of the answer's kind about others among them, "
               f"mean {kin}")  # fmt: skip
    for family in depth:
        click.echo(f"    {family:<12} {fake[family]:>6} {depth[family]:>6}")
    misses = found["misses"]
    assert isinstance(misses, dict)
    click.echo(f"  {found['misses_top5']} questions not answered in the first five; a few:")
    for family, shown in misses.items():
        for miss in shown:
            click.echo(f"    [{family}] {miss['question']!r} -> {miss['answer']!r}: rank "
                       f"{miss['rank']} (by meaning alone {miss['meaning_rank']}, "
                       f"{miss['same_kind_in_nearest']} of its kind about others among the "
                       f"{FUSED_DEPTH} nearest), first {miss['first'][:2]}")  # fmt: skip


if __name__ == "__main__":
    main()
