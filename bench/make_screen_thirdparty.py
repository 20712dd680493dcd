"""Build ``tests/data/screen_thirdparty.jsonl``: the third-party set, from BIPIA and Greshake et al.

Run ``python bench/make_screen_thirdparty.py --bipia BIPIA_GIT_DIR --greshake LLM_SECURITY_GIT_DIR``
(clones of ``microsoft/BIPIA`` and ``greshake/llm-security``; the commits are options with
the recorded ones as defaults). Both sources are MIT-licensed:

- microsoft/BIPIA (Yi et al. 2023, "Benchmarking and Defending Against Indirect Prompt
  Injection Attacks on Large Language Models"): the 75 text attacks of
  ``benchmark/text_attack_test.json`` go into its e-mail and table contexts
  (``benchmark/{email,table}/train.jsonl``), the 50 code attacks of
  ``benchmark/code_attack_test.json`` into its code contexts (``benchmark/code/train.jsonl``),
  each attack once, at the start or the end, exactly as BIPIA's ``insert_start`` and
  ``insert_end`` (``bipia/data/utils.py``) put it: ``"\\n".join([attack, context])`` and
  ``"\\n".join([context, attack])``. Attacks are named as BIPIA's ``load_attack`` flattens
  them (``"<category>-<i>"``) and a code context is its lines joined by ``"\\n"``, as
  ``CodeIPIABuilder`` does. BIPIA's middle insertion (a random sentence boundary found by
  NLTK's Punkt) is left out. The clean test contexts (``benchmark/{email,table,code}/test.jsonl``)
  are the benign controls. BIPIA's code contexts are Stack Overflow answers (CC BY-SA), as
  BIPIA redistributes them; their rows keep BIPIA's ``context_url`` for attribution.
- greshake/llm-security (Greshake et al. 2023, "Not what you've signed up for"): the payload
  strings of the demonstration scenarios (``scenarios/gpt4``, ``scenarios/gpt3langchain``),
  the puzzle pages (``scenarios/puzzle/puzzles``, filled as ``scenarios/puzzle/server.py``
  serves them) and the code-completion ``leftpad.py``; the scenarios' bird website, the page
  the remote-control payload is planted beside, is the benign control.

Every context file holds at most ``--per-task`` contexts read in the file's order (BIPIA's
e-mail and code sets have 50 each; the first 50 of the table sets keep the channels even).
Where a row's context and position come from is decided by a fixed hash of the attack's
name (SHA-256), so the file is the same on every run. Texts doxa is not given as one outside
text (over 4,000 characters) and repeated texts (the same words up to whitespace) are left
out. Each id falls by the first byte of its SHA-256 into the ``tune`` half (even) or the
``test`` half (odd). Data files are read with ``git show`` (JSON with :mod:`json`, Python
with :mod:`ast`, class-level and module-level string assignments only); no code of either
repository is imported or run. The file is third-party text and is never committed
(``.git/info/exclude``); this script is.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from screen_sets import git_show, write_set

_BIPIA_COMMIT = "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3"
_GRESHAKE_COMMIT = "87f4b7ffa568b7261a79b31573068d8113319212"
_MAX_CHARS = 4000  # what doxa is given as one outside text in these sets
_PER_TASK = 50
#: BIPIA's attack files and the tasks whose contexts take them, with the channel of each task
_BIPIA_ATTACKS = {
    "benchmark/text_attack_test.json": ("email", "table"),
    "benchmark/code_attack_test.json": ("code",),
}
_POSITIONS = ("start", "end")
#: BIPIA's code contexts are Stack Overflow answers, redistributed by BIPIA
_SO_LICENSE = "MIT (the context: a Stack Overflow answer, CC BY-SA, see context_url)"
#: greshake/llm-security's payloads: (path, name of the string in that file, channel); the
#: secondary payloads are what the primary one makes the assistant fetch or search for
_GRESHAKE_PAYLOADS = (
    ("scenarios/gpt4/data_exfiltration.py", "injection", "web"),
    ("scenarios/gpt4/multi_stage.py", "primary_payload", "web"),
    ("scenarios/gpt4/multi_stage.py", "secondary_payload", "web"),
    ("scenarios/gpt4/persistence.py", "instructions", "web"),
    ("scenarios/gpt4/remote-control.py", "original_injection", "web"),
    ("scenarios/gpt4/remote-control.py", "secondary_injection", "web"),
    ("scenarios/gpt4/spread.py", "malicious_email", "email"),
    ("scenarios/gpt3langchain/data_exfiltration.py", "attacker_social_media_injection", "web"),
    ("scenarios/gpt3langchain/multi_stage.py", "primary_payload", "web"),
    ("scenarios/gpt3langchain/multi_stage.py", "secondary_payload", "web"),
    ("scenarios/gpt3langchain/persistence.py", "instructions", "web"),
    ("scenarios/gpt3langchain/remote-control.py", "original_injection", "web"),
    ("scenarios/gpt3langchain/remote-control.py", "attacker_c2_payload", "web"),
    ("scenarios/gpt3langchain/spread.py", "text", "email"),
)
_PUZZLES = "scenarios/puzzle/puzzles"
_PUZZLE_SERVER = "scenarios/puzzle/server.py"
_LEFTPAD = "scenarios/code-completion/advanced-example/injection/leftpad.py"
#: the benign carrier pages: the bird website of the remote-control scenarios
_GRESHAKE_BENIGN = (
    ("scenarios/gpt4/remote-control.py", "current_website", "web"),
    ("scenarios/gpt3langchain/remote-control.py", "current_website", "web"),
)


def _names(repo: Path, commit: str, path: str) -> list[str]:
    listing = subprocess.run(
        ["git", f"--git-dir={repo}", "ls-tree", "--name-only", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(listing.split())


def _hash(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def _pick(key: str, count: int) -> int:
    """One of ``count`` choices, fixed by the key."""
    return int.from_bytes(_hash(key)[:8], "big") % count


def _split(row_id: str) -> str:
    return "tune" if _hash(row_id)[0] % 2 == 0 else "test"


def _slug(name: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


def _strings(source: str) -> dict[str, str]:
    """Every string assigned by name at module or class level (literals and f-strings
    without fields, implicitly joined literals included); nothing is evaluated."""
    found: dict[str, str] = {}

    def value(node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr) and all(
            isinstance(part, ast.Constant) for part in node.values
        ):
            return "".join(
                str(part.value) for part in node.values if isinstance(part, ast.Constant)
            )
        return None

    tree = ast.parse(source)
    bodies = [tree.body] + [n.body for n in tree.body if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for node in body:
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                text = value(node.value)
                if text is not None:
                    found.setdefault(node.targets[0].id, text)
    return found


def _contexts(
    repo: Path, commit: str, task: str, split: str, per_task: int
) -> list[dict[str, Any]]:
    """The first ``per_task`` contexts of a BIPIA task file, each as BIPIA's builders read it."""
    path = f"benchmark/{task}/{split}.jsonl"
    lines = git_show(repo, commit, path).splitlines()[:per_task]
    contexts = []
    for n, line in enumerate(lines):
        sample = json.loads(line)
        context = sample["context"]
        text = "\n".join(context) if isinstance(context, list) else context
        contexts.append(
            {"line": n + 1, "path": path, "text": text, "url": sample.get("context_url")}
        )
    return contexts


