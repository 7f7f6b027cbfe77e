"""Horizon parser: corpus conformance, the garbled BOM, chip balance, the line of mucked cards,
copies of a hand in two files, the audit, damaged input.

Golden values were read off the hand text by hand (amounts in cents), not produced by the parser.
"""

from __future__ import annotations

import codecs
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.cake import CakeParser
from parsers.horizon import HorizonParser
from parsers.text import GARBLED_UTF8_BOM, decode_lines, decode_text
from pipeline import dataset
from pipeline.audit import PAYOUT_KINDS, audit_tables
from pipeline.ingest import ingest
from pipeline.schema import HAND_TABLES
from tests.parsers.corpus import cards, chip_ledger, frames, manifest_rows, variant_counts
from tests.shared_data import CORPUS, needs_corpus

PARSER = HorizonParser()
PERTH = "Horizon/cash/PLO8-9max-USD-0.02-0.04-201810.Perth.txt"
MULTIPLE_POTS = "Horizon/cash/PLO8-9max-201810.Multiple.Pots.txt"
GARBLED_BOM = "Horizon/cash/PLO8-9max-201810.No.Low.garbled.BOM.txt"
# The Perth file's last hand stops where the recording player left the table: no showdown
# section, no winner, the blinds unaccounted for.
TRUNCATED = ("5322021915000073", "truncated hand: no showdown section")


