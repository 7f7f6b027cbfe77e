"""KingsClub parser: corpus conformance, golden hands, chip balance, the audit, damaged input.

Golden values were read off the hand text by hand (amounts in cents), not produced by the
parser.
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.kingsclub import GAME_NAMES, KingsClubParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import (
    cards,
    frames,
    games_read,
    manifest_rows,
    parsed_games,
    variant_counts,
)
from tests.shared_data import CORPUS, needs_corpus

PLO8 = "KingsClub/cash/PLO8-USD-5-10-202101.txt"
LO8 = "KingsClub/cash/LO8-USD-40-80-202101.txt"
RIO = "KingsClub/cash/LO8-USD-500-100-202104.RIO.txt"
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


def parse_bytes(data: bytes, source: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    parser = KingsClubParser()
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list()))
    return parser.parse(decoded.lines, decoded.offsets, source)


def parse_file(relative: str) -> ParseResult:
    return parse_bytes((CORPUS / relative).read_bytes(), str(CORPUS / relative))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "KingsClub"]


def corpus_tables() -> dict[str, pl.DataFrame]:
    parsed = [frames(parse_file(row["path"])) for row in manifest()]
    return {name: pl.concat([tables[name] for tables in parsed]) for name in parsed[0]}


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    """O8 hands parse, and "Pot Limit Big O" ones (O8-5card in the MANIFEST) as Big O."""
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    read = games_read(row["variants"], GAME_NAMES.values())
    assert parsed_games(result) == read
    assert result.parsed == sum(read.values())
    assert result.skipped == sum(counts.values()) - sum(read.values())
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_corpus_chips_balance() -> None:
    """Σ put in = Σ collected + rake, except in the all-in preflop hand #3969308 where the
    500 the big blind did not need came back silently ("Seat 1: Hero (32,500)", no net)."""
    tables = corpus_tables()
    put = (
        tables["actions"]
        .filter(pl.col("kind").is_in(MONEY_IN))
        .group_by("hand_id")
        .agg(put=pl.col("amount").sum())
    )
    collected = tables["collections"].group_by("hand_id").agg(collected=pl.col("amount").sum())
    joined = (
        tables["hands"]
        .select("hand_id", "rake")
        .join(put, on="hand_id")
        .join(collected, on="hand_id")
        .with_columns(missing=pl.col("put") - pl.col("collected") - pl.col("rake").fill_null(0))
    )
    assert dict(joined.select("hand_id", "missing").iter_rows()) == {
        "39969304": 0,
        "39969218": 0,
        "3969308": 50000,
        "37580598": 0,  # Big O
        "37580510": 0,  # Big O, antes, run twice
    }


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_pot_limit_calls_as_totals() -> None:
    """#39969304: ``Hero raises to 30``, ``Player0 raises to 90``, ``Hero calls 90``."""
    tables = frames(parse_file(PLO8))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"], hand["game"], hand["limit_type"]) == (
        "39969304",
        "8 Game Mix",
        "O8",
        "PL",
    )
    assert (hand["currency"], hand["money_scale"]) == ("USD", 100)
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"]) == (500, 1000, None)
    assert (hand["button_seat"], hand["players_dealt"]) == (6, 2)
    assert hand["started_at"] == datetime(2021, 1, 2, 15, 45, 10, tzinfo=UTC)
    assert hand["board"] == cards("Ks 4c Kc Qc 2d")
    assert (hand["total_pot"], hand["rake"]) == (None, 100)
    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "position", "stack_start", "is_hero").rows() == [
        (1, "Player0", "BB", 100000, False),
        (6, "Hero", "SB", 100000, True),
    ]
    assert seats["hole_cards"].to_list() == [cards("Qs Ac Th 2s"), cards("6h 3s 8h 5h")]
    preflop = tables["actions"].filter(pl.col("street") == 0).sort("seq")
    assert preflop.select("player", "kind", "amount", "to_amount").rows() == [
        ("Hero", "post_sb", 500, 500),
        ("Player0", "post_bb", 1000, 1000),
        ("Hero", "raise", 2500, 3000),
        ("Player0", "raise", 8000, 9000),
        ("Hero", "call", 6000, 9000),  # "Hero calls 90": the total, 60 added
    ]
    assert tables["actions"].filter(pl.col("street") > 0)["kind"].to_list() == (
        ["check"] * 6 + ["show", "show"]
    )
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player0", 17900, None, None)
    ]
    assert tables["showdowns"].select("player", "high_desc").rows() == [
        ("Player0", None),
        ("Hero", None),
    ]