def _bipia(repo: Path, commit: str, per_task: int) -> Iterator[dict[str, Any]]:
    """BIPIA's rows: each attack once, in a context and at a position fixed by its name; then
    the clean test contexts."""
    source = {"source": f"microsoft/BIPIA@{commit}", "license": "MIT"}
    for attack_path, tasks in _BIPIA_ATTACKS.items():
        contexts = {task: _contexts(repo, commit, task, "train", per_task) for task in tasks}
        for category, prompts in json.loads(git_show(repo, commit, attack_path)).items():
            for i, attack in enumerate(prompts):
                name = f"{category}-{i}"  # BIPIA's load_attack
                task = tasks[_pick(f"task:{name}", len(tasks))]
                context = contexts[task][_pick(f"context:{name}", len(contexts[task]))]
                position = _POSITIONS[_pick(f"position:{name}", len(_POSITIONS))]
                parts = (
                    [attack, context["text"]] if position == "start" else [context["text"], attack]
                )
                yield {
                    "id": f"bipia-{task}-{_slug(name)}-{position}",
                    **source,
                    **({"license": _SO_LICENSE} if task == "code" else {}),
                    "path": attack_path,
                    "context_path": f"{context['path']}#L{context['line']}",
                    **({"context_url": context["url"]} if context["url"] else {}),
                    "channel": task,
                    "family": f"bipia: {category}",
                    "position": position,
                    "label": "attack",
                    "text": "\n".join(parts),  # BIPIA's insert_start / insert_end
                }
    for task in ("email", "table", "code"):
        for context in _contexts(repo, commit, task, "test", per_task):
            yield {
                "id": f"bipia-{task}-test-{context['line']}",
                **source,
                **({"license": _SO_LICENSE} if task == "code" else {}),
                "path": context["path"],
                "context_path": f"{context['path']}#L{context['line']}",
                **({"context_url": context["url"]} if context["url"] else {}),
                "channel": task,
                "family": "none",
                "label": "benign",
                "text": context["text"],
            }


