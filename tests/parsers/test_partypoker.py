"""PartyPoker parser: corpus conformance, a golden hand, the audit, and damaged input.

Golden values were read off the hand text by hand (amounts in cents or chips). The helpers at
the top (corpus rows, parsing, audit with the site's profile, inferred rake and silent returns)
are shared with the Full Tilt, 888 and Everleaf tests.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import UTC, datetime

import polars as pl
import pytest

import parsers
from parsers.base import ParseResult, SiteParser
from parsers.partypoker import PartyPokerParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.parsers.corpus import cards, chip_ledger, frames, variant_counts
from tests.shared_data import CORPUS, needs_corpus

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
MONEY_IN = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")


# -- shared helpers ----------------------------------------------------------------------------


def manifest_rows(folder: str) -> list[dict[str, str]]:
    """Hand-history rows of MANIFEST.tsv under ``folder`` (empty without the corpus)."""
    if not (CORPUS / "MANIFEST.tsv").exists():
        return []
    with open(CORPUS / "MANIFEST.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [
        row
        for row in rows
        if row["role"].startswith("hand_history") and row["path"].startswith(folder + "/")
    ]


def parse_data(parser: SiteParser, data: bytes, name: str = "test.txt") -> ParseResult:
    decoded = decode_lines(data)
    assert parser.sniff("\n".join(decoded.lines.head(20).to_list())), "parser does not claim it"
    return parser.parse(decoded.lines, decoded.offsets, name)


def parse_path(parser: SiteParser, relative: str) -> ParseResult:
    path = CORPUS / relative
    return parse_data(parser, path.read_bytes(), str(path))


def corpus_tables(parser: SiteParser, folder: str) -> dict[str, pl.DataFrame]:
    """Every parsed hand of a site's corpus files, tables concatenated."""
    parts = [frames(parse_path(parser, row["path"])) for row in manifest_rows(folder)]
    return {name: pl.concat([part[name] for part in parts]) for name in TABLES}


