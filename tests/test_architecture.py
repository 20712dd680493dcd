"""The structure holds: imports follow the layers, and no module borrows another's private name.

The layers themselves are checked by import-linter (``lint-imports`` in scripts/check) from
``[tool.importlinter]`` in pyproject.toml; these tests keep that contract, the picture in
docs/architecture.md and the code from drifting apart.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "doxa"


def _contract_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == "doxa's layers"
    ]
    layers: list[str] = contract["layers"]
    return layers


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private_imports(source: str, module: str) -> list[str]:
    """``from doxa.x import _name`` (or ``import doxa.x._y``) where ``doxa.x`` is not ``module``
    itself nor its own package: the one way a module reaches into another's internals."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("doxa"):
                continue
            owner = node.module
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and owner != module:
                    found.append(f"{module}: from {owner} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("doxa") and any(
                    p.startswith("_") and not p.startswith("__") for p in alias.name.split(".")
                ):
                    found.append(f"{module}: import {alias.name}")
    return found


def test_no_module_imports_another_modules_private_name() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += private_imports(path.read_text(encoding="utf-8"), _module_name(path))
    assert found == []


def test_the_private_import_check_catches_one() -> None:
    """Control: the check above is not blind."""
    borrowed = "from doxa.interfaces.cli import _plain\nfrom doxa.errors import DoxaError\n"
    assert private_imports(borrowed, "doxa.interfaces.http.rest") == [
        "doxa.interfaces.http.rest: from doxa.interfaces.cli import _plain"
    ]
    assert private_imports("from doxa.store.base import _quads_text\n", "doxa.store.base") == []


def test_the_layers_name_every_top_level_module() -> None:
    """Each module or package under doxa/ sits in exactly one layer (the root and its
    ``__main__`` aside), so a new one cannot slip past the contract."""
    named = [m.strip() for layer in _contract_layers() for m in re.split(r"[|:]", layer)]
    assert len(named) == len(set(named))
    present = {
        f"doxa.{p.stem if p.is_file() else p.name}"
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").is_file())
    }
    assert present == set(named)


def test_the_architecture_page_shows_the_contract_layers() -> None:
    """docs/architecture.md lists the layers in the contract's order, each as in the contract."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- layers -->\n```\n(.*?)```", text, flags=re.DOTALL)
    assert block is not None, "docs/architecture.md must keep its layer list"
    shown = [line.strip() for line in block.group(1).splitlines() if line.strip()]
    assert shown == _contract_layers()


@pytest.mark.parametrize("layer", _contract_layers())
def test_each_layer_module_exists(layer: str) -> None:
    for name in re.split(r"[|:]", layer):
        parts = name.strip().split(".")[1:]
        base = PACKAGE.joinpath(*parts)
        assert base.with_suffix(".py").is_file() or (base / "__init__.py").is_file(), name
