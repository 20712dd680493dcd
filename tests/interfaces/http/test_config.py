"""The server's configuration file: keys to scopes, one owner key per scope, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from doxa.errors import InvalidInput, NotFound
from doxa.interfaces.http.config import demo_config, load_config, parse_config

GOOD = """
[server]
max_body_bytes = 2048
[sparql]
timeout = 2.5
max_rows = 100
[scopes.alice]
owner_key = "alice-owner-key-0123456789"
agent_keys = ["alice-agent-key-0123456789", "alice-agent-key-abcdefghij"]
[scopes.bob]
owner_key = "bob-owner-key-0123456789"
"""


def test_a_good_file_maps_each_key_to_its_scope_and_role(tmp_path: Path) -> None:
    """Every key finds its scope and role; an unknown key finds nobody."""
    file = tmp_path / "server.toml"
    file.write_text(GOOD, encoding="utf-8")
    config = load_config(file)
    assert (config.max_body_bytes, config.sparql_timeout, config.sparql_max_rows) == (
        2048,
        2.5,
        100,
    )
    assert config.sparql_max_running == 4  # the default
    owner = config.caller("alice-owner-key-0123456789")
    assert owner is not None
    assert (owner.scope, owner.is_owner) == ("alice", True)
    agent = config.caller("alice-agent-key-abcdefghij")
    assert agent is not None
    assert (agent.scope, agent.is_owner) == ("alice", False)
    bob = config.caller("bob-owner-key-0123456789")
    assert bob is not None
    assert bob.scope == "bob"
    assert config.caller("alice-owner-key-012345678") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "The configuration names no scope; add a [scopes.NAME] table with an owner_key."),
        (
            '[scopes.alice]\nowner_key = "short"',
            "scopes.alice.owner_key must be a string of at least 16",
        ),
        ("[scopes.alice]\nagent_keys = []", "scopes.alice.owner_key must be a string"),
        (
            '[scopes.a]\nowner_key = "same-key-0123456789"\n[scopes.b]\nowner_key = "same-key-0123456789"',
            "A key of scope 'b' is used twice in the configuration",
        ),
        (
            '[scopes."Not Valid"]\nowner_key = "alice-owner-key-0123456789"',
            "'Not Valid' is not a valid scope name",
        ),
        (
            '[sparql]\ntimeout = 0\n[scopes.a]\nowner_key = "alice-owner-key-0123456789"',
            "timeout = 0 is not allowed",
        ),
        (
            '[sparql]\nmax_rows = 1.5\n[scopes.a]\nowner_key = "alice-owner-key-0123456789"',
            "max_rows = 1.5 is not allowed",
        ),
        (
            '[extra]\n[scopes.a]\nowner_key = "alice-owner-key-0123456789"',
            "has unknown table(s) extra",
        ),
    ],
    ids=[
        "no-scope",
        "short-key",
        "no-owner",
        "shared-key",
        "bad-scope",
        "zero-timeout",
        "fractional-rows",
        "unknown-table",
    ],
)
def test_bad_configurations_are_refused_clearly(text: str, message: str) -> None:
    """Each mistake is refused with a message that names it; the good file loads (above)."""
    import tomllib

    with pytest.raises(InvalidInput) as refused:
        parse_config(tomllib.loads(text))
    assert message in str(refused.value)


def test_missing_or_broken_files(tmp_path: Path) -> None:
    """A missing file is NotFound, broken TOML is InvalidInput naming the file."""
    with pytest.raises(NotFound, match="There is no configuration file at"):
        load_config(tmp_path / "nope.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[scopes.alice\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"broken\.toml is not valid TOML"):
        load_config(broken)


def test_demo_config_makes_fresh_keys() -> None:
    """Without a file the server makes one owner and one agent key, different each time."""
    first, second = demo_config("demo"), demo_config("demo")
    keys = first.scopes[0]
    assert keys.scope == "demo"
    assert keys.owner_key != second.scopes[0].owner_key
    caller = first.caller(keys.agent_keys[0])
    assert caller is not None
    assert not caller.is_owner


def test_serve_refuses_a_bad_configuration_before_listening(tmp_path: Path) -> None:
    """`doxa serve` exits 3 for a missing file and 2 for a bad one, with the reason on stderr;
    the same command with a good file starts (the HTTP tests run on it)."""
    from click.testing import CliRunner

    from doxa.interfaces.cli import main

    runner = CliRunner()
    store = str(tmp_path / "memory")
    missing = runner.invoke(main, ["serve", "--path", store, "--config", str(tmp_path / "no.toml")])
    assert missing.exit_code == 3
    assert "There is no configuration file at" in missing.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('[scopes.alice]\nowner_key = "short"\n', encoding="utf-8")
    refused = runner.invoke(main, ["serve", "--path", store, "--config", str(bad)])
    assert refused.exit_code == 2
    assert "scopes.alice.owner_key must be a string of at least 16 characters" in refused.stderr
