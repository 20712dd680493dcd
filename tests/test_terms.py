"""Literals the gate admits serialise in every export format; the rest are refused clearly."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import owlrl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, XSD
from tests.conftest import EX

import doxa
from doxa.store import EmbeddedStore
from doxa.terms import as_object, language_tag, literal

LONG_TAG = "a" * 100

# (id, object, message)
REFUSED: list[tuple[str, object, str]] = [
    (
        "langstring-without-language",
        Literal("x", datatype=RDF.langString),
        "object 'x' has datatype http://www.w3.org/1999/02/22-rdf-syntax-ns#langString but no "
        "language tag; give a language (such as 'en') or drop the datatype.",
    ),
    (
        "dirlangstring-without-language",
        Literal("x", datatype=URIRef(str(RDF) + "dirLangString")),
        "object 'x' has datatype http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString but "
        "no language tag; give a language (such as 'en') or drop the datatype.",
    ),
    (
        "100-character-tag",
        Literal("x", lang=LONG_TAG),
        "language tag 'aaaaaaaaaaaaaaaaaaaa'… is 100 characters long; doxa takes tags of at "
        "most 64, such as 'en' or 'de-CH'.",
    ),
    (
        "subtag-too-long",
        Literal("x", lang="en-abcdefghi"),
        "language 'en-abcdefghi' is not a BCP 47 language tag (A subtag may be eight "
        "characters in length at maximum); use one such as 'en' or 'de-CH'.",
    ),
    (
        "ill-typed-gyear",
        Literal("19x7", datatype=XSD.gYear),
        "object '19x7' is not a valid http://www.w3.org/2001/XMLSchema#gYear; fix the value "
        "or the datatype.",
    ),
    (
        "ill-typed-date",
        Literal("2026-13-01", datatype=XSD.date),
        "object '2026-13-01' is not a valid http://www.w3.org/2001/XMLSchema#date; fix the "
        "value or the datatype.",
    ),
]


@pytest.mark.parametrize(
    ("value", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_unserialisable_literals_are_refused(value: object, message: str) -> None:
    """A literal an export could not carry raises InvalidInput with the exact reason."""
    with pytest.raises(doxa.InvalidInput) as caught:
        as_object(value)
    assert str(caught.value) == message


# literals every export format carries: they are admitted, in the store's form
ADMITTED = [
    Literal("Mittwoch", lang="de-CH"),
    Literal("x", lang="en-x-" + "-".join(["abcdefgh"] * 6)),  # 58 characters, well-formed
    Literal("1971", datatype=XSD.gYear),
    Literal("2026-03-05", datatype=XSD.date),
    Literal("0.50", datatype=XSD.decimal),
    Literal("a\x00b\x7f\u2028\ufffe\U0010ffff\r\t"),
    Literal("x", datatype=URIRef("urn:example:custom")),
    Literal("long " * 2000),
]


@pytest.mark.parametrize("value", ADMITTED, ids=lambda v: repr(v)[:40])
def test_admitted_literals_export_and_import(value: Literal, tmp_path: Path) -> None:
    """Control: every admitted literal survives N-Quads, TriG and Turtle, import and re-verify."""
    mem = doxa.Memory(EmbeddedStore(), scope="alice")
    receipt = mem.remember("a value", topic="t", subject=EX + "s", predicate=EX + "p", object=value)
    assert receipt.outcome is doxa.Outcome.ADMITTED
    for suffix in (".nq", ".trig", ".ttl"):
        out = tmp_path / f"audit{suffix}"
        mem.admin.export(out, audit=True)
        if suffix != ".ttl":
            fresh = doxa.Memory(EmbeddedStore(), scope="alice")
            fresh.admin.load_export(out)
            assert fresh.verify() == 1
            again = tmp_path / f"again{suffix}"
            fresh.admin.export(again, audit=True)
            assert again.read_bytes() == out.read_bytes()


def test_language_tags_are_kept_in_lower_case() -> None:
    """A tag is read in the store's own (lower-case) form, so digests compare like with like."""
    assert language_tag("DE-ch") == "de-ch"
    assert as_object(Literal("x", lang="EN-GB")) == Literal("x", lang="en-gb")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"language": LONG_TAG},
            "language tag 'aaaaaaaaaaaaaaaaaaaa'… is 100 characters long; doxa takes tags of "
            "at most 64, such as 'en' or 'de-CH'.",
        ),
        (
            {"datatype": "xsd:string", "language": "en"},
            "A literal with a language tag has datatype rdf:langString, not xsd:string; give "
            "the datatype or the language, not both.",
        ),
        (
            {"datatype": "gYear"},
            "'gYear' is not a datatype; use xsd:NAME (such as xsd:gYear) or a full IRI.",
        ),
        (
            {"datatype": "xsd:foo bar"},
            "datatype 'xsd:foo bar' is not an absolute IRI; use xsd:NAME (such as xsd:gYear) "
            "or a full IRI.",
        ),
    ],
    ids=["long-tag", "string-with-language", "bare-name", "space"],
)
def test_literal_text_is_refused(arguments: dict[str, str], message: str) -> None:
    """The shared reader of literals given as text (CLI, REST) refuses bad parts exactly."""
    with pytest.raises(doxa.InvalidInput) as caught:
        literal("x", **arguments)
    assert str(caught.value) == message


