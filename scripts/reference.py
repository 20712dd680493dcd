"""Write the generated parts of docs/python-api.md and docs/cli.md from the code itself.

    PYTHONPATH=src python scripts/reference.py           # rewrite the generated parts
    PYTHONPATH=src python scripts/reference.py --check   # exit 1 naming each stale file

A generated part sits between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``;
everything outside the markers is written by hand and kept as it is. The parts are:

- ``python-api``: ``doxa.Memory`` (constructor, then every public method, classmethod,
  staticmethod and property in source order, each with its signature as written and the first
  paragraph of its docstring), then every object Memory hands out through a property (see
  :func:`sub_objects`: found, not listed here), then the few classes in :data:`CLASSES`;
- ``python-api-names``: every name of ``doxa.__all__`` but the errors, with its first
  docstring paragraph (a dataclass's fields, an enum's values);
- ``python-api-errors``: the tree of the exported errors under ``DoxaError``;
- ``cli-options``: the root group's own options (the global ones);
- ``cli-commands``: every command under ``doxa``, recursively: usage, first paragraph of its
  help, its options.

Nothing in the output depends on the machine: no addresses, no absolute paths, no terminal
width (click's help formatter is not used; the tables are built from the parameters).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import functools
import importlib
import inspect
import os
import pkgutil
import re
import sys
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import click

import doxa

ROOT = Path(__file__).resolve().parents[1]
RUN = "PYTHONPATH=src python scripts/reference.py"

#: classes of ``doxa.__all__`` documented member by member beside Memory: the ones a user
#: implements (Judge, Embedder, Clock) or configures and calls (the rest)
CLASSES = (
    "Judge",
    "Embedder",
    "Clock",
    "FixedClock",
    "EmbedConfig",
    "OpenAIEmbedder",
    "LLMConfig",
    "LLMJudge",
)

_START = re.compile(r"<!-- generated: (?P<name>[A-Za-z0-9_-]+) -->\n")
_END = "<!-- end generated -->"


class MarkerError(Exception):
    """A document's markers are missing, unknown or unclosed: the file needs a hand first."""


# --- text ----------------------------------------------------------------------------------

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_TILDE = re.compile(r":[a-z]+:`~([^`]+)`")
_SPAN = re.compile(r"(`+)(.+?)\1", flags=re.DOTALL)


