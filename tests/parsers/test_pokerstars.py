"""PokerStars parser: conformance on the real corpus, golden hands, and damaged input.

Golden values below were read off the hand text by hand (the amounts converted to cents or
chips), not produced by the parser.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import polars as pl
import pytest

from parsers import parse_bytes
from parsers.base import ParseResult
from parsers.pokerstars.forms import GAME_NAMES
from tests.parsers.corpus import (
    cards,
    chip_ledger,
    frames,
    games_read,
    manifest_rows,
    parsed_games,
    variant_counts,
)
from tests.shared_data import CORPUS, needs_corpus


def parse_file(relative: str) -> ParseResult:
    path = CORPUS / relative
    result = parse_bytes(path.read_bytes(), str(path))
    assert result is not None, f"no parser recognised {relative}"
    return result


def stars_manifest() -> list[dict[str, str]]:
    rows = manifest_rows()
    return [
        row
        for row in rows
        if row["role"].startswith("hand_history")
        and (row["path"].startswith("Stars/") or row["path"].startswith("other/Stars"))
    ]


# -- conformance -------------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("row", stars_manifest(), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    """Omaha Hi/Lo, 5 and 6 Card Omaha Hi/Lo and Courchevel Hi/Lo hands parse, each with its
    game; other games are skipped, nothing is rejected."""
    result = parse_file(row["path"])
    counts = variant_counts(row["variants"])
    read = games_read(row["variants"], GAME_NAMES.values())
    assert parsed_games(result) == read
    assert result.parsed == sum(read.values())
    assert result.skipped == sum(counts.values()) - sum(read.values())
    assert result.rejected == 0, frames(result)["rejects"]["reason"].to_list()
    assert result.hands_found == int(row["hands"])


@needs_corpus
@pytest.mark.parametrize("row", stars_manifest(), ids=lambda row: row["path"])
def test_corpus_chips_balance(row: dict[str, str]) -> None:
    """Σ chips put in − returned = printed total pot = Σ collected + rake, for every hand."""
    tables = frames(parse_file(row["path"]))
    if tables["hands"].height == 0:
        pytest.skip("no Omaha Hi/Lo hand in this file")
    joined = chip_ledger(tables)
    unbalanced = joined.filter(
        (pl.col("put") - pl.col("returned") != pl.col("total_pot"))
        | (pl.col("collected") + pl.col("rake") != pl.col("total_pot"))
    )
    assert unbalanced.height == 0, unbalanced


# -- golden hands ------------------------------------------------------------------------------


@needs_corpus
def test_golden_side_pots_tournament() -> None:
    """#68173693354: three all-ins, main pot and two side pots, split halves per pot."""
    tables = frames(parse_file("Stars/tour/NLO8-USD-STT-201109.Knockout.sample.txt"))
    hand_id = "68173693354"
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert hand["tournament_id"] == "447493868"
    assert hand["buy_in"] == "$1.08+$0.27+$0.15 USD"
    assert hand["level"] == "II"
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("NL", "CHIPS", 1)
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"]) == (15, 30, None)
    assert hand["table_name"] == "447493868 1"
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (9, 7, 9)
    assert hand["board"] == cards("4c 5c Qc 2d 5s")
    assert (hand["total_pot"], hand["rake"]) == (6195, 0)
    assert hand["side_pots"] == [4170, 399, 1626]
    # 8:57:21 ET on 28 Sep 2011 is EDT (UTC-4).
    assert hand["started_at"] == datetime(2011, 9, 28, 12, 57, 21, tzinfo=timezone.utc)

    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    expected = [
        ("StaKuGorPS", 0, "post_sb", 15, 15, False),
        ("Hero", 0, "post_bb", 30, 30, False),
        ("tredex", 0, "call", 30, 30, False),
        ("APTEM-89", 0, "raise", 67, 67, False),
        ("Sooners83", 0, "fold", None, 0, False),
        ("barlowdog1", 0, "call", 67, 67, False),
        ("Jorge44alc", 0, "fold", None, 0, False),
        ("VORON1976511", 0, "fold", None, 0, False),
        ("Lord Minge", 0, "call", 67, 67, False),
        ("StaKuGorPS", 0, "fold", None, 15, False),
        ("Hero", 0, "call", 37, 67, False),
        ("tredex", 0, "raise", 1125, 1155, True),
        ("APTEM-89", 0, "call", 1088, 1155, False),
        ("barlowdog1", 0, "fold", None, 67, False),
        ("Lord Minge", 0, "raise", 1901, 1968, True),
        ("Hero", 0, "call", 955, 1022, True),
        ("APTEM-89", 0, "call", 813, 1968, False),
    ]
    got = actions.filter(pl.col("kind") != "show").select(
        "player", "street", "kind", "amount", "to_amount", "is_all_in"
    )
    assert got.rows() == expected
    shows = actions.filter(pl.col("kind") == "show")
    assert shows["player"].to_list() == ["APTEM-89", "Lord Minge", "tredex", "Hero"]

    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("APTEM-89", 813, 2, None),
        ("APTEM-89", 813, 2, None),
        ("tredex", 200, 1, None),
        ("APTEM-89", 199, 1, None),
        ("Hero", 2085, 0, None),
        ("Hero", 2085, 0, None),
    ]
    seats = tables["seats"].filter(pl.col("hand_id") == hand_id).sort("seat")
    hero = seats.filter(pl.col("player") == "Hero").row(0, named=True)
    assert hero["hole_cards"] == cards("Jh Ad 2s 3s")
    assert hero["is_hero"] and hero["position"] == "BB" and hero["stack_start"] == 1022
    minge = seats.filter(pl.col("player") == "Lord Minge").row(0, named=True)
    assert minge["hole_cards"] == cards("9s 2h Ac Kh") and minge["position"] == "BTN"
    assert seats.filter(pl.col("player") == "Sooners83")["hole_cards"].to_list() == [None]

    showdowns = tables["showdowns"].filter(pl.col("hand_id") == hand_id)
    assert showdowns.select("player", "high_desc", "low_desc").rows() == [
        ("APTEM-89", "two pair, Queens and Fives", "7,5,4,3,2"),
        ("Lord Minge", "two pair, Fives and Deuces", None),
        ("tredex", "two pair, Aces and Fives", None),
        ("Hero", "a straight, Ace to Five", "5,4,3,2,A"),
    ]


