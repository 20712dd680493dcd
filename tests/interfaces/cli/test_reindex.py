"""``doxa reindex``: the vectors the embeddings endpoint could not give at write time."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fake_embeddings import running_embeddings
from tests.interfaces.cli.test_cli import run
from tests.judges.fake_openai import status

from doxa.interfaces.failures import EXIT_GATE


def test_reindex_fills_what_a_down_endpoint_left_missing(tmp_path: Path) -> None:
    """Writes succeed while the endpoint fails; reindex fills them once it answers, and
    recall then finds them by meaning (words alone do not: the control)."""
    store = tmp_path / "store"
    assert run(store, "init").exit_code == 0
    with running_embeddings() as fake:
        env = {"DOXA_EMBED_BASE_URL": fake.base_url, "DOXA_EMBED_MODEL": "fake"}
        fake.always(status(503))
        written = run(store, "remember", "Alice is allergic to peanuts", "--topic", "a", env=env)
        assert written.exit_code == 0, written.stderr
        down = run(store, "reindex", env=env)
        assert down.exit_code == EXIT_GATE
        assert "answered HTTP 503" in down.stderr
        assert "(filled 0 of 1; 1 still missing)" in down.stderr
        fake.reset()
        words = run(store, "--json", "recall", "nut allergy")
        assert json.loads(words.stdout) == []
        filled = run(store, "reindex", env=env)
        assert filled.exit_code == 0, filled.stderr
        assert filled.stdout == "Filled 1 of 1 missing vector(s).\n"
        found = run(store, "--json", "recall", "nut allergy", env=env)
        assert [f["text"] for f in json.loads(found.stdout)] == ["Alice is allergic to peanuts"]
        again = run(store, "--json", "reindex", env=env)
        assert json.loads(again.stdout) == {
            "stemmed": 0,
            "vectors": True,
            "lacking": 0,
            "filled": 0,
            "missing": 0,
        }


def test_reindex_without_an_endpoint_fills_words_and_says_so(tmp_path: Path) -> None:
    """No embedder: reindex still runs (the word entries need none) and says that no vector
    was filled and what to set; the JSON says ``vectors: false``."""
    store = tmp_path / "store"
    assert run(store, "init").exit_code == 0
    assert run(store, "remember", "Alice lives in Lyon", "--topic", "a").exit_code == 0
    result = run(store, "reindex")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "No embeddings endpoint is configured, so no vectors were filled; set "
        "DOXA_EMBED_BASE_URL and DOXA_EMBED_MODEL to fill them.\n"
    )
    found = run(store, "--json", "reindex")
    assert json.loads(found.stdout) == {
        "stemmed": 0,
        "vectors": False,
        "lacking": 0,
        "filled": 0,
        "missing": 0,
    }
