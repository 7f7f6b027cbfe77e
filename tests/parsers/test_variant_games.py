"""Big O, 6-card Omaha Hi/Lo and Courchevel Hi/Lo: every site that prints them, read per hand.

Golden values below were read off the hand text by hand (amounts in cents or chips, cards as
printed), not produced by the parser. The corpus files are the real hands the MANIFEST lists
with those games; the synthetic hands test what no corpus hand shows (a Courchevel hand that
ends before the flop, damaged exposed cards, the wrong number of hole cards, mixed files).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import parsers
from parsers import parse_bytes
from parsers.base import ParseResult
from parsers.engine.hole_cards import not_the_games_cards
from parsers.pokermaster import NOTE_CONVERTER_COMMENT, PokerMasterParser
from parsers.pokerstars import PokerStarsParser
from pipeline.audit import audit_tables
from tests.parsers.corpus import cards, frames, manifest_rows, variant_counts
from tests.parsers.test_pokerstars import hand_text
from tests.parsers.test_pokerstars_compiled import assert_same_as_block_parser
from tests.shared_data import CORPUS, needs_corpus

VARIANTS = ("O8-5card", "O8-6card", "Courchevel-HL")
STARS_BIG_O = "Stars/cash/5-Card-PLO8-6max-USD-2.00-4.00-201304.txt"
STARS_BIG_O_2025 = (
    "Stars/cash/HH20251130.Latona.V.-.0.10-.0.25.-.USD.Pot.Limit.5.Card.Omaha.Hi-Lo.txt"
)
STARS_BIG_O_2025_LF = "Stars/cash/PLO5-Hi-Lo-USD-0.10-0.25-issue137.txt"
COURCHEVEL_CASH = "Stars/cash/PL-Courchevel-HL-6max-USD-1.00-2.00-201303.Run.It.Twice.txt"
COURCHEVEL_TOUR = "Stars/tour/PL-Courcheval-HL-6max-USD-7.50-201705.fixed.flop.txt"
COURCHEVEL_FIXTURE = "Stars/fixture/courchevel.txt"
WPN_BIG_O = "Winning/cash/5-Card-PLO8-6max-USD-3-6-202212.txt"
WINAMAX_BIG_O = "Winamax/cash/5-Card-PLO8-6max-EUR-1.00-2.00-201611.txt"
WINAMAX_BIG_O_RAISE_TO = "Winamax/cash/5-Card-PLO-6max-EUR-2.00-4.00-201611.raiseTo.txt"
KINGSCLUB_BIG_O = "KingsClub/cash/5-Card-PLO8-USD-11-22-202010.txt"
KINGSCLUB_BIG_O_QUARTERED = "KingsClub/cash/5-Card-PLO8-USD-11-22-202010.quartered.txt"
POKERMASTER_SIX_CARD = "PokerMaster/cash/6-Card-PLO8-6max-USD-2.00-4.00-202310.txt"


def variant_rows() -> list[dict[str, str]]:
    """The MANIFEST's hand histories holding hands of the variant games."""
    return [
        row
        for row in manifest_rows()
        if row["role"].startswith("hand_history")
        and any(game in variant_counts(row["variants"]) for game in VARIANTS)
    ]


def parse_path(relative: str) -> ParseResult:
    result = parse_bytes((CORPUS / relative).read_bytes(), relative)
    assert result is not None, relative
    return result


def parse_text(text: str) -> ParseResult:
    result = parse_bytes(text.encode(), "test.txt")
    assert result is not None
    return result


def only_hand(result: ParseResult) -> dict[str, pl.DataFrame]:
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    return frames(result)


def holes(tables: dict[str, pl.DataFrame]) -> dict[str, list[int] | None]:
    return dict(tables["seats"].select("player", "hole_cards").iter_rows())


def paid(tables: dict[str, pl.DataFrame]) -> list[tuple[str, int, int | None, int | None]]:
    return tables["collections"].select("player", "amount", "pot_index", "board_index").rows()


