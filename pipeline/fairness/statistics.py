"""The distributions the deal tests need: chi-square and normal tail probabilities, and Holm's
adjustment for a family of tests. Written out (no SciPy in the stack); the tests check them
against known values and by simulation."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["chi_square_survival", "holm", "normal_two_sided"]

_EPSILON = 1e-15
_ITERATIONS = 10_000


def _lower_series(a: float, x: float) -> float:
    """P(a, x), the regularised lower incomplete gamma function, by its series (x < a + 1)."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x), the regularised upper incomplete gamma function, by Lentz's continued
    fraction (x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_survival(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X ~ chi-square with ``degrees`` degrees of freedom.

    >>> round(chi_square_survival(3.841458820694124, 1), 6)
    0.05
    >>> round(chi_square_survival(68.66929, 51), 6)  # the 95th percentile of 51 degrees
    0.05
    """
    if degrees < 1:
        raise ValueError("a chi-square test needs at least one degree of freedom")
    if statistic <= 0.0:
        return 1.0
    a, x = degrees / 2.0, statistic / 2.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z.

    >>> round(normal_two_sided(1.959963984540054), 6)
    0.05
    """
    return math.erfc(abs(z) / math.sqrt(2.0))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: a p-value per test such that flagging the tests whose
    adjusted value is at most alpha keeps the chance of any false alarm in the family at most
    alpha, whatever the dependence between the tests.

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    count = len(p_values)
    order = sorted(range(count), key=lambda index: p_values[index])
    adjusted = [0.0] * count
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (count - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
