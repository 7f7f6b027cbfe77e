"""Betting-structure checks on real PokerStars hands, unedited and edited to carry one fault."""

from __future__ import annotations

import dataclasses

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import parse_bytes
from pipeline.audit import FINDING_SCHEMA
from pipeline.betting import BETTING_KINDS, betting_findings
from tests.shared_data import CORPUS, needs_corpus

TABLES = ("hands", "seats", "actions")

FIXED_LIMIT = "other/Stars-O8-limit-2005.gitpan.txt"  # $5/$10, blinds $2/$5, 10 seats
POT_LIMIT = "Stars/cash/258753941248_anon5.txt"  # $0.01/$0.02, raise to the pot preflop
NEW_PLAYER_BLIND = "Stars/cash/PLO8-9max-USD-0.01-0.02-20100829.No.VPIP.from.posted.bb.txt"
ANTES = "Stars/tour/PLO8-6max-USD-11-1-202105.Chico.Converted.txt"  # pot limit with antes
NO_LIMIT = "Stars/tour/NLO8-USD-STT-201109.Knockout.sample.txt"


# A self-contained heads-up hand (the button posts the small blind, acts first preflop and
# last after the flop) so the schema test runs without the corpus.
HEADS_UP_TEXT = (
    "PokerStars Game #1111111112:  Omaha Hi/Lo Pot Limit ($0.50/$1.00 USD)"
    " - 2023/10/27 12:00:00 ET\n"
    """Table 'Table Name' 6-max Seat #1 is the button
Seat 1: Player1 ($100 in chips)
Seat 2: Player2 ($100 in chips)
Player1: posts small blind $0.50
Player2: posts big blind $1.00
*** HOLE CARDS ***
Player1: raises $2.00 to $3.00
Player2: calls $2.00
*** FLOP *** [5c 6c 7d]
Player2: checks
Player1: bets $6.00
Player2: folds
Uncalled bet ($6.00) returned to Player1
Player1 collected $6.00 from pot
*** SUMMARY ***
Total pot $6.00 | Rake $0.00
Board [5c 6c 7d]
"""
)


# -- helpers ------------------------------------------------------------------------------------


def tables_of(*texts: str | bytes) -> dict[str, pl.DataFrame]:
    """The canonical hands, seats and actions tables of hand-history texts; a hand whose
    number an earlier text holds (the same hand exported twice, a fixture reusing a real
    hand's number) is kept once, the first, as ingest stores one copy."""
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in TABLES}
    seen = pl.DataFrame(schema={"site": pl.String, "hand_id": pl.String})
    for number, text in enumerate(texts):
        data = text.encode() if isinstance(text, str) else text
        result = parse_bytes(data, f"input-{number}.txt")
        assert result is not None and result.rejected == 0 and result.parsed > 0
        frames = {}
        for name in TABLES:
            frame = pl.from_arrow(result.tables[name])
            assert isinstance(frame, pl.DataFrame)
            frames[name] = frame.join(seen, on=["site", "hand_id"], how="anti")
        seen = pl.concat([seen, frames["hands"].select("site", "hand_id")])
        for name in TABLES:
            parts[name].append(frames[name])
    return {name: pl.concat(frames) for name, frames in parts.items()}


def findings_of(*texts: str | bytes) -> pl.DataFrame:
    return betting_findings(**tables_of(*texts))


def read(relative: str) -> str:
    return (CORPUS / relative).read_bytes().decode("utf-8-sig").replace("\r\n", "\n")


def hand(relative: str, hand_id: str | None = None) -> str:
    """One hand of a corpus file (the first one without ``hand_id``)."""
    text = read(relative)
    start = text.rindex("PokerStars ", 0, text.index(f"#{hand_id}:") + 1) if hand_id else 0
    end = text.find("PokerStars ", start + 1)
    return text[start : end if end > 0 else len(text)]


def edit(text: str, *replacements: tuple[str, str]) -> str:
    """Apply replacements, each of a text that occurs exactly once."""
    for old, new in replacements:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    return text


def with_betting(text: str, betting: str) -> str:
    """Replace everything between the hole cards marker and the summary with ``betting``."""
    start = text.index("*** HOLE CARDS ***\n") + len("*** HOLE CARDS ***\n")
    end = text.index("*** SUMMARY ***")
    return text[:start] + betting.strip("\n") + "\n" + text[end:]


