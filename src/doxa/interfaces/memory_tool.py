"""A backend for Claude's memory tool (``memory_20250818``) over a doxa scope.

The model sees ``/memories`` as the Markdown projection (:meth:`doxa.Memory.render`): one
file per topic, one fact per line. Each command that changes a file is applied to that
projection in memory and sent through :meth:`doxa.Memory.sync_texts`, so every edit meets
the gate: ``str_replace`` of a line revises its fact, ``insert`` and ``create`` add facts,
``create`` over an existing file follows the whole-file rule, ``delete`` asks the owner to
retract each fact, ``rename`` changes a topic. No directory is written.

Requests are the tool's JSON input (``{"command": "view", "path": "/memories"}``, the shapes
of the Anthropic SDK's ``BetaMemoryTool20250818*Command``); answers are text, led by
``Error:`` when nothing was done. A path is decided on its parsed parts
(:class:`~pathlib.PurePosixPath`): ``/memories`` or ``/memories/<topic>.md`` (or the index),
nothing else; ``..``, a second root, NUL, percent-encoding, backslashes and look-alike
slashes all fail that test because no topic name can hold them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from doxa.errors import DoxaError, InvalidInput
from doxa.memory import Memory
from doxa.reads.projection import INDEX, topic_of

__all__ = ["COMMANDS", "ROOT", "MemoryToolHandler", "memory_path"]

#: the memory tool's root directory
ROOT = "/memories"
#: the memory tool's six commands
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")


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

    >>> from doxa import Memory
    >>> tool = MemoryToolHandler(Memory.open(None, scope="alice"))
    >>> print(tool.execute({"command": "create", "path": "/memories/drinks.md",
    ...                     "file_text": "- Alice prefers tea\\n"}))
    added drinks.md: 'Alice prefers tea': admitted
    """

    def __init__(self, memory: Memory, *, authority: str = "agent") -> None:
        self.memory = memory
        self.authority = authority

    def execute(self, command: Mapping[str, object]) -> str:
        """Run one command (the tool's JSON input) and answer in words a model acts on."""
        try:
            name = command.get("command") if isinstance(command, Mapping) else None
            if name not in COMMANDS:
                raise InvalidInput(
                    f"Unknown memory command {name!r}; use one of: {', '.join(COMMANDS)}."
                )
            return str(getattr(self, f"_{name}")(command))
        except DoxaError as error:
            return f"Error: {error}"

    # -- the commands ----------------------------------------------------------------

    def _view(self, command: Mapping[str, object]) -> str:
        name = memory_path(command.get("path"))
        files = self.memory.render().files
        if name is None:
            listed = [f"{len(text.encode())}\t{ROOT}/{n}" for n, text in sorted(files.items())]
            return f"Files in {ROOT}:\n" + "\n".join(listed)
        lines = self._file(files, name).splitlines()
        first, last = 1, len(lines)
        shown = command.get("view_range")
        if shown is not None:
            if (
                not isinstance(shown, list)
                or len(shown) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in shown)
            ):
                raise InvalidInput("view_range is two line numbers, e.g. [1, 10].")
            first, last = shown[0], (len(lines) if shown[1] == -1 else shown[1])
        return "\n".join(
            f"{n:6d}\t{lines[n - 1]}" for n in range(max(first, 1), last + 1) if n <= len(lines)
        )

    def _create(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        text = _text(command.get("file_text"), "file_text")
        return self._apply({name: text})

    def _str_replace(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        old = _text(command.get("old_str"), "old_str")
        new = _text(command.get("new_str"), "new_str")
        current = self._file(self.memory.render().files, name)
        count = current.count(old) if old else 0
        if count != 1:
            raise InvalidInput(
                f"old_str occurs {count} times in {ROOT}/{name}; give text that occurs exactly "
                "once (view the file first)."
            )
        return self._apply({name: current.replace(old, new, 1)})

    def _insert(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        text = _text(command.get("insert_text"), "insert_text")
        where = command.get("insert_line")
        lines = self._file(self.memory.render().files, name).splitlines()
        if not isinstance(where, int) or isinstance(where, bool) or not 0 <= where <= len(lines):
            raise InvalidInput(
                f"insert_line {where!r} is out of range; use 0 to {len(lines)} for {ROOT}/{name}."
            )
        lines[where:where] = text.splitlines()
        return self._apply({name: "\n".join(lines) + "\n"})

    def _delete(self, command: Mapping[str, object]) -> str:
        name = self._writable(command.get("path"))
        rendered = self.memory.render()
        self._file(rendered.files, name)
        ids = [fid for fid, _ in rendered.manifest.files[name][1]]
        return self._apply({name: None}, retract=ids)

    def _rename(self, command: Mapping[str, object]) -> str:
        old = self._writable(command.get("old_path"))
        new = self._writable(command.get("new_path"))
        files = self.memory.render().files
        text = self._file(files, old)
        if new in files:
            raise InvalidInput(f"{ROOT}/{new} already exists; rename to a new topic file.")
        return self._apply({old: None, new: text})

    # -- the projection ----------------------------------------------------------------

    def _writable(self, raw: object) -> str:
        name = memory_path(raw)
        if name is None or name == INDEX:
            raise InvalidInput(
                f"{raw!r} is not a topic file; {ROOT}/{INDEX} is written by the memory itself, "
                f"so edit a topic file such as {ROOT}/meetings.md."
            )
        return name

    @staticmethod
    def _file(files: Mapping[str, str], name: str) -> str:
        if name not in files:
            raise InvalidInput(
                f"{ROOT}/{name} does not exist; view {ROOT} to list the files, or create it."
            )
        return files[name]

    def _apply(self, changes: Mapping[str, str | None], retract: list[str] | None = None) -> str:
        rendered = self.memory.render()
        texts = dict(rendered.files)
        for name, text in changes.items():
            if text is None:
                texts.pop(name, None)
            else:
                texts[name] = text
        report, _ = self.memory.sync_texts(
            rendered.manifest, texts, authority=self.authority, retract=retract or ()
        )
        return "\n".join(report.lines())


def _text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} {value!r} is not text; pass a string.")
    return value
