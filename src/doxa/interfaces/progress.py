"""A one-line progress bar on stderr for long exports and imports.

Drawn when stderr is a terminal, or when the user asks with ``--progress`` (so it can be seen
in logs and tested); never on stdout, which may carry ``--json`` output.
"""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """Call with (done, total); redraws ``label [####    ] done/total quads`` in place.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar("Exporting", force=True, stream=out, width=10)
    >>> bar(5, 10); bar(10, 10)
    >>> out.getvalue().split("\\r")[-1]
    'Exporting [##########] 10/10 quads\\n'
    """

    def __init__(
        self,
        label: str,
        *,
        force: bool = False,
        stream: TextIO | None = None,
        width: int = 30,
        unit: str = "quads",
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.width = width
        self.unit = unit
        self.shown = force or self.stream.isatty()
        self._last = -1

    def __call__(self, done: int, total: int) -> None:
        if not self.shown:
            return
        filled = self.width if total == 0 else self.width * done // total
        if filled == self._last and done < total:
            return  # redraw only when the bar moves
        self._last = filled
        bar = "#" * filled + " " * (self.width - filled)
        end = "\n" if done >= total else ""
        self.stream.write(f"\r{self.label} [{bar}] {done}/{total} {self.unit}{end}")
        self.stream.flush()
