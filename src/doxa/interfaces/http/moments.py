"""Times on the review page in the owner's words: "3 minutes ago", the exact time on hover.

The page runs no script (its Content-Security-Policy forbids one), so it cannot read the
browser's time zone; the exact time is given in the server's local zone, named, since the
owner most often runs the server on their own machine. Both are computed from aware
datetimes: a naive one is read as UTC, as the store writes every time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["exact", "spoken"]

_UNITS = (
    (timedelta(days=365), "year"),
    (timedelta(days=30), "month"),
    (timedelta(days=7), "week"),
    (timedelta(days=1), "day"),
    (timedelta(hours=1), "hour"),
    (timedelta(minutes=1), "minute"),
)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def spoken(moment: datetime, now: datetime) -> str:
    """``moment`` said relative to ``now``, in the largest whole unit.

    >>> now = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)
    >>> spoken(now - timedelta(seconds=20), now), spoken(now - timedelta(minutes=3), now)
    ('just now', '3 minutes ago')
    >>> spoken(now - timedelta(days=1, hours=2), now), spoken(now + timedelta(days=2), now)
    ('1 day ago', 'in 2 days')
    """
    delta = _aware(now) - _aware(moment)
    ahead = delta < timedelta(0)
    size = -delta if ahead else delta
    for unit, name in _UNITS:
        if size >= unit:
            count = size // unit
            said = f"{count} {name}{'' if count == 1 else 's'}"
            return f"in {said}" if ahead else f"{said} ago"
    return "just now"


def exact(moment: datetime) -> str:
    """``moment`` to the second in the server's local time zone, the zone named.

    >>> exact(datetime(2026, 3, 5, 12, 0, 7, 123456, tzinfo=UTC)).startswith("2026-03-0")
    True
    """
    local = _aware(moment).astimezone()
    zone = local.tzname() or local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M:%S} {zone}"
