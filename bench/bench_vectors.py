"""The vector index at real dimensions: exact search, doxa's HNSW graph and usearch, side by side.

doxa's :class:`~doxa.reads.vectors.VectorIndex` is built as recall builds it: from a scope's
meaning graph in a store (one base64 float32 literal per claim, ``doxa:embeddingModel``
beside it), then asked for the 20 nearest claims of each query. Two of them per size:

- **exact**: the index with the graph switched off (one ``numpy.einsum`` product per query);
- **hnsw**: the index with the graph on from the first vector (``approximate_above=0``):
  built in its background thread from the matrix; the queries asked while it builds are
  timed too (**during build**: they are answered exactly and must not stall);

and, for the choice of library, **usearch** (its defaults but one thread, inner product) over
the same unit vectors outside doxa. Each query is asked of every index in turn, so the kinds
are timed side by side under the same load. Printed per dimension and size: p50 and p95 ms of
a top-20 query, the build time, bytes per vector (the index's own count of its capacity:
the matrix's ``nbytes``, hnswlib's ``index_file_size``, usearch's ``memory_usage``) and
recall@20 of each approximate index against exact (the share of exact's 20 it also found).

Vectors are random unit float32 (``--data random``: no structure, the hardest case for a
graph index, where the true 20 nearest are hardly nearer than the rest) or clustered
(``--data clustered``: 100 centres in a 32-dimension space projected into the full one, plus
noise: the low intrinsic dimension of what an embedding model makes). Queries are drawn the
same way as the vectors, held out of the index. One BLAS thread, as doxa measures.

    python bench/bench_vectors.py                                   # 384,768,1536 x 1k,10k,100k
    python bench/bench_vectors.py --dims 768 --sizes 1000,10000 --queries 100
    python bench/bench_vectors.py --data clustered --kinds exact,hnsw

Writes ``bench/results/vectors.json`` and, with matplotlib, ``bench/results/vectors.png``.
"""

from __future__ import annotations

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads: one BLAS thread, as doxa measures

import base64
import json
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
import numpy as np
from rdflib import Literal, URIRef

from doxa.reads.graph_index import CONNECTIVITY, EF_CONSTRUCTION, EF_SEARCH
from doxa.reads.vectors import EMBEDDING, MODEL, VectorIndex
from doxa.scope import Scope
from doxa.store import Change, EmbeddedStore, Quad
from doxa.vocabulary import XSD

MODEL_NAME = "bench-model"
TOP = 20
KINDS = ("exact", "hnsw", "usearch")


def unit_vectors(count: int, dims: int, data: str, rng: np.random.Generator) -> Any:
    """``count`` unit float32 vectors: random, or clustered (100 centres in a 32-dimension
    space, projected into ``dims`` with noise: the low intrinsic dimension of text
    embeddings). The same ``rng`` state gives the same projection and centres."""
    if data.endswith(".npy"):  # a model's own vectors (bench/real_vectors.py)
        stored = np.load(data).astype(np.float32)
        if count > len(stored) or stored.shape[1] != dims:
            raise click.UsageError(f"{data} holds {stored.shape}: asked {count} x {dims}")
        vectors = stored[rng.permutation(len(stored))[:count]]  # the queries: unseen rows
    elif data == "clustered":
        projection = rng.standard_normal((32, dims)).astype(np.float32)
        centres = rng.standard_normal((100, 32)).astype(np.float32)
        latent = centres[rng.integers(0, 100, count)]
        latent += 0.5 * rng.standard_normal((count, 32)).astype(np.float32)
        vectors = latent @ projection
        vectors += 0.3 * rng.standard_normal((count, dims)).astype(np.float32)
    else:
        vectors = rng.standard_normal((count, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def filled_store(scope: Scope, vectors: Any) -> EmbeddedStore:
    """An in-memory store whose meaning graph holds one vector per claim, as doxa writes it."""
    store = EmbeddedStore()
    graph, model = scope.meaning, Literal(MODEL_NAME)
    for start in range(0, len(vectors), 10_000):
        quads: list[Quad] = []
        for n, row in enumerate(vectors[start : start + 10_000], start=start):
            claim = URIRef(f"{scope.iri}/fact/{n:07d}")
            text = base64.b64encode(row.astype("<f4").tobytes()).decode("ascii")
            quads.append((claim, EMBEDDING, Literal(text, datatype=XSD.base64Binary), graph))
            quads.append((claim, MODEL, model, graph))
        store.apply(Change(insert=quads))
    return store


def usearch_index(vectors: Any) -> Any:
    """usearch over the same vectors (its defaults, inner product, one thread)."""
    from usearch.index import Index

    index = Index(ndim=vectors.shape[1], metric="ip", dtype="f32")
    index.add(np.arange(len(vectors)), vectors, threads=1)
    return index


def percentiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 4),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 4),
    }


