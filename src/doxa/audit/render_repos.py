"""Erasure reaches the folders a store was rendered into, and the git history of each.

A render copies facts' words into Markdown files, and ``doxa render --git`` into a git
repository's every commit, so an erasure that left only the store would leave its words in
``git log -p``. Each folder a store renders into is recorded beside it (``<store>.renders``);
the purge (:mod:`doxa.audit.purge`) then, before it writes its ``purged`` receipt, takes every
line naming an erased fact out of those folders' files and rewrites each repository's
history without them: every commit rebuilt with the lines dropped (same author, committer,
dates and message), the branches moved, the reflogs expired and the old objects pruned.

A line names a fact by its id: topic files end each line in ``<!-- doxa:ID -->``,
``CONFLICTS.md`` lists ``[ID]``, the manifest pairs each id with its line. Commit messages
hold ids and receipt ids only, never words.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from doxa.errors import DoxaError, StoreError, UnsafeFile
from doxa.reads.folder import Folder
from doxa.reads.projection import MANIFEST
from doxa.store import Store
from doxa.store.capabilities import OnDisk

__all__ = [
    "GIT_OPTIONS",
    "check_repository",
    "fact_ids",
    "record_render",
    "rendered_folders",
    "scrub_folders",
    "scrub_text",
]

_log = logging.getLogger("doxa.purge")

#: what every git doxa runs in a rendered folder is told: no hooks, no file-system monitor,
#: never a signing prompt (whatever the repository's own files say)
GIT_OPTIONS = (
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "commit.gpgsign=false",
)
#: the repository settings ``git init`` and doxa write; any other names a program git might
#: run (a filter, a diff driver, an include of another file), so the repository is refused
_SAFE_CONFIG = frozenset(
    {
        "core.repositoryformatversion",
        "core.filemode",
        "core.bare",
        "core.logallrefupdates",
        "core.ignorecase",
        "core.precomposeunicode",
        "core.symlinks",
        "user.name",
        "user.email",
    }
)


#: ``remote.<name>.url`` and the like: where the owner pushes the render repository
_REMOTE_SETTINGS = frozenset(
    {
        ("remote", "url"),
        ("remote", "pushurl"),
        ("remote", "fetch"),
        ("branch", "remote"),
        ("branch", "merge"),
    }
)


def _safe_setting(name: str) -> bool:
    """A setting git init writes, or where a branch is pushed (read by fetch and push only,
    which doxa never runs)."""
    if name in _SAFE_CONFIG:
        return True
    section, _, key = name.partition(".")
    last = key.rpartition(".")[2]
    return (section, last) in _REMOTE_SETTINGS and "." in key


def check_repository(folder: Path, git: str) -> bool:
    """Whether ``folder`` holds a git repository doxa may run git in: False when it has
    none; raises :class:`~doxa.errors.UnsafeFile` when its ``.git`` is not a folder of this
    user's (a link, a ``gitdir:`` file pointing elsewhere) or its config sets anything
    beyond what ``git init`` writes (whoever writes the folder could make git run a program
    through a filter, a hook path or an include)."""
    where = folder / ".git"
    try:
        found = os.lstat(where)
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid():
        raise UnsafeFile(
            f"{where} is not a git folder of your own (a link, a file pointing elsewhere, or "
            "another user's); remove it, or leave --git out."
        )
    config = where / "config"
    listed = subprocess.run(
        [git, "config", "--file", str(config), "--name-only", "--list"],
        capture_output=True,
        text=True,
        check=False,
    )
    names = set(listed.stdout.split()) if listed.returncode == 0 else {"(unreadable)"}
    extra = sorted(n for n in names if not _safe_setting(n.lower()))
    if extra or os.path.islink(config):
        raise UnsafeFile(
            f"{config} sets {', '.join(extra) or 'a link'}: settings that can make git run a "
            "program, in a folder an agent may write; remove them (doxa needs none), or "
            "leave --git out."
        )
    return True


def _record(store_path: Path) -> Path:
    return store_path.with_name(f"{store_path.name}.renders")


def record_render(store: Store, folder: Path) -> None:
    """Remember that ``store`` was rendered into ``folder`` (for a store on disk), so an
    erasure finds the folder's files and history later."""
    if not isinstance(store, OnDisk):
        return
    where = str(folder.resolve())
    known = rendered_folders(store.path)
    if where in map(str, known):
        return
    _write(store.path, [*map(str, known), where])


