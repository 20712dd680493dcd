"""How Python values become RDF terms, for subjects, predicates and objects of claims.

A caller chooses the object's type like this:

- ``doxa.IRI("http://…")`` or an rdflib ``URIRef``: an IRI;
- a ``str``: an IRI when it is an absolute IRI (``scheme:rest`` with no spaces), else a
  plain string literal; wrap it in ``doxa.Literal`` to force a literal;
- ``int``, ``float``, ``Decimal``, ``bool``, ``date``, ``datetime``: the matching XSD literal;
- ``doxa.Literal(value, datatype=XSD.gYear)`` (rdflib's Literal): any typed literal;
  ``doxa.Literal(value, lang="de-CH")``: a language-tagged string.

Every literal the gate admits can be written in every export format (N-Quads, TriG,
Turtle) and read back unchanged: an ill-typed lexical form, a language tag that is not
well-formed BCP 47 (or longer than 64 characters), an ``rdf:langString`` without a
language and a string no format can carry are refused with :class:`~doxa.InvalidInput`.
Language tags are kept in lower case, as the store keeps them.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from doxa.clock import parse_instant
from doxa.errors import InvalidInput
from doxa.store.convert import (
    OXIGRAPH_PARSED,
    language_problem,
    oxigraph_parses,
    unserialisable,
    valid_iri,
)

__all__ = [
    "IRI",
    "as_confidence",
    "as_iri",
    "as_object",
    "as_text",
    "decimal_literal",
    "dt_literal",
    "instant",
    "iri_shaped",
    "language_tag",
    "literal",
]

#: the longest language tag doxa accepts (RFC 5646 sets no limit; 35 characters cover every
#: registered combination, private-use and extension subtags need a little more)
MAX_LANGUAGE = 64
_RDF_DIR_LANG_STRING = URIRef(str(RDF) + "dirLangString")

IRI = URIRef
# lexical forms rdflib does not check (it reports them as not ill-typed, or repairs them)
_TZ = r"(Z|[+-]\d{2}:\d{2})?"
_DATE_PART = r"\d+Y(\d+M)?(\d+D)?|\d+M(\d+D)?|\d+D"
_TIME_PART = r"(\d+H(\d+M)?(\d+(\.\d+)?S)?|\d+M(\d+(\.\d+)?S)?|\d+(\.\d+)?S)"
_FLOAT = r"[+-]?(\d+(\.\d*)?|\.\d+)([Ee][+-]?\d+)?|[+-]?INF|NaN"
_RDF_JSON = URIRef(str(RDF) + "JSON")
_LEXICAL = {
    XSD.gYear: re.compile(rf"^-?\d{{4,}}{_TZ}$"),
    XSD.gYearMonth: re.compile(rf"^-?\d{{4,}}-(0[1-9]|1[0-2]){_TZ}$"),
    XSD.gMonthDay: re.compile(rf"^--(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]){_TZ}$"),
    # XSD's own pattern for xsd:language, and names without white space (XML's NameChar is
    # wider than \w, so only what a name can never hold is refused)
    XSD.language: re.compile(r"^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$"),
    XSD.Name: re.compile(r"^[^\s\d.\-][^\s]*$"),
    XSD.NCName: re.compile(r"^[^\s\d.\-:][^\s:]*$"),
    XSD.NMTOKEN: re.compile(r"^[^\s]+$"),
    # XSD 1.1's own lexical spaces for numbers and booleans (Part 2, 3.3.2-3.3.5, 3.4.13):
    # rdflib reads "1e5" as a decimal and "TRUE" as a boolean, then writes its repair
    XSD.decimal: re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)"),
    XSD.integer: re.compile(r"[+-]?\d+"),
    XSD.double: re.compile(_FLOAT),
    XSD.float: re.compile(_FLOAT),
    XSD.boolean: re.compile(r"true|false|1|0"),
    # XSD 1.1's own patterns for the durations (Part 2, 3.3.6, 3.4.26, 3.4.27): a "T" must
    # be followed by hours, minutes or seconds, which Oxigraph's parser does not insist on
    XSD.duration: re.compile(rf"-?P(({_DATE_PART})(T{_TIME_PART})?|T{_TIME_PART})"),
    XSD.yearMonthDuration: re.compile(r"-?P(\d+Y(\d+M)?|\d+M)"),
    XSD.dayTimeDuration: re.compile(rf"-?P(\d+D(T{_TIME_PART})?|T{_TIME_PART})"),
}
#: the XSD datatypes RDF 1.1 uses (https://www.w3.org/TR/rdf11-concepts/#xsd-datatypes); the
#: rest of the XSD namespace names facets and helpers (xsd:pattern, xsd:length), not datatypes
XSD_DATATYPES = frozenset(
    {
        "string", "boolean", "decimal", "integer", "double", "float",
        "date", "time", "dateTime", "dateTimeStamp",
        "gYear", "gMonth", "gDay", "gYearMonth", "gMonthDay",
        "duration", "yearMonthDuration", "dayTimeDuration",
        "byte", "short", "int", "long",
        "unsignedByte", "unsignedShort", "unsignedInt", "unsignedLong",
        "positiveInteger", "nonNegativeInteger", "negativeInteger", "nonPositiveInteger",
        "hexBinary", "base64Binary", "anyURI",
        "language", "normalizedString", "token", "NMTOKEN", "Name", "NCName",
    }
)  # fmt: skip
# the XSD namespace as spelt in a datatype IRI, case-folded, by either scheme: a datatype
# whose IRI matches it this way claims to be XSD's and must be one of the above, exactly
_XSD_LOOKALIKES = ("http://www.w3.org/2001/xmlschema#", "https://www.w3.org/2001/xmlschema#")
_ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+$")


def iri_shaped(text: str) -> bool:
    """Whether ``text`` has the shape of an absolute IRI (``scheme:rest``, no spaces): such a
    text is read as an IRI (and refused if it is not a valid one), never as a name.

    >>> iri_shaped("mailto:bob@example.org"), iri_shaped("a:b%zz"), iri_shaped("supplier call")
    (True, True, False)
    """
    return bool(_ABSOLUTE_IRI.match(text))


def as_iri(value: object, what: str) -> URIRef:
    """Read an absolute IRI, or say what to pass instead.

    >>> as_iri("http://example.org/a", "subject")
    rdflib.term.URIRef('http://example.org/a')
    """
    text = str(value) if isinstance(value, URIRef | str) else None
    if text is None or not _ABSOLUTE_IRI.match(text) or not valid_iri(text):
        raise InvalidInput(
            f"{what} {value!r} is not an absolute IRI; pass one such as "
            "'http://example.org/supplierCall'."
        )
    return URIRef(text)


def as_object(value: object) -> URIRef | Literal:
    """Read a claim's object: an IRI or a literal (see the module docs for the rules).

    >>> as_object(1971)
    rdflib.term.Literal('1971', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
    >>> as_object("Wednesday")
    rdflib.term.Literal('Wednesday')
    """
    if isinstance(value, URIRef):
        return as_iri(value, "object")
    if isinstance(value, Literal):
        return _checked_literal(value)
    if isinstance(value, str):
        if _ABSOLUTE_IRI.match(value) and valid_iri(value):
            return URIRef(value)
        return Literal(as_text(value, "object"))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidInput(f"object {value!r} is not a finite number; pass a real value.")
        return decimal_literal(value)
    if isinstance(value, bool | int | float | date | datetime):
        return Literal(value)
    raise InvalidInput(
        f"object {value!r} has type {type(value).__name__}; pass an IRI, a string, a number, "
        "a date or a doxa.Literal."
    )


def _checked_literal(value: Literal, lexical: str | None = None) -> Literal:
    """A literal every export format carries, its language tag in lower case.

    ``lexical`` is the form the writer gave, when rdflib normalised it on the way in
    (``Literal("1e5", datatype=XSD.decimal)`` reads as ``"100000"``): a form outside its
    datatype's lexical space is refused as given, not after rdflib repaired it.
    """
    as_text(str(value), "object")
    given = str(value) if lexical is None else lexical
    if value.language is not None:
        value = Literal(str(value), lang=language_tag(value.language))
    elif value.datatype in (RDF.langString, _RDF_DIR_LANG_STRING):
        raise InvalidInput(
            f"object {str(value)!r} has datatype {value.datatype} but no language tag; give "
            "a language (such as 'en') or drop the datatype."
        )
    elif value.datatype is not None:
        if not valid_iri(str(value.datatype)):
            raise InvalidInput(
                f"datatype {str(value.datatype)!r} is not an absolute IRI; use one such as "
                "xsd:gYear (http://www.w3.org/2001/XMLSchema#gYear)."
            )
        _check_xsd(value.datatype)
        pattern = _LEXICAL.get(value.datatype)
        by_oxigraph = str(value.datatype) in OXIGRAPH_PARSED
        # rdflib's ill_typed depends on a conversion table any code in the process may
        # replace (owlrl does, for every DeductiveClosure run with its defaults, and never
        # restores gMonth, gDay or gMonthDay), so the datatypes doxa reads itself ignore it
        if (
            (pattern is None and not by_oxigraph and value.ill_typed)
            or (pattern is not None and not pattern.fullmatch(given))
            or (by_oxigraph and not oxigraph_parses(given, str(value.datatype)))
            or (value.datatype == XSD.gMonthDay and not _day_in_month(given))
            or (value.datatype == _RDF_JSON and not _json_text(given))
        ):
            raise InvalidInput(
                f"object {given!r} is not a valid {value.datatype}; fix the value or the datatype."
            )
    failing = unserialisable(value)
    if failing is not None:
        raise InvalidInput(
            f"object {str(value)!r} cannot be written as {failing} and read back unchanged; "
            "change the value or its datatype."
        )
    return value


_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # a gMonthDay has no year


def _json_text(lexical: str) -> bool:
    """Whether ``lexical`` is in rdf:JSON's lexical space: one JSON text (RDF 1.2)."""
    try:
        json.loads(lexical)
    except ValueError:
        return False
    return True


def _day_in_month(lexical: str) -> bool:
    """Whether a gMonthDay (already matching its pattern) names a day its month has:
    "--02-29" yes, "--02-30" and "--04-31" no."""
    month, day = int(lexical[2:4]), int(lexical[5:7])
    return day <= _DAYS_IN_MONTH[month - 1]


def _check_xsd(datatype: URIRef) -> None:
    """Refuse a datatype that claims XSD's namespace but is not one of its RDF datatypes.

    rdflib admits ``xsd:nonsense`` as an unknown type (and warns); stored, it would never
    compare with anything. Look-alike spellings (``HTTP://WWW.W3.ORG/...``, ``https``) are
    refused too, naming the datatype meant, rather than becoming a private datatype.
    """
    text = str(datatype)
    folded = text.casefold()
    prefix = next((p for p in _XSD_LOOKALIKES if folded.startswith(p)), None)
    if prefix is None:
        return
    name = text[len(prefix) :]
    if text == str(XSD) + name and name in XSD_DATATYPES:
        return
    raise InvalidInput(
        f"datatype {text!r} is not an XSD datatype; {_xsd_hint(name)}, or your own "
        "datatype's full IRI."
    )


def _xsd_hint(name: str) -> str:
    """What to use instead of XSD datatype ``name``: the one it misspells, or an example."""
    meant = next((n for n in sorted(XSD_DATATYPES) if n.casefold() == name.casefold()), None)
    if meant is None:
        return "use one such as xsd:gYear or xsd:integer"
    return f"use xsd:{meant} ({XSD}{meant})"


def language_tag(value: object) -> str:
    """Read a BCP 47 language tag (RFC 5646), in lower case as the store keeps it.

    The tag is parsed subtag by subtag; one that is not well-formed, or longer than
    :data:`MAX_LANGUAGE` characters, raises :class:`~doxa.InvalidInput`.

    >>> language_tag("de-CH")
    'de-ch'
    """
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"language {value!r} is not a language tag; use one such as 'en'.")
    if len(value) > MAX_LANGUAGE:
        raise InvalidInput(
            f"language tag {value[:20]!r}… is {len(value)} characters long; doxa takes tags of "
            f"at most {MAX_LANGUAGE}, such as 'en' or 'de-CH'."
        )
    problem = language_problem(value)
    if problem is not None:
        raise InvalidInput(
            f"language {value!r} is not a BCP 47 language tag ({problem}); use one such as "
            "'en' or 'de-CH'."
        )
    return value.lower()