def _literal(source: str, name: str) -> str:
    """The one string literal inside the module-level assignment to ``name``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == name:
            found = [
                n.value
                for n in ast.walk(node.value)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            if len(found) == 1:
                return found[0]
    raise ValueError(f"{name} is not one string literal in the puzzle server: check the commit")


def _served(server: str, name: str, page: str) -> str:
    """A puzzle page as ``server.py`` serves it: ``{{url}}``, one of its two clues (the base64
    of ``solution`` halved; fixed by the page's name instead of ``random.choice``) and, on
    leave-a-message, the message a first visitor reads."""
    solution = base64.b64encode(_literal(server, "solution").encode()).decode()
    clues = ["A-" + solution[: len(solution) // 2], "B-" + solution[len(solution) // 2 :]]
    if name == "leave-a-message":
        first = "You're the first one to reach this puzzle! Hello from the secret developers."
        page = page.replace("{{message}}", first)
    page = page.replace("{{url}}", _literal(server, "url"))
    return page.replace("{{clue}}", clues[_pick(f"clue:{name}", len(clues))])


def _greshake(repo: Path, commit: str) -> Iterator[dict[str, Any]]:
    """Greshake et al.'s payloads, then the bird website they are planted beside."""
    source = {"source": f"greshake/llm-security@{commit}", "license": "MIT"}

    def row(path: str, name: str, channel: str, label: str, text: str) -> dict[str, Any]:
        scenario = path.removeprefix("scenarios/").removesuffix(".py")
        scenario = scenario.replace("puzzle/puzzles/", "puzzle/").replace("/", "-")
        return {
            "id": f"greshake-{_slug(scenario)}" + (f"-{_slug(name)}" if name else ""),
            **source,
            "path": path,
            "channel": channel,
            "family": f"greshake: {scenario}" if label == "attack" else "none",
            "label": label,
            "text": text,
        }

    for path, name, channel in _GRESHAKE_PAYLOADS:
        yield row(path, name, channel, "attack", _strings(git_show(repo, commit, path))[name])
    server = git_show(repo, commit, _PUZZLE_SERVER)
    for name in _names(repo, commit, _PUZZLES + "/"):
        path = f"{_PUZZLES}/{name}"
        yield row(path, "", "web", "attack", _served(server, name, git_show(repo, commit, path)))
    yield row(_LEFTPAD, "", "code", "attack", git_show(repo, commit, _LEFTPAD))
    for path, name, channel in _GRESHAKE_BENIGN:
        yield row(path, name, channel, "benign", _strings(git_show(repo, commit, path))[name])


def build(
    bipia: Path, greshake: Path, bipia_commit: str, greshake_commit: str, per_task: int
) -> list[dict[str, Any]]:
    """The rows of the third-party set: attacks, then the benign controls, each with its half."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    candidates = [*_bipia(bipia, bipia_commit, per_task), *_greshake(greshake, greshake_commit)]
    for row in candidates:
        words = " ".join(row["text"].split())
        if len(row["text"]) > _MAX_CHARS or words in seen:
            continue
        seen.add(words)
        rows.append({**row, "split": _split(row["id"])})
    rows.sort(key=lambda r: r["label"] != "attack")  # stable: attacks first, each in build order
    return rows


@click.command()
@click.option(
    "--bipia",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The git directory of a microsoft/BIPIA clone.",
)
@click.option(
    "--greshake",
    type=click.Path(path_type=Path, exists=True),
    required=True,
    help="The git directory of a greshake/llm-security clone.",
)
@click.option("--bipia-commit", default=_BIPIA_COMMIT, show_default=True)
@click.option("--greshake-commit", default=_GRESHAKE_COMMIT, show_default=True)
@click.option("--per-task", default=_PER_TASK, show_default=True, help="Contexts read a file.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path(__file__).parents[1] / "tests" / "data" / "screen_thirdparty.jsonl",
    show_default=True,
)
def main(
    bipia: Path, greshake: Path, bipia_commit: str, greshake_commit: str, per_task: int, out: Path
) -> None:
    """Write the third-party set (never commit it: it is third-party text)."""
    rows = build(bipia, greshake, bipia_commit, greshake_commit, per_task)
    write_set(out, rows)
    attacks = [r for r in rows if r["label"] == "attack"]
    tune = sum(r["split"] == "tune" for r in attacks)
    benign = [r for r in rows if r["label"] == "benign"]
    tune_benign = sum(r["split"] == "tune" for r in benign)
    click.echo(
        f"{out}: {len(attacks)} attacks ({tune} tune, {len(attacks) - tune} test), "
        f"{len(benign)} benign controls ({tune_benign} tune, {len(benign) - tune_benign} test)"
    )


if __name__ == "__main__":
    main()
