"""One parser for every store location: directories, memory, servers, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import doxa
from doxa.errors import InvalidInput
from doxa.interfaces.location import is_url, open_memory
from doxa.store import (
    EmbeddedStore,
    JournaledStore,
    Location,
    OnDisk,
    RemoteStore,
    open_store,
    parse_location,
)
from doxa.store.location import is_server_url


@pytest.mark.parametrize("location", [None, ":memory:"])
def test_none_and_memory_keep_the_store_in_memory(location: str | None) -> None:
    assert parse_location(location).in_memory
    store = open_store(location)
    try:
        assert isinstance(store, EmbeddedStore)
        assert not isinstance(store, OnDisk)
    finally:
        store.close()


@pytest.mark.parametrize(
    "location", ["memory", "./memory", "sub/dir", "/abs/dir", "./ftp://host", "data/x:y", "C:store"]
)
def test_a_directory_is_a_directory(location: str) -> None:
    found = parse_location(location)
    assert found == Location(directory=Path(location))
    assert not found.in_memory


def test_a_path_object_is_always_a_directory_even_if_it_reads_like_a_url() -> None:
    assert parse_location(Path("http://host/x")).directory == Path("http://host/x")
    assert parse_location(Path(":memory:")).directory == Path(":memory:")
    # control: the same text as a string is a server, and memory
    assert parse_location("http://host/x").query_url == "http://host/x"
    assert parse_location(":memory:").in_memory


@pytest.mark.parametrize(
    "url", ["http://localhost:7878/query", "https://h.example/sparql", "HTTP://H:1/q", "hTTps://h"]
)
def test_an_http_url_is_a_server_whatever_the_scheme_s_case(url: str) -> None:
    found = parse_location(url)
    assert found.query_url == url
    assert found.directory is None
    assert is_server_url(url)
    assert is_url(url)


def test_the_update_url_goes_with_a_server_only() -> None:
    found = parse_location("http://h/query", update_url="http://h/update")
    assert (found.query_url, found.update_url) == ("http://h/query", "http://h/update")
    with pytest.raises(InvalidInput, match="only for a store on a SPARQL server"):
        parse_location("./memory", update_url="http://h/update")
    with pytest.raises(InvalidInput, match="is not an HTTP"):
        parse_location("http://h/query", update_url="ftp://h/update")


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        (" http://host/sparql", "spaces"),
        ("./memory\n", "spaces"),
        ("ftp://host/sparql", "ftp: URL"),
        ("file:///etc/passwd", "file: URL"),
        ("FILE:///etc/passwd", "file: URL"),
        ("s3://bucket/store", "s3: URL"),
        ("javascript:alert(1)", "javascript: URL"),
        ("localhost:7878/query", "localhost: URL"),
        ("http:///no-host", "is not an HTTP"),
        ("http:relative", "is not an HTTP"),
        ("https://user:secret@host/sparql", "holds credentials"),
        ("http://user@host/sparql", "holds credentials"),
    ],
)
def test_bad_locations_are_refused_with_what_to_write(location: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message) as refused:
        parse_location(location)
    assert "secret" not in str(refused.value)  # a password never reaches a message


def test_a_location_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(InvalidInput, match="not int"):
        parse_location(7)  # type: ignore[arg-type]


def test_a_directory_opens_an_embedded_store_with_its_journal(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "s"), durable=False)
    try:
        assert isinstance(store, JournaledStore)
        assert store.path == tmp_path / "s"
    finally:
        store.close()


def test_a_server_takes_its_credentials_from_the_environment_only() -> None:
    environ = {"DOXA_STORE_USER": "reader", "DOXA_STORE_PASSWORD": "s3cret"}
    store = open_store("HTTP://127.0.0.1:9/query", environ=environ)
    try:
        assert isinstance(store, RemoteStore)
        assert store.update_url == "HTTP://127.0.0.1:9/query"
        assert store.client.auth is not None
    finally:
        store.close()
    anonymous = open_store("http://127.0.0.1:9/query", environ={})
    try:
        assert isinstance(anonymous, RemoteStore)
        assert anonymous.client.auth is None
    finally:
        anonymous.close()


def test_every_entry_point_refuses_the_same_locations() -> None:
    for opening in (
        lambda: open_store("ftp://host/x"),
        lambda: doxa.Memory.open_at("ftp://host/x", scope="alice"),
        lambda: open_memory("ftp://host/x", None, scope="alice", clock=None, environ={}),
    ):
        with pytest.raises(InvalidInput, match="ftp: URL"):
            opening()
    # control: all of them open the same good location
    with doxa.Memory.open_at(":memory:", scope="alice") as mem:
        assert isinstance(mem.store, EmbeddedStore)
    with open_memory(":memory:", None, scope="alice", clock=None, environ={}) as mem:
        assert isinstance(mem.store, EmbeddedStore)


def test_connect_takes_only_a_server_and_open_only_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is not an HTTP"):
        doxa.Memory.connect(str(tmp_path / "s"), scope="alice")
    with pytest.raises(InvalidInput, match="is not an HTTP"):
        doxa.Memory.connect(":memory:", scope="alice")
    # Memory.open reads its argument as a path, as it always did
    weird = tmp_path / "http:"
    with doxa.Memory.open(str(weird / "x"), scope="alice", durable=False) as mem:
        assert isinstance(mem.store, OnDisk)
        assert mem.store.path == weird / "x"