def timed(ask: Callable[[], list[int]]) -> tuple[float, list[int]]:
    start = time.perf_counter()
    found = ask()
    return (time.perf_counter() - start) * 1000, found


def measure(dims: int, size: int, queries: int, data: str, kinds: Sequence[str]) -> dict[str, Any]:
    """One dimension and size: every kind built over the same vectors, then asked in turn."""
    rng = np.random.default_rng(dims * 1_000_003 + size)
    drawn = unit_vectors(size + queries, dims, data, rng)  # one draw: the same clusters
    vectors, asked = np.ascontiguousarray(drawn[:size]), drawn[size:]
    scope = Scope.named("bench")
    store = filled_store(scope, vectors)
    row_of = {f"{scope.iri}/fact/{n:07d}": n for n in range(size)}
    row: dict[str, Any] = {"dims": dims, "vectors": size, "elements": dims * size}
    searches: dict[str, Callable[[Any], list[int]]] = {}

    exact = VectorIndex(scope, MODEL_NAME, approximate_above=2**62)
    start = time.perf_counter()
    with exact.reading(store):
        pass
    row["exact"] = {
        "build_s": round(time.perf_counter() - start, 3),
        "bytes_per_vector": round(exact.nbytes / size),
    }

    def ask_exact(q: Any) -> list[int]:
        with exact.reading(store) as held:
            return [row_of[c] for c, _ in held.nearest(q, TOP)]

    searches["exact"] = ask_exact

    if "hnsw" in kinds:
        graph = VectorIndex(scope, MODEL_NAME, approximate_above=0)
        start = time.perf_counter()
        with graph.reading(store):
            pass  # the matrix is read; the graph's thread has started
        matrix_s = time.perf_counter() - start
        during: list[float] = []
        while graph.kind == "exact" and not graph.settle(0):
            q = asked[len(during) % queries]
            with graph.reading(store) as held:
                spent, _ = timed(lambda held=held, q=q: [c for c, _ in held.nearest(q, TOP)])  # type: ignore[misc]
            during.append(spent)
            time.sleep(0.01)
        graph.settle()
        built_s = time.perf_counter() - start
        assert graph.kind == "hnsw", "the graph was not built"
        row["hnsw"] = {
            "build_s": round(built_s, 3),
            "matrix_build_s": round(matrix_s, 3),
            "bytes_per_vector": round(graph.nbytes / size),
            "during_build": {"queries": len(during), **(percentiles(during) if during else {})},
        }

        def ask_graph(q: Any) -> list[int]:
            with graph.reading(store) as held:
                return [row_of[c] for c, _ in held.nearest(q, TOP)]

        searches["hnsw"] = ask_graph

    if "usearch" in kinds:
        start = time.perf_counter()
        other = usearch_index(vectors)
        row["usearch"] = {
            "build_s": round(time.perf_counter() - start, 3),
            "bytes_per_vector": round(int(other.memory_usage) / size),
        }

        def ask_usearch(q: Any) -> list[int]:
            return [int(k) for k in other.search(q, TOP, threads=1).keys]

        searches["usearch"] = ask_usearch

    spent: dict[str, list[float]] = {kind: [] for kind in searches}
    found: dict[str, list[list[int]]] = {kind: [] for kind in searches}
    order = list(searches)
    for n, q in enumerate(asked):
        for kind in order[n % len(order) :] + order[: n % len(order)]:  # rotate who goes first
            ms, rows = timed(lambda kind=kind, q=q: searches[kind](q))  # type: ignore[misc]
            spent[kind].append(ms)
            found[kind].append(rows)
    for kind in searches:
        row[kind].update(percentiles(spent[kind]))
        if kind != "exact":
            shared = [
                len(set(a) & set(e)) / max(1, len(e))
                for a, e in zip(found[kind], found["exact"], strict=True)
            ]
            row[kind]["recall_at_20"] = round(statistics.fmean(shared), 4)
    return row


