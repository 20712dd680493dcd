"""Attacks on parse_location / open_store (src/doxa/store/location.py).

Refusals must be :class:`~doxa.InvalidInput`, never a ``ValueError`` or an httpx error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import doxa
from doxa.errors import InvalidInput
from doxa.store import Location, parse_location


@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("Http://user:pw@host/", "holds credentials"),
        ("http://u%40:p@h/", "holds credentials"),
        ("http://:pw@h/", "holds credentials"),
        ("http://@h/", "holds credentials"),
        ("http:/x", "is not an HTTP"),
        ("http:x", "is not an HTTP"),
        ("javascript:x", "javascript: URL"),
        ("http://h/\n", "spaces"),
    ],
)
def test_more_bad_locations_are_refused(location: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message) as refused:
        parse_location(location)
    assert "pw" not in str(refused.value)
    assert "%40" not in str(refused.value)


def test_a_dot_slash_path_with_a_colon_is_a_directory() -> None:
    assert parse_location("./ftp:x") == Location(directory=Path("./ftp:x"))


def test_control_a_well_formed_ipv6_url_is_a_server() -> None:
    assert parse_location("http://[::1]:7878/query").query_url == "http://[::1]:7878/query"


def test_an_unclosed_ipv6_bracket_is_refused_as_invalid_input() -> None:
    with pytest.raises(InvalidInput):
        parse_location("http://[::1")


@pytest.mark.parametrize(
    "location",
    ["http://h:abc/q", "http://[::1]:abc/q", "ht\ttp://x/q", "http://\x00h/q", "http://h\u200b/q"],
    ids=["port-letters", "ipv6-port-letters", "tab-in-scheme", "nul-in-host", "zero-width-host"],
)
def test_a_malformed_server_url_is_refused_as_invalid_input(location: str) -> None:
    with pytest.raises(InvalidInput):
        doxa.Memory.open_at(location, scope="alice").close()


@pytest.mark.parametrize(
    "location",
    ["\uff48ttp://host/q", "htt\u0440://host/q", "http\uff1a//host/q"],
    ids=["fullwidth-h", "cyrillic-p", "fullwidth-colon"],
)
def test_a_look_alike_http_scheme_is_not_taken_for_a_directory(location: str) -> None:
    with pytest.raises(InvalidInput):
        parse_location(location)
