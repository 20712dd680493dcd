"""A rendered folder, read and written as an untrusted place: regular files inside it only.

Whoever can write the folder (an agent editing its memory) must not make a sync read or
write anything else. So the folder is opened once, and every file is opened relative to it
(``dir_fd``) with ``O_NOFOLLOW``, then checked on the open descriptor (``fstat``): a regular
file, one link, owned by this user, under :data:`MAX_FILE_BYTES`. Anything else (a symbolic
link, a hard link to a file elsewhere, a device or pipe, another user's file, a name with a
slash or ``..``) is refused with :class:`~doxa.errors.UnsafeFile` before a byte is read.
Writes go to a new temporary file in the folder (``O_EXCL``, so never through a planted
link) renamed over the name, which replaces a link rather than following it.

:class:`Version` is what a file was when read, so a writer can leave alone a file that
changed meanwhile (an edit made while ``doxa sync`` ran).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from doxa.errors import InvalidInput, UnsafeFile

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "Folder", "Version"]

#: the most bytes doxa reads from one file of a rendered folder (a topic of ~100k facts)
MAX_FILE_BYTES = 16 * 1024 * 1024
#: the most entries a rendered folder may hold
MAX_FILES = 10_000

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Version:
    """A file as it was read: inode, size, modification time and a hash of its bytes."""

    inode: int
    size: int
    mtime_ns: int
    digest: str


class Folder:
    """One rendered folder, opened once; every read and write stays inside it.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as where, Folder(Path(where), create=True) as f:
    ...     f.write("a.md", "- tea\\n")
    ...     f.read("a.md")
    '- tea\\n'
    """

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = path
        if create:
            path.mkdir(parents=True, exist_ok=True)
        try:
            self._fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError as error:
            raise InvalidInput(
                f"{path} does not exist; render into it first (`doxa render {path}`)."
            ) from error
        except OSError as error:
            raise InvalidInput(
                f"{path} is not a folder doxa can open ({error.strerror})."
            ) from error
        found = os.fstat(self._fd)
        if found.st_uid != os.geteuid():
            os.close(self._fd)
            raise UnsafeFile(
                f"{path} belongs to another user (uid {found.st_uid}); render into a folder "
                "of your own."
            )

    def __enter__(self) -> Folder:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        os.close(self._fd)

    def names(self) -> list[str]:
        """The entries of the folder, sorted (at most :data:`MAX_FILES`)."""
        found = os.listdir(self._fd)
        if len(found) > MAX_FILES:
            raise UnsafeFile(
                f"{self.path} holds {len(found)} entries, more than {MAX_FILES}; a rendered "
                "folder holds one file per topic: move the rest elsewhere."
            )
        return sorted(found)

    def kind(self, name: str) -> str | None:
        """``"file"`` for a regular file, ``"other"`` for anything else (a link, a folder,
        a device), None when there is nothing by that name; never follows a link."""
        try:
            found = os.stat(_checked(name, self.path), dir_fd=self._fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        return "file" if stat.S_ISREG(found.st_mode) else "other"

    def read(self, name: str) -> str | None:
        """The text of ``name`` (None when there is none); raises :class:`UnsafeFile` for
        anything but a regular file of this user's, with one link, inside the folder."""
        found = self._read(name)
        return None if found is None else found[0]

    def version(self, name: str) -> Version | None:
        """What ``name`` is now (None when there is none), to compare with a read."""
        found = self._read(name)
        return None if found is None else found[1]

    def read_versioned(self, name: str) -> tuple[str, Version] | None:
        """The text of ``name`` and its version, from one open."""
        return self._read(name)

    def _read(self, name: str) -> tuple[str, Version] | None:
        where = self.path / _checked(name, self.path)
        try:
            fd = os.open(name, _READ, dir_fd=self._fd)
        except FileNotFoundError:
            return None
        except OSError as error:  # ELOOP: a symbolic link; ENXIO: a socket
            raise UnsafeFile(
                f"{where} is a link or special file ({error.strerror}); doxa reads regular "
                "files only: delete it (or move it out of the folder) and sync again."
            ) from error
        try:
            found = os.fstat(fd)
            _check(where, found)
            data = b""
            while len(data) <= MAX_FILE_BYTES:
                chunk = os.read(fd, MAX_FILE_BYTES + 1 - len(data))
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        if len(data) > MAX_FILE_BYTES:
            raise UnsafeFile(f"{where} grew past {MAX_FILE_BYTES} bytes while being read.")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InvalidInput(
                f"{where} is not UTF-8 text ({error.reason} at byte {error.start}); save it as "
                "UTF-8 and sync again."
            ) from error
        version = Version(found.st_ino, len(data), found.st_mtime_ns, _digest(data))
        return text, version

    def write(self, name: str, text: str) -> None:
        """Write ``name`` atomically: a new temporary file in the folder, renamed over it (a
        link by that name is replaced, never followed)."""
        _checked(name, self.path)
        if self.kind(name) == "other":
            self._refuse_other(name)
        temporary = f".doxa-{secrets.token_hex(8)}.tmp"
        fd = os.open(temporary, _CREATE, 0o600, dir_fd=self._fd)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(text.encode("utf-8"))
            os.replace(temporary, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=self._fd)
            raise

    def remove(self, name: str) -> None:
        """Remove ``name`` if it is there (a link is removed itself, its target never)."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(_checked(name, self.path), dir_fd=self._fd)

    def _refuse_other(self, name: str) -> None:
        raise UnsafeFile(
            f"{self.path / name} is a link, folder or special file where doxa writes a regular "
            "file; delete it and run the command again."
        )


def _checked(name: str, folder: Path) -> str:
    """A plain name in the folder: no slash, no NUL, not ``.`` or ``..``."""
    if not name or name in (".", "..") or "/" in name or "\x00" in name or os.sep in name:
        raise UnsafeFile(f"{name!r} is not a file name inside {folder}; use a plain name.")
    return name


def _check(where: Path, found: os.stat_result) -> None:
    if not stat.S_ISREG(found.st_mode):
        raise UnsafeFile(
            f"{where} is not a regular file (a device, pipe or folder); doxa reads regular "
            "files only: remove it from the folder and sync again."
        )
    if found.st_nlink > 1:
        raise UnsafeFile(
            f"{where} has {found.st_nlink} hard links: it may be a file elsewhere; copy it to "
            "a file of its own (cp, then delete the link) and sync again."
        )
    if found.st_uid != os.geteuid():
        raise UnsafeFile(
            f"{where} belongs to another user (uid {found.st_uid}); doxa reads only your own "
            "files: remove it from the folder and sync again."
        )
    if found.st_size > MAX_FILE_BYTES:
        raise UnsafeFile(
            f"{where} holds {found.st_size} bytes, more than {MAX_FILE_BYTES}; split the "
            "topic into smaller files and sync again."
        )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