def findings(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    return audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies


# -- the corpus --------------------------------------------------------------------------------


@needs_corpus
def test_the_manifest_lists_the_variant_files() -> None:
    """25 hands in 12 files (the 2025 Big O hand twice, Courchevel's tournament hand number
    twice: the real hand and a synthetic fixture reusing its header)."""
    rows = variant_rows()
    assert len(rows) == 12
    assert sum(sum(variant_counts(row["variants"]).values()) for row in rows) == 25


@needs_corpus
@pytest.mark.parametrize("row", variant_rows(), ids=lambda row: row["path"])
def test_every_variant_hand_is_read_with_its_game(row: dict[str, str]) -> None:
    result = parse_path(row["path"])
    games = frames(result)["hands"]["game"].value_counts().rows()
    assert dict(games) == variant_counts(row["variants"])
    assert (result.skipped, result.rejected) == (0, 0)
    assert result.hands_found == int(row["hands"])


@needs_corpus
@pytest.mark.parametrize("row", variant_rows(), ids=lambda row: row["path"])
def test_variant_hands_audit_without_money_or_rule_findings(row: dict[str, str]) -> None:
    """Each real variant hand is paid as the rules say for its game (5 or 6 hole cards, the
    board with Courchevel's exposed card); the PokerMaster hand's pot is unevaluable (info):
    Player0 reached the showdown and the text shows neither his cards nor a muck."""
    tables = frames(parse_path(row["path"]))
    found = findings(tables)
    assert found.filter(pl.col("severity").is_in(["money", "rules"])).height == 0, found
    if row["path"] == POKERMASTER_SIX_CARD:
        assert found["kind"].to_list() == ["unevaluable"]
    else:
        assert found.filter(pl.col("kind") == "unevaluable").height == 0, found


@needs_corpus
def test_stars_big_o_uncontested() -> None:
    """#96961585867: ``5 Card Omaha Hi/Lo Pot Limit ($2/$4 USD)``; Hero dealt five cards."""
    tables = only_hand(parse_path(STARS_BIG_O))
    hand = tables["hands"].row(0, named=True)
    assert (hand["hand_id"], hand["game"], hand["limit_type"], hand["currency"]) == (
        "96961585867",
        "O8-5card",
        "PL",
        "USD",
    )
    assert (hand["small_blind"], hand["big_blind"], hand["total_pot"], hand["rake"]) == (
        200,
        400,
        1800,
        81,
    )
    assert hand["board"] == cards("Jc 6c Kd 9c Ad")
    assert holes(tables)["Hero"] == cards("Td Kh 3d 4s 9d")
    assert tables["seats"].filter(pl.col("is_hero"))["player"].to_list() == ["Hero"]
    assert paid(tables) == [("Player1", 1719, 0, 0)]


@needs_corpus
def test_stars_big_o_2025_export_and_its_copy_read_alike() -> None:
    """#258721013274, exported twice (CRLF, and LF with an extra blank line): the same rows."""
    first, second = frames(parse_path(STARS_BIG_O_2025)), frames(parse_path(STARS_BIG_O_2025_LF))
    for name in ("hands", "seats", "actions", "collections", "showdowns"):
        columns = [c for c in first[name].columns if c not in ("source_file", "source_offset")]
        assert first[name].select(columns).equals(second[name].select(columns)), name
    hand = first["hands"].row(0, named=True)
    assert (hand["game"], hand["big_blind"], hand["total_pot"], hand["rake"]) == (
        "O8-5card",
        25,
        601,
        26,
    )
    assert holes(first)["Player6"] == cards("8s Qs 3s 2c Qc")
    assert paid(first) == [("Player6", 575, 0, 0)]


@needs_corpus
def test_stars_courchevel_run_twice() -> None:
    """#97007286518: ``*** PRE-FLOP *** [7h]`` after the deal, ``*** FLOP *** [7h 5d 3s]``, run
    twice: 40.75 + 40.75 on the first board, 40.75 + 20.38 + 20.37 on the second (a tied low
    with an odd cent)."""
    tables = only_hand(parse_path(COURCHEVEL_CASH))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["small_blind"], hand["big_blind"]) == ("Courchevel-HL", 100, 200)
    assert hand["board"] == cards("7h 5d 3s 7s Ts")
    assert hand["board2"] == cards("7h 5d 3s 2s 4h")
    assert (hand["total_pot"], hand["rake"]) == (16350, 50)
    assert holes(tables) == {
        "Player0": cards("7d 6d Jh Ah 5s"),
        "Hero": cards("As 4s Ks Ad Qh"),
    }
    assert paid(tables) == [
        ("Player0", 4075, 0, 0),
        ("Hero", 4075, 0, 0),
        ("Player0", 4075, 0, 1),
        ("Hero", 2038, 0, 1),
        ("Player0", 2037, 0, 1),
    ]
    shown = tables["showdowns"].filter(pl.col("board_index") == 1)
    assert shown.select("player", "low_desc").rows() == [
        ("Hero", "5,4,3,2,A"),
        ("Player0", "5,4,3,2,A"),
    ]


