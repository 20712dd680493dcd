"""Exports of one scope (canonical N-Quads or TriG) and their raw restore into a fresh store.

An export holds every graph of the scope: topics, rules, the log (receipts and endings),
pending and the derived graphs; the ordinary export leaves the quarantine out, the audit export
keeps it and says so with one marker quad, ``<scope>/export a doxa:AuditExport`` in the graph
``<scope>/export``. Exports are canonical (RDFC-1.0), so the same memory always gives the same
bytes, and ``import`` after ``export`` gives back the same memory: the same bytes on the next
export and the same answers to every read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from rdflib import URIRef
from rdflib.term import Node

from doxa.audit.chain import verify_chain
from doxa.errors import InvalidInput, NotFound, StoreError
from doxa.scope import Scope
from doxa.store import Change, Quad, Store, intents
from doxa.store.canon import ExportFormat, serialize
from doxa.store.capabilities import OnDisk, cache_of
from doxa.store.convert import read_quads
from doxa.vocabulary import DOXA, OWL, PROV, RDF, RDFS, XSD

__all__ = [
    "FORMATS",
    "Progress",
    "export_scope",
    "format_of",
    "import_scope",
    "marker",
    "read_export",
    "scope_quads",
    "write_export",
]

#: called with (quads done so far, quads in all)
Progress = Callable[[int, int], None]

FORMATS: tuple[ExportFormat, ...] = ("nquads", "trig", "turtle")
#: the formats that keep graph names, so they can be verified and imported
DATASET_FORMATS: tuple[ExportFormat, ...] = ("nquads", "trig")

PREFIXES = {
    "doxa": str(DOXA),
    "prov": str(PROV),
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "owl": str(OWL),
    "xsd": str(XSD),
}

_BATCH = 5000


#: what a file's suffix says its format is, for the formats doxa writes and reads
_SUFFIXES: dict[str, ExportFormat] = {
    ".nq": "nquads",
    ".nquads": "nquads",
    ".trig": "trig",
    ".ttl": "turtle",
    ".turtle": "turtle",
}
#: suffixes naming another format, which doxa must not fill with N-Quads unasked
_OTHER_SUFFIXES = {
    ".jsonld": "JSON-LD",
    ".json": "JSON",
    ".rdf": "RDF/XML",
    ".owl": "RDF/XML (OWL)",
    ".xml": "XML",
    ".nt": "N-Triples",
    ".ntriples": "N-Triples",
    ".n3": "Notation3",
    ".trix": "TriX",
    ".hdt": "HDT",
    ".csv": "CSV",
    ".tsv": "TSV",
    ".gz": "gzip",
    ".bz2": "bzip2",
    ".xz": "xz",
    ".zip": "zip",
}


def format_of(
    path: Path, given: str | None, allowed: tuple[ExportFormat, ...] = FORMATS
) -> ExportFormat:
    """The format: as given, else from the file's suffix, else N-Quads.

    ``.nq``, ``.trig`` and ``.ttl`` (any case) name their formats; a suffix naming another
    format (``.jsonld``, ``.rdf``, ``.nt``, ``.gz`` ...) is refused rather than filled with
    N-Quads a reader of that format cannot read; any other suffix (``.out``, ``.bak``) or none
    means N-Quads.
    """
    if given is None:
        suffix = path.suffix.lower()
        other = _OTHER_SUFFIXES.get(suffix)
        if other is not None:
            raise InvalidInput(
                f"{path.name!r} names {other} by its suffix, which doxa does not write or "
                f"read; name the file .nq (N-Quads), .trig (TriG) or .ttl (Turtle), or pass "
                "--format."
            )
        given = _SUFFIXES.get(suffix, "nquads")
    for known in allowed:
        if given == known:
            return known
    names = ", ".join(allowed)
    if given in FORMATS:
        raise InvalidInput(
            f"A {given} file keeps no graph names, so it cannot be imported or verified; "
            f"use one of: {names}."
        )
    raise InvalidInput(f"{given!r} is not an export format; use one of: {names}.")


def marker(scope: Scope) -> Quad:
    """The quad that marks an audit export of ``scope``."""
    return (scope.export, RDF.type, DOXA.AuditExport, scope.export)


def scope_quads(store: Store, scope: Scope, *, audit: bool) -> list[Quad]:
    """Every quad of the scope's graphs; the quarantine only when ``audit``."""
    quads: list[Quad] = []
    for graph in store.graphs():
        if not scope.owns(graph) or (graph == scope.quarantine and not audit):
            continue
        quads.extend(store.quads(graph))
    return quads


