"""IRIs of the doxa vocabulary and the standard vocabularies it reuses.

Every IRI the code writes is named here once, so the ontology file, the shapes and the
Python code cannot drift apart silently (``tests/ontology/test_ontology.py`` checks that each name
below is declared, labelled and commented in ``ontology/doxa.ttl``).
"""

from __future__ import annotations

from rdflib import Namespace, URIRef
from rdflib.namespace import OWL, PROV, RDF, RDFS, SKOS, XSD

__all__ = [
    "CLOSURE_GRAPH",
    "DOXA",
    "DOXA_TERMS",
    "ONTOLOGY_GRAPH",
    "OWL",
    "PROV",
    "RDF",
    "RDFS",
    "SHAPES_GRAPH",
    "SKOS",
    "XSD",
]


class _Vocabulary(Namespace):
    """A namespace that builds each of its terms once: reads compare triples against these
    IRIs thousands of times a call, and rdflib checks every IRI it builds.

    A term read as an attribute (``DOXA.ends``) is kept on the instance, so the next read is
    a plain attribute lookup, not rdflib's ``__getattr__`` (verify reads a few terms per quad
    of an export: half a million lookups for 3,000 facts, 1.9 s of a 14 s profile)."""

    def term(self, name: str) -> URIRef:
        found = _TERMS.get(name)
        if found is None:
            found = _TERMS[name] = super().term(name)
        return found

    def __getattr__(self, name: str) -> URIRef:
        if name.startswith("__"):  # ignore any special Python names, as rdflib does
            raise AttributeError(name)
        found = self.__dict__[name] = self.term(name)
        return found


_TERMS: dict[str, URIRef] = {}
DOXA = _Vocabulary("https://w3id.org/doxa#")

#: The graph holding the loaded TBox: doxa's ontology plus any domain ontology the user adds.
ONTOLOGY_GRAPH = URIRef("urn:doxa:ontology")
#: The ontology's owlrl closure, recomputed when the ontology changes; the judge reads it.
CLOSURE_GRAPH = URIRef("urn:doxa:ontology:closure")
#: The graph holding the loaded SHACL shapes.
SHAPES_GRAPH = URIRef("urn:doxa:shapes")

#: Local names of every doxa term the code uses, by kind; the ontology must declare each.
DOXA_TERMS: dict[str, tuple[str, ...]] = {
    "class": (
        "Claim",
        "Rule",
        "Authority",
        "Support",
        "Standpoint",
        "Ending",
        "Supersession",
        "Retraction",
        "Erasure",
        "Corroboration",
        "Receipt",
        "HeldWrite",
        "Relation",
        "Outcome",
        "RuleMode",
        "HoldStatus",
        "AuditExport",
        "Alarm",
        "Reseal",
        "BasisEnded",
        "BasisConfirmed",
        "Scope",
        "ManyValuedProperty",
        "UnchangingProperty",
    ),
    "individual": (
        "Owner",
        "Tool",
        "Agent",
        "External",
        "Stated",
        "Observed",
        "Inferred",
        "Quoted",
        "Absent",
        "New",
        "Same",
        "AddsDetail",
        "Replaces",
        "WasWrong",
        "Unclear",
        "ClashesWithRule",
        "Instruction",
        "Admitted",
        "Merged",
        "Held",
        "Rejected",
        "Quarantined",
        "Approved",
        "Discarded",
        "Closed",
        "Granted",
        "Revoked",
        "Calibrated",
        "Cleared",
        "Erased",
        "Purged",
        "Requires",
        "Forbids",
        "Anything",
        "AwaitingOwner",
        "Unchecked",
    ),
    "object_property": (
        "authority",
        "standpoint",
        "support",
        "ends",
        "by",
        "refines",
        "revises",
        "correction",
        "asks",
        "corroborates",
        "ruleMode",
        "relation",
        "outcome",
        "consulted",
        "target",
        "decides",
        "produced",
        "holds",
        "previous",
        "proposes",
        "holdStatus",
        "head",
        "turn",
        "origin",
        "clears",
        "concerns",
        "reseals",
        "restsOn",
        "flags",
        "basis",
        "basisEnding",
        "confirms",
        "awaitsAnswer",
    ),
    "datatype_property": (
        "text",
        "topic",
        "kind",
        "validFrom",
        "validUntil",
        "recordedAt",
        "confidence",
        "query",
        "term",
        "reason",
        "sequence",
        "receiptHash",
        "previousHash",
        "inputDigest",
        "contentDigest",
        "heldDigest",
        "quarantineDigest",
        "nameDigest",
        "nameBaseline",
        "judge",
        "judgeVersion",
        "grantsKind",
        "version",
        "heldAt",
        "contentHash",
        "ontologyDigest",
        "scoresJudge",
        "agreements",
        "decisions",
        "salt",
        "bodyDigest",
        "closingMinute",
        "nameKey",
        "embedding",
        "embeddingModel",
        "embeddingMissing",
    ),
}