def _markdown(text: str) -> str:
    """reST inline markup as Markdown: ``x`` and :role:`x` become `x` (:role:`~a.b` `b`);
    outside code, ``<`` and ``*`` are escaped so they show as written."""
    text = _TILDE.sub(lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    text = _ROLE.sub(lambda m: f"`{m.group(1)}`", text)
    text = text.replace("``", "`")
    pieces: list[str] = []
    last = 0
    for match in _SPAN.finditer(text):
        pieces.append(_escape(text[last : match.start()]))
        pieces.append(match.group(0))
        last = match.end()
    pieces.append(_escape(text[last:]))
    return "".join(pieces)


def _escape(text: str) -> str:
    return text.replace("<", "\\<").replace("*", "\\*")


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring or a command's help, on one line."""
    if not doc:
        return ""
    doc = inspect.cleandoc(doc).split("\f", 1)[0]
    lines: list[str] = []
    for line in doc.splitlines():
        if not line.strip():
            if lines:
                break
            continue
        if line.strip() == "\b":  # click's "do not rewrap" marker
            continue
        lines.append(line.strip())
    return _markdown(" ".join(lines))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


# --- Python signatures ---------------------------------------------------------------------

_NAME = re.compile(r"(?<![\w.'\"])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_PLAIN_MODULES = {"", "builtins", "typing", "typing_extensions", "collections", "doxa"}


def _namespace(obj: object) -> dict[str, object]:
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    return dict(vars(module)) if module is not None else {}


def annotation(value: object, namespace: Mapping[str, object]) -> str:
    """An annotation as written in the source, cleaned: ``doxa.model.Fact`` is ``Fact``, and a
    name imported under an alias (``Literal_``, ``RdflibDataset``) shows its own name."""
    if value is inspect.Parameter.empty:
        return ""
    text = value if isinstance(value, str) else inspect.formatannotation(value)

    def rename(match: re.Match[str]) -> str:
        dotted = match.group(0)
        head, _, rest = dotted.partition(".")
        if head == "doxa":
            return dotted.rsplit(".", 1)[-1]
        if rest:
            return dotted
        obj = namespace.get(head)
        if obj is None or typing.get_origin(obj) is not None:  # absent, or ``X = Callable[…]``
            return dotted
        real = getattr(obj, "__name__", None)
        if not isinstance(real, str) or real == head:
            return dotted
        top = (getattr(obj, "__module__", None) or "").split(".")[0]
        return real if top in _PLAIN_MODULES else f"{top}.{real}"

    return " ".join(_NAME.sub(rename, text).split())


def default(value: object) -> str:
    """A default value as a reader would write it: never an address or a path of this machine."""
    if value is os.environ:
        return "os.environ"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, type | types.FunctionType | types.BuiltinFunctionType):
        return value.__qualname__
    if isinstance(value, Path):
        return f"Path({str(value)!r})"
    text = re.sub(r" at 0x[0-9A-Fa-f]+", "", repr(value))
    return text.replace(str(ROOT), "…")


def signature(
    func: Callable[..., object], *, drop_first: bool, name: str = "", returns: bool = True
) -> str:
    """``name(params) -> return``, annotations as written; ``self``/``cls`` dropped."""
    namespace = _namespace(func)
    sig = inspect.signature(func, eval_str=False)
    params = list(sig.parameters.values())
    if drop_first and params:
        params = params[1:]
    parts: list[str] = []
    star = False
    for index, param in enumerate(params):
        if param.kind is param.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if param.kind is param.VAR_POSITIONAL:
            star = True
        stars: dict[object, str] = {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}
        text = stars.get(param.kind, "") + param.name
        written = annotation(param.annotation, namespace)
        if written:
            text += f": {written}"
        if param.default is not param.empty:
            text += f" = {default(param.default)}" if written else f"={default(param.default)}"
        parts.append(text)
        following = params[index + 1] if index + 1 < len(params) else None
        if param.kind is param.POSITIONAL_ONLY and (
            following is None or following.kind is not param.POSITIONAL_ONLY
        ):
            parts.append("/")
    returned = annotation(sig.return_annotation, namespace) if returns else ""
    return f"{name}({', '.join(parts)})" + (f" -> {returned}" if returned else "")


# --- Python classes ------------------------------------------------------------------------


def _is_doxa(cls: object) -> bool:
    module = getattr(cls, "__module__", None) or ""
    return isinstance(cls, type) and (module == "doxa" or module.startswith("doxa."))


def _getter(value: object) -> Callable[..., object] | None:
    """The function behind a property (plain or cached), else None."""
    if isinstance(value, property):
        return value.fget
    if isinstance(value, functools.cached_property):
        return typing.cast(Callable[..., object], value.func)
    return None


def _is_member(value: object) -> bool:
    """A method, classmethod, staticmethod or property; not a plain class attribute."""
    kinds = (classmethod, staticmethod, property, functools.cached_property)
    return isinstance(value, kinds) or inspect.isfunction(value)


@dataclasses.dataclass(frozen=True)
class Member:
    """One public member of a documented class, ready to print."""

    name: str
    shown: str  # the code span: a signature, or ``name: type``
    note: str  # "property", "classmethod" …, or ""
    summary: str


def members(cls: type) -> list[Member]:
    """Every public member of ``cls`` and of its doxa bases, in source order, an override once.

    Methods, classmethods, staticmethods, properties (plain or cached), and the annotated
    attributes of a class that is not a dataclass (a protocol's ``name: str``)."""
    found: list[Member] = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not _is_doxa(klass):
            continue
        namespace = _namespace(klass)
        if not dataclasses.is_dataclass(klass):
            for name, written in vars(klass).get("__annotations__", {}).items():
                if name.startswith("_") or name in seen:
                    continue
                seen.add(name)
                shown = f"{name}: {annotation(written, namespace)}"
                found.append(Member(name, shown, "attribute", ""))
        for name, value in vars(klass).items():
            if name.startswith("_") or name in seen or not _is_member(value):
                continue
            seen.add(name)
            getter = _getter(value)
            if getter is not None:
                written = annotation(inspect.signature(getter).return_annotation, namespace)
                shown = f"{name}: {written}" if written else name
                doc = inspect.getdoc(value) or inspect.getdoc(getter)
                found.append(Member(name, shown, "property", first_paragraph(doc)))
            elif isinstance(value, classmethod | staticmethod):
                func = value.__func__
                drop = isinstance(value, classmethod)
                shown = signature(func, drop_first=drop, name=f"{cls.__name__}.{name}")
                note = type(value).__name__
                found.append(Member(name, shown, note, first_paragraph(inspect.getdoc(func))))
            elif inspect.isfunction(value):
                shown = signature(value, drop_first=True, name=name)
                found.append(Member(name, shown, "", first_paragraph(inspect.getdoc(value))))
    return found


def _constructor(cls: type) -> str | None:
    """``Cls(params)`` when a doxa class in the MRO defines ``__init__``, else None (a
    protocol's ``__init__`` is typing's)."""
    if getattr(cls, "_is_protocol", False):
        return None
    for klass in cls.__mro__:
        if not _is_doxa(klass):
            continue
        init = vars(klass).get("__init__")
        if init is not None and inspect.isfunction(init):
            return signature(init, drop_first=True, name=cls.__name__, returns=False)
    return None


def _class_doc(cls: type) -> str:
    doc = cls.__doc__ or ""
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return ""  # the signature dataclasses writes when there is no docstring
    return first_paragraph(doc)


def _classes_in(hint: object) -> Iterator[type]:
    """The classes a type hint names: itself, or the members of a union (``Owner | None``)."""
    if isinstance(hint, type) and not typing.get_args(hint):
        yield hint
        return
    for arg in typing.get_args(hint):
        yield from _classes_in(arg)


def _shared_prefix(one: str, other: str) -> int:
    """How many leading characters two module names have in common."""
    count = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        count += 1
    return count


def _doxa_classes(near: str = "") -> dict[str, type]:
    """Every class defined in a loaded doxa module, by name: the names an annotation imported
    only under ``TYPE_CHECKING`` can still be found by. A name two modules define goes to the
    class whose module's name shares the longest prefix with ``near`` (the annotating
    module's), and to none when that is still a tie."""
    seen: dict[str, set[type]] = {}
    for name, module in sorted(sys.modules.items()):
        if module is None or not (name == "doxa" or name.startswith("doxa.")):
            continue
        for value in list(vars(module).values()):
            if _is_doxa(value) and value.__module__ == name:
                seen.setdefault(value.__name__, set()).add(value)
    found: dict[str, type] = {}
    for name, classes in seen.items():
        ranked = sorted(
            ((_shared_prefix(near, c.__module__), c) for c in classes),
            key=lambda pair: pair[0],
            reverse=True,
        )
        if len(ranked) == 1 or ranked[0][0] > ranked[1][0]:
            found[name] = ranked[0][1]
    return found


def _load_package_of(cls: type) -> None:
    """Import every module of the package ``cls`` lives in (``doxa.memory`` once it is one),
    so sub-object classes imported only for type checking are loaded too."""
    package = sys.modules[cls.__module__].__package__ or ""
    module = sys.modules.get(package)
    path = getattr(module, "__path__", None)
    if not package.startswith("doxa.") or path is None:
        return
    for info in sorted(pkgutil.walk_packages(path, f"{package}."), key=lambda i: i.name):
        importlib.import_module(info.name)


def returned_classes(getter: Callable[..., object]) -> list[type]:
    """The doxa classes a property's return annotation names (``typing.get_type_hints``,
    falling back to the doxa classes by name when the annotation's import is type-only)."""
    try:
        hint = typing.get_type_hints(getter).get("return")
    except Exception:  # a name imported under TYPE_CHECKING only
        written = getattr(getter, "__annotations__", {}).get("return")
        if not isinstance(written, str):
            return []
        near = getattr(getter, "__module__", None) or ""
        namespace = {**_doxa_classes(near), **_namespace(getter)}
        try:
            hint = eval(written, dict(namespace))  # the module's own annotation text
        except Exception:
            return []
    return [cls for cls in _classes_in(hint) if _is_doxa(cls)]


def _is_sub_object(cls: type) -> bool:
    """A class worth a section: methods or properties to call, not a result or an enum."""
    if dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum | BaseException):
        return False
    return any(member.note != "attribute" for member in members(cls))