def plot(rows: list[dict[str, Any]], out: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install 'doxa[bench]')"
    dims = sorted({r["dims"] for r in rows})
    fig, axes = plt.subplots(1, len(dims), figsize=(4.2 * len(dims), 4), squeeze=False)
    for ax, d in zip(axes[0], dims, strict=True):
        mine = [r for r in rows if r["dims"] == d]
        for kind in KINDS:
            points = [(r["vectors"], r[kind]["p50_ms"]) for r in mine if kind in r]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", label=kind)
        ax.axhline(10, linestyle=":", color="grey", label="hybrid budget")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("vectors")
        ax.set_ylabel("top-20 query p50 (ms)")
        ax.set_title(f"{d} dimensions")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return f"plot: {out}"


@click.command()
@click.option("--dims", default="384,768,1536", show_default=True, help="Dimensions.")
@click.option("--sizes", default="1000,10000,100000", show_default=True, help="Vectors.")
@click.option("--queries", default=200, show_default=True, help="Queries timed per size.")
@click.option("--data", default="random", show_default=True,
              help="random, clustered, or a .npy of a model's vectors (bench/real_vectors.py; "
              "--dims must be its width)")  # fmt: skip
@click.option("--kinds", default=",".join(KINDS), show_default=True,
              help="Index kinds (exact is always measured: recall counts against it).")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path), default=Path("bench/results"))
def main(dims: str, sizes: str, queries: int, data: str, kinds: str, out: Path) -> None:
    """Time exact, HNSW and usearch top-20 search at several dimensions and sizes."""
    import hnswlib  # noqa: F401  (both libraries must be here: the comparison is the point)

    if data not in ("random", "clustered") and not data.endswith(".npy"):
        raise click.UsageError(f"--data {data!r}: random, clustered or a .npy file")
    out.mkdir(parents=True, exist_ok=True)
    chosen = [k.strip() for k in kinds.split(",") if k.strip()]
    rows: list[dict[str, Any]] = []
    report: dict[str, Any] = {
        "command": "python bench/bench_vectors.py "
        + f"--dims {dims} --sizes {sizes} --queries {queries} --data {data} --kinds {kinds}",
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load": os.getloadavg(),
            "numpy": np.__version__,
        },
        "hnsw": {"M": CONNECTIVITY, "ef_construction": EF_CONSTRUCTION, "ef": EF_SEARCH},
        "data": data,
        "rows": rows,
    }
    for d in (int(x) for x in dims.split(",")):
        for size in (int(x) for x in sizes.split(",")):
            rows.append(measure(d, size, queries, data, chosen))
            click.echo(json.dumps(rows[-1]), err=True)
            (out / "vectors.json").write_text(json.dumps(report, indent=2) + "\n")
    click.echo(f"top-{TOP} query ms (p50 / p95), build s, bytes per vector, recall@20; {data}")
    head = f"{'dims':>5} {'vectors':>8} {'kind':>8} {'p50':>8} {'p95':>8} {'build':>8} "
    click.echo(head + f"{'B/vec':>7} {'r@20':>6} {'p50 during build':>17}")
    for r in rows:
        for kind in KINDS:
            if kind not in r:
                continue
            k = r[kind]
            during = k.get("during_build", {}).get("p50_ms", "")
            click.echo(
                f"{r['dims']:>5} {r['vectors']:>8} {kind:>8} {k['p50_ms']:>8} {k['p95_ms']:>8} "
                f"{k['build_s']:>8} {k['bytes_per_vector']:>7} {k.get('recall_at_20', ''):>6} "
                f"{during:>17}"
            )
    click.echo(plot(rows, out / "vectors.png"))


if __name__ == "__main__":
    main()