@needs_corpus
def test_stars_courchevel_tournament_flop_printed_apart() -> None:
    """#170983530791 (2017): ``*** FLOP *** [8s] [2c 9h]``, the exposed card apart."""
    tables = only_hand(parse_path(COURCHEVEL_TOUR))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["tournament_id"], hand["currency"], hand["big_blind"]) == (
        "Courchevel-HL",
        "1918472490",
        "CHIPS",
        30,
    )
    assert hand["board"] == cards("8s 2c 9h 6s Jh")
    assert holes(tables) == {
        "Hero": cards("Qh 5s 4c Qs 6d"),
        "Player0": cards("As 8h 4d Tc Ts"),
        "Player1": None,
        "Player2": cards("6h 3h Kd 9c 7s"),
        "Player3": None,
    }
    assert paid(tables) == [("Player2", 149, 0, 0), ("Player0", 149, 0, 0)]


@needs_corpus
def test_stars_courchevel_fixture_without_a_board_line() -> None:
    """The synthetic fixture ends on the flop and prints no ``Board`` line: the board is what
    the street lines dealt, the exposed card first."""
    tables = only_hand(parse_path(COURCHEVEL_FIXTURE))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["board"]) == ("Courchevel-HL", cards("8h 9h Th"))
    assert holes(tables)["Player1"] == cards("As 2s 3s 4s 5s")


@needs_corpus
def test_wpn_big_o() -> None:
    """#1471746632: ``5Card Omaha H/L(Pot Limit) - $3.00/$6.00``; won without a showdown,
    ``Total pot $69.68 | Rake $1.42 | JP Fee $0.08``."""
    result = parse_path(WPN_BIG_O)
    assert (result.parsed, result.skipped, result.rejected) == (14, 0, 0)
    tables = frames(result)
    assert set(tables["hands"]["game"]) == {"O8-5card"}
    hand = tables["hands"].filter(pl.col("hand_id") == "1471746632").row(0, named=True)
    assert (hand["big_blind"], hand["total_pot"], hand["rake"]) == (600, 6968, 150)
    assert hand["board"] == cards("8h 3d 8s 9h Ad")
    seats = tables["seats"].filter(pl.col("hand_id") == "1471746632")
    assert dict(seats.select("player", "hole_cards").iter_rows())["Hero"] == cards(
        "Ac Tc Qc Js Qd"
    )
    collections = tables["collections"].filter(pl.col("hand_id") == "1471746632")
    assert collections.select("player", "amount").rows() == [("Player1", 6968)]
    dealt = tables["seats"].filter(pl.col("hole_cards").is_not_null())["hole_cards"]
    assert set(dealt.list.len()) == {5}


@needs_corpus
def test_winamax_big_o_side_pot() -> None:
    """#9247976-232-1478874498: ``5 Card Omaha Hi/Lo pot limit (1€/2€)``; the flush takes the
    main pot (154.50€), Hero's unmatched 84€ comes back as ``side pot 1``; no low."""
    tables = only_hand(parse_path(WINAMAX_BIG_O))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["currency"], hand["total_pot"], hand["rake"]) == (
        "O8-5card",
        "EUR",
        23850,
        150,
    )
    assert hand["board"] == cards("Kh 4c 9c 3c 5s")
    assert holes(tables) == {
        "Player0": cards("Th Ac Tc Td As"),
        "Hero": cards("3h Ah Jc Ts 9s"),
    }
    assert tables["collections"].select("player", "amount", "pot_index").rows() == [
        ("Hero", 8400, 1),
        ("Player0", 15450, 0),
    ]


