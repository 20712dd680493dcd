"""What the domain ontology says about properties and objects, as the gate and judge use it.

The ontology (doxa's own plus the user's domain ontology) is closed once with owlrl when it
changes; :class:`PropertyTable` is read from that closure. It lets one statement be recognised
however it is phrased:

- equivalent properties (``owl:equivalentProperty``, or sub-properties of each other) share one
  *canonical* property;
- a statement made with an inverse property (``owl:inverseOf``) is turned around, so
  ``acme employs bob`` and ``bob worksFor acme`` are the same statement;
- a sub-property's statement is also a statement of each super-property, so a value stated
  with ``ex:mobilePhone`` meets the values stated with ``ex:phone``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.store.convert import ntriples

__all__ = ["PropertyTable", "Statement", "statement_key"]

Statement = tuple[Node, URIRef, Node]


def statement_key(subject: Node, predicate: Node) -> Literal:
    """The index key shared by every claim about one subject and (canonical) predicate."""
    text = f"{ntriples(subject)} {ntriples(predicate)}"
    return Literal("@" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24])


@dataclass(frozen=True)
class PropertyTable:
    """Property axioms of the closed ontology: equivalence, inverses, super-properties and
    one-value-at-a-time (functional) properties.

    >>> ex = "http://example.org/"
    >>> table = PropertyTable.build(
    ...     equivalent=[(URIRef(ex + "employer"), URIRef(ex + "worksFor"))],
    ...     inverse=[(URIRef(ex + "employs"), URIRef(ex + "worksFor"))],
    ...     functional=[URIRef(ex + "worksFor")],
    ... )
    >>> s, p, o = table.normalise(URIRef(ex + "acme"), URIRef(ex + "employs"), URIRef(ex + "bob"))
    >>> (str(s), str(p), str(o))
    ('http://example.org/bob', 'http://example.org/worksFor', 'http://example.org/acme')
    >>> table.canonical(URIRef(ex + "employer")) == (URIRef(ex + "worksFor"), False)
    True
    """

    #: property -> (canonical property, whether statements with it are turned around)
    canon: Mapping[URIRef, tuple[URIRef, bool]] = field(default_factory=dict)
    #: canonical property -> canonical super-properties (strict)
    supers: Mapping[URIRef, frozenset[URIRef]] = field(default_factory=dict)
    #: canonical properties with one value at a time
    functional: frozenset[URIRef] = frozenset()
    #: canonical properties whose one value never changes (``doxa:UnchangingProperty``; each
    #: is functional too): a second value means the first was wrong
    unchanging: frozenset[URIRef] = frozenset()

    @classmethod
    def build(
        cls,
        *,
        equivalent: Iterable[tuple[URIRef, URIRef]] = (),
        inverse: Iterable[tuple[URIRef, URIRef]] = (),
        sub: Iterable[tuple[URIRef, URIRef]] = (),
        functional: Iterable[URIRef] = (),
        unchanging: Iterable[URIRef] = (),
    ) -> PropertyTable:
        """Build the table from axiom pairs (as read from the closure). An unchanging
        property holds one value at a time too, so it counts as functional."""
        unchanging_set = set(unchanging)
        functional_set = set(functional) | unchanging_set
        sub_pairs = {(a, b) for a, b in sub if a != b}
        # equivalence: declared, or sub-properties of each other
        links: dict[URIRef, set[URIRef]] = {}
        for a, b in [*equivalent, *((a, b) for a, b in sub_pairs if (b, a) in sub_pairs)]:
            links.setdefault(a, set()).add(b)
            links.setdefault(b, set()).add(a)
        inverses: dict[URIRef, set[URIRef]] = {}
        for a, b in inverse:
            inverses.setdefault(a, set()).add(b)
            inverses.setdefault(b, set()).add(a)
        properties = set(links) | set(inverses) | {p for pair in sub_pairs for p in pair}
        properties |= functional_set

        def group(start: URIRef) -> set[URIRef]:
            seen, todo = {start}, [start]
            while todo:
                for other in links.get(todo.pop(), ()):
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
            return seen

        canon: dict[URIRef, tuple[URIRef, bool]] = {}
        for prop in sorted(properties):
            if prop in canon:
                continue
            same = group(prop)
            turned: set[URIRef] = set()
            for member in same:
                for inv in inverses.get(member, ()):
                    turned |= group(inv)
            turned -= same
            # prefer a functional property as the canonical one, then the smallest IRI
            choices = sorted(
                [(p not in functional_set, str(p), False) for p in same]
                + [(p not in functional_set, str(p), True) for p in turned]
            )
            _, chosen, chosen_turned = choices[0]
            for member in same:
                canon[member] = (URIRef(chosen), chosen_turned)
            for member in turned:
                canon.setdefault(member, (URIRef(chosen), not chosen_turned))
        supers: dict[URIRef, set[URIRef]] = {}
        for a, b in sub_pairs:
            ca, turned_a = canon.get(a, (a, False))
            cb, turned_b = canon.get(b, (b, False))
            if ca != cb and turned_a == turned_b:
                supers.setdefault(ca, set()).add(cb)
        fun = frozenset(
            canon.get(p, (p, False))[0] for p in functional_set if not canon.get(p, (p, False))[1]
        )
        fixed = frozenset(
            canon.get(p, (p, False))[0] for p in unchanging_set if not canon.get(p, (p, False))[1]
        )
        return cls(
            canon=canon,
            supers={k: frozenset(v) for k, v in supers.items()},
            functional=fun,
            unchanging=fixed,
        )

    def canonical(self, predicate: URIRef) -> tuple[URIRef, bool]:
        """The canonical property and whether a statement with ``predicate`` turns around."""
        return self.canon.get(predicate, (predicate, False))

    def normalise(self, subject: Node, predicate: URIRef, obj: Node) -> Statement:
        """The statement in canonical form (turned around for an inverse with an IRI object)."""
        canonical, turned = self.canonical(predicate)
        if turned and isinstance(obj, URIRef):
            return obj, canonical, subject
        if turned:  # an inverse with a literal object cannot turn: keep it as stated
            return subject, predicate, obj
        return subject, canonical, obj

    def family(self, predicate: URIRef) -> frozenset[URIRef]:
        """The canonical property and its super-properties: what a statement also states."""
        return frozenset({predicate, *self.supers.get(predicate, ())})

    def keys(self, subject: Node, predicate: URIRef, obj: Node) -> list[Literal]:
        """Index keys of a statement: one per property its canonical form states."""
        s, p, _ = self.normalise(subject, predicate, obj)
        return sorted(statement_key(s, q) for q in self.family(p))

    def members(self, canonicals: Iterable[URIRef]) -> list[URIRef]:
        """Every property whose canonical form is one of ``canonicals`` (and those)."""
        wanted = set(canonicals)
        found = set(wanted) | {p for p, (c, _) in self.canon.items() if c in wanted}
        return sorted(found)

    def is_functional(self, predicate: URIRef) -> bool:
        """Whether a (canonical) property or any of its super-properties is functional."""
        return bool(self.family(predicate) & self.functional)

    def is_unchanging(self, predicate: URIRef) -> bool:
        """Whether a (canonical) property or any of its super-properties never changes value.

        >>> year = URIRef("http://example.org/birthYear")
        >>> table = PropertyTable.build(unchanging=[year])
        >>> table.is_unchanging(year), table.is_functional(year)
        (True, True)
        """
        return bool(self.family(predicate) & self.unchanging)

    def shared_functional(self, a: URIRef, b: URIRef) -> bool:
        """Whether values of canonical properties ``a`` and ``b`` compete for one slot."""
        return bool(self.family(a) & self.family(b) & self.functional)