@needs_corpus
def test_golden_quartered_low_cash() -> None:
    """#35875034981: high 20 to supermeXXX; tied low 19 printed as 10 + 9."""
    tables = frames(parse_file("Stars/cash/PLO8-6max-USD-0.01-0.02-200911.txt"))
    hand_id = "35875034981"
    hand = tables["hands"].filter(pl.col("hand_id") == hand_id).row(0, named=True)
    assert (hand["currency"], hand["money_scale"], hand["limit_type"]) == ("USD", 100, "PL")
    assert (hand["small_blind"], hand["big_blind"], hand["total_pot"], hand["rake"]) == (
        1,
        2,
        39,
        0,
    )
    assert hand["side_pots"] is None
    assert hand["started_at"] == datetime(2009, 11, 26, 15, 37, 53, tzinfo=timezone.utc)
    assert hand["time_zone"] == "ET"
    collections = tables["collections"].filter(pl.col("hand_id") == hand_id).sort("seq")
    assert collections.select("player", "amount", "pot_index").rows() == [
        ("supermeXXX", 20, 0),
        ("UnderMeSensi", 10, 0),
        ("supermeXXX", 9, 0),
    ]
    actions = tables["actions"].filter(pl.col("hand_id") == hand_id).sort("seq")
    flop = actions.filter(pl.col("street") == 1).select("player", "kind", "amount", "to_amount")
    assert flop.rows() == [
        ("UnderMeSensi", "check", None, 0),
        ("supermeXXX", "bet", 10, 10),
        ("Hero", "fold", None, 0),
        ("UnderMeSensi", "call", 10, 10),
    ]
    seats = tables["seats"].filter(pl.col("hand_id") == hand_id).sort("seat")
    assert seats.select("seat", "player", "stack_start", "position").rows() == [
        (2, "UnderMeSensi", 352, "BB"),
        (3, "supermeXXX", 119, "CO"),  # 4-handed: SB, BB, CO, BTN
        (5, "Hero", 284, "BTN"),
        (6, "tiger48475", 500, "SB"),
    ]