def rejects(result: ParseResult) -> list[tuple[str | None, str]]:
    return frames(result)["rejects"].select("hand_id", "reason").rows()


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Make the audit find this module's parsers' declared profiles, registered or not yet."""
    from parsers.everleaf import EverleafParser
    from parsers.fulltilt import FullTiltParser
    from parsers.pacific import PacificParser

    mine = (PartyPokerParser(), FullTiltParser(), PacificParser(), EverleafParser())
    sites = {parser.site for parser in mine}
    others = tuple(parser for parser in parsers.PARSERS if parser.site not in sites)
    monkeypatch.setattr(parsers, "PARSERS", others + mine)
    yield


def audit(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    return audit_tables(*(tables[name] for name in TABLES)).discrepancies


def payout_findings(found: pl.DataFrame) -> pl.DataFrame:
    return found.filter(pl.col("kind").is_in(list(PAYOUT_KINDS)))


def contributions(actions: pl.DataFrame) -> pl.DataFrame:
    """Chips each player put in, less explicit returns (hand_id, player, put)."""
    signed = (
        pl.when(pl.col("kind").is_in(list(MONEY_IN)))
        .then(pl.col("amount"))
        .when(pl.col("kind") == "uncalled_return")
        .then(-pl.col("amount"))
        .otherwise(0)
    )
    return actions.group_by("hand_id", "player").agg(put=signed.sum())


def with_silent_returns(tables: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """The top contributor's excess over the second-highest contribution comes back to them, as
    an ``uncalled_return`` (the site's uncalled bet was silent)."""
    actions = tables["actions"]
    put = contributions(actions).sort("hand_id", "put", descending=[False, True])
    excess = (
        put.group_by("hand_id", maintain_order=True)
        .agg(
            player=pl.col("player").first(),
            top=pl.col("put").first(),
            second=pl.col("put").get(1, null_on_oob=True).fill_null(0),
        )
        .filter(pl.col("top") > pl.col("second"))
    )
    last = actions.group_by("hand_id").agg(
        seq=pl.col("seq").max() + 1, street=pl.col("street").max()
    )
    returns = excess.join(last, on="hand_id").select(
        site=pl.lit(actions["site"][0]),
        hand_id="hand_id",
        seq=pl.col("seq").cast(pl.Int32),
        street="street",
        player="player",
        kind=pl.lit("uncalled_return"),
        amount=pl.col("top") - pl.col("second"),
        to_amount=pl.lit(None, dtype=pl.Int64),
        is_all_in=pl.lit(False),
    )
    actions = pl.concat([actions, returns.select(actions.columns)], how="vertical_relaxed")
    return {**tables, "actions": actions}


def implied_rake(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Chips put in (less returns) minus chips collected, per hand (hand_id, tournament_id, rake)."""
    put = contributions(tables["actions"]).group_by("hand_id").agg(put=pl.col("put").sum())
    paid = tables["collections"].group_by("hand_id").agg(paid=pl.col("amount").sum())
    return (
        tables["hands"]
        .select("hand_id", "tournament_id")
        .join(put, on="hand_id", how="left")
        .join(paid, on="hand_id", how="left")
        .select("hand_id", "tournament_id", "put", rake=pl.col("put") - pl.col("paid").fill_null(0))
    )


# -- conformance -------------------------------------------------------------------------------

PARTY = PartyPokerParser()
FATAL = "PartyPoker/cash/PLO8-6max-USD-1.00-2.00-201601.preamble.fatal.txt"


@needs_corpus
@pytest.mark.parametrize("row", manifest_rows("PartyPoker"), ids=lambda row: row["path"])
def test_corpus_file_counts(row: dict[str, str]) -> None:
    """O8 hands parse, other games are skipped; only the known-bad file is quarantined."""
    result = parse_path(PARTY, row["path"])
    counts = variant_counts(row["variants"])
    assert result.hands_found == int(row["hands"])
    assert result.skipped == int(row["hands"]) - counts.get("O8", 0)  # other games
    if row["path"] == FATAL:
        assert (result.parsed, result.rejected) == (0, 1)
    else:
        assert result.rejected == 0, rejects(result)
        assert result.parsed == counts.get("O8", 0)


@needs_corpus
def test_known_bad_file_actors_not_seated() -> None:
    """preamble.fatal: "holdem_AA folds" / "playclever99 folds", neither in the seat list."""
    result = parse_path(PARTY, FATAL)
    assert rejects(result) == [("14978808642", "player not seated: holdem_AA")]
    stored = frames(result)["rejects"].row(0, named=True)
    assert stored["raw_text"].startswith("***** Hand History for Game 14978808642 *****")
    assert stored["source_offset"] == 0


# -- golden hand -------------------------------------------------------------------------------


@needs_corpus
def test_golden_tournament_split_pot() -> None:
    """#13387439135: 9 players, chat inside the action, high 640 / "Lo (640 chips)"."""
    tables = frames(parse_path(PARTY, "PartyPoker/tour/PLO8-10max-USD-20-2-201310.chat.fix.txt"))
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "13387439135" and hand["site"] == "partypoker"
    assert (hand["tournament_id"], hand["level"], hand["buy_in"]) == ("105411156", "2", "$22 USD")
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("PL", "CHIPS", 1)
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"], hand["ante"]) == (
        20,
        40,
        None,
        None,
    )
    assert hand["table_name"] == "$1,000 Gtd (105411156) Table #2"
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (10, 6, 9)
    assert hand["board"] == cards("Qc 3s Ks 5s 6h")
    assert (hand["total_pot"], hand["rake"]) == (None, None)
    # "16:04:15 EDT 2013" (UTC-4).
    assert hand["started_at"] == datetime(2013, 10, 31, 20, 4, 15, tzinfo=UTC)
    assert hand["time_zone"] == "EDT"

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start").rows() == [
        (1, "Player3", 4249),
        (2, "Player0", 2910),
        (3, "Player4", 2910),
        (4, "Player1", 2330),
        (5, "Player2", 8422),
        (6, "Hero", 4445),
        (7, "Player5", 3050),
        (8, "Player6", 1967),
        (9, "Player7", 2840),
    ]
    hero = seats.filter(pl.col("player") == "Hero").row(0, named=True)
    assert hero["hole_cards"] == cards("Ac 2c 5d 5c") and hero["is_hero"]
    assert hero["position"] == "BTN"
    player2 = seats.filter(pl.col("player") == "Player2").row(0, named=True)
    assert player2["hole_cards"] == cards("2d Jd Qs Ah") and not player2["is_hero"]

    actions = (
        tables["actions"]
        .sort("seq")
        .select("player", "street", "kind", "amount", "to_amount", "is_all_in")
    )
    assert actions.rows() == [
        ("Player5", 0, "post_sb", 20, 20, False),
        ("Player6", 0, "post_bb", 40, 40, False),
        ("Player7", 0, "fold", None, 0, False),
        ("Player3", 0, "fold", None, 0, False),
        ("Player0", 0, "fold", None, 0, False),
        ("Player4", 0, "fold", None, 0, False),
        ("Player1", 0, "fold", None, 0, False),
        ("Player2", 0, "raise", 80, 80, False),  # "raises [80]": an increment
        ("Hero", 0, "call", 80, 80, False),
        ("Player5", 0, "call", 60, 80, False),  # "calls [60]" from the 20 small blind
        ("Player6", 0, "call", 40, 80, False),
        ("Player5", 1, "check", None, 0, False),
        ("Player6", 1, "check", None, 0, False),
        ("Player2", 1, "bet", 160, 160, False),
        ("Hero", 1, "fold", None, 0, False),
        ("Player5", 1, "fold", None, 0, False),
        ("Player6", 1, "call", 160, 160, False),
        ("Player6", 2, "check", None, 0, False),
        ("Player2", 2, "check", None, 0, False),
        ("Player6", 3, "check", None, 0, False),
        ("Player2", 3, "bet", 320, 320, False),
        ("Player6", 3, "call", 320, 320, False),
        ("Player2", 3, "show", None, None, False),
        ("Player6", 3, "show", None, None, False),
    ]
    collections = tables["collections"].sort("seq")
    assert collections.select("player", "amount", "pot_index", "half").rows() == [
        ("Player6", 640, 0, "high"),
        ("Player2", 640, 0, "low"),
    ]
    assert tables["showdowns"].select("player", "cards", "high_desc", "low_desc").rows() == [
        ("Player2", cards("2d Jd Qs Ah"), "a pair of Queens", "6,5,3,2,A"),
        ("Player6", cards("9s Kh 4h Ts"), "a flush, King high", None),
    ]