def only(findings: pl.DataFrame) -> dict[str, object]:
    assert findings.height == 1, findings
    return findings.row(0, named=True)


def as_tournament(text: str) -> str:
    """The 2005 limit hand as a tournament hand in chips (same limits, 5/10)."""
    text = edit(
        text,
        (
            "PokerStars Game #0000000000:  Omaha Hi/Lo Limit ($5/$10)",
            "PokerStars Game #0000000000: Tournament #123456, $10+$1 USD Omaha Hi/Lo Limit"
            " - Level I (5/10)",
        ),
        ("$267.50", "$267"),
    )
    header, rest = text.split("\n", 1)
    return header + "\n" + rest.replace("$", "")


# The 2005 limit hand's preflop folds up to the first player still in (seat 5).
FOLDS_TO_SEAT_5 = """
Dealt to Player_7 [Ad 3h Qc Kh]
Player_9: folds
Player_10: folds
Player_1: folds
Player_2: folds
Player_3: folds
Player_4: folds
"""


def checked_down(*players: str) -> str:
    """Flop, turn and river checked by ``players`` in this order, then the first one shows."""
    streets = (
        "*** FLOP *** [6s 7d 9c]",
        "*** TURN *** [6s 7d 9c] [Th]",
        "*** RIVER *** [6s 7d 9c Th] [5h]",
    )
    lines = []
    for marker in streets:
        lines.append(marker)
        lines.extend(f"{player}: checks" for player in players)
    lines.append("*** SHOW DOWN ***")
    lines.append(f"{players[0]}: shows [Ad 3h Qc Kh] (HI: high card Ace; LO: 7,6,5,3,A)")
    return "\n".join(lines) + "\n"


# -- real hands ---------------------------------------------------------------------------------


@needs_corpus
def test_real_pokerstars_hands_have_no_findings() -> None:
    paths = sorted(CORPUS.glob("Stars/**/*.txt")) + sorted(CORPUS.glob("other/Stars-*.txt"))
    texts = []
    for path in paths:
        result = parse_bytes(path.read_bytes(), str(path))
        if result is not None and result.parsed:
            texts.append(path.read_bytes())
    tables = tables_of(*texts)
    assert set(tables["hands"]["limit_type"]) == {"FL", "PL", "NL"}
    assert tables["actions"].filter(pl.col("kind") == "ante").height > 0
    findings = betting_findings(**tables)
    assert findings.height == 0, findings


def test_findings_have_the_discrepancy_schema_even_when_empty() -> None:
    empty = {
        name: pl.DataFrame(schema=frame.schema)
        for name, frame in tables_of(HEADS_UP_TEXT).items()
    }
    findings = betting_findings(**empty)
    assert findings.schema == pl.Schema(FINDING_SCHEMA)
    assert findings.height == 0


def test_heads_up_button_acts_first_preflop_and_last_after() -> None:
    assert findings_of(HEADS_UP_TEXT).height == 0
    swapped = edit(
        HEADS_UP_TEXT,
        ("Player2: checks\nPlayer1: bets $6.00", "Player1: bets $6.00\nPlayer2: checks"),
    )
    finding = only(findings_of(swapped))
    assert finding["kind"] == "action_order" and finding["player"] == "Player1"
    assert (finding["expected"], finding["recorded"]) == (2, 1)


# -- bet_size -----------------------------------------------------------------------------------


@needs_corpus
def test_fixed_limit_bet_of_the_wrong_size() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        ("Player_8: bets $10", "Player_8: bets $8"),
        ("Player_7: calls $10", "Player_7: calls $8"),
    )
    finding = only(findings_of(text))
    assert finding["kind"] == "bet_size" and finding["player"] == "Player_8"
    assert (finding["expected"], finding["recorded"]) == (1000, 800)
    assert str(finding["detail"]).startswith("turn: bet to 800")


@needs_corpus
def test_fixed_limit_bets_are_not_judged_without_bet_sizes() -> None:
    """A fixed-limit hand whose bet sizes were not printed (an OHH hand names none): the same
    wrong bet is no finding, since nothing says what one bet is."""
    text = edit(
        hand(FIXED_LIMIT),
        ("Player_8: bets $10", "Player_8: bets $8"),
        ("Player_7: calls $10", "Player_7: calls $8"),
    )
    tables = tables_of(text)
    tables["hands"] = tables["hands"].with_columns(
        small_bet=pl.lit(None, dtype=pl.Int64), big_bet=pl.lit(None, dtype=pl.Int64)
    )
    sizes = betting_findings(**tables).filter(pl.col("kind").is_in(["bet_size", "raise_cap"]))
    assert sizes.is_empty(), sizes