@needs_corpus
def test_golden_fixed_limit_2005() -> None:
    """2005 header form, fixed limit: the stakes are bets, the blinds come from the posts."""
    tables = frames(parse_file("other/Stars-O8-limit-2005.gitpan.txt"))
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "0000000000"
    assert hand["limit_type"] == "FL"
    assert (hand["small_bet"], hand["big_bet"]) == (500, 1000)
    assert (hand["small_blind"], hand["big_blind"]) == (200, 500)
    assert hand["max_seats"] is None and hand["button_seat"] == 6
    assert (hand["total_pot"], hand["rake"]) == (3500, 100)
    assert hand["started_at"] == datetime(2005, 8, 22, 1, 44, 8, tzinfo=timezone.utc)
    seats = tables["seats"]
    mucked = seats.filter(pl.col("player") == "Player_8").row(0, named=True)
    assert mucked["hole_cards"] == cards("2h Kc 3c Jh")
    turn = tables["actions"].filter(pl.col("street") == 2).select("player", "kind", "amount")
    assert turn.rows() == [
        ("Player_7", "check", None),
        ("Player_8", "bet", 1000),
        ("Player_5", "fold", None),
        ("Player_7", "call", 1000),
    ]
    assert tables["collections"]["amount"].to_list() == [1700, 1700]


@needs_corpus
def test_golden_antes_and_mid_hand_join() -> None:
    chico = frames(parse_file("Stars/tour/PLO8-6max-USD-11-1-202105.Chico.Converted.txt"))
    hand = chico["hands"].row(0, named=True)
    assert hand["tournament_id"] == "18272685271857837393"
    assert (hand["ante"], hand["small_blind"], hand["big_blind"], hand["level"]) == (
        1000,
        10000,
        20000,
        "XV",
    )
    antes = chico["actions"].filter(pl.col("kind") == "ante")
    assert antes.height == 6 and antes["amount"].unique().to_list() == [1000]
    assert antes["to_amount"].null_count() == 6
    assert chico["hands"]["board"].to_list() == [[]]

    joined = frames(parse_file("Stars/cash/258753941248_anon5.txt"))
    hand = joined["hands"].row(0, named=True)
    # "8:59:34 PT [11:59:34 ET]": the ET time is used.
    assert hand["started_at"] == datetime(2025, 12, 3, 16, 59, 34, tzinfo=timezone.utc)
    assert joined["seats"]["player"].to_list() == [f"Player{i}" for i in range(1, 6)]
    assert joined["seats"].filter(pl.col("is_hero"))["player"].to_list() == ["Player1"]


# -- damaged input -----------------------------------------------------------------------------

HAND = """PokerStars Hand #{hand_id}:  Omaha Hi/Lo Pot Limit ($0.01/$0.02 USD) - 2020/01/02 10:00:00 ET
Table 'Test I' 6-max Seat #1 is the button
Seat 1: Alice ($2 in chips)
Seat 2: Bob "the: Builder" ($2 in chips)
Seat 3: 名字 ($2 in chips)
Bob "the: Builder": posts small blind $0.01
名字: posts big blind $0.02
*** HOLE CARDS ***
Dealt to Alice [{alice}]
Alice: raises $0.04 to $0.06
Bob "the: Builder": folds
名字: calls $0.04
*** FLOP *** [2c 3d 4h]
名字: checks
Alice: bets $0.10
名字: folds
Uncalled bet ($0.10) returned to Alice
Alice collected $0.13 from pot
*** SUMMARY ***
Total pot $0.13 | Rake $0
Board [2c 3d 4h]
Seat 1: Alice (button) collected ($0.13)
Seat 2: Bob "the: Builder" (small blind) folded before Flop
Seat 3: 名字 (big blind) folded on the Flop
"""


def hand_text(hand_id: int, alice: str = "As Ks Qs Js") -> str:
    return HAND.format(hand_id=hand_id, alice=alice)


def parse_text(text: str | bytes) -> ParseResult:
    data = text.encode("utf-8") if isinstance(text, str) else text
    result = parse_bytes(data, "test.txt")
    assert result is not None
    return result


