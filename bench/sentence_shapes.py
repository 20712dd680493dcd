"""Sentence shapes for ``bench_patterns.py``: many families of plain sentences, each in
several wordings, with what the owner knows about each (one value at a time, many, or a value
that never changes), and a seeded stream of writes over many subjects.

A *slot* is one subject in one family, written in one wording for its whole life (an agent
keeps its phrasing; ``reword`` makes a share of later writes use another wording of the same
family, which no span alignment can line up: reported, not targeted). A *pattern*, as the
owner sees it, is a family's wording: "{s} lives in {v}" is one pattern for every subject.

- **one**: the value changes over time (a move, a new job): each later value ends the one
  before (``replaces``);
- **many**: values add up (languages, places visited, pets): closing one is a wrong closing;
- **fixed**: the value cannot change (a birthplace): a second value says the first was wrong
  (``was_wrong``).

Besides the slots, ``notes`` is the share of writes that are one-off notes in a few shapes
("Ask Bob about the Atlas budget before Friday"): nothing to close, so a hold is needless.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

Kind = Literal["one", "many", "fixed", "note"]

FIRST = (
    "Alice", "Bob", "Maria", "Jonas", "Lena", "Omar", "Yuki", "Priya", "Tom", "Ana", "Ravi",
    "Eva", "Carlos", "Ines", "Hugo", "Mei", "Kofi", "Sara", "Nils", "Leila", "Dmitri", "Zoe",
    "Pablo", "Aiko", "Felix", "Nadia", "Oscar", "Greta", "Ivan", "Chloe",
)  # fmt: skip
LAST = (
    "Costa", "Weber", "Keller", "Silva", "Novak", "Haddad", "Tanaka", "Rossi", "Berg",
    "Lopez", "Shah", "Lind", "Moreau", "Okafor", "Jansen", "Kowalski", "Fischer", "Dubois",
)  # fmt: skip
CITIES = (
    "Paris", "Berlin", "Lisbon", "Vienna", "Oslo", "Madrid", "Prague", "Dublin", "New York",
    "Buenos Aires", "Rome", "Seoul", "Cape Town", "Lyon", "Porto", "Kyoto", "Leeds",
)  # fmt: skip
ORGS = (
    "Acme", "Acme Labs", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Wayne",
    "Hooli", "Vandelay Imports", "Cyberdyne", "Soylent", "Tyrell",
)  # fmt: skip
PEOPLE = tuple(f"{f} {last}" for f, last in zip(FIRST[::2], LAST, strict=False))
DRINKS = ("tea", "coffee", "green tea", "espresso", "hot chocolate", "sparkling water", "mate")
COLOURS = ("blue", "green", "red", "yellow", "purple", "orange", "teal", "dark green")
CARS = ("Honda Civic", "Tesla", "Volvo", "Audi", "Fiat Panda", "Toyota Corolla", "Renault Clio")
TOOLS = ("Bazel", "Make", "Gradle", "Maven", "CMake", "Ninja", "Buck", "Pants")
ROOMS = ("Room 12", "Room 14", "Room 3B", "the Library", "the Annex", "Room 21")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
TITLES = ("engineer", "senior engineer", "designer", "product manager", "analyst", "team lead")
PROJECTS = ("Cobalt", "Atlas", "Nimbus", "Orion", "Zephyr", "Helix", "Quartz")
GYMS = ("Iron Temple", "FitHub", "Pulse", "the YMCA", "Core Club")
AIRPORTS = ("Heathrow", "Schiphol", "Tegel", "JFK", "Haneda", "Changi", "Orly")
DENTISTS = ("Dr Meyer", "Dr Alvarez", "Dr Chen", "Dr Okoro", "Dr Novak")
SEATS = ("window", "aisle", "front row", "exit row")
BANKS = ("Monzo", "ING", "Barclays", "N26", "Santander", "HSBC")
PLANS = ("Basic", "Premium", "Family", "Student", "Business")
LANGUAGES = ("French", "German", "Spanish", "Italian", "Dutch", "Polish", "Greek", "Japanese")
FOODS = ("sushi", "pasta", "curry", "tacos", "dumplings", "pho", "paella", "ramen")
PETS = ("cat", "dog", "parrot", "rabbit", "hamster", "tortoise")
SPORTS = ("tennis", "football", "chess", "golf", "squash", "volleyball", "badminton")
ALLERGENS = ("peanuts", "shellfish", "pollen", "penicillin", "cats", "dust")
GENRES = ("poetry", "thrillers", "history books", "science fiction", "comics")
COLLECTIONS = ("stamps", "coins", "vinyl records", "old maps", "postcards")
CODE = ("Python", "Rust", "Go", "Haskell", "Java", "Kotlin", "OCaml")
YEARS = tuple(str(y) for y in range(1961, 2001))
BIRTHDAYS = ("3 May", "12 June", "1 March", "28 October", "9 July", "17 January")
EYES = ("brown", "blue", "green", "grey", "hazel")


def _numbers(seed: int, pattern: str, count: int) -> tuple[str, ...]:
    rng = random.Random(seed)
    return tuple(pattern.format(rng.randrange(1000, 10000)) for _ in range(count))


PHONES = _numbers(1, "555-{:04d}", 60)
EMAILS = tuple(
    f"{f.lower()}.{n}@example.org" for f, n in zip(FIRST * 2, range(100, 160), strict=False)
)
RENTS = tuple(str(r) for r in range(800, 2400, 50))
AGES = tuple(str(a) for a in range(21, 70))


@dataclass(frozen=True)
class Family:
    """One kind of statement: what the owner knows of it, and its wordings."""

    name: str
    kind: Kind
    topic: str
    wordings: tuple[str, ...]  # "{s}": the subject, "{v}": the value
    values: tuple[str, ...]


FAMILIES: tuple[Family, ...] = (
    # one value at a time: later values replace earlier ones
    Family(
        "home city",
        "one",
        "home",
        ("{s} lives in {v}", "{s} is living in {v}", "{s}'s home is in {v}"),
        CITIES,
    ),
    Family(
        "relocation",
        "one",
        "home",
        ("{s} moved to {v}", "{s} has moved to {v}", "{s} relocated to {v}"),
        CITIES,
    ),
    Family(
        "employer",
        "one",
        "work",
        ("{s} works at {v}", "{s} is employed by {v}", "{s}'s employer is {v}"),
        ORGS,
    ),
    Family(
        "drink",
        "one",
        "tastes",
        ("{s} prefers {v}", "{s}'s usual drink is {v}", "{s} drinks {v} in the morning"),
        DRINKS,
    ),
    Family(
        "colour",
        "one",
        "tastes",
        (
            "{s}'s favourite colour is {v}",
            "{s}'s favorite color is {v}",
            "The favourite colour of {s} is {v}",
        ),
        COLOURS,
    ),
    Family(
        "car",
        "one",
        "travel",
        ("{s} drives a {v}", "{s}'s car is a {v}", "{s} commutes in a {v}"),
        CARS,
    ),
    Family(
        "manager",
        "one",
        "work",
        ("{s} reports to {v}", "{s}'s manager is {v}", "{s}'s line manager is {v}"),
        PEOPLE,
    ),
    Family(
        "phone",
        "one",
        "contact",
        (
            "{s}'s phone number is {v}",
            "{s} can be reached on {v}",
            "The phone number of {s} is {v}",
        ),
        PHONES,
    ),
    Family(
        "spouse",
        "one",
        "family",
        ("{s} is married to {v}", "{s}'s partner is {v}", "{s} is in a relationship with {v}"),
        PEOPLE,
    ),
    Family(
        "build tool",
        "one",
        "work",
        (
            "{s}'s team uses {v} for builds",
            "{s}'s team builds with {v}",
            "The build tool of {s}'s team is {v}",
        ),
        TOOLS,
    ),
    Family(
        "desk",
        "one",
        "work",
        ("{s}'s desk is in {v}", "{s} sits in {v}", "{s} works from {v} most days"),
        ROOMS,
    ),
    Family(
        "call day",
        "one",
        "schedule",
        (
            "{s}'s weekly call is on {v}",
            "{s} holds the weekly call on {v}",
            "The weekly call with {s} is on {v}",
        ),
        DAYS,
    ),
    Family(
        "job title",
        "one",
        "work",
        ("{s}'s job title is {v}", "{s}'s role is {v}", "{s}'s current position is {v}"),
        TITLES,
    ),
    Family(
        "rent",
        "one",
        "home",
        ("{s}'s rent is {v} euros a month", "{s} pays {v} euros in rent"),
        RENTS,
    ),
    Family(
        "email",
        "one",
        "contact",
        ("{s}'s email address is {v}", "{s} can be emailed at {v}", "{s} reads mail at {v}"),
        EMAILS,
    ),
    Family(
        "project",
        "one",
        "work",
        ("{s} is working on {v}", "{s}'s current project is {v}", "{s} leads the {v} project"),
        PROJECTS,
    ),
    Family("gym", "one", "health", ("{s}'s gym is {v}", "{s} trains at {v}"), GYMS),
    Family(
        "airport",
        "one",
        "travel",
        ("{s}'s home airport is {v}", "{s} usually flies from {v}"),
        AIRPORTS,
    ),
    Family(
        "dentist",
        "one",
        "health",
        ("{s}'s dentist is {v}", "{s} goes to {v} for dental care"),
        DENTISTS,
    ),
    Family(
        "seat",
        "one",
        "travel",
        ("{s}'s preferred seat is the {v}", "{s} always books a {v} seat"),
        SEATS,
    ),
    Family("age", "one", "family", ("{s} is {v} years old", "{s}'s age is {v}"), AGES),
    Family(
        "bank",
        "one",
        "finance",
        ("{s} banks with {v}", "{s}'s bank is {v}", "{s}'s salary goes to {v}"),
        BANKS,
    ),
    Family(
        "phone plan", "one", "contact", ("{s} is on the {v} plan", "{s}'s phone plan is {v}"), PLANS
    ),
    # many values at once: closing one is a wrong closing
    Family(
        "languages",
        "many",
        "skills",
        ("{s} speaks {v}", "{s} is fluent in {v}", "{s} can speak {v}"),
        LANGUAGES,
    ),
    Family(
        "visited",
        "many",
        "travel",
        ("{s} has visited {v}", "{s} visited {v}", "{s} has been to {v}"),
        CITIES,
    ),
    Family(
        "food", "many", "tastes", ("{s} likes {v}", "{s} enjoys {v}", "{s} loves eating {v}"), FOODS
    ),
    Family(
        "pets",
        "many",
        "family",
        ("{s} owns a {v}", "{s} has a pet {v}", "{s} keeps a {v} at home"),
        PETS,
    ),
    Family(
        "sports",
        "many",
        "health",
        ("{s} plays {v}", "{s} plays {v} on weekends", "{s} is good at {v}"),
        SPORTS,
    ),
    Family(
        "allergies",
        "many",
        "health",
        ("{s} is allergic to {v}", "{s} has an allergy to {v}"),
        ALLERGENS,
    ),
    Family("reading", "many", "tastes", ("{s} reads {v}", "{s} enjoys reading {v}"), GENRES),
    Family(
        "collecting",
        "many",
        "tastes",
        ("{s} collects {v}", "{s} has a collection of {v}"),
        COLLECTIONS,
    ),
    Family(
        "code",
        "many",
        "skills",
        ("{s} writes code in {v}", "{s} programs in {v}", "{s} knows {v}"),
        CODE,
    ),
    # never changes: a second value says the first was wrong
    Family(
        "birthplace",
        "fixed",
        "identity",
        ("{s} was born in {v}", "{s}'s birthplace is {v}", "{s} was born in the city of {v}"),
        CITIES,
    ),
    Family(
        "birth year",
        "fixed",
        "identity",
        ("{s}'s birth year is {v}", "{s} was born in the year {v}"),
        YEARS,
    ),
    Family(
        "birthday",
        "fixed",
        "identity",
        ("{s}'s birthday is on {v}", "{s} was born on {v}"),
        BIRTHDAYS,
    ),
    Family(
        "native language",
        "fixed",
        "identity",
        ("{s}'s native language is {v}", "{s}'s mother tongue is {v}"),
        LANGUAGES,
    ),
    Family(
        "eye colour", "fixed", "identity", ("{s}'s eye colour is {v}", "{s} has {v} eyes"), EYES
    ),
)

#: one-off notes: nothing to close
NOTES = (
    "Ask {s} about the {p} budget before {d}",
    "Send {s} the {p} slides",
    "{s} mentioned a delay on {p}",
    "Book a room for {s} and {q} on {d}",
    "Remind {s} to review the {p} draft",
)


@dataclass(frozen=True)
class Slot:
    """One subject in one family, in one wording, and the values it takes in order."""

    id: int
    family: Family
    subject: str
    wording: int
    values: tuple[str, ...]


@dataclass(frozen=True)
class Write:
    """One text write and what it means: its slot (-1 for a note), its place in the slot's
    life, the value, and the pattern (family and wording) it is written in."""

    slot: int
    step: int
    kind: Kind
    family: str
    pattern: str
    topic: str
    text: str
    value: str


def _subjects(rng: random.Random) -> list[str]:
    """Every subject: first names alone and first and last names, shuffled."""
    names = [*FIRST, *(f"{f} {last}" for f in FIRST for last in LAST)]
    rng.shuffle(names)
    return names


def _values(rng: random.Random, family: Family, subject: str) -> tuple[str, ...]:
    pool = [v for v in family.values if v != subject]
    if family.kind == "one":
        count = rng.choice((1, 2, 2, 3, 3, 4))
    elif family.kind == "many":
        count = rng.choice((2, 2, 3, 4))
    else:  # a fixed value is corrected in a third of the slots
        count = 2 if rng.random() < 1 / 3 else 1
    return tuple(rng.sample(pool, min(count, len(pool))))


def make_slots(count: int, seed: int) -> list[Slot]:
    """``count`` slots over the families in turn, each a subject not yet in that family."""
    rng = random.Random(seed)
    subjects = _subjects(rng)
    slots: list[Slot] = []
    used: set[tuple[str, str]] = set()
    at = 0
    while len(slots) < count:
        family = FAMILIES[len(slots) % len(FAMILIES)]
        subject = subjects[at % len(subjects)]
        at += 1
        if (family.name, subject) in used:
            continue
        used.add((family.name, subject))
        wording = rng.randrange(len(family.wordings))
        slots.append(Slot(len(slots), family, subject, wording, _values(rng, family, subject)))
    return slots


def _text(slot: Slot, wording: int, value: str) -> str:
    return slot.family.wordings[wording].format(s=slot.subject, v=value)


def make_stream(
    slots: list[Slot], seed: int, *, repeats: float = 0.1, reword: float = 0.0, notes: float = 0.1
) -> list[Write]:
    """Every slot's writes in its order, slots interleaved at random; ``repeats``: the share
    of values written again (the same text, later); ``notes``: one-off notes, as a share of
    all writes."""
    rng = random.Random(seed + 1)
    timed: list[tuple[float, int, Write]] = []
    for slot in slots:
        family = slot.family
        writes: list[Write] = []
        for step, value in enumerate(slot.values):
            wording = slot.wording
            if step and rng.random() < reword and len(family.wordings) > 1:
                wording = rng.choice([w for w in range(len(family.wordings)) if w != wording])
            pattern = f"{family.name}: {family.wordings[wording]}"
            write = Write(
                slot.id, step, family.kind, family.name, pattern, family.topic,
                _text(slot, wording, value), value,
            )  # fmt: skip
            writes.append(write)
            if rng.random() < repeats:
                writes.append(write)
        times = sorted(rng.random() for _ in writes)
        timed += [(t, slot.id, w) for t, w in zip(times, writes, strict=True)]
    count = int(len(timed) * notes / (1 - notes)) if notes < 1 else 0
    names = _subjects(rng)
    for n in range(count):
        shape = rng.choice(NOTES)
        text = shape.format(
            s=rng.choice(names), q=rng.choice(names), p=rng.choice(PROJECTS), d=rng.choice(DAYS)
        )
        note = Write(-1 - n, 0, "note", "note", f"note: {shape}", "notes", text, text)
        timed.append((rng.random(), -1 - n, note))
    timed.sort(key=lambda t: (t[0], t[1]))
    return [w for _, _, w in timed]