@needs_corpus
def test_golden_cash_fixed_limit_uncalled_bet_in_the_win() -> None:
    """#11354414824: four bets preflop heads-up; "wins $239 USD" includes the $40 turn bet."""
    tables = frames(parse_path(PARTY, "PartyPoker/cash/LO8-USD-20-40.201201.limit3format.txt"))
    hand = tables["hands"].row(0, named=True)
    assert (hand["currency"], hand["money_scale"], hand["limit_type"]) == ("USD", 100, "FL")
    assert (hand["small_bet"], hand["big_bet"]) == (2000, 4000)
    assert (hand["small_blind"], hand["big_blind"]) == (1000, 2000)  # from the posts
    assert hand["started_at"] == datetime(2012, 1, 26, 23, 13, 53, tzinfo=UTC)
    assert hand["board"] == cards("Qh Kd 6d Qs")
    preflop = tables["actions"].filter(pl.col("street") == 0).sort("seq")
    assert preflop.select("player", "kind", "amount", "to_amount").rows() == [
        ("Player1", "post_sb", 1000, 1000),
        ("Player0", "post_bb", 2000, 2000),
        ("Player1", "raise", 3000, 4000),
        ("Player0", "raise", 4000, 6000),
        ("Player1", "raise", 4000, 8000),
        ("Player0", "call", 2000, 8000),
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player1", 23900, None, None)
    ]


# -- chip balance and audit --------------------------------------------------------------------


@needs_corpus
def test_chip_balance_leaves_a_plausible_unprinted_rake() -> None:
    """Before 2023 no total or rake is printed: Σ put in − Σ collected is the rake, 0 in
    tournaments and at most 5 % of the pot in cash (the uncalled bet is inside the won amount).
    The 2023 layout prints its rake, and the chips left over are exactly that rake."""
    tables = corpus_tables(PARTY, "PartyPoker")
    implied = implied_rake(tables)
    assert implied.filter(pl.col("tournament_id").is_not_null())["rake"].to_list() == [0]
    cash = implied.filter(pl.col("tournament_id").is_null()).sort("hand_id")
    assert cash.rows() == [
        ("11354414824", None, 24000, 100),  # $240 in, $239 paid
        ("1676832422659jxi26omnah", None, 234, 11),  # $2.34 in, $2.23 paid, "Rake: $0.11"
    ]
    printed = tables["hands"].filter(pl.col("rake").is_not_null()).select("hand_id", "rake")
    assert printed.rows() == [("1676832422659jxi26omnah", 11)]