@needs_corpus
def test_fixed_limit_preflop_raise_of_the_wrong_size() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        ("Player_5: calls $5", "Player_5: raises $4 to $9"),
        ("Player_7: calls $3", "Player_7: calls $7"),
        ("Player_8: checks\n*** FLOP", "Player_8: calls $4\n*** FLOP"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("bet_size", "Player_5")
    assert (finding["expected"], finding["recorded"]) == (1000, 900)


@needs_corpus
def test_fixed_limit_all_in_may_be_smaller_but_not_larger() -> None:
    def turn_all_in(stack: str, bet: str) -> str:
        return edit(
            hand(FIXED_LIMIT),
            ("Seat 8: Player_8 ($226 in chips)", f"Seat 8: Player_8 (${stack} in chips)"),
            ("Player_8: bets $10", f"Player_8: bets ${bet} and is all-in"),
            ("Player_7: calls $10", f"Player_7: calls ${bet}"),
            ("[5h]\nPlayer_7: checks\nPlayer_8: checks\n", "[5h]\n"),
        )

    assert findings_of(turn_all_in("12", "7")).height == 0
    finding = only(findings_of(turn_all_in("17", "12")))
    assert (finding["kind"], finding["player"]) == ("bet_size", "Player_8")
    assert (finding["expected"], finding["recorded"]) == (1000, 1200)
    assert "all-in" in str(finding["detail"])


@needs_corpus
def test_call_of_more_than_is_owed() -> None:
    text = edit(hand(FIXED_LIMIT), ("Player_7: calls $10", "Player_7: calls $12"))
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("bet_size", "Player_7")
    assert (finding["expected"], finding["recorded"]) == (1000, 1200)


@needs_corpus
def test_no_limit_raise_below_the_minimum() -> None:
    original = hand(NO_LIMIT, "68173842857")
    assert findings_of(original).height == 0
    text = edit(
        original,
        ("Hero: raises 60 to 90", "Hero: raises 20 to 50"),
        ("Hero: calls 66\n", "Hero: calls 106\n"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("bet_size", "Hero")
    assert (finding["expected"], finding["recorded"]) == (60, 50)
    assert str(finding["detail"]) == "preflop: raise to 50 is below the minimum raise to 60"


@needs_corpus
def test_no_limit_short_all_in_raise_is_allowed_and_keeps_the_minimum() -> None:
    # Lord Minge's all-in raise of 813 is below tredex's 1088 raise: legal because all-in.
    assert findings_of(hand(NO_LIMIT, "68173693354")).height == 0


@needs_corpus
def test_no_limit_bet_below_the_big_blind() -> None:
    text = edit(
        hand(NO_LIMIT, "68173842857"),
        ("VORON1976511: bets 60", "VORON1976511: bets 20"),
        ("Hero: calls 60", "Hero: calls 20"),
        ("APTEM-89: calls 60", "APTEM-89: calls 20"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("bet_size", "VORON1976511")
    assert (finding["expected"], finding["recorded"]) == (30, 20)
    assert str(finding["detail"]).startswith("river: bet 20 is below the minimum bet 30")


@needs_corpus
def test_pot_limit_raise_below_the_minimum_with_antes() -> None:
    text = edit(
        hand(ANTES),
        ("Hero: raises 30000 to 50000", "Hero: raises 10000 to 30000"),
        ("Uncalled bet (30000)", "Uncalled bet (10000)"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("bet_size", "Hero")
    assert (finding["expected"], finding["recorded"]) == (40000, 30000)


# -- pot_limit ----------------------------------------------------------------------------------


def pot_limit_preflop(raise_to: int) -> str:
    """The 2025 hand with Player4's preflop raise (and Player1's call) set to ``raise_to``."""
    return edit(
        hand(POT_LIMIT),
        ("Player4: raises $0.02 to $0.04", f"Player4: raises $0.0{raise_to - 2} to $0.0{raise_to}"),
        ("Player1: calls $0.04", f"Player1: calls $0.0{raise_to}"),
    )


@needs_corpus
def test_pot_limit_raise_to_the_exact_maximum_is_legal() -> None:
    # B + P + c = 2 + (1 + 2) + 2 = 7 cents.
    assert findings_of(pot_limit_preflop(7)).height == 0


@needs_corpus
def test_pot_limit_raise_above_the_maximum() -> None:
    finding = only(findings_of(pot_limit_preflop(8)))
    assert (finding["kind"], finding["player"]) == ("pot_limit", "Player4")
    assert (finding["expected"], finding["recorded"]) == (7, 8)
    assert str(finding["detail"]) == "preflop: raise to 8 exceeds the pot-limit maximum 7"


@needs_corpus
def test_pot_limit_bet_above_the_pot_on_the_flop() -> None:
    text = edit(
        hand(POT_LIMIT),
        ("Player4: bets $0.11", "Player4: bets $0.12"),
        ("Player1: calls $0.11", "Player1: calls $0.12"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("pot_limit", "Player4")
    assert (finding["expected"], finding["recorded"]) == (11, 12)
    assert str(finding["detail"]) == "flop: bet to 12 exceeds the pot-limit maximum 11"


@needs_corpus
def test_pot_limit_maximum_counts_the_antes() -> None:
    # 20000 to call + (6 x 1000 antes + 10000 + 20000) + 20000 = 76000.
    def raise_to(total: int) -> str:
        return edit(
            hand(ANTES),
            ("Hero: raises 30000 to 50000", f"Hero: raises {total - 20000} to {total}"),
            ("Uncalled bet (30000)", f"Uncalled bet ({total - 20000})"),
        )

    assert findings_of(raise_to(76000)).height == 0
    finding = only(findings_of(raise_to(76001)))
    assert (finding["kind"], finding["expected"], finding["recorded"]) == (
        "pot_limit",
        76000,
        76001,
    )


# -- raise_cap ----------------------------------------------------------------------------------


@needs_corpus
def test_fifth_bet_in_a_three_way_fixed_limit_pot() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        (
            "Player_5: calls $5\nPlayer_6: folds\nPlayer_7: calls $3\nPlayer_8: checks\n",
            "Player_5: raises $5 to $10\nPlayer_6: folds\nPlayer_7: raises $5 to $15\n"
            "Player_8: raises $5 to $20\nPlayer_5: raises $5 to $25\nPlayer_7: calls $10\n"
            "Player_8: calls $5\n",
        ),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("raise_cap", "Player_5")
    assert (finding["expected"], finding["recorded"]) == (4, 5)
    assert "3 players in" in str(finding["detail"])


@needs_corpus
def test_fourth_bet_reaches_the_cap_without_a_finding() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        (
            "Player_5: calls $5\nPlayer_6: folds\nPlayer_7: calls $3\nPlayer_8: checks\n",
            "Player_5: raises $5 to $10\nPlayer_6: folds\nPlayer_7: raises $5 to $15\n"
            "Player_8: raises $5 to $20\nPlayer_5: calls $10\nPlayer_7: calls $5\n",
        ),
    )
    assert findings_of(text).height == 0


def capped_by_all_in(all_in_to: int, then: str, seat_6_calls: bool = True) -> str:
    """Preflop: bets to 10 (Player_6 calls or folds) and 15, Player_8 all-in to ``all_in_to``."""
    seat_6 = "Player_6: calls $10\n" if seat_6_calls else "Player_6: folds\n"
    still_in = ("Player_7", "Player_5", "Player_6") if seat_6_calls else ("Player_7", "Player_5")
    text = with_betting(
        hand(FIXED_LIMIT),
        FOLDS_TO_SEAT_5
        + "Player_5: raises $5 to $10\n"
        + seat_6
        + "Player_7: raises $8 to $15\n"
        + f"Player_8: raises ${all_in_to - 15} to ${all_in_to} and is all-in\n"
        + then
        + checked_down(*still_in),
    )
    return edit(
        text, ("Seat 8: Player_8 ($226 in chips)", f"Seat 8: Player_8 (${all_in_to} in chips)")
    )


@needs_corpus
def test_all_in_raise_of_half_a_bet_counts_toward_the_cap() -> None:
    # 18 is 3 over 15, at least half of 5: bet 4, so the raise to 23 is bet 5 (B3).
    text = capped_by_all_in(
        18, "Player_5: raises $5 to $23\nPlayer_6: calls $13\nPlayer_7: calls $8\n"
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"], finding["recorded"]) == (
        "raise_cap",
        "Player_5",
        5,
    )


@needs_corpus
def test_all_in_raise_of_less_than_half_a_bet_does_not_count() -> None:
    # 17 is 2 over 15, less than half of 5: not a raise. Completing to 20 is bet 4 (legal),
    # and the next raise is bet 5.
    legal = capped_by_all_in(
        17, "Player_5: raises $5 to $20\nPlayer_6: calls $10\nPlayer_7: calls $5\n"
    )
    assert findings_of(legal).height == 0
    over = capped_by_all_in(
        17,
        "Player_5: raises $5 to $20\nPlayer_6: calls $10\nPlayer_7: raises $5 to $25\n"
        "Player_5: calls $5\nPlayer_6: calls $5\n",
    )
    finding = only(findings_of(over))
    assert (finding["kind"], finding["player"], finding["recorded"]) == (
        "raise_cap",
        "Player_7",
        5,
    )


@pytest.fixture
def uncapped_heads_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A site whose cash tables lift the cap heads-up (PokerStars does not: real-site-evidence)."""
    from parsers.pokerstars import PokerStarsParser

    lifted = dataclasses.replace(PokerStarsParser.profile, heads_up_uncapped=True)
    monkeypatch.setattr(PokerStarsParser, "profile", lifted)


@needs_corpus
def test_betting_is_heads_up_when_the_third_player_is_all_in(uncapped_heads_up: None) -> None:
    # Player_8 all-in and Player_6 folded: two players can still bet, so the cap is lifted.
    text = capped_by_all_in(
        17,
        "Player_5: raises $5 to $20\nPlayer_7: raises $5 to $25\nPlayer_5: calls $5\n",
        seat_6_calls=False,
    )
    assert findings_of(text).height == 0


HEADS_UP_RAISING = (
    FOLDS_TO_SEAT_5
    + """Player_5: raises $5 to $10
Player_6: folds
Player_7: folds
Player_8: raises $5 to $15
Player_5: raises $5 to $20
Player_8: raises $5 to $25
Player_5: folds
Uncalled bet ($5) returned to Player_8
Player_8 collected $47 from pot
"""
)


@needs_corpus
def test_heads_up_cash_betting_is_uncapped_where_the_site_lifts_the_cap(
    uncapped_heads_up: None,
) -> None:
    assert findings_of(with_betting(hand(FIXED_LIMIT), HEADS_UP_RAISING)).height == 0


@needs_corpus
def test_heads_up_cash_betting_stays_capped_at_pokerstars() -> None:
    """PokerStars does not lift the cap heads-up (23 capped heads-up streets in real hands):
    its profile says so, and a fifth bet heads-up is a finding."""
    finding = only(findings_of(with_betting(hand(FIXED_LIMIT), HEADS_UP_RAISING)))
    assert (finding["kind"], finding["player"], finding["recorded"]) == ("raise_cap", "Player_8", 5)


@needs_corpus
def test_heads_up_tournament_betting_stays_capped() -> None:
    text = as_tournament(with_betting(hand(FIXED_LIMIT), HEADS_UP_RAISING))
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"], finding["recorded"]) == (
        "raise_cap",
        "Player_8",
        5,
    )
    assert "does not lift heads-up" in str(finding["detail"])


# -- blinds -------------------------------------------------------------------------------------


@needs_corpus
def test_pot_limit_small_blind_other_than_the_stakes() -> None:
    text = edit(
        hand(POT_LIMIT), ("Player2: posts small blind $0.01", "Player2: posts small blind $0.02")
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("blinds", "Player2")
    assert (finding["expected"], finding["recorded"]) == (1, 2)


@needs_corpus
def test_fixed_limit_big_blind_other_than_the_small_bet() -> None:
    text = edit(hand(FIXED_LIMIT), ("posts big blind $5", "posts big blind $4"))
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("blinds", "Player_8")
    assert (finding["expected"], finding["recorded"]) == (500, 400)


@needs_corpus
def test_fixed_limit_small_blind_above_the_big_blind() -> None:
    # $2 with a $5 small bet is legal (B1x); $6 is more than the big blind.
    text = edit(
        hand(FIXED_LIMIT),
        ("posts small blind $2", "posts small blind $6"),
        ("Player_7: calls $3", "Player_7: checks"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("blinds", "Player_7")
    assert (finding["expected"], finding["recorded"]) == (500, 600)


# -- action_order -------------------------------------------------------------------------------


@needs_corpus
def test_preflop_fold_out_of_turn() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        ("Player_9: folds\nPlayer_10: folds", "Player_10: folds\nPlayer_9: folds"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("action_order", "Player_10")
    assert (finding["expected"], finding["recorded"]) == (9, 10)
    assert str(finding["detail"]) == (
        "preflop: Player_10 (seat 10) fold before Player_9 (seat 9), whose turn it was"
    )


@needs_corpus
def test_postflop_check_out_of_turn_with_an_extra_live_big_blind() -> None:
    original = hand(NEW_PLAYER_BLIND)
    assert findings_of(original).height == 0
    text = edit(
        original,
        (
            "[Kd]\nCoinJock: checks\nros-r-reed: checks",
            "[Kd]\nros-r-reed: checks\nCoinJock: checks",
        ),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("action_order", "ros-r-reed")
    assert (finding["expected"], finding["recorded"]) == (7, 8)
    assert str(finding["detail"]).startswith("turn: ")


@needs_corpus
def test_folded_player_acting_again_is_out_of_turn() -> None:
    text = edit(
        hand(FIXED_LIMIT),
        ("[Th]\nPlayer_7: checks", "[Th]\nPlayer_7: checks\nPlayer_6: checks"),
    )
    finding = only(findings_of(text))
    assert (finding["kind"], finding["player"]) == ("action_order", "Player_6")


# -- properties ---------------------------------------------------------------------------------

MONEY_KINDS = ("bet_size", "pot_limit", "blinds")


def renumbered(text: str, hand_id: int) -> str:
    """The hand under another hand number, so several edits of one hand can be audited together."""
    old = text[text.index("#") + 1 : text.index(":")]
    return text.replace(f"#{old}:", f"#{hand_id}:", 1)


def faulty_texts() -> list[str]:
    texts = [
        edit(hand(FIXED_LIMIT), ("Player_8: bets $10", "Player_8: bets $8")),
        pot_limit_preflop(8),
        edit(hand(POT_LIMIT), ("posts small blind $0.01", "posts small blind $0.02")),
        edit(
            hand(FIXED_LIMIT),
            ("Player_9: folds\nPlayer_10: folds", "Player_10: folds\nPlayer_9: folds"),
        ),
        as_tournament(with_betting(hand(FIXED_LIMIT), HEADS_UP_RAISING)),
        hand(NO_LIMIT, "68173693354"),
        hand(ANTES),
    ]
    return [renumbered(text, 900 + number) for number, text in enumerate(texts)]


@pytest.fixture(scope="module")
def faulty_tables() -> dict[str, pl.DataFrame]:
    if not CORPUS.is_dir():
        pytest.skip(f"hand-history corpus not found at {CORPUS}")
    return tables_of(*faulty_texts())


def scaled(tables: dict[str, pl.DataFrame], factor: int, seed: int) -> dict[str, pl.DataFrame]:
    money = {
        "hands": ("small_blind", "big_blind", "small_bet", "big_bet", "ante"),
        "seats": ("stack_start",),
        "actions": ("amount", "to_amount"),
    }
    return {
        name: frame.with_columns(pl.col(column) * factor for column in money[name]).sample(
            fraction=1.0, shuffle=True, seed=seed
        )
        for name, frame in tables.items()
    }


def comparable(findings: pl.DataFrame, factor: int = 1) -> list[tuple[object, ...]]:
    money = pl.col("kind").is_in(MONEY_KINDS)
    return sorted(
        findings.select(
            "hand_id",
            "player",
            "kind",
            pl.when(money).then(pl.col("expected") * factor).otherwise("expected"),
            pl.when(money).then(pl.col("recorded") * factor).otherwise("recorded"),
        ).iter_rows()
    )


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(factor=st.integers(min_value=2, max_value=10_000), seed=st.integers(0, 2**16))
def test_scaling_every_amount_and_shuffling_rows_changes_no_finding(
    faulty_tables: dict[str, pl.DataFrame], factor: int, seed: int
) -> None:
    baseline = betting_findings(**faulty_tables)
    assert set(baseline["kind"]) == set(BETTING_KINDS)
    again = betting_findings(**scaled(faulty_tables, factor, seed))
    assert comparable(again) == comparable(baseline, factor)
