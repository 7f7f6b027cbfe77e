"""``hilo generate --rake-schedule FILE``: hands raked by a schedule file, audited by the same file.

A small schedule is written here (4.5 % rounded down, capped at $0.50, from every pot in
proportion for two or three players; one cent per full 20 cents, capped at $2, for four or
more). Archives raked by it are ingested with `pipeline.ingest.ingest` and audited with
``audit_tables(..., rake_schedule=FILE)``: a clean archive gives no finding and every printed rake
is the schedule's; with rake faults injected (``--fault-kinds``), the hands with a ``rake``
finding are exactly the faulted ones (precision and recall 1.0) and nothing else is found.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipeline.audit import AuditResult, audit_tables
from pipeline.cli import app
from pipeline.dataset import read_table
from pipeline.generate import generate, plan_jobs
from pipeline.generate.faults import RAKE_FAULTS
from pipeline.generate.showdown import Pot, build_pots, take_rake
from pipeline.generate.sites import SITES
from pipeline.ingest import ingest
from pipeline.payouts import PotTable, rake_by_pot
from pipeline.rake_schedules import load_schedule

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")
HANDS = 2000
RAKE_KINDS = ",".join(RAKE_FAULTS)  # rake_over_cap, rake_no_flop, rake_under_schedule

SCHEDULE = """\
[[rule]]
game = "cash"
players = [2, 3]
percent = "4.5"
rounding = "down"
cap = "0.50"
from = "each-pot"

[[rule]]
game = "cash"
players = [4, 10]
increment = "0.01"
per = "0.20"
cap = "2.00"
"""

# From the main pot first, the second rule without a cap and raking hands without a flop too:
# rake_over_cap is then "more than the schedule's amount", and rake_no_flop never fits there.
MAIN_FIRST_UNCAPPED = """\
[[rule]]
game = "cash"
players = [2, 3]
percent = "4.5"
rounding = "down"
cap = "0.50"

