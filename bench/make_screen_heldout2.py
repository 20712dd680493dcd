"""Build ``tests/data/screen_heldout2.jsonl``: a second held-out set, from AgentDojo.

Run ``python bench/make_screen_heldout2.py --wheel agentdojo-0.1.35-py3-none-any.whl``
(``pip download agentdojo==0.1.35 --no-deps``). AgentDojo (Debenedetti et al. 2024,
ETH Zürich SPY Lab, ``ethz-spylab/agentdojo``, MIT) is a benchmark of prompt injections in
tool results: its four suites (workspace, slack, travel, banking) describe an agent's world
in YAML (an inbox, a calendar, a cloud drive, Slack channels and web pages, hotel and
restaurant reviews, bank transactions and files) with *injection vectors*, placeholders
inside those texts whose default is the benign content. An attack replaces one vector with
an attack string (``attacks/baseline_attacks.py``, ``attacks/important_instructions_attacks.py``)
around an injection task's ``GOAL`` (``default_suites/v1/<suite>/injection_tasks.py``), the
other vectors keeping their defaults, exactly as AgentDojo's benchmark builds the world.

Each row is one text of that world as a tool returns it (an e-mail body, a calendar event's
description, a file, a web page, a review), so an attack and its benign controls share the
channel: the same texts with every vector at its default are the benign rows. The wheel is
read as a zip: the YAML is parsed with ``yaml.safe_load`` and the Python with :mod:`ast`
(class-level strings and f-strings only); AgentDojo's code is never imported or run. The
tool-knowledge attack is left out: its text is made by running each task's ground truth.
Each (suite, attack, goal) is kept once, in a vector chosen by a fixed hash. The file is
third-party text and is never committed (``.git/info/exclude``); this script is.
"""

from __future__ import annotations

import ast
import hashlib
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import yaml

from screen_sets import write_set

_SUITES = ("workspace", "slack", "travel", "banking")
_ROOT = "agentdojo/"
#: the attack classes kept, their file, and the names they sign with (AgentDojo's defaults
#: for the "no model name" variant: the user is Emma Johnson, the model "the AI language model")
_ATTACKS = {
    "DirectAttack": "attacks/baseline_attacks.py",
    "IgnorePreviousAttack": "attacks/baseline_attacks.py",
    "SystemMessageAttack": "attacks/baseline_attacks.py",
    "InjecAgentAttack": "attacks/baseline_attacks.py",
    "ImportantInstructionsAttack": "attacks/important_instructions_attacks.py",
}
_NAMES = {"user": "Emma Johnson", "model": "the AI language model"}
#: the channel of a text, by the top-level key of the suite's environment it sits under
_CHANNELS = {
    "inbox": "email",
    "calendar": "calendar",
    "cloud_drive": "document",
    "slack": "chat_log",
    "web": "web",
    "hotels": "web",
    "restaurants": "web",
    "car_rental": "web",
    "bank_account": "tool_result",
    "filesystem": "document",
}
_MARK = "XXINJ{}XXEND"
_FIELD = re.compile(r"\{(\w+)\}")
_MIN_CHARS, _MAX_CHARS = 40, 4000
#: a bank transaction's subject is a short text: the benign controls of that channel
_MIN_CHARS_BY_CHANNEL = {"tool_result": 8}


def _rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with AgentDojo's ``!include`` (a file beside the environment)."""


def _strings(scope: dict[str, Any], node: ast.expr) -> Any:
    """A class-level value: literals, f-strings over earlier names, ``+`` of strings."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return scope[node.id]
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_strings(scope, part)) for part in node.values)
    if isinstance(node, ast.FormattedValue):
        return _strings(scope, node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _strings(scope, node.left) + _strings(scope, node.right)
    raise ValueError("not a string")


def _goals(source: str) -> dict[str, str]:
    """Each injection task's ``GOAL``, by class name."""
    goals: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or not node.name.startswith("InjectionTask"):
            continue
        scope: dict[str, Any] = {}
        for item in node.body:
            if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                try:
                    scope[item.targets[0].id] = _strings(scope, item.value)
                except (ValueError, KeyError):
                    continue
        if isinstance(scope.get("GOAL"), str):
            goals[node.name] = scope["GOAL"]
    return goals


def _templates(read: Any) -> dict[str, str]:
    """Each kept attack's string: ``_JB_STRING`` or the first string given to its
    ``super().__init__``."""
    found: dict[str, str] = {}
    for name, path in _ATTACKS.items():
        for node in ast.parse(read(path)).body:
            if not isinstance(node, ast.ClassDef) or node.name != name:
                continue
            for item in ast.walk(node):
                if (
                    isinstance(item, ast.Assign)
                    and getattr(item.targets[0], "id", "") == "_JB_STRING"
                ):
                    found[name] = _strings({}, item.value)
                if (
                    name not in found
                    and isinstance(item, ast.Call)
                    and isinstance(item.func, ast.Attribute)
                    and item.func.attr == "__init__"
                    and item.args
                    and isinstance(item.args[0], ast.Constant)
                ):
                    found[name] = item.args[0].value
    return found


