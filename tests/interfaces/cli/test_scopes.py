"""A mistyped scope is refused, never a fresh empty memory (docs/decisions.md, "Scopes are
created"): `doxa init` (or `doxa import`) creates a scope; every other command on a named
scope the store does not know exits 3 naming the closest scope; nothing is written."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from doxa import Memory, UnknownScope
from doxa.interfaces.cli import main
from doxa.scope import known_scopes, scope_known, unknown_scope


def doxa(store: Path | str, *args: str, env: dict[str, str] | None = None) -> Result:
    environ = {"DOXA_SCOPE": "", "DOXA_STORE": "", **(env or {})}
    environ = {k: v for k, v in environ.items() if v} or None  # type: ignore[assignment]
    return CliRunner().invoke(main, ["--store", str(store), *args], env=environ)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    assert doxa(path, "--scope", "alice", "init").exit_code == 0
    assert doxa(path, "--scope", "shop-v2", "init").exit_code == 0
    return path


def test_a_created_scope_works(store: Path) -> None:
    """Control: the scopes init created take writes and reads."""
    result = doxa(store, "--scope", "alice", "remember", "Alice prefers tea", "--topic", "drinks")
    assert result.exit_code == 0
    assert "Alice prefers tea" in doxa(store, "--scope", "alice", "facts").stdout


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("alcie", "alice"), ("alice2", "alice"), ("shop_v2", "shop-v2"), ("shopv2", "shop-v2")],
)
def test_a_mistyped_scope_is_refused_with_a_suggestion(store: Path, typed: str, meant: str) -> None:
    result = doxa(store, "--scope", typed, "remember", "A note", "--topic", "notes")
    assert result.exit_code == 3
    assert f"There is no scope {typed!r} in this store. Did you mean {meant!r}?" in result.stderr
    assert "Scopes here: 'alice', 'shop-v2'." in result.stderr
    assert f"doxa --scope {typed} init" in result.stderr
    with Memory.open(store, scope="alice") as memory:
        assert known_scopes(memory.store) == ["alice", "shop-v2"]  # nothing was created


@pytest.mark.parametrize("command", [["facts"], ["held"], ["verify"], ["recall", "tea"]])
def test_reads_refuse_an_unknown_scope_too(store: Path, command: list[str]) -> None:
    result = doxa(store, "--scope", "alcie", *command)
    assert result.exit_code == 3
    assert "Did you mean 'alice'?" in result.stderr
    assert doxa(store, "--scope", "alice", *command).exit_code == 0  # control


def test_a_far_name_gets_no_suggestion(store: Path) -> None:
    result = doxa(store, "--scope", "zebra", "facts")
    assert result.exit_code == 3
    assert "Did you mean" not in result.stderr
    assert "Scopes here: 'alice', 'shop-v2'." in result.stderr


def test_the_environment_variable_is_checked_too(store: Path) -> None:
    result = doxa(store, "facts", env={"DOXA_SCOPE": "alcie"})
    assert result.exit_code == 3
    assert doxa(store, "facts", env={"DOXA_SCOPE": "alice"}).exit_code == 0  # control


def test_json_gives_the_error_document(store: Path) -> None:
    result = doxa(store, "--json", "--scope", "alcie", "facts")
    assert result.exit_code == 3
    assert '"type": "UnknownScope"' in result.stdout


def test_the_unnamed_default_scope_needs_no_init(tmp_path: Path) -> None:
    """Nothing was typed, so nothing can be mistyped: `default` works as before; naming it
    (`--scope default`) is checked like any other name."""
    path = tmp_path / "memory"
    assert doxa(path, "remember", "A note", "--topic", "notes").exit_code == 0
    assert doxa(path, "--scope", "default", "facts").exit_code == 0  # it has a receipt now
    assert doxa(tmp_path / "other", "--scope", "default", "facts").exit_code == 3


def test_an_in_memory_store_is_not_checked() -> None:
    """`:memory:` starts empty every command: there is no scope to have mistyped."""
    assert doxa(":memory:", "--scope", "carol", "facts").exit_code == 0


def test_a_scope_written_before_markers_is_known(tmp_path: Path) -> None:
    """A store written by the Python API (no `init`, no marker) keeps working: a scope with
    a receipt is known."""
    path = tmp_path / "memory"
    with Memory.open(path, scope="legacy") as memory:
        memory.remember("Old note", topic="notes", authority="owner")
        assert memory.admin.scope_exists()
    assert doxa(path, "--scope", "legacy", "facts").exit_code == 0
    result = doxa(path, "--scope", "legacyy", "facts")
    assert "Did you mean 'legacy'?" in result.stderr


def test_import_creates_its_scope_and_a_failed_one_does_not(store: Path, tmp_path: Path) -> None:
    export = tmp_path / "alice.nq"
    doxa(store, "--scope", "alice", "remember", "Alice prefers tea", "--topic", "drinks")
    assert doxa(store, "--scope", "alice", "export", str(export)).exit_code == 0
    broken = tmp_path / "broken.nq"
    broken.write_text("this is not n-quads\n", encoding="utf-8")
    assert doxa(store, "--scope", "copy", "import", str(broken)).exit_code != 0
    assert doxa(store, "--scope", "copy", "facts").exit_code == 3  # the failure created nothing
    fresh = tmp_path / "fresh"
    assert doxa(fresh, "--scope", "alice", "import", str(export)).exit_code == 0
    assert "Alice prefers tea" in doxa(fresh, "--scope", "alice", "facts").stdout


def test_mcp_refuses_an_unknown_scope(store: Path) -> None:
    result = doxa(store, "mcp", "--scope", "alcie")
    assert result.exit_code == 3
    assert "Did you mean 'alice'?" in result.stderr


def test_init_twice_and_from_two_threads_keeps_one_marker(tmp_path: Path) -> None:
    with Memory.open(None, scope="alice") as memory:
        assert not memory.admin.scope_exists()
        results: list[bool] = []
        threads = [
            threading.Thread(target=lambda: results.append(memory.admin.create_scope()))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(results) == [False, False, False, True]
        assert memory.admin.scopes() == ["alice"]
        assert scope_known(memory.store, memory.scope)


def test_the_suggestion_compares_normalised_names() -> None:
    error = unknown_scope("shop_v2", ["alice", "shop-v2"])
    assert isinstance(error, UnknownScope)
    assert error.suggestion == "shop-v2"
    assert unknown_scope("bob", ["alice"]).suggestion is None
    assert "none yet" in str(unknown_scope("bob", []))
