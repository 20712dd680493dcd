"""A real model's vectors for ``bench_vectors.py --data FILE.npy``: the texts of
``bench_recall.py``'s memories (twelve facts a person, made-up people, as many people as it
takes), embedded by any OpenAI-compatible ``/embeddings`` endpoint through doxa's own
embedder, saved as one float32 matrix.

Random vectors are the HNSW graph's worst case and clustered ones a guess at text's shape;
this gives the graph what a model gives it, near-duplicates included (every person has the
same twelve kinds of fact)::

    /tmp/realvenv/bin/python bench/embed_server.py --port 8011 &   # docs/benchmarks.md
    python bench/real_vectors.py --facts 50000 --embed-url http://127.0.0.1:8011/v1 \\
        --embed-model all-MiniLM-L6-v2 --out bench/results/minilm.npy
    python bench/bench_vectors.py --data bench/results/minilm.npy --dims 384 \\
        --sizes 10000,49000 --queries 500 --kinds exact,hnsw
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import click
import numpy as np

from bench_recall import memory_rows, names
from doxa.interfaces.progress import ProgressBar
from doxa.reads.embeddings import EmbedConfig, OpenAIEmbedder


def texts(count: int, seed: int) -> list[str]:
    """``count`` fact texts, person by person; names are two of bench_recall's joined, so
    there are enough of them for any size."""
    base = names(400, seed)
    people = [a + b.lower() for a, b in itertools.product(base, base) if a != b]
    random.Random(seed).shuffle(people)
    rows, _ = memory_rows(people[: -(-count // 12)], seed)
    return [row["text"] for row in rows][:count]


@click.command()
@click.option("--facts", default=50_000, show_default=True)
@click.option("--seed", default=21, show_default=True)
@click.option("--embed-url", required=True, help="An OpenAI-compatible base URL (…/v1).")
@click.option("--embed-model", required=True)
@click.option("--batch", default=256, show_default=True)
@click.option("--out", type=click.Path(path_type=Path), required=True)
def main(facts: int, seed: int, embed_url: str, embed_model: str, batch: int, out: Path) -> None:
    """Embed bench_recall's fact texts with a real model and save them as a .npy."""
    embedder = OpenAIEmbedder(EmbedConfig(base_url=embed_url, model=embed_model, timeout=600.0))
    found = texts(facts, seed)
    vectors: list[list[float]] = []
    progress = ProgressBar("Embedding", force=True, unit="facts")
    for start in range(0, len(found), batch):
        vectors += embedder.embed(found[start : start + batch])
        progress(len(vectors), len(found))
    out.parent.mkdir(parents=True, exist_ok=True)
    np.save(out, np.asarray(vectors, dtype=np.float32))
    click.echo(f"{out}: {len(vectors)} x {len(vectors[0])}")


if __name__ == "__main__":
    main()