[[rule]]
game = "cash"
players = [4, 10]
increment = "0.01"
per = "0.20"
no_flop_no_drop = false
"""


@dataclass
class RoundTrip:
    site: str
    out: Path
    schedule: Path
    tables: dict[str, pl.DataFrame]
    result: AuditResult

    def truth(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.out / "truth" / f"{name}.parquet")

    @property
    def findings(self) -> pl.DataFrame:
        return self.result.discrepancies


def write_schedule(folder: Path, text: str, name: str = "rooms.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def round_trip(
    folder: Path,
    site: str,
    schedule: Path,
    *,
    hands: int = HANDS,
    seed: int = 17,
    fault_rate: float = 0.0,
    fault_kinds: str | None = None,
) -> RoundTrip:
    out = folder / site
    generate(
        hands,
        seed,
        out,
        site=site,
        tournament_share=0.0,
        fault_rate=fault_rate,
        workers=1,
        rake_schedule=schedule,
        fault_kinds=None if fault_kinds is None else fault_kinds.split(","),
    )
    dataset = out / "dataset"
    summary = ingest([out / site], dataset, workers=1)
    assert (summary.rejected, summary.skipped, summary.parsed) == (0, 0, hands), summary.line()
    tables = {name: pl.from_arrow(read_table(dataset, name)) for name in TABLES}
    result = audit_tables(**tables, rake_schedule=str(schedule))  # type: ignore[arg-type]
    return RoundTrip(site, out, schedule, tables, result)  # type: ignore[arg-type]


def scheduled(trip: RoundTrip) -> pl.DataFrame:
    """Per parsed hand: the schedule's rule and rake, the rule looked up from the parsed facts
    (site, limit, currency, big blind, UTC day, players dealt), the rake on the truth's pot (the
    chips put in after uncalled bets went back: PartyPoker prints no total)."""
    schedule = load_schedule(trip.schedule)
    pots = trip.truth("truth_hands").select("hand_id", pot="total_pot")
    rows = []
    for hand in trip.tables["hands"].join(pots, on="hand_id").iter_rows(named=True):
        scale = hand["money_scale"]
        rule = schedule.rule_for(
            hand["site"],
            hand["tournament_id"] is not None,
            hand["limit_type"],
            hand["currency"],
            Decimal(hand["big_blind"]) / scale,
            hand["started_at"].date(),
            hand["players_dealt"],
        )
        saw_flop = len(hand["board"]) > 0
        rake = 0 if rule is None else rule.rake(hand["pot"], scale, saw_flop)
        rows.append((hand["hand_id"], None if rule is None else rule.number, rake))
    return pl.DataFrame(
        rows, schema={"hand_id": pl.String, "rule": pl.Int64, "scheduled": pl.Int64}, orient="row"
    )


def check_precision_and_recall(trip: RoundTrip) -> pl.DataFrame:
    """Hands with a ``rake`` finding = hands with an injected rake fault, and nothing else."""
    faults = trip.truth("truth_faults")
    assert faults.height > 0
    assert set(faults["kind"]) <= set(RAKE_FAULTS)
    flagged = set(trip.findings.filter(pl.col("kind") == "rake")["hand_id"])
    faulted = set(faults["hand_id"])
    assert flagged == faulted, (sorted(flagged - faulted)[:5], sorted(faulted - flagged)[:5])
    others = trip.findings.filter(pl.col("kind") != "rake")
    assert others.height == 0, others.head()
    return faults


# -- the rake taken from each pot ----------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=50_000), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=60_000),
)
def test_take_rake_takes_from_the_pots_as_the_audit_does(amounts: list[int], rake: int) -> None:
    """`take_rake` (the generator) = `pipeline.payouts.rake_by_pot` (the audit), main pot first
    and each pot in proportion, a rake larger than the main pot or all the pots included."""
    pots = [Pot(amount, (0, 1)) for amount in amounts]
    table = PotTable(
        np.zeros(len(amounts), dtype=np.int64),
        np.arange(len(amounts), dtype=np.int64),
        np.array(amounts, dtype=np.int64),
        np.arange(0, 2 * len(amounts) + 1, 2, dtype=np.int64),
        np.zeros(2 * len(amounts), dtype=np.int64),
    )
    for each_pot in (False, True):
        audit = rake_by_pot(table, np.array([rake]), np.array([each_pot]))
        generated = take_rake(pots, rake, each_pot)
        assert [amount - left for amount, left in zip(amounts, generated)] == audit.tolist()


# -- a clean archive -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> RoundTrip:
    folder = tmp_path_factory.mktemp("clean")
    return round_trip(folder, "pokerstars", write_schedule(folder, SCHEDULE))


def test_clean_archive_has_no_finding_and_every_rake_is_the_schedules(clean: RoundTrip) -> None:
    assert clean.findings.height == 0, clean.findings.head()
    hands = clean.tables["hands"].join(scheduled(clean), on="hand_id")
    assert hands.height == HANDS
    pots = clean.truth("truth_hands").select("hand_id", pot="total_pot")
    assert hands.join(pots, on="hand_id").filter(pl.col("total_pot") != pl.col("pot")).is_empty()
    wrong = hands.filter(pl.col("rake") != pl.col("scheduled"))
    assert wrong.height == 0, wrong.select("hand_id", "rake", "scheduled").head()
    # The ground truth follows the schedule too.
    truth = clean.truth("truth_hands").join(hands.select("hand_id", "scheduled"), on="hand_id")
    assert truth.height == HANDS
    assert truth.filter(
        (pl.col("rake") != pl.col("scheduled")) | (pl.col("recorded_rake") != pl.col("rake"))
    ).is_empty()
    # Both rules were used, capped and not, with and without a flop.
    rules = hands.group_by("rule").agg(
        hands=pl.len(),
        capped=(pl.col("rake") == pl.when(pl.col("rule") == 1).then(50).otherwise(200)).sum(),
        raked=(pl.col("rake") > 0).sum(),
    )
    by_rule = {row["rule"]: row for row in rules.iter_rows(named=True)}
    assert set(by_rule) == {1, 2}
    for row in by_rule.values():
        assert row["hands"] > 100 and row["raked"] > 50 and row["capped"] > 0, row
    assert hands.filter((pl.col("board").list.len() == 0) & (pl.col("rake") > 0)).is_empty()


def test_each_pot_rule_takes_the_rake_from_every_pot(clean: RoundTrip) -> None:
    """Under the each-pot rule, side pots give their share of the rake: the printed ``Main pot
    x. Side pot-1 y.`` (after rake) are the pots built from the parsed contributions less their
    share (`take_rake`, equal to the audit's `rake_by_pot` above), and what the truth pays from
    each pot."""
    hands = clean.tables["hands"].join(scheduled(clean), on="hand_id")
    split = hands.filter((pl.col("rule") == 1) & (pl.col("side_pots").list.len() > 1))
    assert split.height >= 3, split.height
    actions = clean.tables["actions"].filter(pl.col("hand_id").is_in(split["hand_id"].implode()))
    contributions = actions.group_by("hand_id", "player").agg(
        put_in=pl.col("amount").filter(pl.col("kind").is_in(MONEY_IN)).sum()
        - pl.col("amount").filter(pl.col("kind") == "uncalled_return").sum(),
        folded=(pl.col("kind") == "fold").any(),
    )
    by_hand = {
        key[0]: frame for key, frame in contributions.partition_by("hand_id", as_dict=True).items()
    }
    paid = (
        clean.truth("truth_payouts")
        .group_by("hand_id", "pot_index")
        .agg(pl.col("amount").sum())
        .sort("pot_index")
        .group_by("hand_id")
        .agg(paid=pl.col("amount"))
    )
    paid_by_hand = dict(paid.iter_rows())
    side_pots_raked = 0
    for row in split.iter_rows(named=True):
        frame = by_hand[row["hand_id"]]
        pots = build_pots(frame["put_in"].to_list(), frame["folded"].to_list())
        expected = take_rake(pots, row["rake"], each_pot=True)
        assert row["side_pots"] == expected == paid_by_hand[row["hand_id"]], row["hand_id"]
        side_pots_raked += any(pot.amount > left for pot, left in zip(pots[1:], expected[1:]))
    assert side_pots_raked >= 3, side_pots_raked


# -- rake faults ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def faulted(tmp_path_factory: pytest.TempPathFactory) -> RoundTrip:
    folder = tmp_path_factory.mktemp("faulted")
    return round_trip(
        folder,
        "pokerstars",
        write_schedule(folder, SCHEDULE),
        seed=18,
        fault_rate=0.1,
        fault_kinds=RAKE_KINDS,
    )


def test_every_rake_fault_is_found_and_nothing_else(faulted: RoundTrip) -> None:
    faults = check_precision_and_recall(faulted)
    assert set(faults["kind"]) == set(RAKE_FAULTS)
    truth = faulted.truth("truth_hands").join(scheduled(faulted), on="hand_id")
    # The truth's rake is the schedule's, faulted or not; the text records the fault's.
    assert truth.filter(pl.col("rake") != pl.col("scheduled")).is_empty()
    clean = truth.filter(pl.col("fault").is_null())
    assert clean.filter(pl.col("recorded_rake") != pl.col("rake")).is_empty()
    kinds = truth.filter(pl.col("fault").is_not_null())
    assert kinds.filter(pl.col("rule").is_null()).is_empty()  # only where a rule applies
    under = kinds.filter(pl.col("fault") == "rake_under_schedule")
    tenth = pl.max_horizontal(pl.lit(1), pl.col("rake") // 10)  # at least one unit
    assert under.filter(pl.col("recorded_rake") != pl.col("rake") - tenth).is_empty()
    assert under.filter(~pl.col("saw_flop")).is_empty()
    over = kinds.filter(pl.col("fault") == "rake_over_cap")
    cap = pl.when(pl.col("rule") == 1).then(50).otherwise(200)
    assert over.filter(pl.col("recorded_rake") != cap + cap // 10).is_empty()
    no_flop = kinds.filter(pl.col("fault") == "rake_no_flop")
    assert no_flop.filter(pl.col("saw_flop") | (pl.col("recorded_rake") <= 0)).is_empty()
    # The audit's expected amount is the schedule's.
    found = faulted.findings.join(truth.select("hand_id", "rake", "recorded_rake"), on="hand_id")
    assert found.filter(
        (pl.col("expected") != pl.col("rake")) | (pl.col("recorded") != pl.col("recorded_rake"))
    ).is_empty()


@pytest.mark.parametrize("site", list(SITES))
def test_rake_faults_at_every_site(tmp_path: Path, site: str) -> None:
    """Every site's text, raked from the main pot first by a rule without a cap that rakes
    hands without a flop too: precision and recall 1.0, over- and under-charges included (at
    PartyPoker, which prints no rake, through the inferred rake)."""
    trip = round_trip(
        tmp_path,
        site,
        write_schedule(tmp_path, MAIN_FIRST_UNCAPPED),
        hands=1200,
        seed=19,
        fault_rate=0.1,
        fault_kinds=RAKE_KINDS,
    )
    faults = check_precision_and_recall(trip)
    assert {"rake_over_cap", "rake_under_schedule"} <= set(faults["kind"])
    truth = trip.truth("truth_hands").join(scheduled(trip), on="hand_id")
    over = truth.filter(pl.col("fault") == "rake_over_cap")
    uncapped = over.filter(pl.col("rule") == 2)
    assert uncapped.height > 0
    # Without a cap: the schedule's amount and a tenth of it, at least one unit.
    excess = pl.max_horizontal(pl.lit(1), pl.col("rake") // 10)
    assert uncapped.filter(pl.col("recorded_rake") != pl.col("rake") + excess).is_empty()
    # No flop, no drop is off for rule 2: no rake_no_flop fault there, and those hands are raked.
    no_flop = truth.filter(pl.col("fault") == "rake_no_flop")
    assert no_flop.filter(pl.col("rule") != 1).is_empty()
    preflop = truth.filter((pl.col("rule") == 2) & ~pl.col("saw_flop"))
    assert preflop.filter(pl.col("rake") > 0).height > 0


@pytest.mark.parametrize("site", ["ggpoker", "fulltilt"])
def test_each_pot_clean_archive_at_other_sites(tmp_path: Path, site: str) -> None:
    trip = round_trip(tmp_path, site, write_schedule(tmp_path, SCHEDULE), hands=1200, seed=20)
    assert trip.findings.height == 0, trip.findings.head()
    truth = trip.truth("truth_hands")
    assert truth.filter(pl.col("recorded_rake") != pl.col("rake")).is_empty()


@pytest.mark.parametrize("site", ["partypoker", "winamax"])
def test_each_pot_clean_archive_where_uncalled_bets_are_paid_as_pots(
    tmp_path: Path, site: str
) -> None:
    """These sites pay an unmatched top back as a won pot; the audit keeps it as a pot of one
    player's chips, which gives no share of an each-pot rake (nobody called those chips)."""
    trip = round_trip(tmp_path, site, write_schedule(tmp_path, SCHEDULE), hands=2000, seed=17)
    assert trip.findings.height == 0, trip.findings.head()


def test_no_rule_no_rake_and_no_rake_fault(tmp_path: Path) -> None:
    """A schedule with no rule for the site written: no hand is raked and, with only rake
    faults asked for, none is injected; the audit finds nothing."""
    schedule = write_schedule(tmp_path, '[[rule]]\nsite = "ggpoker"\npercent = "5"\n')
    trip = round_trip(
        tmp_path, "pokerstars", schedule, hands=400, fault_rate=0.2, fault_kinds=RAKE_KINDS
    )
    truth = trip.truth("truth_hands")
    assert truth["rake"].max() == 0 and truth["recorded_rake"].max() == 0
    assert trip.truth("truth_faults").height == 0
    assert trip.findings.height == 0, trip.findings.head()


def _evening_start(hands: int) -> tuple[int, dt.date]:
    """A seed whose archive has a table opening in the evening (Eastern time: already the next
    day in UTC) of a day after another table's start, and that day."""
    for seed in range(1000):
        jobs = plan_jobs(hands, seed, "mix", 0.0, 0.0, "pokerstars")
        for job in jobs:
            day = job.started_at.date()
            earlier = any(other.started_at.date() < day for other in jobs)
            if 20 <= job.started_at.hour < 23 and earlier:
                return seed, day
    raise AssertionError("no seed opens a table in the evening")


def test_rule_by_utc_day(tmp_path: Path) -> None:
    """A rule with ``until`` applies through the hand's UTC day, as the parser dates the hand:
    a hand played in the evening (Eastern time) of that day is already the next day's."""
    seed, last_day = _evening_start(1200)
    dated = (
        f'[[rule]]\ngame = "cash"\nuntil = {last_day.isoformat()}\npercent = "10"\n'
        f'rounding = "up"\ncap = "3.00"\n\n{SCHEDULE}'
    )
    schedule = write_schedule(tmp_path, dated)
    trip = round_trip(tmp_path, "pokerstars", schedule, hands=1200, seed=seed)
    assert trip.findings.height == 0, trip.findings.head()
    hands = trip.tables["hands"].join(scheduled(trip), on="hand_id")
    assert hands.filter(pl.col("rake") != pl.col("scheduled")).is_empty()
    day = pl.col("started_at").dt.date()
    assert set(hands.filter(day <= last_day)["rule"]) == {1}
    assert set(hands.filter(day > last_day)["rule"]) <= {2, 3}
    # The evening of ``last_day`` in Eastern time: after it in UTC, raked by rules 2 and 3.
    next_day = last_day + dt.timedelta(days=1)
    evening = hands.filter((day == next_day) & (pl.col("started_at").dt.hour() < 4))
    assert evening.height > 0 and set(evening["rule"]) <= {2, 3}
    assert hands.filter((pl.col("rule") == 1) & (pl.col("rake") > 0)).height > 0


# -- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("second_rule", "message"),
    [
        ('percent = 5.5', "rule 2: percent must be an exact decimal"),
        ('percent = "5"\ncap = "0.005"', "rule 2: 0.005 is not a whole number of minor units"),
        ('percent = "5"\nrounding = "nearest"', "rule 2: rounding must be one of"),
    ],
)
def test_invalid_schedule_exits_2_naming_the_file_and_rule(
    tmp_path: Path, second_rule: str, message: str
) -> None:
    text = f'[[rule]]\ngame = "cash"\npercent = "5"\n\n[[rule]]\ngame = "cash"\n{second_rule}\n'
    schedule = write_schedule(tmp_path, text)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["generate", "--hands", "50", "--out", str(out), "--rake-schedule", str(schedule)]
    )
    assert result.exit_code == 2, result.output
    assert str(schedule.resolve()) in result.stderr and message in result.stderr, result.stderr
    assert not out.exists()