def test_literal_text_is_read() -> None:
    """Control: a datatype, a language and rdf:langString with a language are read."""
    assert literal("1971", datatype="xsd:gYear") == Literal("1971", datatype=XSD.gYear)
    assert literal("hi", language="EN") == Literal("hi", lang="en")
    assert literal("hi", datatype=str(RDF.langString), language="en") == Literal("hi", lang="en")


XSD_NS = str(XSD)
NOT_XSD = "use one such as xsd:gYear or xsd:integer, or your own datatype's full IRI."
INTEGER_MEANT = f"use xsd:integer ({XSD_NS}integer), or your own datatype's full IRI."


@pytest.mark.parametrize(
    ("datatype", "message"),
    [
        (f"{XSD_NS}nonsense", f"datatype '{XSD_NS}nonsense' is not an XSD datatype; {NOT_XSD}"),
        (f"{XSD_NS}pattern", f"datatype '{XSD_NS}pattern' is not an XSD datatype; {NOT_XSD}"),
        (f"{XSD_NS}Integer", f"datatype '{XSD_NS}Integer' is not an XSD datatype; {INTEGER_MEANT}"),
        (
            "HTTP://WWW.W3.ORG/2001/XMLSchema#integer",
            "datatype 'HTTP://WWW.W3.ORG/2001/XMLSchema#integer' is not an XSD datatype; "
            + INTEGER_MEANT,
        ),
        (
            "https://www.w3.org/2001/XMLSchema#integer",
            "datatype 'https://www.w3.org/2001/XMLSchema#integer' is not an XSD datatype; "
            + INTEGER_MEANT,
        ),
        (
            "xsd:nonsense",
            "'xsd:nonsense' is not an XSD datatype; use one such as xsd:gYear or xsd:integer, "
            "or a full IRI.",
        ),
        (
            "xsd:Integer",
            f"'xsd:Integer' is not an XSD datatype; use xsd:integer ({XSD_NS}integer), or a "
            "full IRI.",
        ),
    ],
    ids=["unknown", "facet", "wrong-case", "upper-case-iri", "https", "short", "short-case"],
)
def test_unknown_xsd_datatypes_are_refused(datatype: str, message: str) -> None:
    """A datatype claiming XSD's namespace must be one of RDF's XSD datatypes, spelt exactly;
    as text or as a doxa.Literal, refused with no warning from rdflib."""
    with pytest.raises(doxa.InvalidInput) as caught:
        literal("12", datatype=datatype)
    assert str(caught.value) == message
    if ":" in datatype and not datatype.startswith("xsd:"):
        with pytest.raises(doxa.InvalidInput) as caught:
            as_object(Literal("12", datatype=URIRef(datatype)))
        assert str(caught.value) == message


@pytest.mark.parametrize(
    ("datatype", "expected"),
    [
        (f"{XSD_NS}integer", XSD.integer),
        ("xsd:integer", XSD.integer),
        ("XSD:integer", XSD.integer),
        (f"{XSD_NS}nonNegativeInteger", XSD.nonNegativeInteger),
        ("http://example.org/myType", URIRef("http://example.org/myType")),
    ],
    ids=["full", "short", "short-upper-prefix", "derived", "own-datatype"],
)
def test_xsd_datatypes_and_own_datatypes_are_read(datatype: str, expected: URIRef) -> None:
    """Control: XSD's datatypes by either spelling, and a datatype of one's own, are read."""
    assert literal("12", datatype=datatype).datatype == expected


