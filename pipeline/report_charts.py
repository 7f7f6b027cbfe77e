"""The report's charts, drawn as inline SVG text: a line chart, a horizontal bar chart, an
interval chart (observed against a fair range) and a histogram against the normal curve.

Drawn here rather than by a plotting library: matplotlib cost about a second of every report
(0.6 s to import, 0.3 s a chart), more than the rest of a one-player report over 5M hands. The
charts follow the page's look: sans-serif text the page's fonts draw, grey axes on the left and
bottom, light grid lines at the ticks, no title (the figure's caption says what it shows).

Sizes are in points (a 9.6 x 3.6 inch chart is 691.2 x 259.2), in the ``viewBox`` only: the page
scales the chart to its column. Every text, label and attribute value is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "Bar",
    "Interval",
    "Line",
    "bar_chart",
    "interval_chart",
    "line_chart",
    "nice_ticks",
    "normal_histogram",
]

POINTS_PER_INCH = 72
FONT_SIZE = 9
SMALL_FONT_SIZE = 8
AXIS_COLOUR = "#9aa3b2"
GRID_COLOUR = "#e6e9ef"
TICK_COLOUR = "#5d6677"
LABEL_COLOUR = "#374151"
TICK_LENGTH = 3.5
# Room kept beyond the data, as a share of its range (matplotlib's default, which the charts
# had before): lines do not touch the frame.
MARGIN = 0.05


@dataclass(frozen=True)
class Line:
    """One line of a line chart: ``ys`` over ``xs``, drawn in a ``<g id="{gid}">``."""

    gid: str
    xs: Sequence[float]
    ys: Sequence[float]
    colour: str
    width: float
    label: str
    dashed: bool = False


@dataclass(frozen=True)
class Bar:
    """One bar of a bar chart, with its label on the left and its count at its end."""

    label: str
    value: float
    colour: str


def _attributes(attributes: dict[str, object]) -> str:
    return "".join(
        f' {name.rstrip("_").replace("_", "-")}="{html.escape(str(value), quote=True)}"'
        for name, value in attributes.items()
        if value is not None
    )


def _element(name: str, text: str | None = None, **attributes: object) -> str:
    opening = f"<{name}{_attributes(attributes)}"
    if text is None:
        return opening + "/>"
    return f"{opening}>{html.escape(text, quote=False)}</{name}>"


def _number(value: float) -> str:
    """A coordinate to 0.1 point ("12.3", "0", "-4")."""
    text = f"{value:.1f}"
    return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")


def nice_ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round tick values (steps of 1, 2, 2.5 or 5 times a power of ten) inside [low, high],
    about ``count`` of them.

    >>> nice_ticks(0, 1000)
    [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
    >>> nice_ticks(-3.2, 7.9)
    [-2.5, 0.0, 2.5, 5.0, 7.5]
    """
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(1, count - 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * 0.999)
    first = math.ceil(low / step - 1e-9)
    ticks = []
    index = first
    while index * step <= high + step * 1e-9:
        ticks.append(round(index * step, 12) + 0.0)
        index += 1
    return ticks