@needs_corpus
@pytest.mark.usefixtures("registered")
def test_audit_infers_the_unprinted_rake() -> None:
    tables = corpus_tables(PARTY, "PartyPoker")
    findings = audit(tables)
    # The site prints no rake: the audit infers it (profile: rake_printed False). Player1
    # "wins $239 USD" of $240 put in: the $1 is the rake, and the uncalled $40 is inside the
    # amount won (uncalled_printed True). The 2023 hand prints its rake ($0.11), and Player1's
    # "collected $2.23" is both halves (a pair of aces; 6-5-4-3-A beats 7-6-4-3-A): 112 + 111.
    assert payout_findings(findings).height == 0


# -- damaged input -----------------------------------------------------------------------------

HAND = """Game #{hand_id} starts.

#Game No : {hand_id}
***** Hand History for Game {hand_id} *****
$1/$2 USD FL Omaha Hi-Lo - Thursday, January 26, 18:13:53 EST 2012
Table Test (Real Money)
Seat 2 is the button
Total number of players : 3/6
Seat 1: Alice ( $20 USD )
Seat 2: Bob Jr ( $20 USD )
Seat 3: Carol ( $20 USD )
Alice posts small blind [$0.50 USD].
Carol posts big blind [$1 USD].
** Dealing down cards **
Dealt to Alice [  {alice} ]
Bob Jr calls [$1 USD]
Carol: hi all
Alice calls [$0.50 USD]
Carol checks
** Dealing Flop ** [ 2c, 3d, 4h ]
Alice bets [$1 USD]
Bob Jr folds
Carol folds
Alice does not show cards.
Alice wins $3.85 USD
"""


def hand_text(hand_id: int, alice: str = "As Ks Qs Js") -> str:
    return HAND.format(hand_id=hand_id, alice=alice)


def parse_text(text: str | bytes) -> ParseResult:
    return parse_data(PARTY, text.encode() if isinstance(text, str) else text)


def test_synthetic_hands_and_the_next_games_start_line() -> None:
    result = parse_text(hand_text(1) + hand_text(2) + "Game #3 starts.\n")
    assert (result.hands_found, result.parsed, result.rejected) == (2, 2, 0)
    tables = frames(result)
    # "does not show cards" by the uncontested winner is not a muck.
    assert "muck" not in tables["actions"]["kind"].to_list()
    assert tables["seats"].filter(pl.col("is_hero"))["player"].to_list() == ["Alice", "Alice"]


def test_truncated_hand_is_quarantined_and_the_rest_parsed() -> None:
    cut = hand_text(2).split("** Dealing Flop **")[0]
    result = parse_text(hand_text(1) + cut + hand_text(3))
    assert (result.hands_found, result.parsed, result.rejected) == (3, 2, 1)
    assert rejects(result) == [("2", "truncated hand: no payout line")]


def test_garbage_line_and_impossible_cards() -> None:
    garbage = hand_text(2).replace("Bob Jr folds", "\x13garbage ~~\nBob Jr folds")
    duplicate = hand_text(3, alice="As As Qs Js")
    result = parse_text(hand_text(1) + garbage + duplicate)
    assert result.parsed == 1
    assert dict(rejects(result)) == {
        "2": "unrecognised line: \x13garbage ~~",
        "3": "duplicate card code 51",
    }
    stored = frames(result)["rejects"].filter(pl.col("hand_id") == "2").row(0, named=True)
    data = (hand_text(1) + garbage).encode()
    assert data[stored["source_offset"] :].startswith(b"#Game No : 2")


def test_text_before_the_first_hand_and_other_games() -> None:
    holdem = hand_text(2).replace("FL Omaha Hi-Lo", "NL Texas Hold'em")
    result = parse_text("exported by some tool\n" + hand_text(1) + holdem)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (3, 1, 1, 1)
    assert result.skipped_games == {"Texas Hold'em": 1}
    assert rejects(result) == [(None, "text before the first hand header")]


# -- a small blind folding to a big blind all-in for less -----------------------------------------

SHORT_BIG_BLIND = """#Game No : 70000000001
***** Hand History for Game 70000000001 *****
NL Omaha Hi-Lo $3.50 USD Buy-in Trny: 450021018 Level: 8  Blinds-Antes(200/400 -50) - Tuesday, July 26, 20:48:54 EDT 2011
Table Sit & Go (450021018) Table #1 (Real Money)
Seat 5 is the button
Total number of players : 2/9
Seat 5: Bob ( 13,454 )
Seat 6: Cleo ( 46 )
Bob posts ante [50]
Cleo posts ante [46]
Bob posts small blind [200].
** Dealing down cards **
Dealt to Bob [  2c 6c 9s 9h ]
Bob folds
Cleo does not show cards.
Cleo wins 96 chips
"""