def rendered_folders(store_path: Path) -> list[Path]:
    """The folders the store at ``store_path`` was rendered into, oldest first."""
    try:
        data = json.loads(_record(store_path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise StoreError(
            f"{_record(store_path)} is unreadable ({error}); it lists the folders rendered "
            "from this store: fix or delete it (then render those folders again)."
        ) from error
    return [Path(str(p)) for p in data.get("folders", [])] if isinstance(data, dict) else []


def _write(store_path: Path, folders: Sequence[str]) -> None:
    target = _record(store_path)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"folders": list(folders)}, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def fact_ids(claims: Iterable[str]) -> set[str]:
    """The fact ids of claim IRIs (``…/fact/ID``)."""
    return {c.rsplit("/fact/", 1)[1] for c in claims if "/fact/" in c}


def scrub_text(name: str, text: str, facts: set[str]) -> str:
    """``text`` without what names an erased fact: the manifest's pairs and quotation
    marks, any other file's lines that hold an erased id.

    >>> scrub_text("a.md", "- tea <!-- doxa:01 -->\\n- jam <!-- doxa:02 -->\\n", {"01"})
    '- jam <!-- doxa:02 -->\\n'
    """
    if not facts:
        return text
    if name == MANIFEST:
        try:
            body = json.loads(text)
            for entry in body["files"].values():
                entry["lines"] = [row for row in entry["lines"] if row[0] not in facts]
            if "marks" in body:  # a quoted line's mark names its source: gone with it
                body["marks"] = {k: v for k, v in body["marks"].items() if k not in facts}
                if not body["marks"]:
                    del body["marks"]
            return json.dumps(body, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            pass  # not the manifest doxa wrote: scrubbed line by line as any file
    kept = [line for line in text.splitlines(keepends=True) if not _names(line, facts)]
    return "".join(kept)


def _names(line: str, facts: set[str]) -> bool:
    return any(fact in line for fact in facts)


def scrub_folders(store_path: Path, facts: set[str]) -> int:
    """Take the erased facts' lines out of every folder rendered from the store and out of
    each one's git history; the number of folders changed. A folder gone is skipped."""
    if not facts:
        return 0
    changed = 0
    for folder in rendered_folders(store_path):
        if not folder.is_dir():
            continue
        touched = _scrub_files(folder, facts)
        git = shutil.which("git")
        if git is None:
            if (folder / ".git").exists():
                raise StoreError(
                    f"{folder} is a git repository and the git program is not on PATH: the "
                    "erased lines may stay in its history; install git (the purge is retried)."
                )
            continue
        try:
            repository = check_repository(folder, git)
        except UnsafeFile as error:
            _log.warning("The history in %s was not rewritten: %s", folder, error)
            repository = False
        if repository:
            touched = _scrub_history(_History(git, folder), facts) or touched
        changed += touched
    return changed


def _scrub_files(folder: Path, facts: set[str]) -> bool:
    """Drop the erased facts' lines from the folder's own files, each rewritten atomically;
    a link or a file that is not this user's own is skipped (never followed) and logged."""
    touched = False
    try:
        where = Folder(folder)
    except DoxaError as error:
        _log.warning("The rendered folder %s was not scrubbed: %s", folder, error)
        return False
    with where:
        for name in where.names():
            if not (name.endswith(".md") or name == MANIFEST) or where.kind(name) != "file":
                continue
            try:
                text = where.read(name)
                scrubbed = text if text is None else scrub_text(name, text, facts)
                if scrubbed is not None and scrubbed != text:
                    where.write(name, scrubbed)
                    touched = True
            except DoxaError as error:  # a hard link, another user's file: left as it is
                _log.warning("%s was not scrubbed: %s", folder / name, error)
    return touched


def _scrub_history(history: _History, facts: set[str]) -> bool:
    """Rewrite the repository ``history`` runs in without the erased facts' lines; False
    when no commit held one (nothing is rewritten then)."""
    mapping: dict[str, str] = {}
    for commit in history.commits():
        mapping[commit] = history.rewritten(commit, mapping, facts)
    moved = {old: new for old, new in mapping.items() if old != new}
    if not moved:
        return False
    for ref, target in history.refs():
        if target in moved:
            history.run("update-ref", ref, moved[target], target)
    history.run("reset", "-q")  # the index from the new HEAD (the files were scrubbed)
    history.run("reflog", "expire", "--expire=now", "--all")
    history.run("gc", "-q", "--prune=now")
    return True


class _History:
    """The git plumbing a rewrite uses, run in one repository."""

    def __init__(self, git: str, folder: Path) -> None:
        self.git = git
        self.folder = folder

    def run(
        self, *args: str, given: bytes | None = None, env: dict[str, str] | None = None
    ) -> bytes:
        done = subprocess.run(
            [self.git, *GIT_OPTIONS, "-C", str(self.folder), *args],
            input=given,
            capture_output=True,
            check=False,
            env={**os.environ, **(env or {})},
        )
        if done.returncode != 0:
            raise StoreError(
                f"git {args[0]} failed in {self.folder} while erasing from its history "
                f"({done.stderr.decode(errors='replace').strip()}); fix the repository (a "
                "lock, a hook) and the purge retries."
            )
        return done.stdout

    def commits(self) -> list[str]:
        found = self.run("rev-list", "--reverse", "--topo-order", "--all")
        return found.decode().split()

    def refs(self) -> list[tuple[str, str]]:
        found = self.run("for-each-ref", "--format=%(refname) %(objectname)")
        return [tuple(line.split(" ", 1)) for line in found.decode().splitlines()]  # type: ignore[misc]

    def rewritten(self, commit: str, mapping: dict[str, str], facts: set[str]) -> str:
        raw = self.run("cat-file", "commit", commit)
        head, _, message = raw.partition(b"\n\n")
        fields = [line.split(b" ", 1) for line in head.split(b"\n")]
        tree = next(v for k, v in fields if k == b"tree").decode()
        parents = [v.decode() for k, v in fields if k == b"parent"]
        entries = self.run("ls-tree", "-r", "-z", commit).split(b"\0")
        rows, changed = [], False
        for entry in filter(None, entries):
            meta, _, path = entry.partition(b"\t")
            mode, kind, blob = meta.decode().split()
            name = path.decode(errors="replace").rsplit("/", 1)[-1]
            if kind == "blob" and (name.endswith(".md") or name == MANIFEST):
                data = self.run("cat-file", "blob", blob)
                text = data.decode("utf-8", errors="surrogateescape")
                scrubbed = scrub_text(name, text, facts)
                if scrubbed != text:
                    given = scrubbed.encode("utf-8", errors="surrogateescape")
                    written = self.run("hash-object", "-w", "--no-filters", "--stdin", given=given)
                    blob = written.decode().strip()
                    changed = True
            rows.append(f"{mode} {kind} {blob}\t".encode() + path)
        new_parents = [mapping.get(p, p) for p in parents]
        if not changed and new_parents == parents:
            return commit
        if changed:
            tree = self._tree(rows)
        env = _identity(fields)
        args = ["commit-tree", tree]
        for parent in new_parents:
            args += ["-p", parent]
        return self.run(*args, given=message, env=env).decode().strip()

    def _tree(self, rows: list[bytes]) -> str:
        with tempfile.TemporaryDirectory() as where:
            env = {"GIT_INDEX_FILE": str(Path(where) / "index")}
            listed = b"\0".join(rows) + b"\0"
            self.run("update-index", "--add", "-z", "--index-info", given=listed, env=env)
            return self.run("write-tree", env=env).decode().strip()


def _identity(fields: list[list[bytes]]) -> dict[str, str]:
    """The environment that makes ``git commit-tree`` keep a commit's author and committer."""
    env: dict[str, str] = {}
    for key, role in ((b"author", "AUTHOR"), (b"committer", "COMMITTER")):
        value = next((v for k, v in fields if k == key), None)
        if value is None:
            continue
        who, _, when = value.decode(errors="replace").rpartition("> ")
        name, _, email = who.partition(" <")
        env[f"GIT_{role}_NAME"] = name
        env[f"GIT_{role}_EMAIL"] = email
        env[f"GIT_{role}_DATE"] = when
    return env
