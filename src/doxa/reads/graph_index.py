"""An approximate nearest-neighbour graph (HNSW, by hnswlib) over a vector index's rows.

:class:`~doxa.reads.vectors.VectorIndex` keeps its vectors as one exact matrix; past a
size where the exact product costs more than a recall may spend, it also keeps this graph
over the same rows and asks it first. The graph is labelled by the matrix's row numbers, so
a deleted row is a deleted label, and it never holds anything the matrix does not.

hnswlib was chosen over usearch by ``bench/bench_vectors.py`` (docs/decisions.md): faster
to build and to query at 384 to 1536 dimensions, with the same recall, on one thread.

Nothing here is thread-safe by itself: the vector index calls it under its own lock, or from
the one thread that builds it before anyone else can see it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy

__all__ = ["CONNECTIVITY", "EF_CONSTRUCTION", "EF_SEARCH", "GraphIndex", "hnswlib_or_none"]

#: links per node (hnswlib's M): 16 is its documented all-round value
CONNECTIVITY = 16
#: the candidate list while building (hnswlib's ef_construction)
EF_CONSTRUCTION = 100
#: the candidate list while searching, at least the number asked (hnswlib's ef): 128 finds
#: all of the 20 nearest on clustered vectors and twice what 64 does on random ones, for
#: ~0.3 ms at 20k x 768 (docs/decisions.md)
EF_SEARCH = 128


def hnswlib_or_none() -> Any:
    """hnswlib, or None when the ``meaning`` extra's graph index is not installed."""
    try:
        import hnswlib
    except ImportError:
        return None
    return hnswlib


class GraphIndex:
    """An HNSW graph of unit vectors by inner product, labelled by row number.

    Its capacity doubles when full (hnswlib's ``resize_index``), so adding a row costs the
    same at any size, amortised. One thread builds and searches: the machine's other cores
    belong to the writers.
    """

    def __init__(self, dimensions: int, capacity: int) -> None:
        hnswlib = hnswlib_or_none()
        if hnswlib is None:
            raise ImportError("the graph index needs hnswlib: pip install 'doxa[meaning]'")
        self._index = hnswlib.Index(space="ip", dim=dimensions)
        self._index.init_index(
            max_elements=max(64, capacity),
            M=CONNECTIVITY,
            ef_construction=EF_CONSTRUCTION,
            random_seed=100,
        )
        self._index.set_num_threads(1)
        #: rows 0 .. count-1 are in the graph (deleted ones marked)
        self.count = 0

    @property
    def nbytes(self) -> int:
        """The graph's size in bytes as hnswlib counts it: the vectors and links of the rows
        in it (the capacity beyond them is allocated but mostly never touched)."""
        return int(self._index.index_file_size())

    def add(self, rows: numpy.ndarray[Any, Any], first: int) -> None:
        """Add ``rows`` (unit vectors) as rows ``first``, ``first + 1``, …"""
        import numpy as np

        size = len(rows)
        if not size:
            return
        needed = first + size
        capacity = int(self._index.get_max_elements())
        if needed > capacity:
            self._index.resize_index(max(needed, 2 * capacity))
        self._index.add_items(rows, np.arange(first, needed), num_threads=1)
        self.count = max(self.count, needed)

    def delete(self, row: int) -> None:
        """Row ``row`` never comes back from :meth:`search` (its node still guides searches)."""
        self._index.mark_deleted(row)

    def search(self, query: numpy.ndarray[Any, Any], count: int) -> list[tuple[int, float]] | None:
        """The ``count`` live rows nearest the unit vector ``query``, closest first, each with
        its inner product; None when hnswlib cannot give that many (the caller searches
        exactly instead)."""
        self._index.set_ef(max(EF_SEARCH, count))
        try:
            labels, distances = self._index.knn_query(query, k=count, num_threads=1)
        except RuntimeError:  # "cannot return the results in a contiguous 2D array"
            return None
        return [
            (int(row), 1.0 - float(distance))
            for row, distance in zip(labels[0].tolist(), distances[0].tolist(), strict=True)
        ]
