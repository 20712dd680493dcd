"""docs/http.md keeps up with the server: every route, every error type, every config key."""

from __future__ import annotations

import re
from pathlib import Path

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import demo_config
from doxa.store import EmbeddedStore

DOCS = Path(__file__).resolve().parents[3] / "docs" / "http.md"


def test_every_api_route_is_documented() -> None:
    """Each route in the app's OpenAPI document appears as `METHOD path` in docs/http.md."""
    text = DOCS.read_text(encoding="utf-8")
    store = EmbeddedStore(None)
    app = create_app(store, demo_config("docs"))
    paths = app.openapi()["paths"]
    store.close()
    assert len(paths) >= 16
    missing = []
    for path, operations in paths.items():
        methods = ", ".join(sorted(m.upper() for m in operations))
        if f"`{methods} {path}`" not in text:
            missing.append(f"{methods} {path}")
    assert missing == []


def test_every_error_type_is_documented() -> None:
    """Each error type the HTTP layer names in its source has a row in docs/http.md."""
    source = "\n".join(
        p.read_text(encoding="utf-8")
        for p in (
            Path(__file__).resolve().parents[3] / "src" / "doxa" / "interfaces" / "http"
        ).glob("*.py")
    )
    named = set(re.findall(r'Problem\(\s*\d{3},\s*"(\w+)"', source))
    assert {"ReadOnly", "QueryTimeout", "Busy", "Forbidden"} <= named
    text = DOCS.read_text(encoding="utf-8")
    assert [name for name in sorted(named) if f"`{name}`" not in text] == []
