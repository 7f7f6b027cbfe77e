"""The fact parts' account filters (pipeline.account_filter): never a false "not here"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.account_filter import account_filter, may_hold

names = st.text(min_size=1, max_size=30)


@given(st.sets(names, min_size=1, max_size=300), st.sets(names, max_size=5))
def test_every_account_put_in_is_found(accounts: set[str], others: set[str]) -> None:
    bits = account_filter(accounts)
    assert all(may_hold(bits, [name]) for name in accounts)
    assert may_hold(bits, [*others, next(iter(accounts))])


def test_no_accounts_hold_nothing_and_no_filter_holds_everything() -> None:
    assert not may_hold(account_filter([]), ["anyone"])
    assert may_hold(None, ["anyone"])
    assert not may_hold(account_filter(["someone"]), [])


def test_other_accounts_are_mostly_told_apart() -> None:
    accounts = [f"player{number}" for number in range(5_000)]
    bits = account_filter(accounts)
    assert len(bits) == 5_000  # 8 bits an account
    strangers = [f"stranger{number}" for number in range(10_000)]
    false_maybes = sum(may_hold(bits, [name]) for name in strangers)
    assert false_maybes < 0.06 * len(strangers)  # about 3 % expected at 8 bits and 3 probes