def export_scope(
    store: Store,
    scope: Scope,
    target: str | Path | IO[str],
    *,
    audit: bool,
    format: ExportFormat,
    progress: Progress | None = None,
) -> int:
    """Write the scope's export to ``target``; returns the number of quads written."""
    quads = scope_quads(store, scope, audit=audit)
    if audit:
        quads.append(marker(scope))
    return write_export(quads, target, format=format, progress=progress)


def write_export(
    quads: list[Quad],
    target: str | Path | IO[str],
    *,
    format: ExportFormat,
    progress: Progress | None = None,
) -> int:
    """Write ``quads`` (a scope's export, as :func:`export_scope` gathers it or as a server
    sent it) to ``target`` in ``format``, canonically; returns the number of quads."""
    total, done = len(quads), 0

    def step(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    if progress is not None:
        progress(0, total)
    data = serialize(quads, format=format, prefixes=PREFIXES, progress=step)
    try:
        if isinstance(target, str | Path):
            Path(target).write_bytes(data)
        else:
            target.write(data.decode("utf-8"))
    except OSError as error:
        raise StoreError(
            f"Cannot write the export to {target}: {error.strerror}; "
            "check that the folder exists and is writable."
        ) from error
    return total


def read_export(path: Path, format: str | None = None) -> list[tuple[Node, Node, Node, Node]]:
    """Parse an export file (N-Quads or TriG) into quads; a default-graph quad is refused."""
    if not path.is_file():
        raise NotFound(f"There is no export file at {path}; check the path.")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StoreError(f"Cannot read {path}: {error.strerror}.") from None
    quads: list[tuple[Node, Node, Node, Node]] = []
    form = format_of(path, format, DATASET_FORMATS)
    assert form != "turtle"
    for s, p, o, g in read_quads(data, format=form, source=str(path)):
        if g is None:
            raise InvalidInput(
                f"{path} has a triple outside any named graph ({s} {p} {o}); a doxa export "
                "names the graph of every quad."
            )
        quads.append((s, p, o, g))
    return quads


def import_scope(
    store: Store,
    scope: Scope,
    quads: Iterable[tuple[Node, Node, Node, Node]],
    *,
    progress: Progress | None = None,
) -> int:
    """Restore an export of ``scope`` into a store where the scope is still empty.

    The receipt chain is verified before anything is written (a broken chain raises
    :class:`~doxa.ChainBroken` and writes nothing); a quad of another scope, or a scope that
    already holds graphs, raises :class:`~doxa.InvalidInput`. The restore is raw: the quads go
    in as they are, without passing the gate again, since their receipts already vouch for them.
    Returns the number of quads restored (the audit marker is not restored).
    """
    stamp = marker(scope)
    rows: list[Quad] = []
    for s, p, o, g in quads:
        if (s, p, o, g) == stamp:
            continue
        if not isinstance(g, URIRef) or not scope.owns(g):
            raise InvalidInput(
                f"The export holds graph {g}, which is not in scope {scope.name!r}; import it "
                "with the scope it was exported from (--scope)."
            )
        rows.append((s, p, o, g))
    occupied = [g for g in store.graphs() if scope.owns(g)]
    if occupied:
        raise InvalidInput(
            f"Scope {scope.name!r} already holds {len(occupied)} graph(s) in this store; import "
            "into a fresh store or an empty scope, so the receipt chain stays whole."
        )
    verify_chain(rows)
    total = len(rows)
    graphs = sorted({str(g) for _, _, _, g in rows})
    # on disk, the graphs are recorded before the first batch, so that the next open undoes
    # an import a kill -9 cut off (EmbeddedStore clears them) and the scope is empty again
    intent = intents.import_path(store.path) if isinstance(store, OnDisk) else None
    if intent is not None:
        intents.write(intent, intents.ImportIntent(scope.name, tuple(graphs)))
    if progress is not None:
        progress(0, total)
    try:
        for start in range(0, total, _BATCH):
            store.apply(Change(insert=rows[start : start + _BATCH]))
            if progress is not None:
                progress(min(start + _BATCH, total), total)
        store.flush()
    except BaseException:
        # leave no half-restored scope behind
        for graph in graphs:
            store.clear_graph(URIRef(graph))
        store.flush()
        if intent is not None:
            intents.remove(intent)
        raise
    finally:
        cache = cache_of(store)
        if cache is not None:
            cache.reset_all()  # topic lists, chain head and version were read before
    if intent is not None:
        intents.remove(intent)  # only now: every batch is in the store
    return total
