"""Memory as files: the Markdown projection of a scope's facts, and its manifest.

One file per topic (``<topic>.md``), one fact per line, each line ending in its fact id as
an HTML comment (``- Alice prefers tea <!-- doxa:0190c2… -->``): invisible in a rendered
page, kept by editors and models, and what tells :mod:`doxa.gate.sync` which fact an edited
line targets. ``MEMORY.md`` holds pointers only. The manifest (``.doxa-render.json``)
records what was rendered, line by line, so a sync knows the base it compares with.

The bytes depend only on the facts shown and the clocks asked for: topics and lines are
sorted (lines by fact id, which is creation order), newlines are ``\\n``, and no timestamp
is written unless a clock was asked for. This module only reads and writes bytes; it never
decides anything.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from doxa.errors import InvalidInput
from doxa.model import Fact, FactStatus
from doxa.scope import check_name

__all__ = [
    "CONFLICTS",
    "INDEX",
    "MANIFEST",
    "RETRACTION_KIND",
    "FileLine",
    "Manifest",
    "Rendered",
    "fact_line",
    "parse_lines",
    "read_files",
    "read_manifest",
    "render",
    "topic_of",
    "write_rendered",
]

#: the index file: pointers to the topic files, no facts
INDEX = "MEMORY.md"
#: what was rendered, for sync: scope, clocks and each file's (fact id, line text)
MANIFEST = ".doxa-render.json"
#: the kind of a held retraction request (and, once approved, of its record): not shown
RETRACTION_KIND = "retraction"
#: the manifest's format, bumped when its shape changes
MANIFEST_VERSION = 1

#: our own trailing marker; reading it back is parsing doxa's format, never a permission
_MARK = re.compile(r"\s*<!--\s*doxa:([A-Za-z0-9_.-]{1,64})\s*-->\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)")


@dataclass(frozen=True)
class FileLine:
    """One fact line read from a file: its text, its fact id (None: a new line) and where."""

    file: str
    text: str
    fact: str | None
    number: int


@dataclass(frozen=True)
class Manifest:
    """What a render showed: the scope, the clocks asked for, and each file's lines."""

    scope: str
    valid_at: str | None
    as_of: str | None
    include_ended: bool
    #: file name → its topic and its ``(fact id, line text)`` pairs, in file order
    files: Mapping[str, tuple[str, tuple[tuple[str, str], ...]]]

    @property
    def editable(self) -> bool:
        """A render of now, live facts only: the only kind a sync may compare with."""
        return self.valid_at is None and self.as_of is None and not self.include_ended

    def lines(self) -> dict[str, tuple[str, str]]:
        """Fact id → (file, line text) over every file."""
        return {fid: (name, text) for name, (_, rows) in self.files.items() for fid, text in rows}

    def to_json(self) -> str:
        """The manifest's bytes: sorted keys, one fixed layout, a final newline."""
        body = {
            "version": MANIFEST_VERSION,
            "scope": self.scope,
            "valid_at": self.valid_at,
            "as_of": self.as_of,
            "include_ended": self.include_ended,
            "files": {
                name: {"topic": topic, "lines": [list(row) for row in rows]}
                for name, (topic, rows) in sorted(self.files.items())
            },
        }
        return json.dumps(body, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Rendered:
    """A render: file name → its text, and the manifest that describes it."""

    files: Mapping[str, str]
    manifest: Manifest


def _one_line(text: str) -> str:
    """A fact's text on one line: line breaks become spaces (the manifest keeps the line)."""
    return " ".join(text.splitlines()).strip()


def fact_line(fact: Fact) -> str:
    """The line text shown for a fact: its text, or struck through with its status if ended."""
    text = _one_line(fact.text)
    if fact.status is FactStatus.LIVE:
        return text
    return f"~~{text}~~ ({fact.status.value})"


def render(
    facts: Iterable[Fact],
    *,
    scope: str,
    valid_at: str | None = None,
    as_of: str | None = None,
    include_ended: bool = False,
) -> Rendered:
    """The projection of ``facts``: the same facts and clocks give the same bytes.

    Retraction requests and their records (kind ``retraction``) are left out: they are the
    owner's business, listed by ``doxa held``.

    >>> r = render([], scope="alice")
    >>> r.files["MEMORY.md"]
    '# Memory of alice\\n\\nNo facts yet.\\n'
    """
    by_topic: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.kind != RETRACTION_KIND:
            by_topic.setdefault(fact.topic, []).append(fact)
    files: dict[str, str] = {}
    listed: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}
    index = [f"# Memory of {scope}", ""]
    shown = [f"{n} {v}" for n, v in (("valid at", valid_at), ("as of", as_of)) if v is not None]
    if shown:
        index += [f"Rendered {', '.join(shown)}.", ""]
    for topic in sorted(by_topic):
        name = f"{topic}.md"
        rows = tuple((f.id, fact_line(f)) for f in sorted(by_topic[topic], key=lambda f: f.id))
        body = [f"# {topic}", ""] + [f"- {text} <!-- doxa:{fid} -->" for fid, text in rows]
        files[name] = "\n".join(body) + "\n"
        listed[name] = (topic, rows)
        count = "1 fact" if len(rows) == 1 else f"{len(rows)} facts"
        index.append(f"- [{topic}]({name}): {count}")
    if not by_topic:
        index.append("No facts yet.")
    files[INDEX] = "\n".join(index) + "\n"
    manifest = Manifest(scope, valid_at, as_of, include_ended, listed)
    return Rendered(files, manifest)