def test_unknown_xsd_datatype_is_refused_by_the_gate(memory: doxa.Memory) -> None:
    """Through remember, the unknown datatype is InvalidInput and nothing is stored; the same
    write with xsd:integer is admitted (control)."""
    bad = Literal("12", datatype=URIRef(f"{XSD_NS}nonsense"))
    with pytest.raises(doxa.InvalidInput):
        memory.remember("twelve", topic="t", subject=EX + "a", predicate=EX + "p", object=bad)
    assert memory.facts(topic="t") == []
    good = Literal("12", datatype=XSD.integer)
    receipt = memory.remember(
        "twelve", topic="t", subject=EX + "a", predicate=EX + "p", object=good
    )
    assert receipt.outcome is doxa.Outcome.ADMITTED


# (datatype, a lexical form it refuses, the control it reads): the forms rdflib does not check
LEXICAL_PAIRS = [
    ("gMonth", "13", "--12"),
    ("gMonth", "--13", "--01Z"),
    ("gDay", "--32", "---31"),
    ("yearMonthDuration", "P1Y2D", "P1Y2M"),
    ("dayTimeDuration", "P1Y", "PT5H"),
    ("duration", "1Y", "P1Y2M3DT4H"),
    ("gMonthDay", "--02-30", "--02-29"),
    ("gMonthDay", "--04-31", "--12-31Z"),
    ("language", "a b", "en-GB"),
    ("language", "toolongsubtag-x", "x-private"),
    ("Name", "a b", "foo:bar"),
    ("NCName", "a:b", "ab"),
    ("NMTOKEN", "a b", "1.5-a"),
]


@pytest.mark.parametrize(("datatype", "bad", "good"), LEXICAL_PAIRS)
def test_a_lexical_form_outside_its_datatype_is_refused(datatype: str, bad: str, good: str) -> None:
    """Found by reviewing doxa against its libraries: rdflib reports these forms as well
    typed. gMonth, gDay and the durations are now read by Oxigraph's own XSD casts; a
    gMonthDay must name a day its month has; language and names keep to XSD's patterns.
    The control beside each refusal is a valid form of the same datatype."""
    with pytest.raises(doxa.InvalidInput, match=f"is not a valid {XSD}{datatype}"):
        literal(bad, datatype=f"xsd:{datatype}")
    assert str(literal(good, datatype=f"xsd:{datatype}")) == good


# (datatype, a form rdflib reads and repairs, so the repaired form passed every check, and a
# valid control): found by the integrity review ("1e5"^^xsd:decimal was stored as 100000)
REPAIRED_PAIRS = [
    ("decimal", "1e5", "100000"),
    ("decimal", " 5", "5"),
    ("decimal", "1,5", "1.5"),
    ("integer", "1.0", "1"),
    ("integer", "1e2", "+100"),
    ("boolean", "TRUE", "true"),
    ("boolean", "yes", "1"),
    ("double", "1,5", "1.5E-3"),
    ("dateTime", "2026-01-01", "2026-01-01T00:00:00Z"),
    ("date", "2026-02-30", "2026-02-28"),
    ("time", "25:00:00", "12:00:00"),
    # Oxigraph's duration parser takes a "T" with nothing after it; XSD's pattern does not
    ("duration", "P1Y2MT", "P1Y2M"),
    ("duration", "PT", "PT5S"),
    ("dayTimeDuration", "P1DT", "P1DT2H"),
    ("duration", "P", "-P1D"),
]


@pytest.mark.parametrize(("datatype", "bad", "good"), REPAIRED_PAIRS)
def test_a_lexical_form_is_checked_as_given_not_as_rdflib_repaired_it(
    datatype: str, bad: str, good: str
) -> None:
    """The form the writer gave is checked against its datatype's lexical space before rdflib
    normalises it; the control beside each refusal is a valid form of the same datatype."""
    with pytest.raises(doxa.InvalidInput, match=f"{bad!r} is not a valid {XSD}{datatype}"):
        literal(bad, datatype=f"xsd:{datatype}")
    assert literal(good, datatype=f"xsd:{datatype}").datatype == XSD[datatype]


RDF_JSON = "http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON"