def sub_objects(cls: type, path: str) -> list[tuple[str, type]]:
    """``(memory.owner, Owner)`` for each public property of ``cls`` whose return annotation
    names a class of a doxa module, in source order, then theirs in turn (each class once)."""
    _load_package_of(cls)
    found: list[tuple[str, type]] = []
    documented: set[type] = {cls}
    queue: list[tuple[type, str]] = [(cls, path)]
    while queue:
        owner, prefix = queue.pop(0)
        for klass in owner.__mro__:
            if not _is_doxa(klass):
                continue
            for name, value in vars(klass).items():
                getter = _getter(value)
                if name.startswith("_") or getter is None:
                    continue
                for target in returned_classes(getter):
                    if target in documented or not _is_sub_object(target):
                        continue
                    documented.add(target)
                    found.append((f"{prefix}.{name}", target))
                    queue.append((target, f"{prefix}.{name}"))
    return found


def _member_lines(items: Sequence[Member]) -> list[str]:
    lines: list[str] = []
    for member in items:
        note = f" ({member.note})" if member.note else ""
        lines.append(f"- `{member.shown}`{note}")
        if member.summary:
            lines += ["", f"  {member.summary}"]
        lines.append("")
    return lines


def _class_section(heading: str, cls: type, *, constructor: bool) -> list[str]:
    lines = [heading, ""]
    summary = _class_doc(cls)
    if summary:
        lines += [summary, ""]
    made = _constructor(cls) if constructor else None
    if made is not None:
        lines += [f"- `{made}` (constructor)", ""]
    items = members(cls)
    lines += _member_lines(items) if items else ["No public members.", ""]
    return lines


