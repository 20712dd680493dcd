"""What embeddings add to a gated write: the store's part with them on against off.

Fills two in-memory stores with the same seeded stream (``bench_gate``'s), one with an
embedder and one without, then times more writes into both, interleaved, one by one with
``time.process_time``, and prints the p50 of each, their ratio, and the embedding calls per
write. The embedder is in process and nearly free (a vector from a hash of the text, computed
once per text), so what is left of "on" is the store's part: the vector's quads, its
transaction, and (``--judge similar``, a judge that reads close texts) the hybrid gather.

    PYTHONPATH=src:bench python bench/bench_write_embed.py --fill 1000 --timed 500

Instructions, which no neighbour changes, are counted under valgrind per side and checkout:
the instructions of ``--only on --timed N`` minus those of ``--only on --timed 0`` (same fill)
are the N writes' own (docs/benchmarks.md):

    PYTHONPATH=src:bench valgrind --tool=callgrind python bench/bench_write_embed.py \\
        --only on --fill 1000 --timed 300
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import statistics
import struct
import time
from collections.abc import Sequence

import doxa
from doxa.judges import Needs
from doxa.judges.base import Evidence
from workload import Stream, ontology_turtle

FILL, TIMED = 1000, 500
DIMENSIONS = 64


class HashEmbedder:
    """64 numbers from a hash of each text, cached: an embedder that costs next to nothing,
    so a write's time with it is the store's part."""

    model = "hash-64"

    def __init__(self) -> None:
        self.calls = 0
        self.kept: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self.kept.get(t) or self._vector(t) for t in texts]

    def _vector(self, text: str) -> list[float]:
        raw = hashlib.shake_128(text.encode()).digest(DIMENSIONS)
        vector = [b - 127.5 for b in struct.unpack(f"{DIMENSIONS}B", raw)]
        self.kept[text] = vector
        return vector


class SimilarJudge(doxa.Judge):
    """Reads the close texts the gate gathers (as the LLM judge does) and says ``new``."""

    name = "similar"
    version = "1"
    needs = Needs(similar_texts=True)

    def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
        return doxa.Verdict(doxa.Relation.NEW, (), f"{len(evidence.same_topic)} close")


def opened(embedder: HashEmbedder | None, judge: str) -> doxa.Memory:
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    chosen = SimilarJudge() if judge == "similar" else None
    mem = doxa.Memory.open(None, scope="bench", clock=clock, judge=chosen, embedder=embedder)
    mem.schema.add_ontology(ontology_turtle())
    return mem


def main(fill: int, timed: int, judge: str, only: str | None) -> None:
    sides = ("off", "on") if only is None else (only,)
    embedders = {side: HashEmbedder() if side == "on" else None for side in sides}
    mems = {side: opened(embedders[side], judge) for side in sides}
    streams = {side: Stream(7) for side in sides}
    for side in sides:
        streams[side].fill(mems[side], fill)
    gc.collect()
    spent: dict[str, list[float]] = {side: [] for side in sides}
    calls_before = {s: e.calls for s, e in embedders.items() if e is not None}
    for n in range(timed):
        for side in sides if n % 2 else tuple(reversed(sides)):  # neither always goes first
            mem, stream = mems[side], streams[side]
            w = stream.next()
            started = time.process_time()
            receipt = mem.remember(w.text, **w.kwargs())
            spent[side].append(time.process_time() - started)
            stream.observe(w, receipt.outcome.value)
    for mem in mems.values():
        mem.close()
    if not timed:
        print(f"filled {fill} writes per side ({', '.join(sides)}), timed none")
        return
    p50 = {side: statistics.median(spent[side]) * 1000 for side in sides}
    line = "  ".join(f"{side} p50 {p50[side]:.3f} ms" for side in sides)
    if "on" in embedders and embedders["on"] is not None:
        calls = embedders["on"].calls - calls_before["on"]
        line += f"  embedding calls per write {calls / timed:.2f}"
    if len(sides) == 2:
        line += f"  on/off x{p50['on'] / p50['off']:.3f}"
    print(f"judge {judge}, {fill} filled, {timed} timed per side: {line}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fill", type=int, default=FILL, help="writes before timing")
    parser.add_argument("--timed", type=int, default=TIMED, help="writes timed per side")
    parser.add_argument("--judge", choices=("rule", "similar"), default="rule")
    parser.add_argument("--only", choices=("off", "on"), default=None, help="one side only")
    arguments = parser.parse_args()
    main(arguments.fill, arguments.timed, arguments.judge, arguments.only)