@needs_corpus
def test_golden_fixed_limit_and_thousands() -> None:
    """#39969218 (40/80 split pot) and #3969308 (``500/1,000``, an all-in call preflop)."""
    split = frames(parse_file(LO8))
    hand = split["hands"].row(0, named=True)
    assert (hand["limit_type"], hand["small_bet"], hand["big_bet"]) == ("FL", 4000, 8000)
    assert (hand["small_blind"], hand["big_blind"], hand["rake"]) == (2000, 4000, 100)
    flop = split["actions"].filter(pl.col("street") == 1).sort("seq")
    assert flop.select("player", "kind", "amount", "to_amount").rows() == [
        ("Player0", "check", None, 0),
        ("Hero", "bet", 4000, 4000),
        ("Player0", "call", 4000, 4000),
    ]
    assert split["collections"].select("player", "amount").rows() == [
        ("Player0", 27950),
        ("Hero", 27950),
    ]

    rio = frames(parse_file(RIO))
    hand = rio["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["table_name"]) == ("3969308", "Bobbys Room Omaha 2")
    assert (hand["small_bet"], hand["big_bet"], hand["small_blind"], hand["big_blind"]) == (
        50000,
        100000,
        25000,
        50000,
    )
    # Only "*** RIVER *** [2s Th 6h 7c] [5s]" is printed, and no rake line.
    assert (hand["board"], hand["rake"]) == (cards("2s Th 6h 7c 5s"), None)
    assert rio["seats"].sort("seat").select("player", "stack_start").rows() == [
        ("Hero", 3250000),
        ("Player0", 12500),
        ("Player1", 5125000),
    ]
    assert rio["actions"].filter(pl.col("kind") == "call").select(
        "player", "amount", "to_amount", "is_all_in"
    ).rows() == [("Player0", 12500, 12500, True)]
    assert rio["collections"].select("player", "amount").rows() == [("Player0", 37500)]


# -- the audit ---------------------------------------------------------------------------------


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads the site's profile (rake printed, uncalled bets printed, payout lines)
    from the parser registry: register the parser for the test if it is not yet."""
    if not any(parser.site == "kingsclub" for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, KingsClubParser()))


@needs_corpus
def test_audit_finds_no_wrong_payment(registered: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """No money finding. In #3969308 Player1 folds its 250 small blind to Player0's 125 all-in
    call; Hero's 500 big blind takes the 250 side pot (125 matched + 125 dead), the only player
    left in it, and gets its uncalled 250 back. KingsClub prints neither ("Seat 1: Hero
    (32,500)": no net, Hero is whole; only "Player0 wins pot (375)"): it gives such a pot back
    as it gives back an uncalled bet (profile: ``sole_pots_printed`` false). Read as a site
    that prints such pots, the hand would be a missing payment."""
    tables = corpus_tables()

    def money_findings() -> list[tuple[object, ...]]:
        return (
            audit_tables(
                tables["hands"],
                tables["seats"],
                tables["actions"],
                tables["collections"],
                tables["showdowns"],
            )
            .discrepancies.filter(pl.col("severity") == "money")
            .select("hand_id", "player", "kind", "expected", "recorded")
            .rows()
        )

    assert money_findings() == []
    import dataclasses

    printed = dataclasses.replace(KingsClubParser.profile, sole_pots_printed=True)
    monkeypatch.setattr(KingsClubParser, "profile", printed)
    assert ("3969308", "Hero", "missing_winner", 25000, 0) in money_findings()


# -- damaged input -----------------------------------------------------------------------------

HAND = """#{n}: Pot Limit Omaha Hi-Lo - 5/10
2021-01-02 15:45:10
Table '8 Game Mix' Seat 6 is the button
Seat 1: Player0 (1,000)
Seat 6: Hero (1,000)
Hero: posts the small blind 5
Player0: posts the big blind 10
*** HOLE CARDS ***
Dealt to Player0: [X X X X]
Dealt to Hero: [6h 3s 8h 5h]
Hero raises to 30
Player0 calls 30
*** FLOP *** [Ks 4c Kc]
Player0 bets 60
Hero folds
*** SUMMARY ***
Seat 1: Player0 (1,029) +29
Seat 6: Hero (970) -30
Rake 1
Player0 wins pot (59)
"""


def hand_text(n: int) -> str:
    return HAND.format(n=n)


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_synthetic_hands_parse() -> None:
    result = parse_bytes((hand_text(1) + "\n" + hand_text(2)).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0)


def test_truncated_garbage_and_inconsistent_hands() -> None:
    cut = hand_text(2).split("*** SUMMARY ***")[0]
    garbage = hand_text(3).replace("Hero folds\n", "Hero folds\n#### garbage ####\n")
    nets = hand_text(4).replace("(1,029) +29", "(1,039) +39")
    tournament = hand_text(5).replace("'8 Game Mix'", "'T123 [4]'")
    data = "\n".join([hand_text(1), cut, garbage, nets, tournament, hand_text(6)]).encode()
    result = parse_bytes(data)
    # A line without money or cards no longer costs its hand: it is kept as a note.
    assert (result.hands_found, result.parsed, result.rejected) == (6, 3, 3)
    assert rejects(result) == [
        ("2", "truncated hand: summary missing or repeated"),
        ("4", "summary nets add up to 900, not minus the rake"),
        ("5", "KingsClub tournament hands are not supported"),
    ]
    note = frames(result)["notes"].row(0, named=True)
    assert (note["hand_id"], note["text"], note["kind"]) == ("3", "#### garbage ####", "unrecognised")
    assert data[note["source_offset"] :].startswith(b"#### garbage ####\n")
    stored = frames(result)["rejects"].row(1, named=True)
    assert data[stored["source_offset"] :].startswith(b"#4: Pot Limit")


def test_other_games_skipped_and_preamble_quarantined() -> None:
    holdem = hand_text(2).replace("Omaha Hi-Lo", "Holdem")
    result = parse_bytes(("banner\n" + hand_text(1) + "\n" + holdem).encode())
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (3, 1, 1, 1)
    assert result.skipped_games == {"Holdem": 1}
    assert rejects(result) == [(None, "text before the first hand header")]