def python_api() -> str:
    """The ``python-api`` part: Memory, the objects it hands out, and :data:`CLASSES`."""
    memory = doxa.Memory
    lines = _class_section(f"### `doxa.{memory.__name__}`", memory, constructor=True)
    for path, cls in sub_objects(memory, "memory"):
        lines += _class_section(f"### `{path}` — `{cls.__name__}`", cls, constructor=False)
    for name in CLASSES:
        cls = getattr(doxa, name)
        lines += _class_section(f"### `doxa.{name}`", cls, constructor=True)
    return "\n".join(lines).rstrip("\n") + "\n"


def _exported() -> list[tuple[str, object]]:
    return [(name, getattr(doxa, name)) for name in sorted(doxa.__all__)]


def _kind(value: object) -> str:
    if not isinstance(value, type):
        return type(value).__name__
    where = "" if _is_doxa(value) else f" (from {value.__module__.split('.')[0]})"
    if issubclass(value, enum.Enum):
        return "enum"
    if dataclasses.is_dataclass(value):
        return "dataclass"
    if getattr(value, "_is_protocol", False):
        return "protocol"
    return "class" + where


def _details(value: type) -> str:
    """A dataclass's fields and properties, an enum's values."""
    if issubclass(value, enum.Enum):
        values = ", ".join(f"`{m.value if isinstance(m.value, str) else m.name}`" for m in value)
        return f" Values: {values}."
    if dataclasses.is_dataclass(value):
        fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(value) if f.init or f.repr)
        extra = [m.name for m in members(value) if m.note == "property"]
        more = "; " + ", ".join(f"`{name}`" for name in extra) if extra else ""
        return f" Fields: {fields}{more}." if fields else ""
    return ""