SHORT_CASH_BIG_BLIND = """#Game No : 70000000002
***** Hand History for Game 70000000002 *****
$2 USD PL Omaha Hi-Lo - Saturday, April 23, 16:02:43 EDT 2011
Table Ymir (Real Money)
Seat 7 is the button
Total number of players : 3/6
Seat 1: Dora ( $0.01 USD )
Seat 3: Eve ( $8.77 USD )
Seat 7: Finn ( $3.78 USD )
Eve posts small blind [$0.01 USD].
Dora posts big blind [$0.01 USD].
** Dealing down cards **
Dealt to Eve [  Ks 6c 4c 7d ]
Finn raises [$0.06 USD]
Eve folds
Finn does not show cards.
Finn wins $0.07 USD
"""


def test_folded_small_blind_gets_its_unmatched_bet_back(registered: None) -> None:
    """Bob's 200 small blind faced Cleo's all-in on the ante: nobody could win the 200, so it
    goes back (Party prints no return); his 4 extra ante chips are dead money Cleo wins:
    50 + 46 = 96."""
    result = parse_text(SHORT_BIG_BLIND)
    assert result.rejected == 0
    tables = frames(result)
    returned = tables["actions"].filter(pl.col("kind") == "uncalled_return")
    assert returned.select("player", "amount").rows() == [("Bob", 200)]
    assert contributions(tables["actions"]).sort("player").rows() == [
        ("70000000001", "Bob", 50),
        ("70000000001", "Cleo", 46),
    ]
    assert audit(tables).height == 0


def test_big_blind_posted_all_in_for_less_is_not_the_tables_blind(registered: None) -> None:
    """Dora's whole stack ($0.01) is her big blind: the table's big blind is read from the
    "$2 USD PL" buy-in label (100 big blinds), $0.02, so Finn's raise to $0.06 is in the limit."""
    tables = frames(parse_text(SHORT_CASH_BIG_BLIND))
    hand = tables["hands"].row(0, named=True)
    assert (hand["small_blind"], hand["big_blind"]) == (1, 2)
    assert audit(tables).filter(pl.col("kind") == "pot_limit").height == 0


# -- the 2023 layout ------------------------------------------------------------------------------

LAYOUT_2023 = "PartyPoker/cash/LO8-6max-USD-0.05-0.10-202302.forward.slash.txt"


