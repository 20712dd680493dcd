"""A fact's history drawn on both clocks: an inline SVG for the review page.

Each version of the fact (the fact, then each successor) gets two lanes on one time axis:
**valid** (when it was true in the world) and **believed** (from when the store recorded it
until a retraction ended the belief). Every history event is one marker on the believed lane
of the version it happened to, at its recorded time; a supersession also cuts the valid lane
at its ``valid_until``. A retracted version's valid lane is drawn hollow: it no longer counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape

from doxa.model import Fact, FactStatus, History

__all__ = ["ticks", "timeline_svg"]

WIDTH = 760
LEFT = 170
RIGHT = 44
LANE = 16
GAP = 6
GROUP = 2 * LANE + GAP + 18
TOP = 10
AXIS = 34


def _span(history: History, versions: Sequence[Fact], now: datetime) -> tuple[datetime, datetime]:
    moments = [now]
    for fact in versions:
        moments += [m for m in (fact.valid_from, fact.valid_until, fact.recorded_at) if m]
    for event in history.events:
        moments.append(event.at)
        if event.valid_until is not None:
            moments.append(event.valid_until)
    start, end = min(moments), max(moments)
    if end - start < timedelta(days=1):
        start, end = start - timedelta(hours=12), end + timedelta(hours=12)
    pad = (end - start) * 0.04
    return start - pad, end + pad


def _label(moment: datetime) -> str:
    if (moment.hour, moment.minute, moment.second) == (0, 0, 0):
        return moment.date().isoformat()
    return moment.strftime("%Y-%m-%d %H:%M")


def ticks(start: datetime, end: datetime, count: int = 5) -> list[tuple[datetime, str]]:
    """``count`` evenly spaced moments on the axis, each labelled once: dates when the axis
    spans days, else times of day with the date where it changes (the first tick, and a
    tick past midnight), so a same-day history never repeats one date on every tick.

    >>> day = datetime(2026, 3, 5, 6, 0)
    >>> [label for _, label in ticks(day, day + timedelta(hours=24))]
    ['2026-03-05 06:00', '12:00', '18:00', '2026-03-06 00:00', '06:00']
    >>> [label for _, label in ticks(day, day + timedelta(days=8))][:2]
    ['2026-03-05', '2026-03-07']
    """
    moments = [start + (end - start) * (step / (count - 1)) for step in range(count)]
    if end - start >= timedelta(days=count - 1):
        return [(m, m.date().isoformat()) for m in moments]
    labelled = []
    for index, moment in enumerate(moments):
        new_day = index == 0 or moment.date() != moments[index - 1].date()
        labelled.append((moment, moment.strftime("%Y-%m-%d %H:%M" if new_day else "%H:%M")))
    return labelled


def timeline_svg(history: History, versions: Sequence[Fact], now: datetime) -> str:
    """The SVG markup (escaped, ready to inline) for ``history``'s versions, as of ``now``."""
    start, end = _span(history, versions, now)
    total = (end - start).total_seconds()
    usable = WIDTH - LEFT - RIGHT

    def x(moment: datetime | None, default: float) -> float:
        if moment is None:
            return default
        return round(LEFT + usable * (moment - start).total_seconds() / total, 1)

    height = TOP + GROUP * len(versions) + AXIS
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="history of fact {escape(history.fact.id)} on both clocks">'
    ]
    row_of = {fact.id: index for index, fact in enumerate(versions)}
    for index, fact in enumerate(versions):
        top = TOP + GROUP * index
        ends = [e.valid_until for e in history.events if e.fact == fact.id and e.valid_until]
        valid_end = min([m for m in (fact.valid_until, *ends) if m], default=None)
        retraction = next(
            (e.at for e in history.events if e.fact == fact.id and e.kind == "retracted"), None
        )
        void = " void" if fact.status is FactStatus.RETRACTED else ""
        parts.append(
            f'<g class="version" data-fact="{escape(fact.id)}">'
            f'<text x="4" y="{top + 12}" class="version-label">{escape(fact.id[-8:])} '
            f"{escape(fact.status.value)}</text>"
            f'<text x="{LEFT - 6}" y="{top + 12}" text-anchor="end" class="lane-label">valid</text>'
            f'<text x="{LEFT - 6}" y="{top + LANE + GAP + 12}" text-anchor="end" '
            'class="lane-label">believed</text>'
        )
        x0, x1 = x(fact.valid_from, LEFT), x(valid_end, WIDTH - RIGHT)
        parts.append(
            f'<rect class="lane valid{void}" x="{x0}" y="{top}" width="{max(x1 - x0, 1)}" '
            f'height="{LANE}"><title>valid {_label(fact.valid_from) if fact.valid_from else "…"}'
            f" to {_label(valid_end) if valid_end else '…'}</title></rect>"
        )
        b0, b1 = x(fact.recorded_at, LEFT), x(retraction, x(now, WIDTH - RIGHT))
        belief_top = top + LANE + GAP
        parts.append(
            f'<rect class="lane believed" x="{b0}" y="{belief_top}" width="{max(b1 - b0, 1)}" '
            f'height="{LANE}"><title>believed from {_label(fact.recorded_at)}'
            f"{' to ' + _label(retraction) if retraction else ''}</title></rect>"
        )
        if valid_end is not None:
            parts.append(
                f'<line class="valid-end" x1="{x1}" x2="{x1}" y1="{top - 2}" '
                f'y2="{top + LANE + 2}"/>'
            )
        parts.append("</g>")
    for event in history.events:
        row = row_of.get(event.fact, 0)
        cy = TOP + GROUP * row + LANE + GAP + LANE / 2
        cx = x(event.at, LEFT)
        what = f"{event.kind} at {_label(event.at)}"
        if event.other:
            what += f" ({event.other})"
        if event.reason:
            what += f": {event.reason}"
        parts.append(
            f'<g class="event event-{escape(event.kind)}" data-kind="{escape(event.kind)}" '
            f'data-fact="{escape(event.fact)}"><circle cx="{cx}" cy="{cy}" r="5"/>'
            f"<title>{escape(what)}</title></g>"
        )
    axis_y = TOP + GROUP * len(versions) + 6
    parts.append(
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{axis_y}" y2="{axis_y}"/>'
    )
    for moment, label in ticks(start, end):
        tx = x(moment, LEFT)
        parts.append(
            f'<text class="tick" x="{tx}" y="{axis_y + 16}" text-anchor="middle">'
            f"{escape(label)}</text>"
        )
    now_x = x(now, WIDTH - RIGHT)
    parts.append(
        f'<line class="now" x1="{now_x}" x2="{now_x}" y1="{TOP - 4}" y2="{axis_y}">'
        "<title>now</title></line>"
    )
    parts.append("</svg>")
    return "".join(parts)
