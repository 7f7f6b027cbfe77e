"""The report's SVG charts (pipeline.report_charts): well-formed, escaped, drawn to scale."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from pipeline.report_charts import Bar, Line, bar_chart, line_chart, nice_ticks

SVG = "{http://www.w3.org/2000/svg}"


def _line_chart(ys: list[float], label: str = "won") -> ET.Element:
    text = line_chart(
        [Line("curve-all", list(range(len(ys))), ys, "#2e7d32", 1.8, label)],
        x_max=len(ys) - 1,
        x_label="hands",
        y_label=label,
        label=f"chart of {label}",
        x_text=lambda value: f"{value:,.0f}",
        y_text=lambda value: f"{value:,.10g}",
    )
    return ET.fromstring(text)  # our own output: well-formed XML or this raises


def _vertices(root: ET.Element) -> list[tuple[float, float]]:
    group = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "curve-all")
    path = next(group.iter(f"{SVG}path")).get("d") or ""
    return [(float(x), float(y)) for x, y in re.findall(r"[ML](-?[\d.]+) (-?[\d.]+)", path)]


def test_labels_are_escaped_and_the_chart_is_named() -> None:
    root = _line_chart([0, 5, -3], label='<script>"x"</script>')
    assert root.get("aria-label") == 'chart of <script>"x"</script>'
    assert all(node.tag != "script" for node in root.iter())
    assert '<script>"x"</script>' in [node.text for node in root.iter(f"{SVG}text")]


def test_a_curve_is_drawn_to_scale_with_its_flat_runs_merged() -> None:
    ys = [0.0] * 50 + [10.0, 20.0] + [20.0] * 50 + [-10.0]
    points = _vertices(_line_chart(ys))
    # First and last points, the two turns, no inner point of a flat run.
    assert len(points) == 6
    xs = [x for x, _ in points]
    assert xs == sorted(xs)
    (_, zero), (_, top), (_, bottom) = points[0], points[3], points[-1]
    assert bottom > zero > top  # SVG's y grows downwards
    assert abs((zero - top) / (bottom - zero) - 2.0) < 0.05  # 20 up against 10 down


def test_bars_are_as_long_as_their_values() -> None:
    text = bar_chart(
        [Bar("scooped", 30, "#2e7d32"), Bar("high only", 10, "#1f5fbf")],
        x_label="pots",
        label="outcomes",
        width=5.2,
        left=1.15,
        margin=0.15,
    )
    bars = [node for node in ET.fromstring(text).iter(f"{SVG}rect") if node.get("fill") != "#fff"]
    widths = [float(node.get("width") or 0) for node in bars]
    assert len(widths) == 2 and abs(widths[0] / widths[1] - 3.0) < 0.02


@given(
    st.floats(-1e9, 1e9, allow_nan=False),
    st.floats(1e-6, 1e6, allow_nan=False),
)
def test_ticks_are_round_steps_inside_the_range(low: float, share: float) -> None:
    span = share * max(1.0, abs(low))  # ranges a float can tell apart from their bounds
    high = low + span
    ticks = nice_ticks(low, high)
    assert 2 <= len(ticks) <= 12
    assert all(low - span * 1e-6 <= tick <= high + span * 1e-6 for tick in ticks)
    step = ticks[1] - ticks[0]
    # Tick values are floats: far from zero, a small step carries their rounding error.
    slack = 1e-6 + 1e-12 * max(abs(low), abs(high)) / step
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(abs(mantissa - m) < slack for m in (1, 2, 2.5, 5, 10))
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert max(gaps) - min(gaps) <= step * slack