def literal(lexical: str, *, datatype: str | None = None, language: str | None = None) -> Literal:
    """Read a literal given as text: a lexical form with an optional datatype or language.

    ``datatype`` is ``xsd:NAME`` or an absolute IRI. The literal is checked as
    :func:`as_object` checks one; a bad value raises :class:`~doxa.InvalidInput` saying what to
    pass instead. The CLI, the REST API and MCP read literals through this one function.

    >>> literal("1971", datatype="xsd:gYear")
    rdflib.term.Literal('1971', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#gYear'))
    >>> literal("Mittwoch", language="de")
    rdflib.term.Literal('Mittwoch', lang='de')
    """
    as_text(lexical, "literal")
    iri: URIRef | None = None
    if datatype is not None:
        as_text(datatype, "datatype")
        short = datatype[:4].casefold() == "xsd:"
        if short:
            iri = URIRef(str(XSD) + datatype[4:])
        elif ":" in datatype:
            iri = URIRef(datatype)
        else:
            raise InvalidInput(
                f"{datatype!r} is not a datatype; use xsd:NAME (such as xsd:gYear) or a full IRI."
            )
        if not valid_iri(str(iri)):
            raise InvalidInput(
                f"datatype {datatype!r} is not an absolute IRI; use xsd:NAME (such as "
                "xsd:gYear) or a full IRI."
            )
        if short and datatype[4:] not in XSD_DATATYPES:
            raise InvalidInput(
                f"{datatype!r} is not an XSD datatype; {_xsd_hint(datatype[4:])}, or a full IRI."
            )
    if language is not None:
        if iri is not None and iri != RDF.langString:
            raise InvalidInput(
                f"A literal with a language tag has datatype rdf:langString, not {datatype}; "
                "give the datatype or the language, not both."
            )
        return _checked_literal(Literal(lexical, lang=language_tag(language)))
    logger = logging.getLogger("rdflib.term")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # rdflib logs a traceback for an unparsable value
    try:
        made = Literal(lexical, datatype=iri)
    finally:
        logger.setLevel(level)
    return _checked_literal(made, lexical)