@needs_corpus
def test_golden_2023_layout() -> None:
    """#1676832422659jxi26omnah: no currency in the header, "raises 0.35 to 0.40", the payout
    only in the summary ("collected $2.23"), "Main Pot: $2.23 Rake: $0.11" net of the rake."""
    result = parse_path(PARTY, LAYOUT_2023)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "1676832422659jxi26omnah" and hand["site"] == "partypoker"
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("PL", "USD", 100)
    assert (hand["small_blind"], hand["big_blind"], hand["small_bet"], hand["ante"]) == (
        5,
        10,
        None,
        None,
    )
    assert (hand["table_name"], hand["max_seats"], hand["button_seat"]) == ("Fremont 14", 6, 1)
    assert hand["players_dealt"] == 6 and hand["tournament_id"] is None
    # "Sun Feb 19 13:45:49 EST 2023" (UTC-5).
    assert hand["started_at"] == datetime(2023, 2, 19, 18, 45, 49, tzinfo=UTC)
    assert hand["time_zone"] == "EST"
    assert hand["board"] == cards("6h Kc 3h As 8h")
    # As printed: the main pot net of the rake, one pot.
    assert (hand["total_pot"], hand["rake"], hand["side_pots"]) == (223, 11, None)

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "sitting_out").rows() == [
        (1, "Player6", 499, False),
        (2, "Player1", 1365, False),
        (3, "Player2", 2008, False),
        (4, "Hero", 2197, False),
        (5, "Player4", 1512, False),
        (6, "Player5", 1056, False),
    ]
    cards_of = dict(seats.select("player", "hole_cards").rows())
    assert cards_of["Hero"] == cards("Kh 6d 4d 9d")
    assert cards_of["Player1"] == cards("Ad 5c 4s Th")  # shown on the summary line
    assert cards_of["Player2"] == cards("4h 7s Kd 4c")
    assert seats.filter(pl.col("is_hero"))["player"].to_list() == ["Hero"]
    assert dict(seats.select("player", "position").rows())["Player6"] == "BTN"

    actions = tables["actions"].sort("seq")
    assert actions.select("player", "street", "kind", "amount", "to_amount").rows() == [
        ("Player1", 0, "post_sb", 5, 5),
        ("Player2", 0, "post_bb", 10, 10),
        ("Hero", 0, "fold", None, 0),
        ("Player4", 0, "fold", None, 0),
        ("Player5", 0, "fold", None, 0),
        ("Player6", 0, "call", 10, 10),
        ("Player1", 0, "raise", 35, 40),  # "raises 0.35 to 0.40": 35 added to the 5 posted
        ("Player2", 0, "call", 30, 40),  # "calls (0.30)": an increment
        ("Player6", 0, "call", 30, 40),
        ("Player1", 1, "check", None, 0),
        ("Player2", 1, "check", None, 0),
        ("Player6", 1, "check", None, 0),
        ("Player1", 2, "bet", 57, 57),
        ("Player2", 2, "call", 57, 57),
        ("Player6", 2, "fold", None, 0),
        ("Player1", 3, "check", None, 0),
        ("Player2", 3, "check", None, 0),
        ("Player1", 3, "show", None, None),
        ("Player2", 3, "show", None, None),
    ]
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player1", 223, None, None)  # one total per player: no pot or half named
    ]
    assert tables["showdowns"].select("player", "cards", "high_desc", "low_desc").rows() == [
        ("Player1", cards("Ad 5c 4s Th"), "a pair of aces", None),
        ("Player2", cards("4h 7s Kd 4c"), "a pair of kings", None),
    ]
    # Σ put in = Σ collected + rake: 5+35+57 (Player1) + 10+30+57 (Player2) + 10+30 (Player6)
    # = 234 = 223 + 11; and every summary balance = stack − put in + collected.
    assert chip_ledger(tables).select("put", "returned", "collected", "rake").row(0) == (
        234,
        0,
        223,
        11,
    )
    put = dict(contributions(tables["actions"]).select("player", "put").rows())
    assert (put["Player1"], put["Player2"], put["Player6"], put["Hero"]) == (97, 97, 40, 0)
    assert 1365 - put["Player1"] + 223 == 1491  # "Player1 balance $14.91"
    assert 2008 - put["Player2"] == 1911  # "Player2 balance $19.11, lost $0.97"
    assert tables["notes"].height == 0


SPLIT_2023 = """***** Hand History For Game 1689465907000qa7test1split *****
0.05/0.10 Omaha Hi/Lo Game Table (PL) - Sat Jul 15 20:05:07 EDT 2023
Table Testing 7 (Real Money) -- Seat 5 is the button
Total number of players : 4/6
Seat 1: Alice ($10)
Seat 2: Bob Jr ($8.50)
Seat 4: Carol ($12.34)
Seat 5: Dave ($5.00)
Alice posts small blind (0.05)
Bob Jr posts big blind (0.10)
** Dealing down cards **
Dealt to Carol [ Ah, 2c, 9s, Kd ]
Carol raises 0.30 to 0.30 
Dave calls (0.30) 
Alice folds 
Bob Jr raises 0.90 to 1.00 
Carol calls (0.70) 
Dave calls (0.70) 
** Dealing Flop ** :  [ 3h, 7d, Kc ]
Bob Jr checks 
Carol checks 
Dave bets (1.50) 
Bob Jr folds 
Carol calls (1.50) 
** Dealing Turn ** :  [ 5s ]
Carol checks 
Dave checks 
** Dealing River ** :  [ Qd ]
Carol checks 
Dave bets (2.50) 
Dave is all-In.
Carol calls (2.50) 
Creating Main Pot with $ 10.50 with Dave, Carol
** Summary **
Main Pot: $10.50 Rake: $0.55
Board: [ 3h, 7d, Kc, 5s, Qd ]
Alice balance $9.95, lost $0.05 (folded)
Bob Jr balance $7.50, lost $1 (folded)
Carol balance $12.59, bet $5, collected $5.25, net +$0.25[ Ah, 2c, 9s, Kd ] [ a pair of kings -- Kd,Kc,Ah,Qd,7d ]
Dave balance $5.25, bet $5, collected $5.25, net +$0.25[ Qs, Qh, Jc, Tc ] [ three of a kind, queens -- Qs,Qh,Qd,Kc,7d ]

"""

