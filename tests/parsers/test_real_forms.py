"""Forms real files print that hilo's parsers once quarantined, one test per form.

The hands are the site tests' templates with the real line put in, quoted from real files
outside the corpus (the shared reference's ``real-site-evidence.md`` among them).
"""

from __future__ import annotations

from datetime import UTC, datetime

import polars as pl

from parsers import parse_bytes
from parsers.base import ParseResult
from parsers.columns import card_code
from tests.parsers import test_bovada, test_everleaf, test_ongame
from tests.parsers.corpus import frames
from tests.shared_data import CORPUS, needs_corpus

HOME_GAME = """PokerStars Home Game Hand #99631756108: {Club Name} Tournament #743144019, 100+9 8-Game (Omaha Hi/Lo Limit) - Match Round I, Level III (30/60) - 2013/06/05 23:30:00 ET
Table '743144019 1' 6-max Seat #1 is the button
Seat 1: alpha (1500 in chips)
Seat 2: beta (1500 in chips) 
Seat 3: gamma (1500 in chips)
beta: posts small blind 15 
gamma: posts big blind 30
*** HOLE CARDS ***
alpha: raises 30 to 60
beta: raises 30 to 90
gamma: raises 30 to 120
Betting is capped
alpha: calls 60
beta: calls 30
*** FLOP *** [2c 3d 4h]
beta: checks
gamma has 15 seconds left to act
gamma: bets 30
alpha: folds
beta: calls 30
*** TURN *** [2c 3d 4h] [Kd]
beta: bets 60
gamma: raises 60 to 120
beta: calls 60
*** RIVER *** [2c 3d 4h Kd] [9s]
beta: checks
gamma: bets 60
beta: calls 60
*** SHOW DOWN ***
gamma: shows [Kc 9c Qh Jh] (HI: two pair, Kings and Nines)
beta: shows [Qs]
gamma collected 780 from pot
*** SUMMARY ***
Total pot 780 | Rake 0
Board [2c 3d 4h Kd 9s]
Seat 1: alpha (button) folded on the Flop
Seat 2: beta (small blind) showed [Qs] and lost
Seat 3: gamma (big blind) showed [Kc 9c Qh Jh] and won (780)
"""


def parsed(text: str) -> ParseResult:
    result = parse_bytes(text.encode(), "real.txt")
    assert result is not None
    return result


def test_pokerstars_home_game_capped_street_partial_show_and_a_note() -> None:
    result = parsed(HOME_GAME)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["tournament_id"], hand["buy_in"], hand["level"], hand["mixed_game"]) == (
        "743144019",
        "100+9",
        "III",
        "8-Game",
    )
    assert (hand["small_bet"], hand["big_bet"], hand["limit_type"]) == (30, 60, "FL")
    assert hand["started_at"] == datetime(2013, 6, 6, 3, 30, tzinfo=UTC)
    # "Betting is capped" is PokerStars text, read as such; the time-bank notice is a note.
    assert tables["notes"].select("line_number", "text").rows() == [
        (17, "gamma has 15 seconds left to act")
    ]
    # Trailing spaces do not hide a post.
    posts = tables["actions"].filter(pl.col("kind") == "post_sb")
    assert posts.select("player", "amount").rows() == [("beta", 15)]
    # beta showed one card: the card is kept, his hole cards stay unknown (not four cards).
    shown = tables["showdowns"].filter(pl.col("player") == "beta")
    assert shown["cards"].to_list() == [[43]]
    beta = tables["seats"].filter(pl.col("player") == "beta").row(0, named=True)
    assert beta["hole_cards"] is None


def test_pokerstars_partial_show_makes_the_pot_unevaluable_not_a_finding() -> None:
    from pipeline.audit import audit_tables

    tables = frames(parsed(HOME_GAME))
    findings = audit_tables(
        tables["hands"],
        tables["seats"],
        tables["actions"],
        tables["collections"],
        tables["showdowns"],
    ).discrepancies
    assert findings.filter(pl.col("kind") == "unevaluable").height == 1
    money = ("payout", "odd_chip", "missing_winner", "unexpected_winner", "chip_conservation")
    assert findings.filter(pl.col("kind").is_in(money)).height == 0, findings


def test_a_partly_understood_header_of_another_game_is_skipped() -> None:
    other = HOME_GAME.replace(
        "8-Game (Omaha Hi/Lo Limit) - Match Round I, Level III (30/60)",
        "8-Game (Razz Limit) - Some Future Stage I, Level III [30/60]",
    )
    result = parsed(HOME_GAME + "\n\n" + other.replace("#99631756108", "#99631756109"))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (2, 1, 1, 0)
    assert result.skipped_games == {"Razz": 1}


def test_an_unrecognised_line_with_an_amount_still_quarantines() -> None:
    damaged = HOME_GAME.replace("Betting is capped", "gamma receives 300 as a gift")
    result = parsed(damaged)
    assert (result.parsed, result.rejected) == (0, 1)
    assert frames(result)["rejects"]["reason"].to_list() == [
        "unrecognised line: gamma receives 300 as a gift"
    ]