def as_text(value: object, what: str) -> str:
    """Check a string can be stored: a str, encodable as UTF-8 (no lone surrogates)."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} {value!r} is not a string; pass text.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            f"{what} holds a character that is not valid Unicode text (a lone surrogate); "
            "fix the text's encoding."
        ) from None
    return value


def decimal_literal(value: Decimal) -> Literal:
    """An xsd:decimal in plain notation (``1E-30`` is not a valid decimal lexical form)."""
    return Literal(format(value, "f"), datatype=XSD.decimal)


@functools.lru_cache(maxsize=4096)
def dt_literal(value: datetime | str) -> Literal:
    """An xsd:dateTime literal in UTC (remembered: a write stamps the same instant often)."""
    return Literal(parse_instant(value).isoformat().replace("+00:00", "Z"), datatype=XSD.dateTime)


def instant(node: object) -> datetime:
    """The datetime an xsd:dateTime literal holds (the inverse of :func:`dt_literal`).

    >>> instant(dt_literal("2026-03-05")).isoformat()
    '2026-03-05T00:00:00+00:00'
    """
    return parse_instant(str(node))


def as_confidence(value: object) -> Decimal:
    """Read a confidence as a Decimal; the range [0, 1] is the shapes' job."""
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        number = Decimal("NaN")
    if isinstance(value, bool) or not number.is_finite():
        raise InvalidInput(f"confidence {value!r} is not a number; use a value from 0 to 1.")
    return number