def _leaves(node: Any, top: str = "") -> Iterator[tuple[str, str]]:
    """Every string of an environment, with the top-level key it sits under."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, top or str(key))
    elif isinstance(node, list):
        for value in node:
            yield from _leaves(value, top)
    elif isinstance(node, str):
        yield top, node


def _environment(read: Any, suite: str) -> list[tuple[str, str]]:
    """A suite's texts with each vector left as a marker (its default is put in later)."""
    base = f"data/suites/{suite}/"
    marked = {}

    def mark(text: str) -> str:
        return _FIELD.sub(lambda m: _MARK.format(m.group(1)), text)

    def include(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        return yaml.load(mark(read(base + str(loader.construct_scalar(node)))), _Loader)

    _Loader.add_constructor("!include", include)
    marked = yaml.load(mark(read(base + "environment.yaml")), _Loader)
    return [(_CHANNELS.get(top, "tool_result"), text) for top, text in _leaves(marked)]


def build(wheel: Path, version: str) -> list[dict[str, Any]]:
    """The rows of the second held-out set: attacks, then the benign controls."""
    with zipfile.ZipFile(wheel) as archive:

        def read(path: str) -> str:
            return archive.read(_ROOT + path).decode("utf-8")

        templates = _templates(read)
        source = {
            "source": f"ethz-spylab/agentdojo (PyPI agentdojo=={version})",
            "license": "MIT",
        }
        rows: list[dict[str, Any]] = []
        benign: list[dict[str, Any]] = []
        seen: set[str] = set()
        for suite in _SUITES:
            vectors = yaml.safe_load(read(f"data/suites/{suite}/injection_vectors.yaml"))
            defaults = {name: str(v["default"]) for name, v in vectors.items()}
            goals = _goals(read(f"default_suites/v1/{suite}/injection_tasks.py"))
            texts = _environment(read, suite)

            def fill(
                text: str, at: str | None = None, attack: str = "", by: dict[str, str] = defaults
            ) -> str:
                def value(m: re.Match[str]) -> str:
                    return attack if m.group(1) == at else by.get(m.group(1), "")

                return re.sub(_MARK.format(r"(\w+)"), value, text)

            carriers = [
                (channel, text, name)
                for channel, text in texts
                for name in re.findall(_MARK.format(r"(\w+)"), text)
            ]
            for attack, template in templates.items():
                for task, goal in goals.items():
                    key = f"{suite}-{attack}-{task}"
                    channel, text, name = min(carriers, key=lambda c, k=key: _rank(k + c[1] + c[2]))
                    injection = template.format(goal=goal, **_NAMES)
                    filled = fill(text, name, injection)
                    if len(filled) > _MAX_CHARS or filled.strip() in seen:
                        continue
                    seen.add(filled.strip())
                    rows.append(
                        {
                            "id": f"agentdojo-{key}",
                            **source,
                            "path": f"default_suites/v1/{suite}/injection_tasks.py",
                            "channel": channel,
                            "family": f"agentdojo: {attack}",
                            "label": "attack",
                            "text": filled,
                        }
                    )
            for n, (channel, text) in enumerate(texts):
                clean = fill(text)
                least = _MIN_CHARS_BY_CHANNEL.get(channel, _MIN_CHARS)
                if not least <= len(clean.strip()) <= _MAX_CHARS or clean.strip() in seen:
                    continue
                seen.add(clean.strip())
                benign.append(
                    {
                        "id": f"agentdojo-{suite}-{n}-clean",
                        **source,
                        "path": f"data/suites/{suite}/environment.yaml",
                        "channel": channel,
                        "family": "none",
                        "label": "benign",
                        "text": clean,
                    }
                )
    return rows + benign


@click.command()
@click.option(
    "--wheel",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    required=True,
    help="agentdojo's wheel (pip download agentdojo==0.1.35 --no-deps).",
)
@click.option("--version", default="0.1.35", show_default=True)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path(__file__).parents[1] / "tests" / "data" / "screen_heldout2.jsonl",
    show_default=True,
)
def main(wheel: Path, version: str, out: Path) -> None:
    """Write the second held-out set (never commit it: it is third-party text)."""
    rows = build(wheel, version)
    click.echo(write_set(out, rows))


if __name__ == "__main__":
    main()