class _Frame:
    """The plot area of a chart and its mapping from data to points."""

    def __init__(
        self,
        width: float,
        height: float,
        margins: tuple[float, float, float, float],  # left, right, bottom, top, in inches
        x_range: tuple[float, float],
        y_range: tuple[float, float],
    ) -> None:
        left, right, bottom, top = (side * POINTS_PER_INCH for side in margins)
        self.width, self.height = width * POINTS_PER_INCH, height * POINTS_PER_INCH
        self.left, self.right = left, self.width - right
        self.top, self.bottom = top, self.height - bottom
        self.x_low, self.x_high = x_range
        self.y_low, self.y_high = y_range

    def x(self, value: float) -> float:
        span = (self.x_high - self.x_low) or 1.0
        return self.left + (value - self.x_low) / span * (self.right - self.left)

    def y(self, value: float) -> float:
        span = (self.y_high - self.y_low) or 1.0
        return self.bottom - (value - self.y_low) / span * (self.bottom - self.top)

    def svg(self, body: list[str], label: str) -> str:
        opening = _element(
            "svg",
            xmlns="http://www.w3.org/2000/svg",
            viewBox=f"0 0 {_number(self.width)} {_number(self.height)}",
            role="img",
            aria_label=label,
            font_family="sans-serif",
            font_size=FONT_SIZE,
        ).removesuffix("/>")
        return f"{opening}>{''.join(body)}</svg>"

    def background(self) -> str:
        return _element("rect", width=_number(self.width), height=_number(self.height), fill="#fff")

    def axes(self) -> list[str]:
        """The left and bottom spines."""
        left, bottom = _number(self.left), _number(self.bottom)
        return [
            _element(
                "path",
                d=f"M{left} {_number(self.top)}V{bottom}H{_number(self.right)}",
                fill="none",
                stroke=AXIS_COLOUR,
                stroke_width=0.8,
            )
        ]

    def x_ticks(self, ticks: Sequence[float], text: Callable[[float], str]) -> list[str]:
        parts = []
        for tick in ticks:
            x = _number(self.x(tick))
            bottom = _number(self.bottom)
            parts += _tick(
                f"M{x} {_number(self.top)}V{bottom}",
                f"M{x} {bottom}v{TICK_LENGTH}",
                _element(
                    "text",
                    text(tick),
                    x=x,
                    y=_number(self.bottom + TICK_LENGTH + FONT_SIZE + 1),
                    fill=TICK_COLOUR,
                    text_anchor="middle",
                ),
            )
        return parts

    def y_ticks(self, ticks: Sequence[float], text: Callable[[float], str]) -> list[str]:
        parts = []
        for tick in ticks:
            y, left = _number(self.y(tick)), _number(self.left)
            parts += _tick(
                f"M{left} {y}H{_number(self.right)}",
                f"M{left} {y}h{-TICK_LENGTH}",
                _element(
                    "text",
                    text(tick),
                    x=_number(self.left - TICK_LENGTH - 2),
                    y=_number(self.y(tick) + FONT_SIZE * 0.35),
                    fill=TICK_COLOUR,
                    text_anchor="end",
                ),
            )
        return parts

    def x_label(self, text: str) -> str:
        return _element(
            "text",
            text,
            x=_number((self.left + self.right) / 2),
            y=_number(self.height - 4),
            fill=LABEL_COLOUR,
            text_anchor="middle",
        )

    def y_label(self, text: str) -> str:
        x, y = _number(FONT_SIZE + 2), _number((self.top + self.bottom) / 2)
        return _element(
            "text",
            text,
            x=x,
            y=y,
            fill=LABEL_COLOUR,
            text_anchor="middle",
            transform=f"rotate(-90 {x} {y})",
        )


def _tick(grid: str, mark: str, label: str) -> list[str]:
    """A tick: its grid line across the plot, its mark on the axis and its label."""
    return [
        _element("path", d=grid, stroke=GRID_COLOUR, stroke_width=0.8),
        _element("path", d=mark, stroke=TICK_COLOUR, stroke_width=0.8),
        label,
    ]


def _padded(low: float, high: float) -> tuple[float, float]:
    if high <= low:
        return low - 1.0, high + 1.0
    room = (high - low) * MARGIN
    return low - room, high + room


def line_chart(
    lines: Sequence[Line],
    *,
    x_max: float,
    x_label: str,
    y_label: str,
    label: str,
    x_text: Callable[[float], str],
    y_text: Callable[[float], str],
    size: tuple[float, float] = (9.6, 3.6),
    left: float = 0.85,
) -> str:
    """Lines over x from 0 to ``x_max``, with a zero line, ticks, axis labels and a legend in
    the upper left corner. ``label`` is the chart's accessible name."""
    values = [float(value) for line in lines for value in line.ys]
    y_low, y_high = _padded(min(values, default=0.0), max(values, default=0.0))
    frame = _Frame(*size, (left, 0.15, 0.5, 0.12), (0.0, max(1.0, x_max)), (y_low, y_high))
    body = [frame.background()]
    body += frame.x_ticks(nice_ticks(0.0, max(1.0, x_max), 9), x_text)
    body += frame.y_ticks(nice_ticks(y_low, y_high, 8), y_text)
    body += frame.axes()
    if y_low < 0 < y_high:
        zero = _number(frame.y(0.0))
        body.append(
            _element(
                "path",
                d=f"M{_number(frame.left)} {zero}H{_number(frame.right)}",
                stroke=AXIS_COLOUR,
                stroke_width=0.8,
            )
        )
    for line in lines:
        points = _simplified(
            [
                (_number(frame.x(x)), _number(frame.y(y)))
                for x, y in zip(line.xs, line.ys, strict=True)
            ]
        )
        commands = [f"{'M' if i == 0 else 'L'}{x} {y}" for i, (x, y) in enumerate(points)]
        path = _element(
            "path",
            d="".join(commands),
            fill="none",
            stroke=line.colour,
            stroke_width=line.width,
            stroke_dasharray="5.5 2.4" if line.dashed else None,
            stroke_linejoin="round",
        )
        body.append(f'<g id="{html.escape(line.gid, quote=True)}">{path}</g>')
    body += _legend(frame, lines)
    body.append(frame.x_label(x_label))
    body.append(frame.y_label(y_label))
    return frame.svg(body, label)


