"""The Host and Origin check of /mcp on its own: parsed names compared, never raw strings."""

from __future__ import annotations

import pytest

from doxa.interfaces.http.origins import LOOPBACK_NAMES, is_loopback, origin_refusal


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1:8765", None),
        ("localhost:8765", "http://localhost:8765"),
        ("LOCALHOST:8765", "HTTP://LocalHost:8765"),
        ("[::1]:8765", "http://[::1]:8765"),
        ("127.0.0.1", "https://127.0.0.1"),
    ],
)
def test_loopback_names_pass(host: str, origin: str | None) -> None:
    assert origin_refusal(host, origin, scheme="http", allowed_hosts=LOOPBACK_NAMES) is None


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        (None, None),
        ("", None),
        ("evil.example:8765", None),
        ("127.0.0.1.evil.example", None),
        ("localhost.", None),
        ("user@localhost", None),
        ("localhost:8765/x", None),
        ("localhost:99999", None),
        ("local host", None),
        ("l\u043ecalhost", None),
        ("localhost:8765", "http://evil.example:8765"),
        ("localhost:8765", "null"),
        ("localhost:8765", "file://"),
        ("localhost:8765", "ftp://localhost"),
        ("localhost:8765", "http://user@localhost:8765"),
        ("localhost:8765", "http://localhost:8765/path"),
        ("localhost:8765", "http://localhost\u3002evil.example"),
        ("127.0.0.1:80:80", None),
        ("localhost:8765", "http://localhost:8765@evil.example"),
        ("localhost:8765", "http://localhost:8765:80"),
    ],
)
def test_other_hosts_and_origins_are_refused(host: str | None, origin: str | None) -> None:
    said = origin_refusal(host, origin, scheme="http", allowed_hosts=LOOPBACK_NAMES)
    assert said is not None
    assert "Host" in said or "Origin" in said


def test_without_allowed_hosts_only_the_requests_own_origin_passes() -> None:
    """A server listening on every address with no names configured answers any Host, and
    an Origin only when it is the request's own (same host and port)."""
    assert origin_refusal("doxa.example.org", None, scheme="https", allowed_hosts=()) is None
    same = origin_refusal(
        "doxa.example.org", "https://doxa.example.org", scheme="https", allowed_hosts=()
    )
    assert same is None
    for other in (
        "https://evil.example",
        "http://doxa.example.org",  # another port (80, not 443)
        "https://doxa.example.org:8443",
    ):
        assert (
            origin_refusal("doxa.example.org", other, scheme="https", allowed_hosts=()) is not None
        )


def test_configured_names_are_answered() -> None:
    allowed = (*LOOPBACK_NAMES, "doxa.example.org")
    assert (
        origin_refusal("doxa.example.org:443", None, scheme="https", allowed_hosts=allowed) is None
    )
    assert origin_refusal("other.example", None, scheme="https", allowed_hosts=allowed) is not None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("doxa.example.org", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