def test_bovada_tournament_ante_or_small_blind_posts() -> None:
    text = (
        test_bovada.hand_text(1)
        .replace("Dealer : Small Blind $0.10", "Dealer : Ante/Small blind $0.02")
        .replace("Big Blind  [ME] : Big blind $0.25", "Big Blind  [ME] : Big blind $0.25")
    )
    result = parsed(text)
    assert result.rejected == 0, frames(result)["rejects"]["reason"]
    actions = frames(result)["actions"]
    # "Ante/Small blind" by anyone but the Small Blind is that player's ante.
    assert actions.filter(pl.col("player") == "Dealer")["kind"].to_list()[0] == "ante"


def test_everleaf_disconnection_notice() -> None:
    line = "Villain has disconnected and has been given a further 20 seconds to react"
    text = test_everleaf.hand_text(1).replace("** Dealing Flop **", line + "\n** Dealing Flop **")
    assert line in text
    result = parsed(text)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]


def test_ongame_local_zone_abbreviations() -> None:
    summer = test_ongame.hand_text(1).replace(
        "Fri Jun 28 18:54:24 GST 2013", "Sun Sep 11 17:58:25 EEST 2011"
    )
    hand = frames(parsed(summer))["hands"].row(0, named=True)
    assert hand["started_at"] == datetime(2011, 9, 11, 14, 58, 25, tzinfo=UTC)
    # A zone no table knows loses the time's zone (kept as printed), never the hand.
    unknown = test_ongame.hand_text(1).replace("GST 2013", "XYZT 2013")
    result = parsed(unknown)
    assert (result.parsed, result.rejected) == (1, 0)
    hand = frames(result)["hands"].row(0, named=True)
    assert (hand["started_at"], hand["time_zone"]) == (None, "XYZT")
    garbled = test_ongame.hand_text(1).replace("18:54:24", "18:5x:24")
    assert frames(parsed(garbled))["rejects"]["reason"].to_list() == ["unreadable start time"]


def test_a_notice_naming_a_player_whose_name_holds_a_number_is_a_note() -> None:
    """``Big Slick 99 is using the time bank``: the hand's own names are blanked before a line
    is judged, so the 99 of a name is no amount; the same line naming nobody seated still
    quarantines its hand."""
    text = HOME_GAME.replace("gamma", "Big Slick 99").replace(
        "Big Slick 99 has 15 seconds left to act", "Big Slick 99 is using the time bank"
    )
    result = parsed(text)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    assert frames(result)["notes"]["text"].to_list() == ["Big Slick 99 is using the time bank"]
    stranger = parsed(text.replace("Big Slick 99 is using", "Small Slick 99 is using"))
    assert (stranger.parsed, stranger.rejected) == (0, 1)
    assert "Small Slick 99" in frames(stranger)["rejects"]["reason"][0]


def test_pokerstars_summary_mucked_with_some_cards() -> None:
    """``Seat 2: beta (small blind) mucked [Qs]``: the summary shows one card of a mucked hand.
    The hand is kept, the card stored with the shown hands, the hole cards left unknown."""
    text = HOME_GAME.replace(
        "Seat 2: beta (small blind) showed [Qs] and lost", "Seat 2: beta (small blind) mucked [Qs]"
    ).replace("beta: shows [Qs]\n", "beta: mucks hand\n")
    result = parsed(text)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    tables = frames(result)
    shown = tables["showdowns"].filter(pl.col("player") == "beta")
    assert shown.select("cards", "high_desc").rows() == [([card_code("Qs")], None)]
    assert tables["seats"].filter(pl.col("player") == "beta")["hole_cards"].to_list() == [None]


def test_a_partly_shown_card_seen_elsewhere_is_impossible() -> None:
    """A card shown alone that is on the board (Kd) or in another player's shown hand (Kc)
    was dealt twice: the hand is quarantined, as for any duplicate card."""
    for card in ("Kd", "Kc"):
        text = HOME_GAME.replace("beta: shows [Qs]", f"beta: shows [{card}]").replace(
            "showed [Qs] and lost", f"showed [{card}] and lost"
        )
        result = parsed(text)
        assert (result.parsed, result.rejected) == (0, 1)
        assert frames(result)["rejects"]["reason"].to_list() == [
            f"duplicate card code {card_code(card)}"
        ]


@needs_corpus
def test_bovada_tournament_summary_forms() -> None:
    """Bovada tournament summaries: ``Seat 1: UTG+4 Folded on the POCKET CARDS`` (a space, not
    ``Seat+``) and ``HI 450`` / ``LOW 30``. The summary's amounts are still checked against the
    hand's results: one chip off quarantines the hand."""
    text = (CORPUS / "other" / "Bovada-HAND_TOURNAMENT.txt").read_text()
    text = (
        text.replace("Seat+37: UTG+3 Folded on the FLOP", "Seat 37: UTG+3 Folded on the POCKET CARDS")
        .replace("Seat+89: Big Blind HI 6400  with", "Seat 89: Big Blind HI 6370  with")
        .replace("[Js As Jd 5s-Js Jd Qh Ks Kh]", "[Js As Jd 5s-Js Jd Qh Ks Kh] LOW 30")
    )
    result = parsed(text)
    assert (result.parsed, result.rejected) == (1, 0), frames(result)["rejects"]["reason"]
    assert frames(result)["notes"].height == 0
    off = parsed(text.replace("LOW 30", "LOW 31"))
    assert frames(off)["rejects"]["reason"].to_list() == [
        "summary HI/LO of seat 89 (6401) differs from its Hand result lines (6400)"
    ]