def python_names() -> str:
    """The ``python-api-names`` part: every exported name but the errors."""
    lines = ["| name | kind | what it is |", "| --- | --- | --- |"]
    for name, value in _exported():
        if isinstance(value, type) and issubclass(value, BaseException):
            continue
        doc = _class_doc(value) if isinstance(value, type) else first_paragraph(value.__doc__)
        details = _details(value) if isinstance(value, type) else ""
        lines.append(f"| `{name}` | {_kind(value)} | {_cell(doc + details)} |")
    return "\n".join(lines) + "\n"


def python_errors() -> str:
    """The ``python-api-errors`` part: the exported errors as a tree under ``DoxaError``."""
    root = doxa.DoxaError
    public = {value for _, value in _exported() if isinstance(value, type)}

    def children(cls: type) -> list[type]:
        found: list[type] = []
        sub: type
        for sub in cls.__subclasses__():  # in the order they were defined
            if sub in public:
                found.append(sub)
            elif _is_doxa(sub):
                found += children(sub)
        return found

    def lines(cls: type, depth: int) -> list[str]:
        also = [b.__name__ for b in cls.__bases__ if not issubclass(b, root)]
        extra = f" (also `{'`, `'.join(also)}`)" if also and cls is not root else ""
        summary = _class_doc(cls)
        text = f"{'  ' * depth}- `{cls.__name__}`{extra}" + (f": {summary}" if summary else "")
        out = [text]
        for sub in children(cls):
            out += lines(sub, depth + 1)
        return out

    return "\n".join(lines(root, 0)) + "\n"


# --- the command line ----------------------------------------------------------------------


def _root() -> click.Group:
    from doxa.interfaces.cli import main

    return main


def _option_rows(ctx: click.Context, *, with_help: bool) -> list[str]:
    rows: list[str] = []
    help_option = ctx.command.get_help_option(ctx)
    for param in ctx.command.get_params(ctx):
        if not isinstance(param, click.Option) or param.hidden:
            continue
        if param is help_option and not with_help:
            continue
        record = param.get_help_record(ctx)
        names = record[0] if record else "/".join(param.opts)
        shown = ", ".join(f"`{name.strip()}`" for name in names.split(", "))
        given: list[str] = []
        if isinstance(param.envvar, str):
            given.append(f"`${param.envvar}`")
        value = param.get_default(ctx, call=False)
        if _shown_default(value) and not param.is_flag:
            given.append(f"`{value}`")
        when = ", else ".join(given)
        if param.required:
            when = "required"
        meaning = param.help or ""
        rows.append(f"| {_cell(shown)} | {_cell(when)} | {_cell(_markdown(meaning))} |")
    if not rows:
        return []
    return ["| option | default | meaning |", "| --- | --- | --- |", *rows]


def _shown_default(value: object) -> bool:
    """Whether a default is a value to print: not None, empty, a flag's False, a factory, or
    click's marker for "no default" (``Sentinel.UNSET`` in click 8.3 and later)."""
    if value is None or value is False or callable(value):
        return False
    if type(value).__name__ == "Sentinel":
        return False
    return not (isinstance(value, str | tuple | list) and not value)


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    settings = dict(command.context_settings)
    settings.setdefault("terminal_width", 100)
    settings.setdefault("max_content_width", 100)
    return click.Context(command, info_name=name, parent=parent, **settings)


def _walk(ctx: click.Context) -> Iterator[click.Context]:
    command = ctx.command
    if not isinstance(command, click.Group):
        return
    for name in command.list_commands(ctx):  # sorted by click
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        child = _context(sub, name, ctx)
        yield child
        yield from _walk(child)


def cli_options() -> str:
    """The ``cli-options`` part: the root group's options, each with where its default comes
    from."""
    ctx = _context(_root(), "doxa", None)
    return "\n".join(_option_rows(ctx, with_help=True)) + "\n"