def parse_lines(name: str, content: str) -> list[FileLine]:
    """The fact lines of one file: headings and blank lines skipped, bullets stripped."""
    found: list[FileLine] = []
    for number, raw in enumerate(content.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        mark = _MARK.search(line)
        fact = mark.group(1) if mark else None
        text = line[: mark.start()] if mark else line
        text = _BULLET.sub("", text, count=1).strip()
        if text:
            found.append(FileLine(name, text, fact, number))
    return found


def topic_of(name: str) -> str | None:
    """The topic a file name holds (``meetings.md`` → ``meetings``), or None when it is not
    a topic file (the index, ``CONFLICTS.md``, a name that is not a topic name)."""
    if not name.endswith(".md"):
        return None
    try:
        return check_name(name[: -len(".md")], "topic")
    except InvalidInput:
        return None


def read_files(folder: Path) -> tuple[dict[str, list[FileLine]], list[str]]:
    """Every topic file's fact lines in ``folder``, and the ``.md`` files that are not topic
    files (reported by sync, never read as facts)."""
    files: dict[str, list[FileLine]] = {}
    skipped: list[str] = []
    for path in sorted(folder.glob("*.md")):
        if not path.is_file():
            continue
        if topic_of(path.name) is None:
            if path.name not in (INDEX, CONFLICTS):
                skipped.append(path.name)
            continue
        files[path.name] = parse_lines(path.name, path.read_text(encoding="utf-8"))
    return files, skipped


#: where a sync leaves the lines it could not apply because the store changed under them
CONFLICTS = "CONFLICTS.md"


def read_manifest(folder: Path) -> Manifest:
    """The manifest a render left in ``folder``; raises :class:`~doxa.InvalidInput` when
    there is none or it is not one doxa wrote."""
    path = folder / MANIFEST
    if not path.is_file():
        raise InvalidInput(
            f"{folder} has no {MANIFEST}: sync compares the files with the render they came "
            f"from; run `doxa render {folder}` first."
        )
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        files = {
            str(name): (
                check_name(str(entry["topic"]), "topic"),
                tuple((str(fid), str(text)) for fid, text in entry["lines"]),
            )
            for name, entry in body["files"].items()
        }
        return Manifest(
            str(body["scope"]),
            body["valid_at"],
            body["as_of"],
            bool(body["include_ended"]),
            files,
        )
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise InvalidInput(
            f"{path} is not a manifest doxa wrote ({error}); render the folder again with "
            f"`doxa render {folder}` (edits since then are compared with that new render)."
        ) from error


def write_rendered(folder: Path, rendered: Rendered, previous: Manifest | None = None) -> None:
    """Write a render into ``folder``: each file atomically (a temporary file renamed over
    it), topic files the previous render had and this one has not removed, the manifest
    last, so a sync never sees a manifest newer than the files it describes."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(rendered.files.items()):
        _atomic(folder / name, text)
    if previous is not None:
        for name in previous.files:
            if name not in rendered.files and topic_of(name) is not None:
                (folder / name).unlink(missing_ok=True)
    _atomic(folder / MANIFEST, rendered.manifest.to_json())


def _atomic(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".doxa-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
