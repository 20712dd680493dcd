"""A realistic, seeded stream of writes for the gate benchmark.

People, contacts, schedules, preferences, projects and clients across 50 topics, with a small
domain ontology (about half the predicates are ``owl:FunctionalProperty``) and a few owner
rules, so the rule judge has real work: new facts, repeats (``same``), replacements of
functional values (``replaces``, held because closing is not earned), lower-authority
contradictions (``unclear``), rule clashes and text-only notes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from rdflib import Literal, URIRef

from doxa.text import words

__all__ = ["EX", "RULES", "Stream", "Write", "ontology_turtle"]

EX = "http://example.org/"
ANYTHING = URIRef("https://w3id.org/doxa#Anything")


def _names(text: str) -> tuple[str, ...]:
    """Space-separated names as a tuple."""
    return tuple(text.split())


FIRST = _names(
    "Maria Jonas Aylin Tobias Sofia Lukas Emma Noah Mia Elias Hannah Felix Lea Paul Clara Ben "
    "Nora Finn Ida Leon Greta Anton Lina Emil Frieda Oskar Mila Theo Ella Jakob Marta Henrik "
    "Zoe Samuel Amira Levi Ronja David Alina Julian Yara Moritz Ines Karl Selin Mats Leni "
    "Arthur Luisa Johann Tara Milan Carla Vincent Nele Rafael Jule Adam Pia Louis Emilia "
    "Hugo Frida Kian Alma Till Helene Luca Ayla Malte Smilla Erik Liv Bruno Romy Jan Ella "
    "Fabian Mara Niklas Svea Omar Lotta Hamza Joanna Piet Vera Ole Katja Aaron Lucia Ivan "
    "Maya Tom Rosa Chen Priya Kenji Fatima"
)
LAST = _names(
    "Keller Schmidt Novak Yilmaz Fischer Weber Meyer Wagner Becker Schulz Hoffmann Koch "
    "Richter Klein Wolf Neumann Schwarz Zimmermann Braun Krueger Hofmann Hartmann Lange "
    "Werner Krause Lehmann Koehler Maier Peters Kaiser Fuchs Herrmann Lang Weiss Jung Hahn "
    "Vogel Friedrich Keller Guenther Frank Berger Roth Beck Lorenz Baumann Franke Albrecht "
    "Ludwig Winter Simon Kraus Martin Vogt Stein Jaeger Otto Sommer Gross Seidel Heinrich "
    "Brandt Haas Schreiber Graf Dietrich Ziegler Kuhn Pohl Engel Horn Busch Bergmann "
    "Thomas Voigt Sauer Arnold Wolff Pfeiffer Rossi Garcia Kowalski Tanaka Okafor Silva "
    "Larsen Dubois Moreau Novak Costa Nielsen Horvat Popescu Ivanova Murphy Olsen Bakker "
    "Janssen Moretti"
)
TEAMS = _names(
    "marketing sales finance legal design platform data security support research hiring "
    "product mobile web infra billing partner growth quality procurement facilities "
    "analytics content community board"
)
CADENCES = ("weekly", "monthly", "daily", "quarterly")
PROJECTS = _names(
    "Aurora Beacon Cobalt Delta Ember Falcon Granite Harbor Iris Juniper Kestrel Lumen "
    "Meridian Nimbus Onyx Pioneer Quartz Raven Sierra Tundra Umber Vega Willow Xenon "
    "Yonder Zephyr Atlas Borealis Cascade Dune Eclipse Fjord Glacier Horizon Indigo Jade "
    "Kelvin Lotus Mistral Nova"
)
COMPANIES = _names(
    "Acme Globex Initech Umbrella Hooli Vandelay Stark Wayne Tyrell Cyberdyne Wonka "
    "Soylent Gringotts Monarch Oscorp Aperture Blackmesa Dunder Gekko Massive Nakatomi "
    "Prestige Sterling Virtucon Weyland Zorg Bluth Contoso Fabrikam Northwind"
)

POOLS: dict[str, tuple[str, ...]] = {
    "city": _names(
        "Berlin Hamburg Munich Cologne Leipzig Dresden Vienna Zurich Paris Lyon Amsterdam "
        "Rotterdam Copenhagen Oslo Stockholm Helsinki Lisbon Porto Madrid Barcelona Rome Milan "
        "Prague Warsaw Krakow Budapest Dublin London Edinburgh Brussels"
    ),
    "title": (
        "product manager",
        "software engineer",
        "data analyst",
        "designer",
        "lawyer",
        "accountant",
        "nurse",
        "teacher",
        "architect",
        "sales lead",
        "researcher",
        "consultant",
        "photographer",
        "chef",
        "pharmacist",
    ),
    "drink": (
        "green tea",
        "black coffee",
        "flat white",
        "oat latte",
        "espresso",
        "sparkling water",
        "chai",
        "hot chocolate",
        "mint tea",
        "orange juice",
        "cappuccino",
        "rooibos",
    ),
    "food": _names(
        "sushi ramen pizza pasta curry tacos falafel dumplings risotto paella pho "
        "schnitzel goulash pierogi croissants burritos hummus tapas bibimbap kebab"
    ),
    "allergen": _names("peanuts shellfish gluten lactose pollen cats eggs soy sesame"),
    "diet": ("vegetarian", "vegan", "pescatarian", "low carb", "gluten free", "halal"),
    "genre": _names("jazz techno classical folk punk reggae soul blues opera hiphop"),
    "book": (
        "Middlemarch",
        "Dune",
        "The Overstory",
        "Piranesi",
        "Stoner",
        "Beloved",
        "Klara and the Sun",
        "The Magic Mountain",
        "Circe",
        "Homegoing",
        "Solaris",
        "Pachinko",
    ),
    "sport": _names("tennis football badminton chess climbing rowing volleyball golf"),
    "team": (
        "Union Berlin",
        "St Pauli",
        "Ajax",
        "Celtic",
        "Boca Juniors",
        "Napoli",
        "Benfica",
        "Galatasaray",
    ),
    "language": _names(
        "German English French Spanish Italian Turkish Polish Dutch Japanese Arabic"
    ),
    "pet": ("dog", "cat", "rabbit", "parrot", "tortoise", "hamster"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "time": ("08:30", "09:00", "09:30", "10:00", "11:00", "13:30", "14:00", "15:30", "16:00"),
    "room": ("Atlas", "Boardroom", "Lighthouse", "Orchard", "Summit", "Harbour", "Library"),
    "hotel": ("Motel One", "Ibis", "Hilton", "Premier Inn", "NH", "Holiday Inn", "25hours"),
    "seat": ("aisle", "window"),
    "restaurant": (
        "Trattoria Rossi",
        "Sushi Ko",
        "Cafe Einstein",
        "Curry 36",
        "Noodle Bar Lin",
        "La Taqueria",
        "Brasserie Nord",
        "Green Garden",
    ),
    "medication": ("ibuprofen", "vitamin D", "antihistamines", "iron tablets", "insulin"),
    "hobby": _names("gardening knitting painting baking hiking pottery cycling birdwatching"),
    "gift": (
        "a fountain pen",
        "concert tickets",
        "a cookbook",
        "a wool scarf",
        "a puzzle",
        "a plant",
        "a board game",
        "headphones",
    ),
    "size": ("S", "M", "L", "XL"),
    "car": ("Golf", "Model 3", "Polo", "Yaris", "Clio", "Octavia", "Zoe", "Corsa"),
    "phone": ("Pixel 8", "iPhone 15", "Galaxy S24", "Fairphone 5", "Moto G"),
    "editor": ("VS Code", "Vim", "Emacs", "PyCharm", "Zed"),
    "timezone": ("CET", "UTC", "EST", "PST", "JST", "IST"),
    "commute": ("bike", "tram", "train", "car", "bus", "foot"),
    "university": (
        "TU Berlin",
        "LMU Munich",
        "ETH Zurich",
        "Sorbonne",
        "Uni Wien",
        "KTH",
        "TU Delft",
        "Charles University",
    ),
    "newsletter": ("The Download", "Morning Brew", "Stratechery", "Dense Discovery", "Platformer"),
    "charity": ("Red Cross", "Doctors Without Borders", "WWF", "Oxfam", "Amnesty"),
    "film": ("Paris Texas", "Amelie", "Spirited Away", "Heat", "Alien", "Babette's Feast"),
    "podcast": ("The Daily", "Hard Fork", "Radiolab", "99 Percent Invisible", "Lage der Nation"),
    "product": ("paper", "laptops", "coffee beans", "office chairs", "printer toner", "cables"),
    "month": _names(
        "January February March April May June July August September October November December"
    ),
}


@dataclass(frozen=True)
class Template:
    """One kind of structured fact: a predicate in a topic, with a sentence to say it."""

    topic: str
    kind: str
    predicate: str
    functional: bool
    subject: str  # person, meeting, project or company
    object: str  # a pool name, or person / phone / email / date / int
    text: str  # with {s} and {o}
    literal: bool = False  # pool values as literals rather than IRIs


TEMPLATES: tuple[Template, ...] = (
    Template("contacts", "contact", "phone", True, "person", "phone", "{s}'s phone number is {o}"),
    Template("email", "contact", "email", True, "person", "email", "{s}'s email address is {o}"),
    Template("addresses", "biographical", "livesIn", True, "person", "city", "{s} lives in {o}"),
    Template(
        "birthdays", "biographical", "birthday", True, "person", "date", "{s} was born on {o}"
    ),
    Template("employers", "biographical", "worksAt", True, "person", "company", "{s} works at {o}"),
    Template(
        "jobs", "biographical", "jobTitle", True, "person", "title", "{s} works as a {o}", True
    ),
    Template(
        "drinks",
        "preference",
        "favouriteDrink",
        True,
        "person",
        "drink",
        "{s}'s favourite drink is {o}",
    ),
    Template("food", "preference", "likesFood", False, "person", "food", "{s} likes {o}"),
    Template(
        "allergies",
        "biographical",
        "allergicTo",
        False,
        "person",
        "allergen",
        "{s} is allergic to {o}",
    ),
    Template("diet", "preference", "diet", True, "person", "diet", "{s} eats {o}", True),
    Template("music", "preference", "likesGenre", False, "person", "genre", "{s} enjoys {o} music"),
    Template(
        "books",
        "observation",
        "currentlyReading",
        True,
        "person",
        "book",
        "{s} is currently reading {o}",
    ),
    Template("sports", "preference", "plays", False, "person", "sport", "{s} plays {o}"),
    Template("teams", "preference", "supports", True, "person", "team", "{s} supports {o}"),
    Template("languages", "biographical", "speaks", False, "person", "language", "{s} speaks {o}"),
    Template("pets", "biographical", "hasPet", False, "person", "pet", "{s} has a {o}"),
    Template(
        "family", "biographical", "marriedTo", True, "person", "person", "{s} is married to {o}"
    ),
    Template(
        "children", "biographical", "childCount", True, "person", "int", "{s} has {o} children"
    ),
    Template("meetings", "schedule", "meetingDay", True, "meeting", "day", "The {s} is on {o}"),
    Template(
        "meeting-times",
        "schedule",
        "startsAt",
        True,
        "meeting",
        "time",
        "The {s} starts at {o}",
        True,
    ),
    Template(
        "rooms", "schedule", "meetingRoom", True, "meeting", "room", "The {s} is held in room {o}"
    ),
    Template(
        "projects", "procedure", "projectLead", True, "project", "person", "{s} is led by {o}"
    ),
    Template("deadlines", "schedule", "deadline", True, "project", "date", "{s} is due on {o}"),
    Template(
        "travel", "schedule", "travelsTo", False, "person", "city", "{s} is travelling to {o}"
    ),
    Template(
        "hotels",
        "preference",
        "preferredHotel",
        True,
        "person",
        "hotel",
        "{s} prefers to stay at {o}",
    ),
    Template(
        "flights",
        "preference",
        "seatPreference",
        True,
        "person",
        "seat",
        "{s} prefers a {o} seat on flights",
    ),
    Template(
        "coffee",
        "preference",
        "coffeeOrder",
        True,
        "person",
        "drink",
        "{s} usually orders {o} at the cafe",
    ),
    Template(
        "restaurants",
        "preference",
        "favouriteRestaurant",
        True,
        "person",
        "restaurant",
        "{s}'s favourite restaurant is {o}",
    ),
    Template(
        "health",
        "biographical",
        "doctor",
        True,
        "person",
        "person",
        "{s}'s family doctor is Dr {o}",
    ),
    Template(
        "medications", "biographical", "takes", False, "person", "medication", "{s} takes {o}"
    ),
    Template("fitness", "schedule", "gymDay", False, "person", "day", "{s} goes to the gym on {o}"),
    Template("hobbies", "preference", "hobby", False, "person", "hobby", "{s} loves {o}"),
    Template(
        "gifts",
        "preference",
        "giftIdea",
        False,
        "person",
        "gift",
        "{s} would like {o} as a present",
        True,
    ),
    Template(
        "clothing",
        "preference",
        "shirtSize",
        True,
        "person",
        "size",
        "{s} wears shirt size {o}",
        True,
    ),
    Template("cars", "biographical", "drives", True, "person", "car", "{s} drives a {o}"),
    Template(
        "devices", "observation", "usesPhone", True, "person", "phone_model", "{s} uses a {o}"
    ),
    Template(
        "software", "preference", "editor", True, "person", "editor", "{s} writes code in {o}"
    ),
    Template(
        "timezones",
        "biographical",
        "timezone",
        True,
        "person",
        "timezone",
        "{s} works in the {o} time zone",
        True,
    ),
    Template(
        "commute",
        "observation",
        "commutesBy",
        True,
        "person",
        "commute",
        "{s} commutes by {o}",
        True,
    ),
    Template(
        "education",
        "biographical",
        "studiedAt",
        False,
        "person",
        "university",
        "{s} studied at {o}",
    ),
    Template(
        "subscriptions",
        "preference",
        "subscribesTo",
        False,
        "person",
        "newsletter",
        "{s} subscribes to {o}",
    ),
    Template(
        "charity", "preference", "donatesTo", False, "person", "charity", "{s} donates to {o}"
    ),
    Template(
        "films",
        "preference",
        "favouriteFilm",
        True,
        "person",
        "film",
        "{s}'s favourite film is {o}",
    ),
    Template(
        "podcasts", "preference", "listensTo", False, "person", "podcast", "{s} listens to {o}"
    ),
    Template(
        "holidays",
        "schedule",
        "holidayIn",
        True,
        "person",
        "city",
        "{s} spends the summer holidays in {o}",
    ),
    Template(
        "office",
        "schedule",
        "officeDay",
        False,
        "person",
        "day",
        "{s} works from the office on {o}",
    ),
    Template(
        "colleagues", "biographical", "reportsTo", True, "person", "person", "{s} reports to {o}"
    ),
    Template(
        "clients",
        "contact",
        "accountManager",
        True,
        "company",
        "person",
        "{s}'s account manager is {o}",
    ),
    Template(
        "suppliers", "procedure", "supplies", False, "company", "product", "{s} supplies {o}", True
    ),
    Template(
        "anniversaries",
        "biographical",
        "workAnniversary",
        True,
        "person",
        "date",
        "{s}'s work anniversary is on {o}",
    ),
)

TEXT_NOTES = (
    ("projects", "Remember to ask {p} about the {project} budget before {month}"),
    ("travel", "{p} mentioned the {city} office is moving in {month}"),
    ("restaurants", "Book a table at {restaurant} for {p}'s birthday dinner"),
    ("meetings", "{p} said the notes from the {meeting} are in the shared folder"),
    ("gifts", "Buy {gift} for {p} before the end of {month}"),
    ("books", "{p} recommended reading {book}"),
    ("travel", "The {city} trip with {p} needs a visa check"),
    ("clients", "{company} wants a follow-up call with {p} in {month}"),
    ("health", "{p} has a dentist appointment in {month}"),
    ("office", "{p} will cover for {p2} while they are in {city}"),
    ("projects", "The {project} retrospective moved to {month}; {p} is organising it"),
    ("suppliers", "The invoice from {company} for {product} is still open"),
    ("food", "{p} brought {food} to the team lunch and everyone loved it"),
    ("family", "{p}'s sister lives in {city} and visits in {month}"),
    ("hobbies", "{p} is running a {hobby} workshop for the team in {month}"),
)

#: Everyone the stream talks about, in a fixed shuffled order (the first ones come up first).
PEOPLE: tuple[tuple[str, str], ...] = tuple(
    random.Random(1).sample(
        sorted({(f, last) for f in FIRST for last in LAST}), len(set(FIRST)) * len(set(LAST))
    )
)
#: The words of the sentences themselves, as opposed to the names and values in them.
BOILERPLATE = frozenset(
    w
    for pattern in (*(t.text for t in TEMPLATES), *(p for _, p in TEXT_NOTES))
    for w in words(re.sub(r"\{\w+\}", " ", pattern))
)

RULES: tuple[tuple[str, str, URIRef, str, str], ...] = (
    ("Never schedule meetings on Sunday", "meetingDay", ANYTHING, "day:Sunday", "forbids"),
    ("Never book a middle seat for anyone", "seatPreference", ANYTHING, "seat:middle", "forbids"),
    (
        "The board monthly meeting is always held in the Boardroom",
        "meetingRoom",
        URIRef(EX + "meeting/board-monthly"),
        "room:Boardroom",
        "requires",
    ),
)


def breaks_rule(write: Write) -> bool:
    """Whether a structured write states what one of the owner's :data:`RULES` forbids, or
    another value than one requires: what the stream means by it is a clash."""
    for _, predicate, subject, obj, mode in RULES:
        if write.predicate != URIRef(EX + predicate):
            continue
        if subject != ANYTHING and write.subject != subject:
            continue
        ruled = URIRef(EX + obj.replace(":", "/"))
        if (write.value == ruled) == (mode == "forbids"):
            return True
    return False


@dataclass(frozen=True)
class Write:
    """One call of ``Memory.remember``: its keyword arguments, plus what the stream meant."""

    op: str  # new, repeat, replace, contradict, clash, text, text_repeat, rule
    text: str
    topic: str
    kind: str
    authority: str = "owner"
    subject: URIRef | None = None
    predicate: URIRef | None = None
    value: URIRef | Literal | None = None  # the claim's object
    valid_from: datetime | None = None
    sources: tuple[str, ...] = ()
    confidence: float | None = None
    turn: str | None = None
    rule: str | None = None
    label: str = ""  # the subject as the text names it (not written)

    def kwargs(self) -> dict[str, Any]:
        """The keyword arguments for ``Memory.remember`` (besides the text)."""
        out: dict[str, Any] = {
            "topic": self.topic,
            "kind": self.kind,
            "authority": self.authority,
        }
        optional = {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.value,
            "valid_from": self.valid_from,
            "confidence": self.confidence,
            "turn": self.turn,
            "rule": self.rule,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        if self.sources:
            out["sources"] = list(self.sources)
        return out


def _slug(label: str) -> str:
    return "-".join(words(label)) or "x"


def ontology_turtle() -> bytes:
    """The domain ontology: every predicate declared, the functional ones as such."""
    lines = [
        "@prefix ex: <http://example.org/> .",
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
    ]
    seen: set[str] = set()
    for t in TEMPLATES:
        if t.predicate in seen:
            continue
        seen.add(t.predicate)
        literal = t.literal or t.object in ("phone", "email", "date", "int")
        kind = "owl:DatatypeProperty" if literal else "owl:ObjectProperty"
        functional = ", owl:FunctionalProperty" if t.functional else ""
        lines.append(f'ex:{t.predicate} a {kind}{functional} ; rdfs:label "{t.predicate}" .')
    return "\n".join(lines).encode()


# Write mix: new structured facts, repeats, replacements of functional values, lower-authority
# contradictions, rule clashes, new text-only notes and repeated notes.
MIX: tuple[tuple[str, float], ...] = (
    ("new", 0.60),
    ("repeat", 0.08),
    ("replace", 0.07),
    ("contradict", 0.02),
    ("clash", 0.01),
    ("text", 0.19),
    ("text_repeat", 0.03),
)
BASE_TIME = datetime(2015, 1, 1, tzinfo=UTC)


class Stream:
    """A seeded, endless stream of writes whose mix stays the same as the store grows."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.count = 0
        self.turn = 0
        self.admitted: list[Write] = []  # structured facts that were admitted
        self.admitted_functional: list[Write] = []
        self.admitted_text: list[Write] = []
        self.used: set[tuple[URIRef, URIRef]] = set()
        self._functional = {t.predicate for t in TEMPLATES if t.functional}
        self._ops = [op for op, _ in MIX]
        self._weights = [w for _, w in MIX]
        self._meeting_day = next(t for t in TEMPLATES if t.predicate == "meetingDay")

    # -- bookkeeping ------------------------------------------------------------------

    def observe(self, write: Write, outcome: str) -> None:
        """Record what the gate did with a write, so repeats and replacements can find it."""
        if outcome != "admitted" or write.op == "rule":
            return
        if write.subject is None:
            self.admitted_text.append(write)
            return
        self.admitted.append(write)
        assert write.predicate is not None
        if str(write.predicate).removeprefix(EX) in self._functional:
            self.admitted_functional.append(write)

    def rules(self) -> list[Write]:
        """The owner's standing rules, written once before the stream starts."""
        out = []
        for text, predicate, subject, obj, mode in RULES:
            out.append(
                Write(
                    op="rule",
                    text=text,
                    topic="rules",
                    kind="rule",
                    subject=subject,
                    predicate=URIRef(EX + predicate),
                    value=URIRef(EX + obj.replace(":", "/")),
                    rule=mode,
                )
            )
        return out

    # -- the stream ----------------------------------------------------------------------

    def fill(self, mem: Any, count: int) -> None:
        """Write the owner's rules into ``mem`` (a :class:`doxa.Memory`), then ``count``
        writes of the stream, each outcome observed: the store a timed run starts from."""
        for rule in self.rules():
            mem.remember(rule.text, **rule.kwargs())
        for _ in range(count):
            w = self.next()
            self.observe(w, mem.remember(w.text, **w.kwargs()).outcome.value)

    def next(self) -> Write:
        """The next write of the stream."""
        self.count += 1
        if self.rng.random() < 0.2:
            self.turn += 1
        op = self.rng.choices(self._ops, self._weights)[0]
        makers: dict[str, Callable[[], Write | None]] = {
            "new": self._new,
            "repeat": self._repeat,
            "replace": self._replace,
            "contradict": self._contradict,
            "clash": self._clash,
            "text": self._text,
            "text_repeat": self._text_repeat,
        }
        made = makers[op]() or self._new()
        if made.op in ("new", "replace") and breaks_rule(made):
            # the owner's own rule says otherwise: the stream means a clash, held for them
            return replace(made, op="clash")
        return made

    def _when(self) -> datetime:
        return BASE_TIME + timedelta(minutes=37 * self.count)

    def _authority(self) -> tuple[str, tuple[str, ...], float | None, str | None]:
        roll = self.rng.random()
        turn = f"{EX}turn/{self.turn}" if self.rng.random() < 0.3 else None
        if roll < 0.6:
            return "owner", (), None, turn
        if roll < 0.8:
            return "agent", (), round(self.rng.uniform(0.55, 0.95), 2), turn
        if roll < 0.95:
            return "tool", (f"{EX}tool-call/{self.count}",), None, turn
        return "external", (f"https://mail.example.org/msg/{self.count}",), None, None

    def _person(self) -> tuple[str, str]:
        active = min(len(PEOPLE), 40 + self.count // 8)
        return PEOPLE[self.rng.randrange(active)]

    def _subject(self, kind: str) -> tuple[URIRef, str]:
        rng = self.rng
        if kind == "person":
            first, last = self._person()
            return URIRef(f"{EX}person/{first.lower()}-{last.lower()}"), f"{first} {last}"
        if kind == "meeting":
            team, cadence = rng.choice(TEAMS), rng.choice(CADENCES)
            return URIRef(f"{EX}meeting/{team}-{cadence}"), f"{team} {cadence} meeting"
        if kind == "project":
            name = rng.choice(PROJECTS)
            return URIRef(f"{EX}project/{name.lower()}"), f"Project {name}"
        name = rng.choice(COMPANIES)
        return URIRef(f"{EX}company/{name.lower()}"), name

    def _object(self, t: Template, subject_label: str) -> tuple[URIRef | Literal, str]:
        rng = self.rng
        if t.object == "person":
            iri, label = self._subject("person")
            return iri, label
        if t.object == "company":
            name = rng.choice(COMPANIES)
            return URIRef(f"{EX}company/{name.lower()}"), name
        if t.object == "phone":
            number = f"+49 {rng.randrange(30, 99)} {rng.randrange(1_000_000, 9_999_999)}"
            return Literal(number), number
        if t.object == "email":
            first, _, last = subject_label.partition(" ")
            host = rng.choice(("example.com", "mail.example.org", "corp.example.net"))
            address = f"{first.lower()}.{last.lower()}@{host}"
            return Literal(address), address
        if t.object == "date":
            day = date(rng.randrange(1950, 2030), rng.randrange(1, 13), rng.randrange(1, 29))
            return Literal(day), day.strftime("%d %B %Y")
        if t.object == "int":
            n = rng.randrange(0, 5)
            return Literal(n), str(n)
        pool = POOLS["phone" if t.object == "phone_model" else t.object]
        label = rng.choice(pool)
        if t.literal:
            return Literal(label), label
        return URIRef(f"{EX}{t.object}/{_slug(label)}"), label

    def _structured(
        self, t: Template, subject: URIRef, label: str, op: str, authority: str | None = None
    ) -> Write:
        obj, obj_label = self._object(t, label)
        who, sources, confidence, turn = self._authority()
        if authority is not None:
            who = authority
            sources = (f"{EX}tool-call/{self.count}",) if who == "tool" else ()
            confidence = 0.7 if who == "agent" else None
        if who == "external":
            who, sources, confidence = "tool", (f"{EX}tool-call/{self.count}",), None
        text = t.text.format(s=label, o=obj_label)
        return Write(
            op=op,
            label=label,
            text=text[0].upper() + text[1:],
            topic=t.topic,
            kind=t.kind,
            authority=who,
            subject=subject,
            predicate=URIRef(EX + t.predicate),
            value=obj,
            valid_from=self._when(),
            sources=sources,
            confidence=confidence,
            turn=turn,
        )

    def _new(self) -> Write:
        for _ in range(20):
            t = self.rng.choice(TEMPLATES)
            subject, label = self._subject(t.subject)
            if (subject, URIRef(EX + t.predicate)) not in self.used:
                break
        self.used.add((subject, URIRef(EX + t.predicate)))
        return self._structured(t, subject, label, "new")

    def _template(self, write: Write) -> Template:
        assert write.predicate is not None
        name = str(write.predicate).removeprefix(EX)
        return next(t for t in TEMPLATES if t.predicate == name and t.topic == write.topic)

    def _repeat(self) -> Write | None:
        if not self.admitted:
            return None
        old = self.rng.choice(self.admitted)
        who, sources, _, turn = self._authority()
        who = "tool" if who == "external" else who
        return replace(old, op="repeat", authority=who, sources=sources, turn=turn)

    def _replace(self) -> Write | None:
        if not self.admitted_functional:
            return None
        old = self.rng.choice(self.admitted_functional)
        t = self._template(old)
        assert old.subject is not None
        for _ in range(5):
            new = self._structured(t, old.subject, old.label, "replace", authority="owner")
            if new.value != old.value:
                return new
        return None

    def _contradict(self) -> Write | None:
        owners = [w for w in self.admitted_functional[-2000:] if w.authority == "owner"]
        if not owners:
            return None
        old = self.rng.choice(owners)
        t = self._template(old)
        assert old.subject is not None
        new = self._structured(t, old.subject, old.label, "contradict", authority="agent")
        return None if new.value == old.value else new

    def _clash(self) -> Write:
        t = self._meeting_day
        subject, label = self._subject("meeting")
        text = f"The {label} is on Sunday"
        return Write(
            op="clash",
            text=text,
            topic=t.topic,
            kind=t.kind,
            authority="agent",
            subject=subject,
            predicate=URIRef(EX + t.predicate),
            value=URIRef(EX + "day/Sunday"),
            valid_from=self._when(),
            confidence=0.6,
        )

    def _text(self) -> Write:
        rng = self.rng
        topic, pattern = rng.choice(TEXT_NOTES)
        fill = {
            "p": self._subject("person")[1],
            "p2": self._subject("person")[1],
            "project": rng.choice(PROJECTS),
            "month": rng.choice(POOLS["month"]),
            "city": rng.choice(POOLS["city"]),
            "restaurant": rng.choice(POOLS["restaurant"]),
            "meeting": self._subject("meeting")[1],
            "gift": rng.choice(POOLS["gift"]),
            "book": rng.choice(POOLS["book"]),
            "company": rng.choice(COMPANIES),
            "product": rng.choice(POOLS["product"]),
            "food": rng.choice(POOLS["food"]),
            "hobby": rng.choice(POOLS["hobby"]),
        }
        who, sources, confidence, turn = self._authority()
        return Write(
            op="text",
            text=pattern.format(**fill),
            topic=topic,
            kind="observation",
            authority=who,
            sources=sources,
            confidence=confidence,
            turn=turn,
        )

    def _text_repeat(self) -> Write | None:
        if not self.admitted_text:
            return None
        old = self.rng.choice(self.admitted_text)
        return replace(old, op="text_repeat")

    # -- recall queries ------------------------------------------------------------------

    def query(self) -> str:
        """A recall query of 1–3 content words taken from a stored fact's text."""
        pool = self.admitted if self.rng.random() < 0.8 or not self.admitted_text else []
        pool = pool or self.admitted_text
        source = self.rng.choice(pool)
        found = [w for w in words(source.text) if len(w) >= 3 and not w.isdigit()]
        content = [w for w in found if w not in BOILERPLATE]
        k = min(len(content), self.rng.choices((1, 2, 3), (0.35, 0.45, 0.2))[0])
        picked = set(self.rng.sample(content, k))
        boiler = [w for w in found if w in BOILERPLATE]
        if k >= 2 and boiler and self.rng.random() < 0.5:  # "maria phone", "keller present"
            picked.discard(next(iter(picked)))
            picked.add(self.rng.choice(boiler))
        return " ".join(w for w in found if w in picked)
