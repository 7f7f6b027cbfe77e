"""``hilo generate`` prints what real PokerStars prints where our generator used to differ.

Each test reads the generated text itself (not only its parse), against the facts measured on
real hand histories in ``/work/shared/reference/real-site-evidence.md``:

- fixed limit: at most four bets a street (a bet and three raises, the big blind counting as
  the first preflop bet), heads-up too, and ``Betting is capped`` right after the fourth;
- a cash table never lists a sitting-out player in its ``Seat N:`` lines;
- hand numbers come from the seed: two archives of different seeds share no hand id and can be
  ingested into one dataset and audited there; the same seed gives the same bytes.
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest

from pipeline.audit import audit_tables
from pipeline.dataset import read_table
from pipeline.generate import generate
from pipeline.ingest import ingest

CAPPED = "Betting is capped"
CASH_SIZES = re.compile(r"\(\$([\d.]+)/\$([\d.]+) USD\)")
TOURNAMENT_SIZES = re.compile(r" - Level \w+ \((\d+)/(\d+)\) - ")
BET_LINE = re.compile(
    r"^(?P<player>.+?): (?:bets (?P<bet>\S+)|raises (?P<raise>\S+) to \S+)"
    r"(?P<all_in> and is all-in)?$"
)
FOLD_LINE = re.compile(r"^(?P<player>.+?): folds $")
SEAT_LINE = re.compile(r"^Seat (?P<seat>\d+): (?P<player>.+) \(\S+ in chips\)(?P<flags>.*)$")
STREETS = {"*** HOLE CARDS ***": 0, "*** FLOP ***": 1, "*** TURN ***": 2, "*** RIVER ***": 3}
HAND_ID = re.compile(r"^PokerStars Game #(\d+): ", re.MULTILINE)


def _amount(text: str) -> Decimal:
    return Decimal(text.lstrip("$"))


def _hands(path: Path) -> list[list[str]]:
    """The lines of each hand of a PokerStars file (CRLF line ends, a BOM on tournaments)."""
    text = path.read_bytes().decode("utf-8-sig")
    assert "\n" not in text.replace("\r\n", ""), f"{path.name}: a line end other than CRLF"
    hands: list[list[str]] = []
    for line in text.split("\r\n"):
        if line.startswith("PokerStars Game #"):
            hands.append([])
        if hands:
            hands[-1].append(line)
    return hands


@pytest.fixture(scope="module")
def fixed_limit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixed-limit archive, cash and tournaments, heads-up tables among them."""
    out = tmp_path_factory.mktemp("fixed-limit")
    generate(2500, 31, out, limit="FL", tournament_share=0.4, workers=1)
    return out


def test_betting_is_capped_exactly_after_the_fourth_bet(fixed_limit: Path) -> None:
    """Every street: no bet or raise after the fourth full bet (so never a fifth), heads-up
    included, and ``Betting is capped`` right after the fourth bet and nowhere else."""
    capped = heads_up_capped = cash_heads_up_capped = hands_seen = 0
    files = sorted((fixed_limit / "pokerstars").glob("*.txt"))
    assert files
    for path in files:
        data = path.read_bytes()
        # The line ends like every other line of the file.
        assert data.count(CAPPED.encode()) == data.count(CAPPED.encode() + b"\r\n")
        for lines in _hands(path):
            hands_seen += 1
            header = lines[0]
            sizes = CASH_SIZES.search(header) or TOURNAMENT_SIZES.search(header)
            assert sizes is not None, header
            small_bet, big_bet = (_amount(size) for size in sizes.groups())
            cash = "Tournament #" not in header
            seats = [SEAT_LINE.match(line) for line in lines]
            live = {seat["player"] for seat in seats if seat}
            street: int | None = None
            bets = 0
            expect_capped = False
            for number, line in enumerate(lines):
                if expect_capped:
                    assert line == CAPPED, (path.name, lines[0], number, line)
                    expect_capped = False
                    continue
                assert line != CAPPED, ("not after a fourth bet", path.name, lines[0], number)
                marker = next(
                    (street for text, street in STREETS.items() if line.startswith(text)), None
                )
                if marker is not None:
                    street, bets = marker, 1 if marker == 0 else 0
                    continue
                if line.startswith(("*** SHOW DOWN ***", "*** SUMMARY ***")):
                    street = None
                    continue
                if street is None:
                    continue
                folded = FOLD_LINE.match(line)
                if folded:
                    live.discard(folded["player"])
                    continue
                bet = BET_LINE.match(line)
                if bet is None:
                    continue
                assert bets < 4, ("a bet or raise after the cap", path.name, lines[0], line)
                amount = _amount(bet["bet"] or bet["raise"])
                size = small_bet if street <= 1 else big_bet
                if amount == size:
                    bets += 1
                else:
                    assert bet["all_in"] and amount < size, (path.name, line)
                if bets == 4:
                    expect_capped = True
                    capped += 1
                    if len(live) == 2:
                        heads_up_capped += 1
                        cash_heads_up_capped += cash
            assert not expect_capped, ("the hand ends after a fourth bet", path.name, lines[0])
    assert hands_seen == 2500
    assert capped > 50
    # The cap holds heads-up, in cash games too (where rule books would lift it).
    assert heads_up_capped >= cash_heads_up_capped > 0