def test_synthetic_hand_parses_with_awkward_names() -> None:
    result = parse_text(hand_text(1) + "\n\n" + hand_text(2))
    assert (result.parsed, result.rejected) == (2, 0)
    actions = frames(result)["actions"].filter(pl.col("hand_id") == "1")
    assert actions.filter(pl.col("kind") == "fold")["player"].to_list()[0] == 'Bob "the: Builder"'
    assert actions.filter(pl.col("kind") == "call").row(0, named=True)["player"] == "名字"


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


def test_truncated_hand_is_quarantined_and_the_rest_parsed() -> None:
    cut = hand_text(2).split("*** FLOP ***")[0]
    result = parse_text(hand_text(1) + "\n" + cut + "\n" + hand_text(3))
    assert (result.hands_found, result.parsed, result.rejected) == (3, 2, 1)
    assert rejects(result) == [("2", "truncated hand: no summary")]


def test_header_fine_body_cut_off_at_end_of_file() -> None:
    text = hand_text(1) + "\n" + "\n".join(hand_text(2).splitlines()[:4])
    result = parse_text(text)
    assert (result.parsed, result.rejected) == (1, 1)
    hand_id, reason = rejects(result)[0]
    assert hand_id == "2" and reason.startswith("truncated hand")


def test_garbage_bytes_in_the_middle_of_a_file() -> None:
    data = (
        hand_text(1).encode()
        + b"\n"
        + hand_text(2).encode().replace(b"Alice: raises", b"\x00\xff\xfe\x13garbage\nAlice: raises")
        + b"\n"
        + hand_text(3).encode()
    )
    result = parse_text(data)
    assert (result.parsed, result.rejected) == (2, 1)
    hand_id, reason = rejects(result)[0]
    assert hand_id == "2" and reason.startswith("unrecognised line")
    stored = frames(result)["rejects"].row(0, named=True)
    # The quarantined text starts at the hand's header, and the offset points at it in the file.
    assert stored["raw_text"].startswith("PokerStars Hand #2:")
    assert data[stored["source_offset"] :].startswith(b"PokerStars Hand #2:")


def test_text_before_the_first_hand_is_quarantined() -> None:
    result = parse_text("some export banner\n\n" + hand_text(1))
    assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1)
    assert rejects(result) == [(None, "text before the first hand header")]


@pytest.mark.parametrize(
    ("alice", "reason"),
    [
        ("As As Qs Js", "duplicate card code 51"),
        ("As Ks Qs 2c", "duplicate card code 0"),  # 2c is on the board
        ("As Ks Qs Zz", "hole cards are not the game's 4 readable cards"),
        ("As Ks Qs", "hole cards are not the game's 4 readable cards"),
    ],
)
def test_impossible_cards(alice: str, reason: str) -> None:
    result = parse_text(hand_text(1) + "\n" + hand_text(2, alice=alice))
    assert result.parsed == 1
    assert rejects(result) == [("2", reason)]


def test_unseated_actor_and_absurd_amounts() -> None:
    stranger = hand_text(2).replace("名字: checks", "Mallory: checks")
    huge = hand_text(3).replace("bets $0.10", "bets $1000000000000000000000000000000")
    negative = hand_text(4).replace("bets $0.10", "bets $-0.10")
    result = parse_text("\n".join([hand_text(1), stranger, huge, negative]))
    assert result.parsed == 1
    reasons = dict(rejects(result))
    assert reasons["2"] == "player not seated: Mallory"
    assert reasons["3"] == "unreadable or negative amount (bet)"
    assert reasons["4"].startswith("unrecognised line") or reasons["4"].startswith("unreadable")


def test_duplicate_seat_and_unknown_header() -> None:
    duplicate = hand_text(2).replace("Seat 3: 名字", "Seat 2: 名字")
    header = hand_text(3).replace("Omaha Hi/Lo Pot Limit ($0.01/$0.02 USD)", "Omaha Hi/Lo ???")
    result = parse_text("\n".join([hand_text(1), duplicate, header]))
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "2": "duplicate seat number",
        None: "unrecognised hand header",
    }