def test_missing_schedule_and_unknown_fault_kinds_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    missing = tmp_path / "nowhere.toml"
    result = CliRunner().invoke(
        app, ["generate", "-n", "50", "--out", str(out), "--rake-schedule", str(missing)]
    )
    assert result.exit_code == 2 and str(missing) in result.stderr, result.stderr
    result = CliRunner().invoke(
        app, ["generate", "-n", "50", "--out", str(out), "--fault-kinds", "rake_too_high"]
    )
    assert result.exit_code == 2 and "unknown fault kind(s) rake_too_high" in result.stderr
    result = CliRunner().invoke(
        app,
        ["generate", "-n", "50", "--out", str(out), "--site", "ggpoker",
         "--fault-kinds", "description_mismatch"],
    )  # fmt: skip
    assert result.exit_code == 2 and "cannot show" in result.stderr, result.stderr
    assert not out.exists()


def test_cli_generates_with_a_schedule_and_fault_kinds(tmp_path: Path) -> None:
    schedule = write_schedule(tmp_path, SCHEDULE)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["generate", "-n", "300", "--out", str(out), "--seed", "3", "--tournament-share", "0",
         "--fault-rate", "0.1", "--rake-schedule", str(schedule), "--fault-kinds",
         "rake_under_schedule"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    faults = pl.read_parquet(out / "truth" / "truth_faults.parquet")
    assert faults.height > 0 and set(faults["kind"]) == {"rake_under_schedule"}


def test_default_schedule_is_the_shipped_generated_file(tmp_path: Path) -> None:
    """No ``--rake-schedule``, ``generated`` and the shipped file's path give the same bytes."""
    from importlib import resources

    shipped = Path(str(resources.files("pipeline").joinpath("rake", "generated.toml")))
    digests = []
    for name, schedule in (("default", None), ("named", "generated"), ("file", shipped)):
        out = tmp_path / name
        kwargs = {} if schedule is None else {"rake_schedule": schedule}
        generate(300, 5, out, fault_rate=0.05, workers=1, **kwargs)  # type: ignore[arg-type]
        digests.append(
            {
                path.relative_to(out): path.read_bytes()
                for path in sorted(out.rglob("*"))
                if path.is_file()
            }
        )
    assert digests[0] == digests[1] == digests[2]


# -- the measurement: 20,000 hands ---------------------------------------------------------------


@pytest.mark.slow
def test_twenty_thousand_hands_with_over_and_under_charges(tmp_path: Path) -> None:
    """20,000 PokerStars cash hands (limit mix) raked by the schedule, over- and
    under-charges injected: precision and recall of the ``rake`` findings are 1.0."""
    schedule = write_schedule(tmp_path, SCHEDULE)
    started = time.perf_counter()
    out = tmp_path / "pokerstars"
    generate(
        20_000,
        2017,
        out,
        site="pokerstars",
        limit="mix",
        tournament_share=0.0,
        fault_rate=0.05,
        workers=2,
        rake_schedule=schedule,
        fault_kinds=["rake_over_cap", "rake_under_schedule"],
    )
    generated = time.perf_counter()
    summary = ingest([out / "pokerstars"], out / "dataset", workers=2)
    assert (summary.rejected, summary.parsed) == (0, 20_000), summary.line()
    tables = {name: pl.from_arrow(read_table(out / "dataset", name)) for name in TABLES}
    ingested = time.perf_counter()
    result = audit_tables(**tables, rake_schedule=str(schedule))  # type: ignore[arg-type]
    audited = time.perf_counter()
    trip = RoundTrip("pokerstars", out, schedule, tables, result)
    faults = check_precision_and_recall(trip)
    flagged = set(result.discrepancies.filter(pl.col("kind") == "rake")["hand_id"])
    true_positives = len(flagged & set(faults["hand_id"]))
    print(
        f"\ninjected {faults.height} rake faults"
        f" ({faults.group_by('kind').len().sort('kind').rows()}), rake findings {len(flagged)},"
        f" true positives {true_positives}: precision {true_positives / len(flagged):.3f},"
        f" recall {true_positives / faults.height:.3f}; generate {generated - started:.1f} s,"
        f" ingest {ingested - generated:.1f} s, audit {audited - ingested:.1f} s"
    )


RUNNING_TOTAL = """\
[[rule]]
game = "cash"
percent = "5.5"
rounding = "half-even"
cap = "0.75"
from = "running-total"
"""


def test_running_total_clean_archive(tmp_path: Path) -> None:
    """A schedule that rakes pot by pot on the running total (PokerStars' way): the printed net
    pots are the gross pots less the running total's shares, and the audit of the archive by
    the same schedule finds nothing; audited as if the rake came from the main pot first, the
    hands whose shares differ are payout findings."""
    trip = round_trip(tmp_path, "pokerstars", write_schedule(tmp_path, RUNNING_TOTAL), seed=23)
    assert trip.findings.height == 0, trip.findings.head()
    hands = trip.tables["hands"]
    split = hands.filter((pl.col("side_pots").list.len() > 1) & (pl.col("rake") > 0))
    assert split.height >= 20, split.height
    # Some of them have a side pot that gives rake, which the main pot first would not take.
    main_first = write_schedule(
        tmp_path, RUNNING_TOTAL.replace('from = "running-total"', 'from = "main-first"'), "mf.toml"
    )
    again = audit_tables(**trip.tables, rake_schedule=str(main_first))  # type: ignore[arg-type]
    differ = set(again.discrepancies["hand_id"])
    assert differ and differ <= set(split["hand_id"])
    assert set(again.discrepancies["severity"]) == {"money"}


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 50_000), st.booleans()), min_size=1, max_size=6),
    st.integers(min_value=0, max_value=60_000),
    st.integers(min_value=1, max_value=100),
)
def test_running_total_rake_conserves_money(
    pots: list[tuple[int, bool]], rake: int, per_mille: int
) -> None:
    """Shares of the running total: none negative, none above its pot, nothing from a pot of
    one player's chips, and together exactly the hand's rake; or None, never a wrong split."""
    from pipeline.payouts import running_total_rake

    amounts = [amount for amount, _ in pots]
    held = [contested for _, contested in pots]
    taken = running_total_rake(amounts, held, rake, lambda pot: pot * per_mille // 1000)
    if taken is None:
        return
    assert sum(taken) == rake
    assert all(0 <= part <= amount for part, amount in zip(taken, amounts, strict=True))
    assert all(part == 0 for part, contested in zip(taken, held, strict=True) if not contested)