def parse_data(data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert PARSER.sniff("\n".join(decoded.lines.head(20).to_list())), name
    return PARSER.parse(decoded.lines, decoded.offsets, name)


def parse_file(relative: str) -> ParseResult:
    path = CORPUS / relative
    return parse_data(path.read_bytes(), str(path))


def manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [r for r in rows if r["role"].startswith("hand_history") and r["site"] == "Horizon"]


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


@pytest.fixture(scope="module")
def perth() -> dict[str, pl.DataFrame]:
    return frames(parse_file(PERTH))


# -- conformance -------------------------------------------------------------------------------


def test_manifest_lists_the_horizon_files() -> None:
    if not manifest():
        pytest.skip(f"conformance corpus not found at {CORPUS}")
    assert sorted(row["path"] for row in manifest()) == sorted([PERTH, MULTIPLE_POTS, GARBLED_BOM])


@needs_corpus
@pytest.mark.parametrize("row", manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    expected_rejects = [TRUNCATED] if row["path"] == PERTH else []
    assert rejects(result) == expected_rejects
    assert result.parsed + result.rejected == counts.get("O8", 0) == int(row["o8_hands"])
    assert result.skipped == sum(n for name, n in counts.items() if name != "O8")
    assert result.hands_found == int(row["hands"])


@needs_corpus
def test_the_registry_sends_horizon_files_to_horizon_and_cake_files_to_cake() -> None:
    for path in (PERTH, MULTIPLE_POTS, GARBLED_BOM):
        result = parsers.parse_bytes((CORPUS / path).read_bytes(), path)
        assert result is not None and result.parsed >= 1
        assert set(frames(result)["hands"]["site"].to_list()) == {"horizon"}, path
    cake = parsers.parse_bytes((CORPUS / "Cake/tour/PLO8-2max-USD-5-201307.txt").read_bytes(), "c")
    assert cake is not None and set(frames(cake)["hands"]["site"].to_list()) == {"cake"}
    order = [type(parser) for parser in parsers.PARSERS]
    assert order.index(HorizonParser) < order.index(CakeParser)


@needs_corpus
def test_garbled_bom_files_are_read() -> None:
    """One file opens with a BOM that was decoded as cp1252 and written again as UTF-8 (bytes
    ``C3 AF C2 BB C2 BF``), the other with a real BOM before that: both are BOMs, and the first
    hand starts right after them."""
    single = (CORPUS / GARBLED_BOM).read_bytes()
    doubled = (CORPUS / PERTH).read_bytes()
    assert single.startswith(GARBLED_UTF8_BOM)
    assert doubled.startswith(codecs.BOM_UTF8 + GARBLED_UTF8_BOM)
    for data, bom in ((single, 6), (doubled, 9)):
        decoded = decode_lines(data)
        assert decoded.lines[0].startswith("Hand#5322021915000045 - $ Perth (9-Max) 21915 -- ")
        assert decoded.offsets[0] == bom
        hands = frames(parse_data(data))["hands"].sort("source_offset")
        assert hands.row(0, named=True)["source_offset"] == bom


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_multiple_pots(perth: dict[str, pl.DataFrame]) -> None:
    """Hand#5322021915000046: four pots, one ``***SHOW DOWN***`` section each, the last side pot
    first; ``RONALD 11: returns uncalled bet $0.36``."""
    hand_id = "5322021915000046"
    hand = perth["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert (hand["site"], hand["table_name"], hand["game"], hand["limit_type"]) == (
        "horizon",
        "$ Perth (9-Max) 21915",
        "O8",
        "PL",
    )
    assert (hand["currency"], hand["money_scale"], hand["small_blind"], hand["big_blind"]) == (
        "USD",
        100,
        2,
        4,
    )
    assert (hand["button_seat"], hand["max_seats"], hand["players_dealt"]) == (7, None, 8)
    assert hand["started_at"] == datetime(2018, 10, 30, 21, 36, 2, tzinfo=UTC)
    assert hand["board"] == cards("8c Th 4s Ts 3d")
    assert (hand["total_pot"], hand["rake"], hand["tournament_id"]) == (None, None, None)
    collections = perth["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("RONALD 11", 97, None, "high"),
        ("RONALD 11", 97, None, "low"),
        ("prizzy711", 14, None, "high"),
        ("RONALD 11", 14, None, "low"),
        ("prizzy711", 168, None, "high"),
        ("RONALD 11", 168, None, "low"),
        ("prizzy711", 43, None, "high"),
        ("RONALD 11", 43, None, "low"),
    ]
    river = perth["actions"].filter((pl.col("hand_id") == hand_id) & (pl.col("street") == 3))
    assert river.sort("seq").head(6).select("player", "kind", "amount", "to_amount").rows() == [
        ("prizzy711", "bet", 36, 36),
        ("RONALD 11", "raise", 232, 232),  # "raises to $2.32"
        ("Sparky1970", "call", 196, 196),  # "is all in $1.96"
        ("Ederzito", "call", 82, 82),
        ("prizzy711", "call", 56, 92),  # "is all in $0.56": the chips added
        ("RONALD 11", "uncalled_return", 36, None),
    ]


@needs_corpus
def test_mucked_cards_line(perth: dict[str, pl.DataFrame]) -> None:
    """``RONALD 11: mucks`` at the showdown, then after the payout ``RONALD_11: mucks
    [Ah,Jh,9d,2d] (TwoPair) .``: the seated RONALD 11's hole cards, one muck."""
    hand_id = "5322021915000048"
    seats = perth["seats"].filter(pl.col("hand_id") == hand_id)
    hole = dict(seats.select("player", "hole_cards").iter_rows())
    assert hole["RONALD 11"] == cards("Ah Jh 9d 2d")
    assert hole["prizzy711"] == cards("5c 3d 8d Tc")  # dealt to the recording player
    assert hole["Arch_aces"] == cards("2c 3h As 8c")  # shown
    actions = perth["actions"].filter(pl.col("hand_id") == hand_id)
    mucks = actions.filter(pl.col("kind") == "muck").select("street", "player").rows()
    assert mucks == [(3, "RONALD 11")]
    assert "RONALD_11" not in set(actions["player"]) | set(perth["seats"]["player"])
    # Three players' mucked cards in one hand, each after its own bare muck.
    hand_id = "5322021915000058"
    seats = perth["seats"].filter(pl.col("hand_id") == hand_id)
    hole = dict(seats.select("player", "hole_cards").iter_rows())
    assert (hole["samsonben10"], hole["burty2"], hole["Sparky1970"]) == (
        cards("8c 7c 2c Ts"),
        cards("9d Td 3d 5c"),
        cards("7h Ah 6s 7d"),
    )
    mucked = perth["actions"].filter((pl.col("hand_id") == hand_id) & (pl.col("kind") == "muck"))
    assert sorted(mucked["player"].to_list()) == ["Sparky1970", "burty2", "samsonben10"]


@needs_corpus
def test_notes_and_no_lost_line(perth: dict[str, pl.DataFrame]) -> None:
    """A chat line carries nothing the tables need: a note of its hand."""
    assert perth["notes"].select("hand_id", "text").rows() == [
        ("5322021915000069", "prizzy711  chats: nh")
    ]


# -- chips and the audit -----------------------------------------------------------------------


@needs_corpus
def test_corpus_chips_balance(perth: dict[str, pl.DataFrame]) -> None:
    """No rake is printed: what a hand keeps is the chips put in less returned less paid out.
    It is never negative; 1/15 of the pot rounded down where the hand saw a flop (27 of 27),
    nothing before it (5322021915000065: $0.18 in, $0.18 won)."""
    flop = perth["hands"].select("hand_id", flop=pl.col("board").list.len() > 0, rake="rake")
    ledger = (
        chip_ledger(perth)
        .drop("rake")
        .join(flop, on="hand_id")
        .with_columns(pot=pl.col("put") - pl.col("returned"))
        .with_columns(kept=pl.col("pot") - pl.col("collected"))
    )
    assert ledger.height == 28 and ledger["rake"].null_count() == 28
    assert ledger.filter(pl.col("kept") < 0).height == 0
    with_flop = ledger.filter(pl.col("flop"))
    assert with_flop.height == 27
    assert (with_flop["kept"] == with_flop["pot"] // 15).all()
    assert ledger.filter(~pl.col("flop")).select("hand_id", "pot", "kept").rows() == [
        ("5322021915000065", 18, 0)
    ]
    pots = ledger.filter(pl.col("hand_id") == "5322021915000046").row(0, named=True)
    assert (pots["put"], pots["returned"], pots["collected"]) == (726, 36, 644)


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit reads each site's profile from the parser registry."""
    if not any(parser.site == PARSER.site for parser in parsers.PARSERS):
        monkeypatch.setattr(parsers, "PARSERS", (*parsers.PARSERS, PARSER))


def test_profile() -> None:
    profile = PARSER.profile
    assert profile.site == PARSER.site == "horizon"
    assert (profile.halves_labelled, profile.payout_lines) == (True, "per_half")
    assert (profile.rake_printed, profile.uncalled_printed, profile.rake_from) == (
        False,
        True,
        "each-pot",
    )


@needs_corpus
def test_audit_finds_no_wrong_payment(registered: None, perth: dict[str, pl.DataFrame]) -> None:
    findings = audit_tables(
        perth["hands"], perth["seats"], perth["actions"], perth["collections"], perth["showdowns"]
    ).discrepancies
    assert findings.filter(pl.col("kind").is_in(PAYOUT_KINDS)).height == 0
    assert findings.filter(pl.col("kind") == "chip_conservation").height == 0


# -- copies of a hand --------------------------------------------------------------------------


@needs_corpus
def test_single_hand_files_are_the_same_hands(tmp_path: Path) -> None:
    """The two single-hand files hold hands 45 and 46 of the Perth file: their rows are the same
    but for the source, so ingest stores each hand once and counts the copies as duplicates."""
    perth = frames(parse_file(PERTH))
    for path, hand_id in ((GARBLED_BOM, "5322021915000045"), (MULTIPLE_POTS, "5322021915000046")):
        single = frames(parse_file(path))
        for table in HAND_TABLES:
            keep = [c for c in single[table].columns if c not in ("source_file", "source_offset")]
            copy = perth[table].filter(pl.col("hand_id") == hand_id).select(keep)
            assert single[table].select(keep).equals(copy), (path, table)
    files = [CORPUS / relative for relative in (MULTIPLE_POTS, GARBLED_BOM, PERTH)]
    with ThreadPoolExecutor(1) as executor:
        ingest(files, tmp_path / "dataset", executor=executor)
    rows = {row["path"]: row for row in dataset.read_manifest(tmp_path / "dataset").to_pylist()}
    counts = [
        (rows[str(path)]["hands"], rows[str(path)]["rejected"], rows[str(path)]["duplicates"])
        for path in files
    ]
    assert sum(hands for hands, _, _ in counts) == 28
    assert sum(duplicates for _, _, duplicates in counts) == 2
    assert sum(rejected for _, rejected, _ in counts) == 1


# -- damaged input -----------------------------------------------------------------------------

HAND = """Hand#53220219150000{n:02d} - $ Perth (9-Max) 21915 -- $0.02/$0.04 PL OmahaHiLo -- 2018/10/30 - 21:54:24
Dealer: Seat 4
Seat 1: Sparky One ($4.13 in chips)
Seat 4: burty2 ($3.53 in chips)
Seat 8: prizzy711 ($2.74 in chips)
prizzy711: posts small blind $0.02
Sparky One: posts big blind $0.04
Dealt to prizzy711 [9c,4c,Jh,Tc]
burty2: calls $0.04
prizzy711: calls $0.02
Sparky One: checks
*** FLOP *** [Kc,Ah,Ts]
prizzy711: checks
Sparky One: checks
burty2: checks
*** TURN *** [Qd]
prizzy711: checks
Sparky One: checks
burty2: checks
*** RIVER *** [5d]
prizzy711: checks
Sparky One: checks
burty2: checks
***SHOW DOWN***
burty2: shows [2d Ad 9d 6s] (Pair of Aces)
Sparky One: mucks
burty2 wins high pot $0.12 with Pair of Aces
Sparky_One: mucks [Js,8c,Qh,7d] (Straight) .
There is no low hand
"""


def hand_text(n: int) -> str:
    return HAND.format(n=n)


def test_synthetic_mucked_cards_of_a_name_with_a_space() -> None:
    result = parse_data(hand_text(1).encode())
    assert (result.parsed, result.rejected) == (1, 0), rejects(result)
    tables = frames(result)
    hole = dict(tables["seats"].select("player", "hole_cards").iter_rows())
    assert hole["Sparky One"] == cards("Js 8c Qh 7d")
    assert tables["actions"].filter(pl.col("kind") == "muck")["player"].to_list() == ["Sparky One"]


@pytest.mark.parametrize("bom", [GARBLED_UTF8_BOM, codecs.BOM_UTF8 + GARBLED_UTF8_BOM])
def test_a_garbled_bom_is_read_as_a_bom(bom: bytes) -> None:
    data = bom + hand_text(1).encode()
    assert decode_text(data).startswith("Hand#5322021915000001 - ")
    result = parsers.parse_bytes(data, "garbled.txt")
    assert result is not None and (result.parsed, result.rejected) == (1, 0), rejects(result)
    hand = frames(result)["hands"].row(0, named=True)
    assert (hand["site"], hand["source_offset"]) == ("horizon", len(bom))


def test_mucked_cards_without_an_earlier_muck_are_the_muck() -> None:
    text = hand_text(1).replace("Sparky One: mucks\n", "")
    tables = frames(parse_data(text.encode()))
    mucks = tables["actions"].filter(pl.col("kind") == "muck")
    assert mucks.select("player", "street").rows() == [("Sparky One", 3)]
    assert tables["seats"].filter(pl.col("player") == "Sparky One")["hole_cards"].to_list() == [
        cards("Js 8c Qh 7d")
    ]


def test_mucked_cards_of_nobody_seated_quarantine_the_hand() -> None:
    stranger = hand_text(2).replace("Sparky_One: mucks", "Sparky_Two: mucks")
    result = parse_data("\n".join([hand_text(1), stranger, hand_text(3)]).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (3, 2, 1)
    assert rejects(result) == [("5322021915000002", "player not seated: Sparky_Two")]


def test_cake_does_not_read_horizon_only_lines() -> None:
    """The line of mucked cards with its closing `` .`` is Horizon's: Cake's decoding leaves it
    unrecognised (and it carries cards, so the hand is quarantined there)."""
    decoded = decode_lines(hand_text(1).encode())
    result = CakeParser().parse(decoded.lines, decoded.offsets, "cake.txt")
    assert rejects(result) == [
        ("5322021915000001", "unrecognised line: Sparky_One: mucks [Js,8c,Qh,7d] (Straight) .")
    ]
