"""The documentation keeps up with the code: every command, method and example is covered."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

import doxa

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_readme_example_runs() -> None:
    """The README's Python example runs as written and its assertions hold."""
    blocks = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert blocks, "the README must lead with a runnable example"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def _doxa_lines(text: str) -> list[list[str]]:
    """The ``$ doxa …`` lines of the console blocks, comments dropped, split as a shell does."""
    blocks = re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL)
    return [
        shlex.split(line[2:], comments=True)
        for block in blocks
        for line in block.splitlines()
        if line.startswith("$ doxa ")
    ]


def test_readme_shell_example_runs(tmp_path: Path) -> None:
    """The README's shell lines run as written, in order, in an empty folder: each exits 0
    (its fourth line once failed: ``facts --json`` where ``--json`` is global), and the
    last prints the fact the second wrote."""
    lines = _doxa_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(lines) >= 4, lines
    doxa_command = str(Path(sys.executable).with_name("doxa"))
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    said = ""
    for words in lines:
        done = subprocess.run(
            [doxa_command, *words[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=environ,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (words, done.stdout, done.stderr)
        said = done.stdout
    assert "Alice prefers tea" in said


def test_readme_gives_the_two_commands_and_ci_runs_one() -> None:
    """README names the start and check commands; .ci/run runs the check command verbatim."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bash scripts/start" in readme
    assert "bash scripts/check" in readme
    assert "bash scripts/check" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


PUBLIC_METHODS = sorted(
    name
    for name, value in vars(doxa.Memory).items()
    if not name.startswith("_") and (callable(value) or isinstance(value, classmethod))
)


@pytest.mark.parametrize("name", PUBLIC_METHODS)
def test_every_memory_method_is_documented(name: str) -> None:
    """Each public Memory method appears in docs/python-api.md."""
    text = (DOCS / "python-api.md").read_text(encoding="utf-8")
    assert f"`{name}(" in text or f"`Memory.{name}(" in text or f"{name}(" in text


def _commands(group: click.Group, prefix: str = "doxa") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            names += _commands(command, f"{prefix} {name}")
        else:
            names.append(f"{prefix} {name}")
    return names


def test_every_cli_command_is_documented() -> None:
    """Each `doxa` command has a '### `doxa NAME`' heading in docs/cli.md."""
    from doxa.interfaces.cli import main

    assert isinstance(main, click.Group)
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    commands = _commands(main)
    assert len(commands) >= 12
    missing = [c for c in commands if f"### `{c}`" not in text]
    assert missing == []


def test_every_query_file_is_used() -> None:
    """Every queries/*.rq file is loaded by name somewhere in the package."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py"))
    unused = [
        q.stem
        for q in sorted((ROOT / "queries").glob("*.rq"))
        if f'query("{q.stem}")' not in source
    ]
    assert unused == []


def test_every_mcp_tool_is_documented() -> None:
    """Each tool on the agent's MCP table has a '### `NAME`' heading in docs/mcp.md."""
    from doxa.interfaces.mcp.server import AGENT_TOOLS

    text = (DOCS / "mcp.md").read_text(encoding="utf-8")
    assert len(AGENT_TOOLS) == 7
    missing = [name for name in AGENT_TOOLS if f"### `{name}`" not in text]
    assert missing == []
