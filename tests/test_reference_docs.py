"""The generated parts of docs/python-api.md and docs/cli.md are what the code says today.

``scripts/reference.py`` writes them; these tests run its check in-process, and show on
copies of the documents that the check does see a stale part (the controls).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_reference() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        "doxa_reference_script", ROOT / "scripts" / "reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


def _copy_docs(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    for document in reference.documents(ROOT):
        shutil.copy(document.path, tmp_path / document.label)
    return tmp_path


def test_the_generated_docs_are_up_to_date() -> None:
    """Each document's generated parts match the code; the message says how to mend them."""
    messages = reference.check(reference.documents(ROOT))
    assert messages == [], "\n".join(messages)


@pytest.mark.parametrize("label", ["docs/python-api.md", "docs/cli.md"])
def test_a_changed_generated_line_is_reported(tmp_path: Path, label: str) -> None:
    """Control: a copy whose generated part lost a line is named stale, with the command to
    run, and the other copy is not; writing mends it, and it checks clean again."""
    root = _copy_docs(tmp_path)
    path = root / label
    text = path.read_text(encoding="utf-8")
    marker = re.search(r"<!-- generated: [\w-]+ -->\n\n", text)
    assert marker is not None
    first = marker.end()  # the part's first line
    path.write_text(text[:first] + text[text.index("\n", first) + 1 :], "utf-8")

    docs = reference.documents(root)
    assert reference.check(docs) == [
        f"{label} is stale: run `PYTHONPATH=src python scripts/reference.py`"
    ]
    assert reference.write(docs) == [label]
    assert path.read_text(encoding="utf-8") == text
    assert reference.check(docs) == []


def test_hand_written_text_is_kept(tmp_path: Path) -> None:
    """Control: prose outside the markers is nobody's business but the author's."""
    root = _copy_docs(tmp_path)
    path = root / "docs" / "cli.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nA note by hand.\n", "utf-8")
    assert reference.check(reference.documents(root)) == []


def test_a_missing_marker_is_an_error(tmp_path: Path) -> None:
    """A document that lost a part's markers cannot be checked: it says which part."""
    root = _copy_docs(tmp_path)
    path = root / "docs" / "python-api.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("<!-- generated: python-api-errors -->", ""),
        "utf-8",
    )
    with pytest.raises(reference.MarkerError, match="python-api-errors"):
        reference.check(reference.documents(root))


def test_the_command_line_check_exits_1_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--check`` exits 1 and names each stale file on stderr; 0 when all are fresh."""
    root = _copy_docs(tmp_path)
    assert reference.main(["--check"], root=root) == 0
    path = root / "docs" / "cli.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("| `--json` |", "| `--jsn` |"), "utf-8"
    )
    assert reference.main(["--check"], root=root) == 1
    assert capsys.readouterr().err == (
        "docs/cli.md is stale: run `PYTHONPATH=src python scripts/reference.py`\n"
    )


# --- finding the objects Memory hands out -------------------------------------------------


def _fake_package() -> dict[str, Any]:
    """A doxa module with a memory whose properties hand out sub-objects, one of them named
    only as a string the module never imports (as under ``TYPE_CHECKING``)."""
    module = types.ModuleType("doxa._reference_fake")
    source = '''
from __future__ import annotations
import functools
from dataclasses import dataclass

@dataclass(frozen=True)
class Result:
    value: int

class Files:
    """Memory as files."""
    def render(self, folder: str) -> Result:
        """Write the folder."""
        return Result(1)

class Owner:
    """What only the owner does."""
    def approve(self, item: str, *, reason: str = "") -> Result:
        """Apply a held write."""
        return Result(1)
    @property
    def files(self) -> Files:
        return Files()

class Admin:
    """The store's keeping."""
    def backup(self) -> str:
        """Back the store up."""
        return ""

class Memory:
    """A memory."""
    @property
    def owner(self) -> Owner:
        """The owner's verbs."""
        return Owner()
    @functools.cached_property
    def admin(self) -> Admin | None:
        return Admin()
    @property
    def schema(self) -> Schema:
        return _schema()
    @property
    def last(self) -> Result:
        return Result(0)
    @property
    def mode(self) -> str:
        return "words"
'''
    sys.modules[module.__name__] = module
    exec(compile(source, "<fake>", "exec"), module.__dict__)
    hidden = types.ModuleType("doxa._reference_fake_schema")
    sys.modules[hidden.__name__] = hidden
    exec(
        compile(
            'class Schema:\n    """Shapes and ontology."""\n'
            "    def add_shapes(self, name: str) -> int:\n        return 0\n",
            "<fake schema>",
            "exec",
        ),
        hidden.__dict__,
    )
    return module.__dict__


def test_sub_objects_are_found_by_the_return_type_of_properties() -> None:
    """Each property typed with a doxa class gets a section, in source order, found through
    a union, a cached property, an import the module lacks and a property of a sub-object;
    a result dataclass and a plain str are no sub-objects."""
    names = _fake_package()
    try:
        found = reference.sub_objects(names["Memory"], "memory")
        assert [(path, cls.__name__) for path, cls in found] == [
            ("memory.owner", "Owner"),
            ("memory.admin", "Admin"),
            ("memory.schema", "Schema"),
            ("memory.owner.files", "Files"),
        ]
        members = reference.members(names["Owner"])
        assert [(m.name, m.shown, m.note, m.summary) for m in members] == [
            (
                "approve",
                "approve(item: str, *, reason: str = '') -> Result",
                "",
                "Apply a held write.",
            ),
            ("files", "files: Files", "property", ""),
        ]
    finally:
        del sys.modules["doxa._reference_fake"], sys.modules["doxa._reference_fake_schema"]


def test_the_real_memory_section_lists_every_public_member() -> None:
    """Control on the real class: every public name of Memory is in its section."""
    import doxa

    section = reference.python_api().split("\n### ")[0]
    public = [name for name in vars(doxa.Memory) if not name.startswith("_")]
    assert public
    missing = [name for name in public if f"`{name}" not in section and f".{name}(" not in section]
    assert missing == []
