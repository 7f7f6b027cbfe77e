"""The stage clock of ``bench ingest_stages``: exclusive times that add up to the whole."""

from __future__ import annotations

import pytest

from bench import bench_ingest_stages
from bench.bench_ingest_stages import StageClock


class _Steps:
    """Functions that advance a fake clock: ``outer`` spends 1 s itself around ``inner``'s 5."""

    def __init__(self, now: list[float]) -> None:
        self.now = now

    def inner(self) -> str:
        self.now[0] += 5.0
        return "inner"

    def outer(self) -> str:
        self.now[0] += 1.0
        return self.inner() + " in outer"


def test_a_stage_inside_another_counts_for_the_inner_one_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    monkeypatch.setattr(bench_ingest_stages.time, "perf_counter", lambda: now[0])
    steps = _Steps(now)
    clock = StageClock()
    restores = [clock.wrap(steps, "inner", "inner stage"), clock.wrap(steps, "outer", "outer")]
    assert steps.outer() == "inner in outer"
    assert steps.inner() == "inner"
    assert clock.seconds == {"inner stage": 10.0, "outer": 1.0}
    assert clock.calls == {"inner stage": 2, "outer": 1}
    for restore in restores:
        restore()
    steps.outer()
    assert clock.calls == {"inner stage": 2, "outer": 1}  # unwrapped: no longer timed


class _Base:
    def step(self) -> int:
        return 1


class _Child(_Base):
    pass


def test_a_wrapped_inherited_method_is_the_base_s_again_once_restored() -> None:
    clock = StageClock()
    restore = clock.wrap(_Child, "step", "step")
    assert _Child().step() == 1
    restore()
    assert "step" not in vars(_Child)
    assert _Child.step is _Base.step
    assert clock.calls == {"step": 1}
