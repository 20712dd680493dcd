"""Clocks: where the gate gets "now" from, so tests can say "it is 9 March 2026"."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, time, timedelta
from typing import Protocol

from doxa.errors import InvalidInput

__all__ = ["Clock", "FixedClock", "SystemClock", "parse_instant"]


class Clock(Protocol):
    """Anything that can tell the current time, as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The machine's clock, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that stands still until moved; each reading can tick forward by ``step``.

    >>> clock = FixedClock("2026-03-09")
    >>> clock.now().isoformat()
    '2026-03-09T00:00:00+00:00'
    """

    def __init__(self, start: datetime | str, *, step: timedelta = timedelta(0)) -> None:
        self._now = parse_instant(start)
        self._step = step
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            current = self._now
            self._now = current + self._step
            return current

    def set(self, when: datetime | str) -> None:
        """Move the clock to ``when``."""
        with self._lock:
            self._now = parse_instant(when)

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward by ``delta``."""
        with self._lock:
            self._now += delta


def parse_instant(value: datetime | date | str) -> datetime:
    """Read a date or datetime as an aware UTC datetime; a bare date (a ``datetime.date`` or
    an ISO 8601 date) means its midnight UTC.

    >>> parse_instant("2026-03-05").isoformat()
    '2026-03-05T00:00:00+00:00'
    >>> parse_instant(date(2026, 3, 5)).isoformat()
    '2026-03-05T00:00:00+00:00'
    >>> parse_instant("2026-03-05T10:00:00+02:00").isoformat()
    '2026-03-05T08:00:00+00:00'
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time(0))
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidInput(
                f"{value!r} is not a date or datetime; use ISO 8601 such as 2026-03-05 "
                "or 2026-03-05T10:00:00Z."
            ) from None
    else:
        raise InvalidInput(
            f"{value!r} is not a date or datetime; pass a datetime, a date or an ISO 8601 string."
        )
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        # only the first and the last day of the calendar overflow once moved to UTC
        nearer = "a later" if moment.year == 1 else "an earlier"
        raise InvalidInput(
            f"{value!r} is outside the years 1-9999 once in UTC; use {nearer} date."
        ) from None