@needs_corpus
def test_winamax_big_o_header_decides_the_game() -> None:
    """The file name says PLO; the header says ``5 Card Omaha Hi/Lo``: the header is read."""
    tables = only_hand(parse_path(WINAMAX_BIG_O_RAISE_TO))
    assert tables["hands"]["game"].to_list() == ["O8-5card"]
    assert holes(tables)["Player3"] == cards("Kh Ks Ad 4d Jc")


@needs_corpus
def test_kingsclub_big_o_run_twice_with_antes() -> None:
    """#37580598: ``Pot Limit Big O - 11/22``, antes of 22, ``Dealt to Player0: [X X X X X]``,
    run twice; each player's one ``wins (932.50) from pot`` covers both boards."""
    tables = only_hand(parse_path(KINGSCLUB_BIG_O))
    hand = tables["hands"].row(0, named=True)
    assert (hand["game"], hand["ante"], hand["small_blind"], hand["big_blind"], hand["rake"]) == (
        "O8-5card",
        2200,
        1100,
        2200,
        500,
    )
    assert hand["board"] == cards("2h 5s Qd 8c Th")
    assert hand["board2"] == cards("2h 5s Qd 5d 3h")
    known = {player: hole for player, hole in holes(tables).items() if hole is not None}
    assert known == {"Player2": cards("Qh 8h 7d 3d Qc"), "Hero": cards("6h As 2d 2c 9d")}
    assert tables["collections"].select("player", "amount").rows() == [
        ("Player2", 93250),
        ("Hero", 93250),
    ]


@needs_corpus
def test_kingsclub_big_o_quartered() -> None:
    """#37580510: Player1 all in on the flop; Player1 takes the first board's high (222.12),
    Player2 its low and the whole second board (666.36)."""
    tables = only_hand(parse_path(KINGSCLUB_BIG_O_QUARTERED))
    assert tables["hands"]["board2"].to_list() == [cards("2h 7h Td Qd Jd")]
    assert tables["collections"].select("player", "amount").rows() == [
        ("Player1", 22212),
        ("Player2", 66636),
    ]
    assert findings(tables).height == 0


@needs_corpus
def test_pokermaster_six_card() -> None:
    """#201579300118: ``PokerMaster Hand #…:  6 Card Omaha Hi/Lo Pot Limit ($2/$4 USD)``, read
    in PokerStars' forms as its own site; the JSON comment is a note."""
    result = parse_path(POKERMASTER_SIX_CARD)
    tables = only_hand(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["game"], hand["time_zone"], hand["total_pot"], hand["rake"]) == (
        "pokermaster",
        "O8-6card",
        "UTC",
        4200,
        100,
    )
    assert hand["board"] == cards("Qd 6d Jd 3s 3h")
    assert holes(tables) == {
        "Player0": None,
        "Player1": None,
        "Player2": cards("As Ts Tc 9h 6h 5d"),
        "Player3": cards("Kh Kc 9s 7h 4h 3c"),
    }
    assert paid(tables) == [("Player3", 4100, 0, 0)]
    notes = tables["notes"]
    assert notes["kind"].to_list() == [NOTE_CONVERTER_COMMENT]
    assert notes["text"].str.starts_with('# {"gt":"PLO6HL"').to_list() == [True]


def test_pokermaster_is_its_own_site() -> None:
    head = (
        "PokerMaster Hand #1:  6 Card Omaha Hi/Lo Pot Limit ($2/$4 USD)"
        " - 2023/10/03 09:07:54 UTC"
    )
    assert PokerMasterParser().sniff(head)
    assert not PokerStarsParser().sniff(head)
    assert [p.site for p in parsers.PARSERS if p.sniff(head)] == ["pokermaster"]
    assert not PokerMasterParser().sniff(hand_text(1))


# -- synthetic hands ---------------------------------------------------------------------------