@pytest.mark.parametrize("bad", ["{bad", "", "[1,", "{'a': 1}", "NaN-ish"])
def test_rdf_json_must_be_one_json_text(bad: str) -> None:
    """rdf:JSON's lexical space is JSON text (RDF 1.2); the controls are JSON texts."""
    with pytest.raises(doxa.InvalidInput, match="is not a valid"):
        literal(bad, datatype=RDF_JSON)
    for good in ('{"a": [1, 2]}', "3", '"x"', "null"):
        assert str(literal(good, datatype=RDF_JSON)) == good


@given(value=st.decimals(allow_nan=False, allow_infinity=False, places=3))
def test_decimal_forms_are_read_and_exponent_forms_refused(value: Decimal) -> None:
    """Any decimal written out plainly is read; the same value with an exponent is not a
    decimal's lexical form (it is a double's)."""
    plain = format(value, "f")
    assert literal(plain, datatype="xsd:decimal").datatype == XSD.decimal
    with pytest.raises(doxa.InvalidInput, match="is not a valid"):
        literal(format(value, "e"), datatype="xsd:decimal")
    assert literal(format(value, "e"), datatype="xsd:double").datatype == XSD.double


def test_a_repaired_form_is_refused_through_the_write_arguments() -> None:
    """Every interface reads a write's literal through remember_arguments: "1e5" as a
    decimal is refused there, and the plain "100000" beside it is read."""
    from doxa.scope import Scope
    from doxa.writes import Role, remember_arguments

    base = {"text": "The budget is 100000", "topic": "money", "subject": EX + "budget"}
    base |= {"predicate": EX + "amount", "datatype": "xsd:decimal"}
    with pytest.raises(doxa.InvalidInput, match="'1e5' is not a valid"):
        remember_arguments({**base, "literal": "1e5"}, role=Role.AGENT, scope=Scope("alice"))
    args = remember_arguments({**base, "literal": "100000"}, role=Role.AGENT, scope=Scope("alice"))
    assert str(args["object"]) == "100000"


def test_a_refused_lexical_form_stores_nothing(memory: doxa.Memory) -> None:
    """Through the gate: the write with gMonth 13 is refused and nothing is stored; the
    write with --12 is admitted."""
    with pytest.raises(doxa.InvalidInput):
        memory.remember(
            "Alice's birth month is 13",
            topic="people",
            subject=EX + "alice",
            predicate=EX + "birthMonth",
            object=Literal("13", datatype=XSD.gMonth),
        )
    assert memory.facts() == []
    receipt = memory.remember(
        "Alice's birth month is December",
        topic="people",
        subject=EX + "alice",
        predicate=EX + "birthMonth",
        object=Literal("--12", datatype=XSD.gMonth),
    )
    assert receipt.outcome is doxa.Outcome.ADMITTED


def test_the_ontology_closure_leaves_literal_reading_alone(memory: doxa.Memory) -> None:
    """owlrl's closure used to install its own literal conversions for the whole process
    (and never take them back), after which "--12" read as an ill-typed gMonth and every
    write of one was refused. Closing an ontology (and an inferring audit) must not change
    what a literal is; "13" stays refused (the control)."""
    memory.schema.add_ontology(
        b"@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> ."
        b" ex:birthMonth a owl:DatatypeProperty, owl:FunctionalProperty ."
    )
    memory.admin.audit(infer=True)
    for good in ("--12", "---31", "--02-29"):
        datatype = {"--12": "gMonth", "---31": "gDay", "--02-29": "gMonthDay"}[good]
        assert str(literal(good, datatype=f"xsd:{datatype}")) == good
    with pytest.raises(doxa.InvalidInput):
        literal("13", datatype="xsd:gMonth")


def test_literals_are_read_alike_after_any_owlrl_run_in_the_process() -> None:
    """Any code in the process (a user's own owlrl call over ``Memory.dataset()``, a test)
    may run owlrl with its defaults, which replaces rdflib's literal conversions and never
    restores gMonth, gDay and gMonthDay. doxa's reading of those datatypes must not change:
    the same refusals and controls as before the run."""
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(Graph())
    for datatype, bad, good in LEXICAL_PAIRS:
        with pytest.raises(doxa.InvalidInput):
            literal(bad, datatype=f"xsd:{datatype}")
        assert str(literal(good, datatype=f"xsd:{datatype}")) == good
