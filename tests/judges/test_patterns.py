"""Patterns: two texts that differ in one span are one sentence with another value. Each
refused pair sits beside an accepted one of the same shape, so a test that passes because
nothing aligns at all cannot hide."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.timing import cpu_seconds

from doxa.judges.patterns import Alignment, align, head_key

# (new, old, pattern, new value, old value): the same sentence with another value
ALIGNED = [
    ("Bob lives in Berlin", "Bob lives in Paris", "<name> lives in <value>", "Berlin", "Paris"),
    ("Bob lives in New York", "Bob lives in Paris", "<name> lives in <value>", "New York", "Paris"),
    (
        "Bob lives in New York",
        "Bob lives in New Jersey",
        "<name> lives in <value>",
        "New York",
        "New Jersey",
    ),
    ("Alice prefers coffee", "Alice prefers tea.", "<name> prefers <value>", "coffee", "tea"),
    (
        "Maria Keller was born in the city of Leeds",
        "Maria Keller was born in the city of London",
        "<name> was born in the city of <value>",
        "Leeds",
        "London",
    ),
    (
        "Alice's favourite colour is green",
        "Alice's favourite colour is blue",
        "<name>'s favourite colour is <value>",
        "green",
        "blue",
    ),
    (
        "Bob drives an Audi",
        "Bob drives a Honda Civic",
        "<name> drives <value>",
        "an Audi",
        "a Honda Civic",
    ),
    ("Bob sits in Room 14", "Bob sits in Room 12", "<name> sits in <value>", "Room 14", "Room 12"),
    (
        "Bob sits in the Library",
        "Bob sits in Room 12",
        "<name> sits in <value>",
        "the Library",
        "Room 12",
    ),
    (
        "Bob sits in the Library",
        "Bob sits in the Annex",
        "<name> sits in <value>",
        "the Library",
        "the Annex",
    ),
    (
        "Bob reports to Dave Smith",
        "Bob reports to Carol",
        "<name> reports to <value>",
        "Dave Smith",
        "Carol",
    ),
    (
        "Bob's phone number is now 555-0199",
        "Bob's phone number is 555-0101",
        "<name>'s phone number is <value>",
        "555-0199",
        "555-0101",
    ),
    (
        "Bob's phone number changed to 555-0199",
        "Bob's phone number is 555-0101",
        "<name>'s phone number is <value>",
        "555-0199",
        "555-0101",
    ),
    (
        "Lena's team uses Bazel for builds",
        "Lena's team uses Make for builds",
        "<name>'s team uses <value> for builds",  # the value in the middle
        "Bazel",
        "Make",
    ),
    (
        "Bob works at Zeta Labs",
        "Bob works at Acme Labs",
        "<name> works at <value>",
        "Zeta Labs",
        "Acme Labs",
    ),
    ("Bob is 35 years old", "Bob is 34 years old", "<name> is <value> years old", "35", "34"),
    (
        "The weekly supplier call is on Thursday",
        "The weekly supplier call is on Wednesday",
        "the weekly supplier call is on <value>",
        "Thursday",
        "Wednesday",
    ),
    ("I live in Lyon", "I live in Paris", "i live in <value>", "Lyon", "Paris"),
    # a many-valued pattern aligns too: the owner's answer for the pattern keeps it many
    ("Alice speaks German", "Alice speaks French", "<name> speaks <value>", "German", "French"),
]


@pytest.mark.parametrize(("new", "old", "pattern", "new_value", "old_value"), ALIGNED)
def test_the_same_sentence_with_another_value_aligns(
    new: str, old: str, pattern: str, new_value: str, old_value: str
) -> None:
    found = align(new, old)
    assert found is not None
    assert (found.pattern, found.new_value, found.old_value) == (pattern, new_value, old_value)
    assert len(found.key) == 24
    assert int(found.key, 16) >= 0
    assert head_key(new) == head_key(old) is not None


# (id, aligned control, refused pair): the same shape, one thing changed
REFUSED = [
    ("verb", ("Bob lives in Paris", "Bob lives in Berlin"), ("Bob lives in Paris", "Bob works in Paris")),
    ("tense", ("The call is on Monday", "The call is on Friday"), ("The call is on Monday", "The call was on Monday")),
    ("preposition", ("Bob lives in Paris", "Bob lives in Lyon"), ("Bob lives in Paris", "Bob lives near Paris")),
    ("attribute", ("The meeting is at 10", "The meeting is at 11"), ("The meeting is on Monday", "The meeting is at 10")),
    ("negation", ("Alice speaks French", "Alice speaks German"), ("Alice speaks French", "Alice does not speak German")),
    ("n't", ("Alice speaks French", "Alice speaks German"), ("Alice doesn't speak French", "Alice doesn't speak German")),
    ("never", ("Bob drinks tea", "Bob drinks coffee"), ("Bob never drinks tea", "Bob never drinks coffee")),
    ("list", ("Bob lives in Paris", "Bob lives in Rome"), ("Bob lives in Paris", "Bob lives in Paris and Rome")),
    ("or", ("Bob lives in Paris", "Bob lives in Rome"), ("Bob lives in Paris", "Bob lives in Paris or Rome")),
    ("slash", ("Bob lives in Paris", "Bob lives in Rome"), ("Bob lives in Paris", "Bob lives in Paris/Rome")),
    ("also", ("Bob lives in Paris", "Bob lives in Berlin"), ("Bob lives in Paris", "Bob also lives in Berlin")),
    ("too", ("Bob visited Rome", "Bob visited Oslo"), ("Bob visited Rome", "Bob visited Oslo too")),
    ("only", ("Bob eats fish", "Bob eats rice"), ("Bob eats fish", "Bob eats only rice")),
    ("detail", ("Bob lives in Paris France", "Bob lives in Lyon France"), ("Bob lives in Paris", "Bob lives in Paris France")),
    ("long value", ("Bob works at Acme", "Bob works at the big red barn"), ("Bob works at Acme", "Bob works at the big red old barn")),
    ("short prefix", ("Bob's city is Paris", "Bob's city is Rome"), ("Paris is where Bob lives", "Rome is where Bob lives")),
    ("generic", ("Bob is 34 years old", "Bob is 35 years old"), ("Bob is tall", "Bob is kind")),
    ("class", ("Bob works as a doctor", "Bob works as a teacher"), ("Bob is a doctor", "Bob is a teacher")),
    ("statement", ("Bob's phone number is 555-0101", "Bob's phone number is 555-0199"), ("Bob's phone number is 555-0101", "Bob's phone plan is Basic")),
    ("subject in the middle", ("The call with Nils is on Friday", "The call with Nils is on Monday"), ("The call with Nils is on Friday", "The call with Omar is on Friday")),
    ("list item", ("Bob speaks French", "Bob speaks Dutch"), ("Bob speaks French and German", "Bob speaks French and Dutch")),
    ("identical", ("Bob lives in Paris", "Bob lives in Rome"), ("Bob lives in Paris", "bob  lives in PARIS.")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("control", "refused"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_not_another_value_beside_a_control_that_is(
    control: tuple[str, str], refused: tuple[str, str]
) -> None:
    assert align(*control) is not None
    assert align(*refused) is None
    assert align(*reversed(refused)) is None


def test_other_subjects_never_align_but_share_the_pattern() -> None:
    """ "Bob lives in Paris" and "Carol lives in Paris" are two slots, not two values of one;
    each against its own other value gives the same pattern and key."""
    assert align("Bob lives in Paris", "Carol lives in Paris") is None
    assert align("Bob lives in Berlin", "Carol lives in Paris") is None
    bob = align("Bob lives in Paris", "Bob lives in Berlin")
    carol = align("Carol lives in Paris", "Carol lives in Rome")
    maria = align("Maria Keller lives in Oslo", "Maria Keller lives in Rome")
    assert bob is not None
    assert carol is not None
    assert maria is not None
    assert bob.pattern == carol.pattern == maria.pattern == "<name> lives in <value>"
    assert bob.key == carol.key == maria.key
    assert bob.subject != carol.subject != maria.subject  # names stay in the slot
    # a control: another sentence is another pattern
    other = align("Bob works in Paris", "Bob works in Berlin")
    assert other is not None
    assert other.key != bob.key


def test_the_subject_keeps_names_and_the_value_slot() -> None:
    found = align("Bob's manager is Carol", "Bob's manager is Dave")
    assert found is not None
    assert found.pattern == "<name>'s manager is <value>"
    assert found.subject == "bob s manager is <value>"


def test_function_words_that_start_a_sentence_are_not_names() -> None:
    found = align("The Acme contract ends in March", "The Acme contract ends in May")
    assert found is not None
    assert found.pattern == "the <name> contract ends in <value>"


def test_a_text_in_capitals_marks_no_names() -> None:
    shouted = align("BOB LIVES IN BERLIN", "BOB LIVES IN PARIS")
    assert shouted is not None
    assert shouted.pattern == "bob lives in <value>"
    # against a text written in cases, the names of either text count
    mixed = align("BOB LIVES IN BERLIN", "Bob lives in Paris")
    plain = align("Bob lives in Berlin", "Bob lives in Paris")
    assert mixed is not None
    assert plain is not None
    assert mixed.key == plain.key


# -- properties ----------------------------------------------------------------------------

NAMES = ("Bob", "Alice", "Maria Keller", "Jonas", "Ana Lopez", "Omar")
FRAMES = (
    "{s} lives in {v}",
    "{s} works at {v}",
    "{s}'s favourite colour is {v}",
    "{s} was born in the city of {v}",
    "{s}'s team uses {v} for builds",
    "{s} reports to {v}",
    "{s} drives a {v}",
    "{s} speaks {v}",
)
VALUES = (
    "Paris",
    "New York",
    "Acme Labs",
    "green",
    "Bazel",
    "Carol",
    "Honda Civic",
    "German",
    "555-0101",
)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[str, str]:
    frame = draw(st.sampled_from(FRAMES))
    subject = draw(st.sampled_from(NAMES))
    one, two = draw(st.lists(st.sampled_from(VALUES), min_size=2, max_size=2, unique=True))
    return frame.format(s=subject, v=one), frame.format(s=subject, v=two)


@given(st.text(max_size=200))
def test_a_text_never_aligns_with_itself(text: str) -> None:
    assert align(text, text) is None
    head_key(text)  # never raises


@given(st.text(max_size=120), st.text(max_size=120))
def test_any_two_texts_align_symmetrically(a: str, b: str) -> None:
    _symmetric(a, b)


@given(pairs())
def test_alignment_is_symmetric(pair: tuple[str, str]) -> None:
    found = _symmetric(*pair)
    assert found is not None
    assert head_key(pair[0]) == head_key(pair[1]) is not None


def _symmetric(a: str, b: str) -> Alignment | None:
    one, other = align(a, b), align(b, a)
    assert (one is None) == (other is None)
    if one is None or other is None:
        return None
    assert (one.pattern, one.key, one.subject) == (other.pattern, other.key, other.subject)
    assert (one.new_value, one.old_value) == (other.old_value, other.new_value)
    assert head_key(a) == head_key(b) is not None
    return one


# Cyrillic and Greek letters that read as Latin ones (Unicode TR39 confusables)
LOOKALIKES = {
    "a": "\u0430",
    "e": "\u0435",
    "o": "\u043e",
    "p": "\u0440",
    "c": "\u0441",
    "B": "\u0392",
}


@given(pairs(), st.data())
def test_look_alike_letters_do_not_change_the_key(
    pair: tuple[str, str], data: st.DataObject
) -> None:
    new, old = pair
    spots = [i for i, c in enumerate(new) if c in LOOKALIKES]
    chosen = data.draw(st.sets(st.sampled_from(spots), min_size=1)) if spots else set()
    disguised = "".join(LOOKALIKES[c] if i in chosen else c for i, c in enumerate(new))
    plain, found = align(new, old), align(disguised, old)
    assert plain is not None
    assert found is not None
    assert (found.key, found.subject) == (plain.key, plain.subject)


@given(pairs(), st.sampled_from(["value", "inner", "stop"]))
def test_a_change_of_case_does_not_change_the_key(pair: tuple[str, str], how: str) -> None:
    """The value's case, any letter but a word's first, and the first letter of a function
    word ("the"/"The") are not what a pattern is made of."""
    new, old = pair
    plain = align(new, old)
    assert plain is not None
    if how == "value":
        changed = new.replace(plain.new_value, plain.new_value.swapcase())
    elif how == "inner":
        changed = " ".join(w[:1] + w[1:].swapcase() for w in new.split(" "))
    else:
        changed = " ".join(
            w.capitalize() if w in ("the", "in", "at", "for", "a") else w for w in new.split(" ")
        )
    found = align(changed, old)
    assert found is not None
    assert (found.key, found.subject) == (plain.key, plain.subject)


# -- bounds --------------------------------------------------------------------------------


@pytest.mark.parametrize("piece", ["Bob lives in Paris ", "a" * 50 + " ", "é\u200b ", "Bob's "])
def test_a_megabyte_of_text_returns_at_once(piece: str) -> None:
    big = (piece * (1_000_000 // len(piece) + 1))[:1_000_000]
    assert align(big, big + "x") is None
    assert head_key(big) is None
    # no more than a short sentence costs, give or take the machine's noise
    short = cpu_seconds(lambda: align("Bob lives in Berlin", "Bob lives in Paris"))
    assert cpu_seconds(lambda: align(big, big + "x"), runs=3) <= 20 * short + 0.01
    assert cpu_seconds(lambda: head_key(big), runs=3) <= 20 * short + 0.01


def test_a_text_past_64_tokens_never_aligns() -> None:
    """Control: 60 tokens align; 70 do not, whatever the difference."""
    head = "Bob lives in " + "very " * 56
    assert align(head + "Paris", head + "Rome") is not None
    longer = "Bob lives in " + "very " * 66
    assert align(longer + "Paris", longer + "Rome") is None
    assert head_key(longer + "Paris") is None
