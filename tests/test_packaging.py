"""An installed (non-editable) wheel carries the ontology, shapes and queries it needs, and
lists the HTTP server as the ``server`` extra."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [built] = out.glob("doxa-*.whl")
    return built


def test_wheel_contains_every_data_file(wheel: Path) -> None:
    """Each file of ontology/, shapes/ and queries/ is inside the wheel under doxa/data/."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"doxa/data/{path.parent.name}/{path.name}"
        for folder in ("ontology", "shapes", "queries")
        for path in (ROOT / folder).iterdir()
        if path.is_file()
    }
    assert expected
    assert expected <= names
    assert "doxa/data/queries/not-a-query.rq" not in names


def test_installed_wheel_finds_its_data(wheel: Path, tmp_path: Path) -> None:
    """Installed away from the checkout, doxa reads its packaged files and works."""
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    code = (
        "import doxa, doxa.resources as r\n"
        "p = r.data_file('queries', 'facts.rq')\n"
        "assert 'site' in str(p) and 'doxa/data' in str(p), p\n"
        "m = doxa.Memory.open(None, scope='x')\n"
        "print(m.remember('Alice prefers tea', topic='drinks').outcome.value)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "admitted"


def test_the_server_is_an_extra(wheel: Path) -> None:
    """The wheel's metadata lists the HTTP server's packages under the ``server`` extra and the
    test extra (scripts/check installs it), not among the core dependencies; httpx (the remote
    store, the CLI's client of a server) stays core (control: the core list is read)."""
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    needs: dict[str | None, set[str]] = {}
    for line in text.splitlines():
        if line.startswith("Requires-Dist: "):
            name = re.match(r"[A-Za-z0-9._-]+", line.removeprefix("Requires-Dist: "))
            extra = re.search(r"""extra == ['"]([^'"]+)""", line)
            assert name, line
            needs.setdefault(extra and extra[1], set()).add(name[0].lower())
    server = {"fastapi", "uvicorn", "jinja2", "swagger-ui-bundle-v2"}
    assert needs["server"] == server
    assert server <= needs["test"]
    assert not server & needs[None]
    assert {"httpx", "click", "pyoxigraph"} <= needs[None]