# Alice's $0.50 flop bet is not called: "collected $1.21" is the $0.71 pot plus that bet, and
# the printed pot leaves it out. Erin sits out.
UNCALLED_2023 = """***** Hand History For Game 1689466000000qa7test2uncal *****
0.05/0.10 Omaha Hi/Lo Game Table (PL) - Sat Jul 15 20:06:40 EDT 2023
Table Testing 7 (Real Money) -- Seat 1 is the button
Total number of players : 5/6
Seat 1: Alice ($9.95)
Seat 2: Bob Jr ($7.50)
Seat 4: Carol ($12.59)
Seat 5: Dave ($5.25)
Seat 6: Erin ($3)
Bob Jr posts small blind (0.05)
Carol posts big blind (0.10)
** Dealing down cards **
Dealt to Carol [ 8h, 8s, 4c, 3c ]
Dave folds 
Alice raises 0.35 to 0.35 
Bob Jr folds 
Carol calls (0.25) 
** Dealing Flop ** :  [ Jh, Td, 2s ]
Carol checks 
Alice bets (0.50) 
Carol folds 
** Summary **
Main Pot: $0.71 Rake: $0.04
Board: [ Jh, Td, 2s ]
Alice balance $10.31, bet $0.85, collected $1.21, net +$0.36
Bob Jr balance $7.45, lost $0.05 (folded)
Carol balance $12.24, lost $0.35 (folded)
Dave balance $5.25, didn't bet (folded)
Erin balance $3, sits out
"""


def test_2023_layout_hi_lo_split_between_two_players(registered: None) -> None:
    """Dave's three queens take the high half, Carol's 7-5-3-2-A the low: $11.05 put in, $0.55
    rake, $10.50 split $5.25 / $5.25 on two summary "collected" lines."""
    result = parse_text(SPLIT_2023)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0), rejects(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "1689465907000qa7test1split"
    # "Sat Jul 15 20:05:07 EDT 2023" is already the 16th in UTC.
    assert hand["started_at"] == datetime(2023, 7, 16, 0, 5, 7, tzinfo=UTC)
    assert (hand["button_seat"], hand["players_dealt"], hand["total_pot"], hand["rake"]) == (
        5,
        4,
        1050,
        55,
    )
    assert hand["board"] == cards("3h 7d Kc 5s Qd")
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Carol", 525, None, None),
        ("Dave", 525, None, None),
    ]
    assert tables["showdowns"].select("player", "high_desc").rows() == [
        ("Carol", "a pair of kings"),
        ("Dave", "three of a kind, queens"),
    ]
    actions = tables["actions"].sort("seq")
    bob = actions.filter(pl.col("player") == "Bob Jr").select("kind", "amount", "to_amount")
    assert bob.rows()[:2] == [("post_bb", 10, 10), ("raise", 90, 100)]  # "raises 0.90 to 1.00"
    all_in = actions.filter(pl.col("is_all_in")).select("player", "street", "kind", "amount")
    assert all_in.rows() == [("Dave", 3, "bet", 250)]  # "Dave is all-In." marks his bet
    assert chip_ledger(tables).select("put", "collected", "rake").row(0) == (1105, 1050, 55)
    # The audit splits the pot as the site did: high to Dave, low to Carol.
    report = audit_tables(*(tables[name] for name in TABLES))
    assert report.payouts.sort("half").select("player", "half", "amount").rows() == [
        ("Dave", "high", 525),
        ("Carol", "low", 525),
    ]
    assert payout_findings(report.discrepancies).height == 0


def test_2023_layout_uncalled_bet_inside_collected_and_a_seat_sitting_out() -> None:
    result = parse_text(UNCALLED_2023)
    assert (result.parsed, result.rejected) == (1, 0), rejects(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["total_pot"], hand["rake"], hand["players_dealt"]) == (71, 4, 4)
    assert tables["collections"].select("player", "amount").rows() == [("Alice", 121)]
    # 125 put in (Alice 35 + 50, Bob Jr 5, Carol 35) = 121 collected + 4 rake.
    assert chip_ledger(tables).select("put", "returned", "collected", "rake").row(0) == (
        125,
        0,
        121,
        4,
    )
    erin = tables["seats"].filter(pl.col("player") == "Erin").row(0, named=True)
    assert erin["sitting_out"] and erin["position"] is None
    assert "muck" not in tables["actions"]["kind"].to_list()