def test_capped_archive_ingests_whole(fixed_limit: Path, tmp_path: Path) -> None:
    """The archive with its ``Betting is capped`` lines ingests without a reject."""
    summary = ingest([fixed_limit / "pokerstars"], tmp_path / "dataset", workers=1)
    assert summary.errors == []
    # Needs a PokerStars parser that knows ``Betting is capped`` (an informational line, or a
    # note): the parser committed before it quarantined every hand with a capped street.
    assert summary.rejected == 0 and summary.parsed == 2500, summary.line()


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mixed archive: cash and tournaments, players sitting out at the cash tables."""
    out = tmp_path_factory.mktemp("mixed")
    generate(2000, 5, out, limit="mix", tournament_share=0.3, workers=1)
    return out


def test_cash_seat_lines_never_list_a_player_sitting_out(mixed: Path) -> None:
    """No cash hand has a ``Seat N: … is sitting out`` line (0 of 36,978 real cash hands)
    although players do sit out there: the truth seats them, not dealt in, and the text shows
    neither their seat nor any line of theirs."""
    truth = pl.read_parquet(mixed / "truth" / "truth_players.parquet")
    hands = pl.read_parquet(mixed / "truth" / "truth_hands.parquet")
    cash_ids = set(hands.filter(pl.col("tournament_id").is_null())["hand_id"])
    away = truth.filter(~pl.col("dealt_in") & pl.col("hand_id").is_in(cash_ids))
    assert away.height > 20
    away_by_hand: dict[str, set[str]] = {}
    for hand_id, player in away.select("hand_id", "player").iter_rows():
        away_by_hand.setdefault(hand_id, set()).add(player)
    dealt = truth.filter("dealt_in")
    dealt_by_hand: dict[str, set[tuple[int, str]]] = {}
    for hand_id, seat, player in dealt.select("hand_id", "seat", "player").iter_rows():
        dealt_by_hand.setdefault(hand_id, set()).add((seat, player))
    cash_hands = 0
    for path in sorted((mixed / "pokerstars").glob("*.txt")):
        for lines in _hands(path):
            if "Tournament #" in lines[0]:
                continue
            cash_hands += 1
            hand_id = HAND_ID.match(lines[0])[1]  # type: ignore[index]
            end = lines.index("*** HOLE CARDS ***")
            seats = [seat for seat in map(SEAT_LINE.match, lines[:end]) if seat]
            assert seats, lines[0]
            assert not [seat[0] for seat in seats if "is sitting out" in seat["flags"]], lines[0]
            # The seat lines are exactly the players dealt in (seat and name).
            listed = {(int(seat["seat"]), seat["player"]) for seat in seats}
            assert listed == dealt_by_hand[hand_id], lines[0]
            # Nor does any other line before the hole cards name a player sitting out.
            for player in away_by_hand.get(hand_id, ()):
                prefixes = (player + ":", player + " ")
                named = [line for line in lines[:end] if line.startswith(prefixes)]
                assert not named, (hand_id, player, named)
    assert cash_hands == len(cash_ids)


def _digest(out: Path) -> dict[str, str]:
    return {
        str(path.relative_to(out)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(out.rglob("*"))
        if path.is_file()
    }


def _hand_ids(folder: Path) -> dict[str, list[int]]:
    """The hand ids of every file, in file order."""
    return {
        path.name: [int(found) for found in HAND_ID.findall(path.read_bytes().decode("utf-8-sig"))]
        for path in sorted(folder.glob("*.txt"))
    }


def test_hand_ids_come_from_the_seed(tmp_path: Path) -> None:
    """Seeds 1 and 2 share no hand id and ingest into one dataset without a duplicate or a
    reject, where the audit finds nothing (no table of one archive is taken for a table of the
    other by the button check); ids increase within a session, are distinct in an archive and
    fit PokerStars' plain decimal numbers (int64); the same seed twice gives the same bytes."""
    first = tmp_path / "seed1"
    second = tmp_path / "seed2"
    again = tmp_path / "seed1-again"
    for out, seed in ((first, 1), (second, 2), (again, 1)):
        generate(1000, seed, out, tournament_share=0.3, workers=1)
    assert _digest(first) == _digest(again)

    ids: list[set[int]] = []
    for out in (first, second):
        per_file = _hand_ids(out / "pokerstars")
        for name, numbers in per_file.items():
            assert numbers == sorted(set(numbers)), name
        every = [number for numbers in per_file.values() for number in numbers]
        assert len(every) == len(set(every)) == 1000
        assert all(0 < number < 2**63 for number in every)
        truth = pl.read_parquet(out / "truth" / "truth_hands.parquet")
        assert set(truth["hand_id"]) == {str(number) for number in every}
        ids.append(set(every))
    assert ids[0].isdisjoint(ids[1])

    dataset = tmp_path / "both"
    summary = ingest([first / "pokerstars", second / "pokerstars"], dataset, workers=1)
    assert summary.errors == []
    assert summary.duplicates == 0, summary.line()
    # Both archives hold fixed-limit hands with ``Betting is capped`` lines: these two need a
    # PokerStars parser that knows the line (the parser committed before quarantined them).
    assert summary.rejected == 0, summary.line()
    assert summary.parsed == 2000, summary.line()
    tables = {
        name: pl.from_arrow(read_table(dataset, name))
        for name in ("hands", "seats", "actions", "collections", "showdowns")
    }
    result = audit_tables(**tables, rake_schedule="generated")  # type: ignore[arg-type]
    assert result.discrepancies.height == 0, result.discrepancies.head()
