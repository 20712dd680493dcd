"""A backend for Claude's memory tool (``memory_20250818``) over a doxa scope.

The model sees ``/memories`` as the Markdown projection (``memory.files.render``): one
file per topic, one fact per line (no heading, so line 1 is the first fact, as the model
wrote it). Each command reads the store once (one render: the text it edits and the base it
is compared with come from the same snapshot, so a fact another writer adds meanwhile is
never taken for a deleted line), applies the command to that text and sends it through
``memory.files.apply_texts``, so every edit meets the gate: ``str_replace`` of a line
revises its fact, ``insert`` and ``create`` add facts, ``create`` over an existing file
follows the whole-file rule, ``delete`` asks the owner to retract each fact, ``rename``
changes a topic. No directory is written.

The handler remembers, for its own session, the order the model gave each file's lines
(so an inserted line is shown where it was inserted, and a revised one where it was) and
the topic files it created empty (so create-then-insert works); facts it did not place
follow in creation order. Every size a command takes is bounded (:data:`MAX_TEXT_BYTES`,
:data:`MAX_LINE_CHARS`, :data:`MAX_FILE_LINES`, :data:`MAX_CHANGES`), so each answers in
milliseconds (bench/bench_memory_tool.py).

Requests are the tool's JSON input (``{"command": "view", "path": "/memories"}``, the shapes
of the Anthropic SDK's ``BetaMemoryTool20250818*Command``); answers are text, led by
``Error:`` when nothing was done. A path is decided on its parsed parts
(:class:`~pathlib.PurePosixPath`): ``/memories`` or ``/memories/<topic>.md`` (or the index),
nothing else; ``..``, a second root, NUL, percent-encoding, backslashes and look-alike
slashes all fail that test because no topic name can hold them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from doxa.errors import DoxaError, InvalidInput
from doxa.gate.sync import Change, SyncReport
from doxa.memory import Memory
from doxa.reads.projection import INDEX, Manifest, marked_line, parse_lines, topic_of

__all__ = [
    "COMMANDS",
    "MAX_CHANGES",
    "MAX_FILE_LINES",
    "MAX_LINE_CHARS",
    "MAX_TEXT_BYTES",
    "ROOT",
    "MemoryToolHandler",
    "memory_path",
]

#: the memory tool's root directory
ROOT = "/memories"
#: the memory tool's six commands
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")
#: the most bytes of one text a command takes (file_text, insert_text, old_str, new_str)
MAX_TEXT_BYTES = 24_576
#: the most characters of one line a command writes
MAX_LINE_CHARS = 2_000
#: the most lines a file may hold after an edit
MAX_FILE_LINES = 300
#: the most changes (lines added, revised, deleted or moved) one command makes
MAX_CHANGES = 10


def memory_path(raw: object) -> str | None:
    """The file a tool path names (``drinks.md``), or None for ``/memories`` itself.

    Raises :class:`~doxa.InvalidInput` for anything else: outside ``/memories``, deeper
    than one level, or a file name that is not ``<topic>.md`` or ``MEMORY.md``.

    >>> memory_path("/memories/drinks.md"), memory_path("/memories")
    ('drinks.md', None)
    """
    if not isinstance(raw, str) or not raw or "\x00" in raw:
        raise InvalidInput(f"Path {raw!r} is not a path; use /memories or /memories/<topic>.md.")
    parts = PurePosixPath(raw).parts
    if parts[:2] != ("/", "memories") or len(parts) > 3:
        raise InvalidInput(
            f"Path {raw!r} is outside /memories; every memory file is /memories/<topic>.md."
        )
    if len(parts) == 2:
        return None
    name = parts[2]
    if name != INDEX and topic_of(name) is None:
        raise InvalidInput(
            f"{name!r} is not a memory file name; use /memories/<topic>.md with a topic of "
            "lower-case letters, digits, '_', '.' or '-' (for example /memories/meetings.md)."
        )
    return name


class MemoryToolHandler:
    """Executes the memory tool's six commands over one scope, as the owner or the agent.

    One handler is one session (one model's conversation, one MCP server): it keeps the
    line order the model gave and the files it created empty. Commands run one at a time.

    >>> from doxa import Memory
    >>> tool = MemoryToolHandler(Memory.open(None, scope="alice"))
    >>> print(tool.execute({"command": "create", "path": "/memories/drinks.md",
    ...                     "file_text": "- Alice prefers tea\\n"}))
    added drinks.md: 'Alice prefers tea': admitted
    """

    def __init__(self, memory: Memory, *, authority: str = "agent") -> None:
        self.memory = memory
        self.authority = authority
        self._lock = threading.Lock()
        #: file name → fact ids in the order the model last gave them
        self._order: dict[str, list[str]] = {}
        #: topic files created empty that hold no fact yet
        self._empty: set[str] = set()

    def execute(self, command: Mapping[str, object]) -> str:
        """Run one command (the tool's JSON input) and answer in words a model acts on."""
        try:
            name = command.get("command") if isinstance(command, Mapping) else None
            if name not in COMMANDS:
                raise InvalidInput(
                    f"Unknown memory command {name!r}; use one of: {', '.join(COMMANDS)}."
                )
            with self._lock:
                return str(getattr(self, f"_{name}")(command))
        except DoxaError as error:
            return f"Error: {error}"

    # -- the commands ----------------------------------------------------------------

    def _view(self, command: Mapping[str, object]) -> str:
        name = memory_path(command.get("path"))
        shown = self._snapshot()
        if name is None:
            listed = [
                f"{len(text.encode())}\t{ROOT}/{n}" for n, text in sorted(shown.texts.items())
            ]
            return f"Files in {ROOT}:\n" + "\n".join(listed)
        lines = shown.file(name).splitlines()
        first, last = _view_range(command.get("view_range"), len(lines), name)
        if not lines:
            return f"{ROOT}/{name} is empty; add lines with insert (insert_line 0)."
        return "\n".join(f"{n:6d}\t{lines[n - 1]}" for n in range(first, last + 1))

    def _create(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        text = _text(command.get("file_text"), "file_text")
        shown = self._snapshot()
        if name not in shown.manifest.files and not parse_lines(name, text):
            self._empty.add(name)
            return (
                f"created {ROOT}/{name}: an empty topic file. It holds no fact yet; insert "
                "lines into it (insert_line 0), each line one fact."
            )
        return self._apply(shown, {name: text})

    def _str_replace(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        old = _text(command.get("old_str"), "old_str")
        new = _text(command.get("new_str"), "new_str")
        shown = self._snapshot()
        current = shown.file(name)
        count = current.count(old) if old else 0
        if count != 1:
            raise InvalidInput(
                f"old_str occurs {count} times in {ROOT}/{name}; give text that occurs exactly "
                "once (view the file first)."
            )
        return self._apply(shown, {name: current.replace(old, new, 1)})

    def _insert(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        text = _text(command.get("insert_text"), "insert_text")
        where = command.get("insert_line")
        shown = self._snapshot()
        lines = shown.file(name).splitlines()
        if not isinstance(where, int) or isinstance(where, bool) or not 0 <= where <= len(lines):
            raise InvalidInput(
                f"insert_line {where!r} is out of range; use 0 to {len(lines)} for {ROOT}/{name}."
            )
        lines[where:where] = text.splitlines()
        return self._apply(shown, {name: "\n".join(lines) + "\n"})

    def _delete(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        shown = self._snapshot()
        shown.file(name)
        if name not in shown.manifest.files:
            self._empty.discard(name)
            return f"deleted {ROOT}/{name}: it held no fact."
        ids = [fid for fid, _ in shown.manifest.files[name][1]]
        return self._apply(shown, {name: None}, retract=ids)

    def _rename(self, command: Mapping[str, object]) -> str:
        old = self._writable(command.get("old_path"))
        new = self._writable(command.get("new_path"))
        shown = self._snapshot()
        text = shown.file(old)
        if new in shown.texts:
            raise InvalidInput(f"{ROOT}/{new} already exists; rename to a new topic file.")
        if old not in shown.manifest.files:
            self._empty.discard(old)
            self._empty.add(new)
            return f"renamed {ROOT}/{old} to {ROOT}/{new}: it holds no fact yet."
        return self._apply(shown, {old: None, new: text})

    # -- the projection ----------------------------------------------------------------

    def _snapshot(self) -> _Snapshot:
        """The command's one read of the store: the files as this session shows them."""
        rendered = self.memory.files.render()
        texts = {INDEX: rendered.files[INDEX]}
        for name, (_, rows) in rendered.manifest.files.items():
            rank = {fid: n for n, fid in enumerate(self._order.get(name, ()))}
            ordered = sorted(rows, key=lambda row: (rank.get(row[0], len(rank)), row[0]))
            marks = rendered.manifest.marks
            texts[name] = "".join(
                marked_line(fid, text, marks.get(fid)) + "\n" for fid, text in ordered
            )
        self._empty -= set(texts)
        for name in self._empty:
            texts[name] = ""
        return _Snapshot(rendered.manifest, texts)

    def _writable(self, raw: object) -> str:
        name = memory_path(raw)
        if name is None or name == INDEX:
            raise InvalidInput(
                f"{raw!r} is not a topic file; {ROOT}/{INDEX} is written by the memory itself, "
                f"so edit a topic file such as {ROOT}/meetings.md."
            )
        return name

    def _apply(
        self,
        shown: _Snapshot,
        changes: Mapping[str, str | None],
        retract: Sequence[str] = (),
    ) -> str:
        texts = dict(shown.texts)
        for name, text in changes.items():
            if text is None:
                texts.pop(name, None)
            else:
                _check_size(name, text, shown.manifest.marks)
                texts[name] = text
        report = self.memory.files.apply_texts(
            shown.manifest, texts, authority=self.authority, retract=retract, limit=MAX_CHANGES
        )
        for name, text in changes.items():
            self._empty.discard(name)
            if text is None:
                self._order.pop(name, None)
            else:
                self._order[name] = _placed(name, text, report, shown.manifest.marks)
        return "\n".join(report.lines())


@dataclass(frozen=True)
class _Snapshot:
    """One render as a session shows it: the base a change is compared with, and each
    file's text (fact lines only, in the session's order; the index as rendered)."""

    manifest: Manifest
    texts: Mapping[str, str]

    def file(self, name: str) -> str:
        if name not in self.texts:
            raise InvalidInput(
                f"{ROOT}/{name} does not exist; view {ROOT} to list the files, or create it."
            )
        return self.texts[name]


def _placed(name: str, text: str, report: SyncReport, marks: Mapping[str, str]) -> list[str]:
    """The fact ids of ``text``'s lines after the sync, in the order the model wrote them:
    an edited line becomes the fact that revised it (while the revision waits for the owner,
    the line it revises keeps its place), a new one the fact it was written as."""
    revised = {
        i.fact: i.new_fact
        for i in report.items
        if i.change in (Change.REVISED, Change.MOVED) and i.fact and i.new_fact and not i.held
    }
    added: dict[str, list[str]] = {}
    for item in report.items:
        if item.change is Change.ADDED and item.file == name and item.new_fact:
            added.setdefault(item.text, []).append(item.new_fact)
    order: list[str] = []
    for line in parse_lines(name, text, marks):
        if line.fact is not None and line.fact not in added.get(line.text, ()):
            fact: str | None = revised.get(line.fact, line.fact)
        else:
            waiting = added.get(line.text)
            fact = waiting.pop(0) if waiting else line.fact
        if fact is not None and fact not in order:
            order.append(fact)
    return order


def _view_range(given: object, count: int, name: str) -> tuple[int, int]:
    """The first and last line to show: all of them without ``view_range``; an end past
    the file (or ``-1``) is its last line, so any size answers at once."""
    if given is None:
        return 1, count
    if (
        not isinstance(given, list)
        or len(given) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in given)
    ):
        raise InvalidInput("view_range is two line numbers, e.g. [1, 10].")
    first, last = given
    if not 1 <= first <= max(count, 1) or (last != -1 and last < first):
        raise InvalidInput(
            f"view_range {given} is out of range: {ROOT}/{name} has {count} line(s); give "
            f"[first, last] with 1 <= first <= {max(count, 1)} and last >= first (or -1 for "
            "the end)."
        )
    return first, count if last == -1 else min(last, count)


def _check_size(name: str, text: str, marks: Mapping[str, str]) -> None:
    """A file text a command would write: at most :data:`MAX_FILE_LINES` lines, each fact
    at most :data:`MAX_LINE_CHARS` characters (its bullet, quotation mark and id marker not
    counted)."""
    lines = text.splitlines()
    if len(lines) > MAX_FILE_LINES:
        raise InvalidInput(
            f"{ROOT}/{name} would hold {len(lines)} lines, more than {MAX_FILE_LINES}; nothing "
            "was written: keep a topic file shorter (split it into two topics)."
        )
    longest = max((len(line.text) for line in parse_lines(name, text, marks)), default=0)
    if longest > MAX_LINE_CHARS:
        raise InvalidInput(
            f"A fact in {ROOT}/{name} would be {longest} characters, more than "
            f"{MAX_LINE_CHARS}; nothing was written: one line is one short fact."
        )


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} {value!r} is not text; pass a string.")
    if len(value) > MAX_TEXT_BYTES or len(value.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise InvalidInput(
            f"{name} is longer than {MAX_TEXT_BYTES} bytes; nothing was done: send a shorter "
            "text (a few lines at a time)."
        )
    return value