def test_2023_layout_next_to_the_older_layout_in_one_file() -> None:
    alone = frames(parse_text(hand_text(1)))
    result = parse_text(hand_text(1) + SPLIT_2023 + UNCALLED_2023)
    assert (result.hands_found, result.parsed, result.rejected) == (3, 3, 0), rejects(result)
    mixed = frames(result)
    for name in TABLES:
        assert mixed[name].filter(pl.col("hand_id") == "1").equals(alone[name]), name
    assert mixed["hands"]["hand_id"].to_list() == [
        "1",
        "1689465907000qa7test1split",
        "1689466000000qa7test2uncal",
    ]


def test_2023_layout_other_game_is_skipped_and_a_harmless_line_is_a_note() -> None:
    omaha_hi = UNCALLED_2023.replace("Omaha Hi/Lo Game Table", "Omaha Hi Game Table")
    notice = "Carol could not respond in time.(disconnected)"
    chatty = SPLIT_2023.replace("Carol calls (2.50) \n", f"{notice}\nCarol calls (2.50)\n")
    result = parse_text(chatty + omaha_hi)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (2, 1, 1, 0)
    assert result.skipped_games == {"Omaha Hi": 1}
    notes = frames(result)["notes"]
    assert notes.select("hand_id", "line_number", "text").rows() == [
        ("1689465907000qa7test1split", 32, notice)
    ]


DAMAGED_2023 = {
    # What the summary pays must match the actions: $5.52 is not what Carol's balance says.
    "collected": (
        ("collected $5.25, net +$0.25[ Ah", "collected $5.52, net +$0.52[ Ah"),
        "summary line differs from the actions: Carol",
    ),
    # The street total is read: to $1.10 puts in more than Bob Jr's "lost $1".
    "raise-to": (
        ("Bob Jr raises 0.90 to 1.00", "Bob Jr raises 0.90 to 1.10"),
        "summary line differs from the actions: Bob Jr",
    ),
    "missing-line": (
        ("Bob Jr balance $7.50, lost $1 (folded)\n", ""),
        "no summary line for a seated player: Bob Jr",
    ),
    "no-summary": (("** Summary **", "** Summ"), "truncated hand: no summary"),
    "rake": (
        ("Main Pot: $10.50 Rake: $0.55", "Main Pot: $10.50 Rake $0.55"),
        "unrecognised line: Main Pot: $10.50 Rake $0.55",
    ),
    "created-pot": (
        ("Main Pot with $ 10.50", "Main Pot with $ 10.05"),
        "created pot differs from the summary's: Main Pot",
    ),
    "board": (
        ("Board: [ 3h, 7d, Kc, 5s, Qd ]", "Board: [ 3h, 7d, Kc, 5s, Qh ]"),
        "summary board differs from the cards dealt",
    ),
    "described-cards": (
        ("queens -- Qs,Qh,Qd,Kc,7d", "queens -- Qs,Qh,Qc,Kc,7d"),
        "described cards are not the player's or the board's: Dave",
    ),
    # A cash-out is paid by the site, not from the pot: its lines are not read.
    "cash-out": (
        ("Carol calls (2.50) \n", "Carol calls (2.50) \nDave Cashout Amount is 4.10\n"),
        "unrecognised line: Dave Cashout Amount is 4.10",
    ),
    "currency": (
        ("Seat 4: Carol ($12.34)", "Seat 4: Carol (12.34)"),
        "unknown currency: no single currency symbol on the seat amounts",
    ),
}


@pytest.mark.parametrize(
    ("damage", "reason"), list(DAMAGED_2023.values()), ids=list(DAMAGED_2023)
)
def test_damaged_2023_hand_is_quarantined_and_the_rest_parsed(
    damage: tuple[str, str], reason: str
) -> None:
    old, new = damage
    assert old in SPLIT_2023
    damaged = SPLIT_2023.replace(old, new)
    result = parse_text(UNCALLED_2023 + "\n" + damaged)
    assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1)
    assert rejects(result) == [("1689465907000qa7test1split", reason)]
    stored = frames(result)["rejects"].row(0, named=True)
    assert stored["raw_text"].startswith("***** Hand History For Game 1689465907000qa7test1split")


def test_2023_layout_uncalled_bet_paid_as_won_is_no_finding(registered: None) -> None:
    """Alice's uncalled $0.50 is inside her "collected $1.21" and outside the printed "Main
    Pot: $0.71": the pot is what was matched, so the audit finds nothing (chips, rake and
    total all balance)."""
    tables = frames(parse_text(UNCALLED_2023))
    findings = audit_tables(*(tables[name] for name in TABLES)).discrepancies
    assert findings.height == 0, findings