def cli_commands(headings: str = "") -> str:
    """The ``cli-commands`` part: each command's usage, summary and options. A command whose
    hand-written section (``### `doxa NAME```) is in ``headings`` links to it."""
    ctx = _context(_root(), "doxa", None)
    lines: list[str] = []
    for child in _walk(ctx):
        command = child.command
        path = child.command_path
        title = f"`{path}`"
        heading = f"### {title}"
        if re.search(rf"^{re.escape(heading)}\s*$", headings, flags=re.MULTILINE):
            title = f"[{title}](#{_slug(title)})"
        usage = " ".join([path, *command.collect_usage_pieces(child)])
        lines += [f"**{title}**", "", "```text", usage, "```", ""]
        summary = first_paragraph(command.help)
        if summary:
            lines += [summary, ""]
        if isinstance(command, click.Group):
            names = [n for n in command.list_commands(child) if _visible(command, child, n)]
            lines += ["Commands: " + ", ".join(f"`{n}`" for n in names) + ".", ""]
        rows = _option_rows(child, with_help=False)
        lines += [*rows, ""] if rows else ["No options of its own.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _visible(group: click.Group, ctx: click.Context, name: str) -> bool:
    sub = group.get_command(ctx, name)
    return sub is not None and not sub.hidden


# --- the documents -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Document:
    """A document with generated parts: ``label`` names it in messages (``docs/cli.md``)."""

    label: str
    path: Path
    parts: Callable[[str], dict[str, str]]  # the document's text -> part name -> body


def _python_parts(text: str) -> dict[str, str]:
    return {
        "python-api": python_api(),
        "python-api-names": python_names(),
        "python-api-errors": python_errors(),
    }


def _cli_parts(text: str) -> dict[str, str]:
    return {"cli-options": cli_options(), "cli-commands": cli_commands(text)}


def documents(root: Path = ROOT) -> list[Document]:
    """The documents under ``root``: the checkout's, or a copy of its ``docs`` folder's."""
    docs = root / "docs"
    return [
        Document("docs/python-api.md", docs / "python-api.md", _python_parts),
        Document("docs/cli.md", docs / "cli.md", _cli_parts),
    ]


def regenerate(text: str, parts: Mapping[str, str], label: str) -> str:
    """``text`` with the body of each generated part replaced; every part in ``parts`` must
    be there once, and no other."""
    out: list[str] = []
    found: list[str] = []
    position = 0
    while (start := _START.search(text, position)) is not None:
        name = start.group("name")
        end = text.find(_END, start.end())
        if end < 0:
            raise MarkerError(f"{label}: the generated part {name!r} has no {_END}")
        if name not in parts:
            raise MarkerError(f"{label}: no generated part is called {name!r}")
        if name in found:
            raise MarkerError(f"{label}: the generated part {name!r} appears twice")
        found.append(name)
        # a blank line each side: the part never runs into a table or a list around it
        out += [text[position : start.end()], "\n", parts[name].strip("\n"), "\n\n"]
        position = end
    out.append(text[position:])
    missing = [name for name in parts if name not in found]
    if missing:
        raise MarkerError(
            f"{label}: add the generated part(s) {', '.join(missing)}: a line "
            f"'<!-- generated: NAME -->' and a line '{_END}' where each belongs"
        )
    return "".join(out)


def _fresh(document: Document) -> tuple[str, str]:
    text = document.path.read_text(encoding="utf-8")
    return text, regenerate(text, document.parts(text), document.label)


def check(docs: Sequence[Document]) -> list[str]:
    """One message per document whose generated parts differ from what the code says."""
    messages = []
    for document in docs:
        text, fresh = _fresh(document)
        if fresh != text:
            messages.append(f"{document.label} is stale: run `{RUN}`")
    return messages


def write(docs: Sequence[Document]) -> list[str]:
    """Rewrite the generated parts; returns the labels of the documents that changed."""
    changed = []
    for document in docs:
        text, fresh = _fresh(document)
        if fresh != text:
            document.path.write_text(fresh, encoding="utf-8")
            changed.append(document.label)
    return changed


def main(argv: Sequence[str] | None = None, *, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming each stale file"
    )
    arguments = parser.parse_args(argv)
    docs = documents(root)
    try:
        if arguments.check:
            messages = check(docs)
            for message in messages:
                print(message, file=sys.stderr)
            return 1 if messages else 0
        for label in write(docs):
            print(f"wrote {label}")
    except MarkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
