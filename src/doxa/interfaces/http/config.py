"""The server's configuration: which API key reaches which scope, and the server's limits.

A TOML file, read once at start::

    [server]
    max_body_bytes = 1048576       # larger request bodies get 413
    allowed_hosts = ["doxa.example.org"]  # names /mcp answers beside the loopback ones

    [sparql]
    timeout = 10.0                 # seconds before a query is abandoned (503)
    max_rows = 10000               # rows (or triples) a response carries at most
    max_running = 4                # queries running at once, abandoned ones included
    max_running_per_scope = 2      # of those, for one scope at most (default: half, at least 1)
    max_query_bytes = 262144       # longer queries get 413

    [scopes.alice]
    owner_key = "a long random string"        # may approve, reject, retract, grant, review
    agent_keys = ["another long random string"]  # may remember and read

Every key reaches exactly one scope; each scope has exactly one owner key.
"""

from __future__ import annotations

import hashlib
import secrets
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from doxa.errors import InvalidInput, NotFound
from doxa.scope import check_name

__all__ = ["Caller", "ScopeKeys", "ServerConfig", "demo_config", "load_config"]

Role = Literal["owner", "agent"]

MIN_KEY_LENGTH = 16


@dataclass(frozen=True)
class ScopeKeys:
    """The keys of one scope: one owner key and any number of agent keys."""

    scope: str
    owner_key: str
    agent_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class Caller:
    """Who is calling: the scope their key reaches and whether they are its owner."""

    scope: str
    role: Role

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``doxa serve`` reads from its configuration file."""

    scopes: tuple[ScopeKeys, ...]
    max_body_bytes: int = 1_048_576
    sparql_timeout: float = 10.0
    sparql_max_rows: int = 10_000
    sparql_max_running: int = 4
    #: None: half of ``sparql_max_running``, at least 1
    sparql_max_running_per_scope: int | None = None
    sparql_max_query_bytes: int = 262_144
    #: (scope, token) pairs that act as that scope's owner while this server runs: the local
    #: tokens ``doxa serve`` hands the CLI through the store's discovery file, never the
    #: configured owner key (:mod:`doxa.interfaces.discovery`)
    local_owner_tokens: tuple[tuple[str, str], ...] = ()
    #: the Host names /mcp answers, and the hosts of the Origins it accepts
    #: (doxa.interfaces.http.origins); empty: any Host, and only a same-origin Origin
    allowed_hosts: tuple[str, ...] = ()
    _callers: dict[str, Caller] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_callers", {})
        if not self.scopes:
            raise InvalidInput(
                "The configuration names no scope; add a [scopes.NAME] table with an owner_key."
            )
        for scope in self.scopes:
            roles = [(scope.owner_key, "owner"), *((k, "agent") for k in scope.agent_keys)]
            roles += [
                (key, "owner") for name, key in self.local_owner_tokens if name == scope.scope
            ]
            for key, role in roles:
                digest = _digest(key)
                if digest in self._callers:
                    raise InvalidInput(
                        f"A key of scope {scope.scope!r} is used twice in the configuration; "
                        "give every owner and agent its own key."
                    )
                self._callers[digest] = Caller(scope.scope, "owner" if role == "owner" else "agent")

    def with_local_owners(self) -> tuple[ServerConfig, dict[str, str]]:
        """This configuration plus a fresh random owner token per scope, and the tokens
        (scope -> token): what a local CLI uses while this server runs, so the configured
        owner key is never copied into another file."""
        tokens = {keys.scope: secrets.token_urlsafe(32) for keys in self.scopes}
        return replace(self, local_owner_tokens=tuple(tokens.items())), tokens

    def caller(self, key: str) -> Caller | None:
        """The caller a key stands for, or None for an unknown key."""
        return self._callers.get(_digest(key))

    def scope_keys(self, scope: str) -> ScopeKeys:
        for keys in self.scopes:
            if keys.scope == scope:
                return keys
        raise NotFound(f"There is no scope {scope!r} in the server's configuration.")


def _digest(key: str) -> str:
    # looked up by digest: a dict probe on the key itself could leak its prefix by timing
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _key(value: object, where: str) -> str:
    if not isinstance(value, str) or len(value) < MIN_KEY_LENGTH or value != value.strip():
        raise InvalidInput(
            f"{where} must be a string of at least {MIN_KEY_LENGTH} characters without "
            "surrounding spaces; generate one with `python -c 'import secrets; "
            "print(secrets.token_urlsafe(24))'`."
        )
    return value


def _number(table: Mapping[str, object], name: str, default: float, *, whole: bool) -> float:
    value = table.get(name, default)
    kind = int if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
        what = "a whole number" if whole else "a number"
        raise InvalidInput(f"{name} = {value!r} is not allowed; use {what} above 0.")
    return value


def parse_config(data: Mapping[str, object], *, source: str = "the configuration") -> ServerConfig:
    """Build a :class:`ServerConfig` from parsed TOML."""
    known = {"server", "sparql", "scopes"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InvalidInput(
            f"{source} has unknown table(s) {', '.join(unknown)}; use server, sparql and scopes."
        )
    server = data.get("server", {})
    sparql = data.get("sparql", {})
    scopes = data.get("scopes", {})
    if not isinstance(server, dict) or not isinstance(sparql, dict) or not isinstance(scopes, dict):
        raise InvalidInput(f"{source}: server, sparql and scopes must be tables.")
    entries = []
    for name, table in scopes.items():
        check_name(name, "scope")
        if not isinstance(table, dict):
            raise InvalidInput(f"{source}: [scopes.{name}] must be a table with an owner_key.")
        agents = table.get("agent_keys", [])
        if not isinstance(agents, list):
            raise InvalidInput(f"{source}: scopes.{name}.agent_keys must be a list of keys.")
        entries.append(
            ScopeKeys(
                scope=name,
                owner_key=_key(table.get("owner_key"), f"scopes.{name}.owner_key"),
                agent_keys=tuple(
                    _key(k, f"scopes.{name}.agent_keys[{i}]") for i, k in enumerate(agents)
                ),
            )
        )
    running = int(_number(sparql, "max_running", 4, whole=True))
    per_scope = sparql.get("max_running_per_scope")
    if per_scope is not None:
        per_scope = int(_number(sparql, "max_running_per_scope", 1, whole=True))
        if per_scope > running:
            raise InvalidInput(
                f"max_running_per_scope = {per_scope} is above max_running = {running}; use "
                "at most max_running (less, so one scope cannot take every worker)."
            )
    hosts = server.get("allowed_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(h, str) and h for h in hosts):
        raise InvalidInput(
            f"{source}: server.allowed_hosts must be a list of host names, such as "
            '["doxa.example.org"].'
        )
    return ServerConfig(
        scopes=tuple(entries),
        allowed_hosts=tuple(h.lower() for h in hosts),
        max_body_bytes=int(_number(server, "max_body_bytes", 1_048_576, whole=True)),
        sparql_timeout=float(_number(sparql, "timeout", 10.0, whole=False)),
        sparql_max_rows=int(_number(sparql, "max_rows", 10_000, whole=True)),
        sparql_max_running=running,
        sparql_max_running_per_scope=per_scope,
        sparql_max_query_bytes=int(_number(sparql, "max_query_bytes", 262_144, whole=True)),
    )


def load_config(path: str | Path) -> ServerConfig:
    """Read a TOML configuration file. Raises :class:`~doxa.NotFound` or
    :class:`~doxa.InvalidInput` with the line that is wrong."""
    file = Path(path)
    if not file.is_file():
        raise NotFound(f"There is no configuration file at {file}; check the path.")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise InvalidInput(f"{file} is not valid TOML: {error}; fix it and start again.") from None
    return parse_config(data, source=str(file))


def demo_config(scope: str) -> ServerConfig:
    """One scope with a fresh random owner key and agent key (for a server without a file)."""
    return ServerConfig(
        scopes=(
            ScopeKeys(
                scope=check_name(scope, "scope"),
                owner_key=secrets.token_urlsafe(24),
                agent_keys=(secrets.token_urlsafe(24),),
            ),
        )
    )