def _simplified(points: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``points`` (rounded to what is drawn) without repeats and without the inner points of
    horizontal or vertical runs, which draw the same line (a player's flat stretches)."""
    kept: list[tuple[str, str]] = []
    for point in points:
        if kept and point == kept[-1]:
            continue
        if len(kept) >= 2:
            (x0, y0), (x1, y1) = kept[-2], kept[-1]
            if (y0 == y1 == point[1]) or (x0 == x1 == point[0]):
                kept[-1] = point
                continue
        kept.append(point)
    return kept


def _legend(frame: _Frame, lines: Sequence[Line]) -> list[str]:
    """One row of swatches and labels along the top of the plot area, from the left."""
    parts = []
    x = frame.left + 8
    y = frame.top + FONT_SIZE
    for line in lines:
        parts.append(
            _element(
                "path",
                d=f"M{_number(x)} {_number(y - 3)}h18",
                stroke=line.colour,
                stroke_width=line.width,
                stroke_dasharray="5.5 2.4" if line.dashed else None,
            )
        )
        parts.append(
            _element("text", line.label, x=_number(x + 23), y=_number(y), fill=LABEL_COLOUR)
        )
        x += 23 + 0.55 * FONT_SIZE * len(line.label) + 14
    return parts


def bar_chart(
    bars: Sequence[Bar],
    *,
    x_label: str,
    label: str,
    width: float,
    left: float,
    margin: float,
) -> str:
    """Horizontal bars from the top down, each with its count at its end; ``margin`` is the room
    kept right of the longest bar, as a share of it."""
    height = 0.3 * max(1, len(bars)) + 0.7
    longest = max((bar.value for bar in bars), default=0.0)
    frame = _Frame(
        width, height, (left, 0.15, 0.45, 0.12), (0.0, max(1.0, longest * (1 + margin))), (0, 1)
    )
    body = [frame.background()]
    body += frame.x_ticks(nice_ticks(0.0, max(1.0, longest * (1 + margin)), 6), _count_text)
    row = (frame.bottom - frame.top) / max(1, len(bars))
    for index, bar in enumerate(bars):
        middle = frame.top + row * (index + 0.5)
        body.append(
            _element(
                "rect",
                x=_number(frame.left),
                y=_number(middle - row * 0.31),
                width=_number(frame.x(bar.value) - frame.left),
                height=_number(row * 0.62),
                fill=bar.colour,
            )
        )
        body.append(
            _element(
                "text",
                bar.label,
                x=_number(frame.left - TICK_LENGTH - 2),
                y=_number(middle + FONT_SIZE * 0.35),
                fill=TICK_COLOUR,
                text_anchor="end",
            )
        )
        body.append(
            _element(
                "text",
                _count_text(bar.value),
                x=_number(frame.x(bar.value) + 3),
                y=_number(middle + SMALL_FONT_SIZE * 0.35),
                fill=LABEL_COLOUR,
                font_size=SMALL_FONT_SIZE,
            )
        )
    body += frame.axes()
    body.append(frame.x_label(x_label))
    return frame.svg(body, label)


def _count_text(value: float) -> str:
    return f"{value:,.0f}"


@dataclass(frozen=True)
class Interval:
    """One row of an interval chart: a share observed and the range a fair deal gives."""

    label: str
    observed: float
    expected: float
    low: float
    high: float


def interval_chart(
    rows: Sequence[Interval], *, x_label: str, label: str, width: float, left: float
) -> str:
    """One row per category from the top down: the fair range as a grey band, the expected
    value as a tick, the observed value as a dot (red when outside the band)."""
    values = [value for row in rows for value in (row.observed, row.low, row.high)]
    x_low, x_high = _padded(min(values, default=0.0), max(values, default=1.0))
    height = 0.22 * max(1, len(rows)) + 0.7
    frame = _Frame(width, height, (left, 0.2, 0.45, 0.12), (x_low, x_high), (0, 1))
    body = [frame.background()]
    body += frame.x_ticks(nice_ticks(x_low, x_high, 7), lambda value: f"{value:g}")
    step = (frame.bottom - frame.top) / max(1, len(rows))
    for index, row in enumerate(rows):
        middle = frame.top + step * (index + 0.5)
        outside = not row.low <= row.observed <= row.high
        body += [
            _element(
                "rect",
                x=_number(frame.x(row.low)),
                y=_number(middle - step * 0.3),
                width=_number(max(0.5, frame.x(row.high) - frame.x(row.low))),
                height=_number(step * 0.6),
                fill=GRID_COLOUR,
            ),
            _element(
                "path",
                d=f"M{_number(frame.x(row.expected))} {_number(middle - step * 0.3)}"
                f"v{_number(step * 0.6)}",
                stroke=AXIS_COLOUR,
                stroke_width=1,
            ),
            _element(
                "circle",
                cx=_number(frame.x(row.observed)),
                cy=_number(middle),
                r=_number(min(3.2, step * 0.3)),
                fill="#c62828" if outside else "#1f5fbf",
            ),
            _element(
                "text",
                row.label,
                x=_number(frame.left - TICK_LENGTH - 2),
                y=_number(middle + SMALL_FONT_SIZE * 0.35),
                fill=TICK_COLOUR,
                text_anchor="end",
                font_size=SMALL_FONT_SIZE,
            ),
        ]
    body += frame.axes()
    body.append(frame.x_label(x_label))
    return frame.svg(body, label)


def normal_histogram(values: Sequence[float], *, x_label: str, label: str, width: float) -> str:
    """Counts of ``values`` in half-unit bins from -4 to 4 (the last bins hold the tails) with
    the standard normal density scaled to the same count as a line."""
    edges = [-4.0 + 0.5 * step for step in range(17)]
    counts = [0] * 16
    for value in values:
        counts[min(15, max(0, int((value + 4.0) // 0.5)))] += 1
    total = len(values)
    curve_x = [-4.0 + 0.1 * step for step in range(81)]
    curve_y = [total * 0.5 * math.exp(-x * x / 2) / math.sqrt(2 * math.pi) for x in curve_x]
    top = max([*counts, *curve_y, 1.0]) * (1 + MARGIN)
    frame = _Frame(width, 2.6, (0.6, 0.15, 0.5, 0.12), (-4.0, 4.0), (0.0, top))
    body = [frame.background()]
    body += frame.x_ticks([-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0], lambda x: f"{x:g}")
    body += frame.y_ticks(nice_ticks(0.0, top, 5), _count_text)
    for low, count in zip(edges, counts, strict=False):
        if count:
            body.append(
                _element(
                    "rect",
                    x=_number(frame.x(low) + 0.5),
                    y=_number(frame.y(count)),
                    width=_number(frame.x(low + 0.5) - frame.x(low) - 1),
                    height=_number(frame.y(0.0) - frame.y(count)),
                    fill="#9fb8e0",
                )
            )
    path = "".join(
        f"{'M' if index == 0 else 'L'}{_number(frame.x(x))} {_number(frame.y(y))}"
        for index, (x, y) in enumerate(zip(curve_x, curve_y, strict=True))
    )
    body.append(_element("path", d=path, fill="none", stroke="#c62828", stroke_width=1.2))
    body += frame.axes()
    body.append(frame.x_label(x_label))
    return frame.svg(body, label)