COURCHEVEL_PREFLOP = """PokerStars Hand #500: Courchevel Hi/Lo Pot Limit ($0.05/$0.10 USD) - 2017/05/27 18:14:16 ET
Table 'Alpha' 6-max Seat #1 is the button
Seat 1: Alice ($10 in chips)
Seat 2: Bob ($10 in chips)
Alice: posts small blind $0.05
Bob: posts big blind $0.10
*** HOLE CARDS ***
Dealt to Alice [As 2s 3s 4s 5s]
*** PRE-FLOP *** [8h]
Alice: raises $0.20 to $0.30
Bob: folds
Uncalled bet ($0.20) returned to Alice
Alice collected $0.20 from pot
*** SUMMARY ***
Total pot $0.20 | Rake $0
Seat 1: Alice (button) (small blind) collected ($0.20)
Seat 2: Bob (big blind) folded before Flop
"""

BIG_O_SHOWDOWN = """PokerStars Hand #600:  5 Card Omaha Hi/Lo Pot Limit ($0.05/$0.10 USD) - 2020/01/01 10:00:00 ET
Table 'Beta' 6-max Seat #1 is the button
Seat 1: Alice ($10 in chips)
Seat 2: Bob ($10 in chips)
Alice: posts small blind $0.05
Bob: posts big blind $0.10
*** HOLE CARDS ***
Dealt to Alice [As 2s 3s 4s 5s]
Alice: calls $0.05
Bob: checks
*** FLOP *** [8h 9h Th]
Bob: checks
Alice: checks
*** TURN *** [8h 9h Th] [Jc]
Bob: checks
Alice: checks
*** RIVER *** [8h 9h Th Jc] [2d]
Bob: checks
Alice: checks
*** SHOW DOWN ***
Alice: shows [As 2s 3s 4s 5s]
Bob: shows [Qh Kh Ac Kd 7c]
Bob collected $0.10 from pot
Alice collected $0.10 from pot
*** SUMMARY ***
Total pot $0.20 | Rake $0
Board [8h 9h Th Jc 2d]
Seat 1: Alice (button) (small blind) showed [As 2s 3s 4s 5s] and won ($0.10)
Seat 2: Bob (big blind) showed [Qh Kh Ac Kd 7c] and won ($0.10)
"""


def test_courchevel_ended_before_the_flop_has_the_exposed_card_for_board() -> None:
    tables = only_hand(parse_text(COURCHEVEL_PREFLOP))
    assert tables["hands"].select("game", "board").row(0) == ("Courchevel-HL", cards("8h"))
    # The same with a summary Board line of that card.
    with_board = COURCHEVEL_PREFLOP.replace(
        "Seat 1: Alice (button)", "Board [8h]\nSeat 1: Alice (button)"
    )
    assert only_hand(parse_text(with_board))["hands"]["board"].to_list() == [cards("8h")]
    # Raked although the flop never came: the exposed card is no flop.
    raked = COURCHEVEL_PREFLOP.replace("Rake $0", "Rake $0.01").replace(
        "collected $0.20 from pot", "collected $0.19 from pot"
    ).replace("collected ($0.20)", "collected ($0.19)")
    kinds = findings(only_hand(parse_text(raked)))["kind"].to_list()
    assert "rake" in kinds


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (("*** PRE-FLOP *** [8h]\n", ""), "missing or unreadable exposed board card"),
        (("*** PRE-FLOP *** [8h]", "*** PRE-FLOP *** [8h 9h]"), "missing or unreadable exposed"),
        (("*** PRE-FLOP *** [8h]", "*** PRE-FLOP *** [Xx]"), "unreadable board card"),
        (
            ("Seat 1: Alice (button)", "Board [9h]\nSeat 1: Alice (button)"),
            "the exposed card is not the board's first card",
        ),
    ],
)
def test_a_damaged_exposed_card_quarantines_the_hand(edit: tuple[str, str], reason: str) -> None:
    result = parse_text(COURCHEVEL_PREFLOP.replace(*edit))
    assert (result.parsed, result.rejected) == (0, 1)
    assert frames(result)["rejects"]["reason"][0].startswith(reason)