def test_other_games_are_skipped_not_misread() -> None:
    holdem = hand_text(2).replace("Omaha Hi/Lo Pot Limit", "Hold'em No Limit")
    mixed = hand_text(3).replace(
        "Omaha Hi/Lo Pot Limit ($0.01/$0.02 USD)", "8-Game (Razz Limit, $0.01/$0.02 USD)"
    )
    mixed_o8 = hand_text(4).replace(
        "Omaha Hi/Lo Pot Limit ($0.01/$0.02 USD)", "8-Game (Omaha Hi/Lo Limit, $0.02/$0.04 USD)"
    )
    result = parse_text("\n".join([hand_text(1), holdem, mixed, mixed_o8]))
    assert (result.parsed, result.skipped, result.rejected) == (2, 2, 0)
    assert result.skipped_games == {"Hold'em": 1, "Razz": 1}
    hand = frames(result)["hands"].filter(pl.col("hand_id") == "4").row(0, named=True)
    assert (hand["mixed_game"], hand["limit_type"], hand["small_bet"], hand["big_bet"]) == (
        "8-Game",
        "FL",
        2,
        4,
    )


def test_encodings_give_identical_tables() -> None:
    text = hand_text(1) + "\n" + hand_text(2)
    variants = [
        text.encode("utf-8"),
        b"\xef\xbb\xbf" + text.encode("utf-8"),
        text.replace("\n", "\r\n").encode("utf-8"),
        "\ufeff".encode("utf-16-le") + text.replace("\n", "\r\n").encode("utf-16-le"),
        "\ufeff".encode("utf-16-be") + text.encode("utf-16-be"),
    ]
    results = [frames(parse_text(data)) for data in variants]
    for other in results[1:]:
        for name in ("seats", "actions", "collections"):
            assert other[name].equals(results[0][name]), name
        assert (
            other["hands"].drop("source_offset").equals(results[0]["hands"].drop("source_offset"))
        )


def test_source_offsets_point_at_each_hand_in_utf16() -> None:
    text = hand_text(1) + "\n" + hand_text(2)
    data = "\ufeff".encode("utf-16-le") + text.encode("utf-16-le")
    offsets = frames(parse_text(data))["hands"]["source_offset"].to_list()
    for hand_id, offset in zip(("1", "2"), offsets, strict=True):
        assert (
            data[offset:]
            .decode("utf-16-le", errors="ignore")
            .startswith(f"PokerStars Hand #{hand_id}:")
        )


def test_binary_and_empty_input_are_not_claimed() -> None:
    assert parse_bytes(b"", "empty.txt") is None
    assert parse_bytes(bytes(range(256)) * 40, "blob.bin") is None
    assert parse_bytes(b"Some Other Poker Room Game #1: Table X", "other.txt") is None


def test_several_files_in_one_pass_equal_file_by_file() -> None:
    from parsers.pokerstars import PokerStarsParser
    from parsers.text import decode_lines

    texts = {
        "a.txt": hand_text(1) + "\n" + hand_text(2).split("*** FLOP ***")[0],  # ends cut off
        "b.txt": "export banner\n\n" + hand_text(3),  # preamble, then a hand
        "c.txt": "\n".join([hand_text(4), hand_text(5).replace("Omaha Hi/Lo", "Hold'em")]),
    }
    parser = PokerStarsParser()
    alone = {name: parser.parse(*_decoded(text), name) for name, text in texts.items()}
    lines, offsets, starts = [], [], []
    for text in texts.values():
        decoded = decode_lines(text.encode())
        starts.append(sum(len(chunk) for chunk in lines))
        lines.append(decoded.lines)
        offsets.append(decoded.offsets)
    together = parser.parse_files(
        pl.concat(lines), np.concatenate(offsets), np.array(starts), list(texts)
    )
    for (name, single), batched in zip(alone.items(), together, strict=True):
        counts = (batched.hands_found, batched.parsed, batched.skipped, batched.rejected)
        assert counts == (single.hands_found, single.parsed, single.skipped, single.rejected)
        assert batched.skipped_games == single.skipped_games
        for table, rows in single.tables.items():
            assert batched.tables[table].equals(rows), (name, table)
    assert [result.rejected for result in together] == [1, 1, 0]


def _decoded(text: str) -> tuple[pl.Series, np.ndarray]:
    from parsers.text import decode_lines

    decoded = decode_lines(text.encode())
    return decoded.lines, decoded.offsets
