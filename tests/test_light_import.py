"""The HTTP server is the ``server`` extra: ``import doxa`` and the CLI load none of it, and
``doxa serve`` without it says how to install it.

Each check runs in a fresh interpreter, so what an earlier test imported cannot hide an eager
import. "Not installed" is simulated by a finder at the front of ``sys.meta_path`` that
refuses the extra's top-level packages, as Python does for a package that is not there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import doxa

#: where the doxa under test is imported from (the checkout's src/ or an installed copy)
HERE = str(Path(doxa.__file__).resolve().parents[1])

#: the server extra's packages (and starlette, which fastapi brings)
SERVER = ("fastapi", "uvicorn", "jinja2", "starlette", "swagger_ui_bundle")
#: what stays missing where only `doxa[mcp]` is installed: the MCP SDK brings starlette and
#: uvicorn, not fastapi, jinja2 or the Swagger UI bundle
SERVER_WITH_MCP = ("fastapi", "jinja2", "swagger_ui_bundle")

_MISSING = """
import importlib.abc, sys
class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NotInstalled())
"""


def _python(
    code: str, tmp_path: Path, blocked: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter with ``blocked`` packages made missing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    env["PYTHONPATH"] = os.pathsep.join([HERE, *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run(
        [sys.executable, "-c", f"BLOCKED = {blocked!r}\n{_MISSING}\n{code}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _loaded_after(imports: str, tmp_path: Path) -> list[str]:
    """The server packages in ``sys.modules`` after ``imports`` (then ``doxa --help``)."""
    code = (
        f"{imports}\n"
        f"import doxa; assert doxa.__file__.startswith({HERE!r}), doxa.__file__\n"
        "import contextlib, io, json\n"
        "from doxa.interfaces.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'], prog_name='doxa')\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.partition('.')[0] in {SERVER!r})))\n"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_import_doxa_and_the_cli_load_no_server(tmp_path: Path) -> None:
    """``import doxa``, the CLI and ``doxa --help`` load no server package; importing the HTTP
    app does (control: the check sees an eager import)."""
    assert _loaded_after("import doxa, doxa.interfaces.cli", tmp_path) == []
    loaded = _loaded_after("import doxa.interfaces.http.app", tmp_path)
    assert {"fastapi", "starlette", "jinja2"} <= {m.partition(".")[0] for m in loaded}


def test_doxa_works_without_the_server_extra(tmp_path: Path) -> None:
    """With the extra missing, the library remembers and the CLI answers; the missing-package
    finder does refuse fastapi (control)."""
    code = (
        "import doxa\n"
        "from doxa.interfaces.cli import main\n"
        "m = doxa.Memory.open(None, scope='x')\n"
        "print(m.remember('Alice prefers tea', topic='drinks').outcome.value)\n"
        "main(['--store', ':memory:', '--json', 'facts'], prog_name='doxa')\n"
    )
    done = _python(code, tmp_path, SERVER)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["admitted", "[]"]
    control = _python("import fastapi", tmp_path, SERVER)
    assert control.returncode == 1
    assert "No module named 'fastapi'" in control.stderr


# doxa serve, with uvicorn's Server.run replaced where uvicorn is there: the control would
# serve (on port 0, any free port, bound before the banner)
_SERVE = """
try:
    import uvicorn
except ImportError:
    pass
else:
    def run(self, sockets=None):
        print("would serve")
        self.started = True
    uvicorn.Server.run = run
from doxa.interfaces.cli import main
main(["--store", ":memory:", "--scope", "s", "serve", "--port", "0"], prog_name="doxa")
"""


@pytest.mark.parametrize("blocked", [SERVER, SERVER_WITH_MCP], ids=["no-extra", "mcp-extra-only"])
def test_serve_without_the_extra_says_how_to_install_it(
    tmp_path: Path, blocked: tuple[str, ...]
) -> None:
    """Without the server's packages, ``doxa serve`` is one error line naming the extra, no
    traceback; with them it serves (control)."""
    done = _python(_SERVE, tmp_path, blocked)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pip install 'doxa[server]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert "would serve" not in done.stdout
    control = _python(_SERVE, tmp_path)
    assert control.returncode == 0, control.stderr
    assert "doxa serves :memory:" in control.stdout
    assert "would serve" in control.stdout