def test_big_o_needs_five_cards() -> None:
    tables = only_hand(parse_text(BIG_O_SHOWDOWN))
    assert tables["hands"]["game"].to_list() == ["O8-5card"]
    assert holes(tables) == {"Alice": cards("As 2s 3s 4s 5s"), "Bob": cards("Qh Kh Ac Kd 7c")}
    four = parse_text(BIG_O_SHOWDOWN.replace("Alice [As 2s 3s 4s 5s]", "Alice [As 2s 3s 4s]"))
    assert frames(four)["rejects"]["reason"].to_list() == [not_the_games_cards(5)]
    six = parse_text(BIG_O_SHOWDOWN.replace("[Qh Kh Ac Kd 7c]", "[Qh Kh Ac Kd 7c 6c]"))
    assert frames(six)["rejects"]["reason"].to_list() == [not_the_games_cards(5)]


def test_big_o_show_of_four_cards_is_partial() -> None:
    """Four cards shown of five: the show is part of a hand (the hole cards stay unknown)."""
    text = BIG_O_SHOWDOWN.replace("[Qh Kh Ac Kd 7c]", "[Qh Kh Ac Kd]")
    tables = only_hand(parse_text(text))
    assert holes(tables)["Bob"] is None
    assert tables["showdowns"].filter(pl.col("player") == "Bob")["cards"].to_list() == [
        cards("Qh Kh Ac Kd")
    ]


def six_card_text() -> str:
    return (
        BIG_O_SHOWDOWN.replace("#600:  5 Card", "#700:  6 Card")
        .replace("[As 2s 3s 4s 5s]", "[As 2s 3s 4s 5s 6s]")
        .replace("[Qh Kh Ac Kd 7c]", "[Qh Kh Ac Kd 7c 7d]")
    )


def test_a_mixed_file_keeps_each_hands_game() -> None:
    """Omaha Hi/Lo, Big O, Courchevel, 6-card and Hold'em hands in one file: the first four
    read, each with its game; Hold'em skipped; the compiled reader takes the Omaha Hi/Lo hands
    and gives the block parser's tables."""
    def omaha(hand_id: int) -> str:  # a hand the compiled reader reads (no name holding ": ")
        return hand_text(hand_id).replace('Bob "the: Builder"', "Bob")

    holdem = omaha(9).replace("Omaha Hi/Lo", "Hold'em")
    hands = [omaha(1), BIG_O_SHOWDOWN, COURCHEVEL_PREFLOP, six_card_text(), holdem, omaha(2)]
    text = "\n\n".join(hands)
    result = parse_text(text)
    assert (result.parsed, result.skipped, result.rejected) == (5, 1, 0)
    games = dict(frames(result)["hands"].select("hand_id", "game").iter_rows())
    assert games == {
        "1": "O8",
        "600": "O8-5card",
        "500": "Courchevel-HL",
        "700": "O8-6card",
        "2": "O8",
    }
    seats = frames(result)["seats"].filter(pl.col("hand_id") == "700")
    assert seats["hole_cards"].list.len().to_list() == [6, 6]
    # The compiled reader reads the Omaha Hi/Lo hands (and Hold'em's four-card lines, which its
    # header then skips); every hand of another game hilo reads is the block parser's.
    assert assert_same_as_block_parser(text.encode()) == 3


def test_variant_headers_the_site_cannot_read_are_rejected_not_skipped() -> None:
    """A header naming a Hi/Lo game hilo reads is damaged when its site's pattern fails; one
    naming 5-card Omaha high is another game."""
    broken = BIG_O_SHOWDOWN.replace("($0.05/$0.10 USD)", "($0.05/ USD)")
    assert (parse_text(broken).skipped, parse_text(broken).rejected) == (0, 1)
    high = BIG_O_SHOWDOWN.replace("5 Card Omaha Hi/Lo", "5 Card Omaha")
    assert (parse_text(high).parsed, parse_text(high).skipped) == (0, 1)


def test_the_corpus_paths_exist_when_the_corpus_does() -> None:
    if not (CORPUS / "MANIFEST.tsv").is_file():
        pytest.skip("no corpus")
    for path in (STARS_BIG_O, COURCHEVEL_CASH, WPN_BIG_O, KINGSCLUB_BIG_O, POKERMASTER_SIX_CARD):
        assert Path(CORPUS / path).is_file(), path
