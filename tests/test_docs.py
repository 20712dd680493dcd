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


def _documented_doxa_lines() -> list[tuple[str, list[str]]]:
    """Every ``$ doxa …`` line of a fenced block in the README and docs/ (a line ending in
    ``\\`` goes on), comments dropped, split as a shell does; with the file it is in."""
    found: list[tuple[str, list[str]]] = []
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        for block in re.findall(r"```[a-z]*\n(.*?)```", path.read_text("utf-8"), re.DOTALL):
            line = ""
            for piece in block.splitlines():
                if not line and not piece.startswith("$ doxa "):
                    continue
                line += piece.removesuffix("\\") + " "
                if not piece.endswith("\\"):
                    found.append((path.name, shlex.split(line[2:], comments=True)))
                    line = ""
    return found


DOCUMENTED = _documented_doxa_lines()


def _parse(words: list[str]) -> None:
    """Parse a command line as ``doxa`` would, down to its (sub)command, running nothing:
    an unknown command or option, a missing argument or a bad value raises a UsageError."""
    from doxa.interfaces.cli import main

    command: click.Command = main
    parent: click.Context | None = None
    name, args = "doxa", words[1:]
    while True:
        ctx = command.make_context(name, list(args), parent=parent)
        if not isinstance(command, click.Group):
            return
        # click keeps the command name and what follows it apart (``protected_args`` is
        # deprecated since click 8.2 in favour of this attribute, which ``Group.invoke`` reads)
        rest = [*ctx._protected_args, *ctx.args]
        if not rest:
            return  # a group run without a command (``doxa judge``): its own listing
        found_name, found, args = command.resolve_command(ctx, rest)
        assert found is not None
        assert found_name is not None
        command, parent, name = found, ctx, found_name


def test_the_docs_give_many_command_lines() -> None:
    """Control for the next test: it reads the lines it should (the README's four and the
    CLI reference's examples), and a wrong line fails to parse."""
    files = {name for name, _ in DOCUMENTED}
    assert {"README.md", "cli.md", "mcp.md"} <= files
    assert len(DOCUMENTED) >= 60
    with pytest.raises(click.UsageError):
        _parse(["doxa", "facts", "--json"])  # --json is global: before the command
    with pytest.raises(click.UsageError):
        _parse(["doxa", "remember", "x", "--topic"])
    _parse(["doxa", "--json", "facts"])


@pytest.mark.parametrize(
    "words", [w for _, w in DOCUMENTED], ids=[f"{n}:{' '.join(w)[:60]}" for n, w in DOCUMENTED]
)
def test_every_documented_command_line_parses(words: list[str], tmp_path: Path) -> None:
    """Each ``$ doxa …`` line of the docs names real commands and options, in their places,
    with values of the right type (the README's once put a global option after its command).
    ``~/…`` is expanded into a home folder of the test's, where the folder it names exists
    (as it does on a reader's machine that follows the docs)."""
    home = tmp_path / "home"
    expanded = []
    for word in words:
        if word.startswith("~/"):
            word = str(home / word[2:])
            Path(word).mkdir(parents=True, exist_ok=True)
        expanded.append(word)
    _parse(expanded)
