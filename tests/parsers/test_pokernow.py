"""PokerNow CSV logs: the corpus's 28 real logs and a hand-written log of three hands.

The hand-written log (``hand_log``) is exported as PokerNow writes it, newest row first. Its
golden values, worked out by hand:

- Hand #4 (no printed id, dead button, ``Dead Small Blind``): Cy posts the 0.25 big blind, Ann
  straddles 0.50, Cy calls 0.50 (adds 0.25), bets 1.00 on the flop, Ann folds, the 1.00 comes
  back: Cy collects the 1.00 pot. The table's big blind is 0.25, not the straddle; nobody posts
  a small blind. After the end Cy shows Q♠ Q♥ 8♦ 4♣ and the undealt cards are printed.
- Hand #5 (id ``rit0000five``, O8, run twice): Bob 0.10, Cy 0.25, Ann raises to 0.85, Cy
  calls, Cy bets 8.65 on the flop and Ann calls all in (9.50 each, pot 19.10). Each run pays
  9.55, split 4.78 high to Cy's nines and 4.77 low to Ann. Second board: the flop 4♥ 5♣ 9♦
  again, then K♦ 2♥.
- Hand #6 (id ``nlhe0000six``, Hold'em): skipped; Bob's show there (K♦ K♠ while the log's
  ``Your hand is`` says 7♣ 2♦) rules Bob out as the exporter, which leaves Ann, seated in every
  hand with a ``Your hand is`` line, the hero. Without hand #6 Ann and Bob are both left and
  nobody is named.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import parsers
from parsers.base import ParseResult
from parsers.pokernow import (
    NOTE_DEAD_SMALL_BLIND,
    NOTE_RUN_IT_TWICE,
    NOTE_TABLE_ADMIN,
    NOTE_UNATTRIBUTED_HOLE_CARDS,
    NOTE_UNDEALT_CARDS,
    PokerNowParser,
)
from parsers.text import decode_lines
from pipeline import dataset
from pipeline.ingest import ingest
from tests.conftest import table_rows
from tests.parsers.corpus import cards, chip_ledger, frames, manifest_rows, variant_counts
from tests.shared_data import CORPUS, needs_corpus

ANN, BOB, CY = '"Ann @ aaaaaaaaaa"', '"Bob @ bbbbbbbbbb"', '"Cy @ cccccccccc"'
DEE = '"Dee @ dddddddddd"'

HAND_4 = [
    "-- starting hand #4  (Pot Limit Omaha Hi/Lo 8 or Better) (dead button) --",
    f"Player stacks: #1 {ANN} (10.00) | #4 {BOB} (10.00) | #7 {CY} (10.00)",
    "Your hand is A♥, 3♣, 6♦, J♠",
    "Dead Small Blind",
    f"{CY} posts a big blind of 0.25",
    f"{ANN} posts a straddle of 0.50",
    f"{BOB} folds",
    f"{CY} calls 0.50",
    f"{ANN} checks",
    "Flop:  [2♣, 7♦, K♥]",
    f"{CY} bets 1.00",
    f"{ANN} folds",
    f"Uncalled bet of 1.00 returned to {CY}",
    f"{CY} collected 1.00 from pot",
    "-- ending hand #4 --",
    f"{CY} shows a Q♠, Q♥, 8♦, 4♣.",
    "Undealt cards: 2♣, 7♦, K♥ [5♠, 9♣]",
    f"The player {DEE} requested a seat.",  # between hands: the session's, not stored
]
HAND_5 = [
    "-- starting hand #5 (id: rit0000five)  (Pot Limit Omaha Hi/Lo 8 or Better)"
    f" (dealer: {ANN}) --",
    f"Player stacks: #1 {ANN} (9.50) | #4 {BOB} (10.00) | #7 {CY} (10.50)",
    "Your hand is A♠, 2♠, 3♦, K♣",
    f"{BOB} posts a small blind of 0.10",
    f"{CY} posts a big blind of 0.25",
    f"{ANN} raises to 0.85",
    f"The admin approved the player {DEE} participation with a stack of 10.00.",
    f"{BOB} folds",
    f"{CY} calls 0.85",
    "Flop:  [4♥, 5♣, 9♦]",
    f"{CY} bets 8.65",
    f"{ANN} calls 8.65 and go all in",
    "Remaining players decide whether to run it twice.",
    f"{ANN} chooses to  run it twice.",
    f"{CY} chooses to  run it twice.",
    "All players in hand choose to run it twice.",
    f"{ANN} shows a A♠, 2♠, 3♦, K♣.",
    f"{CY} shows a 9♠, 9♥, Q♦, J♦.",
    "Turn: 4♥, 5♣, 9♦ [10♠]",
    "River: 4♥, 5♣, 9♦, 10♠ [7♣]",
    "Turn (second run): 4♥, 5♣, 9♦ [K♦]",
    "River (second run): 4♥, 5♣, 9♦, K♦ [2♥]",
    f"{CY} collected 4.78 from pot with hi hand with three of a kind nines"
    " (combination: 9♠, 9♥, 9♦, 10♠, 5♣)",
    f"{ANN} collected 4.77 from pot with low hand with seven high"
    " (combination: A♠, 2♠, 4♥, 5♣, 7♣)",
    f"{CY} collected 4.78 from pot with hi hand with three of a kind nines on the second run "
    " (combination: 9♠, 9♥, 9♦, K♦, 5♣)",
    f"{ANN} collected 4.77 from pot with low hand with five high on the second run "
    " (combination: A♠, 3♦, 2♥, 4♥, 5♣)",
    "-- ending hand #5 --",
]
HAND_6 = [
    f"-- starting hand #6 (id: nlhe0000six)  (No Limit Texas Hold'em) (dealer: {BOB}) --",
    f"Player stacks: #1 {ANN} (0.00) | #4 {BOB} (9.90) | #7 {CY} (20.10)",
    "Your hand is 7♣, 2♦",
    f"{CY} posts a small blind of 0.10",
    f"{ANN} posts a big blind of 0.25",
    f"{BOB} folds",
    f"{CY} folds",
    f"Uncalled bet of 0.15 returned to {ANN}",
    f"{ANN} collected 0.20 from pot",
    f"{BOB} shows a K♦, K♠.",
    "-- ending hand #6 --",
]
FIRST_ORDER = 170000000000000  # PokerNow's stamp: milliseconds since 1970 times 100, + a counter


def csv_log(entries: list[str], first_order: int = FIRST_ORDER) -> bytes:
    """A PokerNow CSV log of ``entries`` (given oldest first), newest row first as exported."""
    rows = []
    for number, entry in enumerate(entries):
        order = first_order + 100 * number + number % 7
        at = datetime.fromtimestamp(order // 100 / 1000, tz=UTC)
        stamp = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        quoted = entry.replace('"', '""')
        rows.append(f'"{quoted}",{stamp},{order}')
    return ("entry,at,order\n" + "\n".join(reversed(rows)) + "\n").encode()


def hand_log(*hands: list[str]) -> bytes:
    return csv_log([entry for hand in hands for entry in hand])


def parse(data: bytes, name: str = "poker_now_log_test.csv") -> ParseResult:
    result = parsers.parse_bytes(data, name)
    assert result is not None, "not sniffed as PokerNow"
    return result


def reasons(result: ParseResult) -> list[str]:
    return frames(result)["rejects"]["reason"].to_list()


# -- the hand-written log ---------------------------------------------------------------------


def test_sniffed_as_pokernow_and_nothing_else_claims_it() -> None:
    head = hand_log(HAND_4).decode()
    assert isinstance(parsers.detect(head), PokerNowParser)
    assert [parser.site for parser in parsers.PARSERS if parser.sniff(head)] == ["pokernow"]
    assert not PokerNowParser().sniff("entry,at,order\nPokerStars Hand #1: Omaha\n")
    assert not PokerNowParser().sniff("PokerStars Hand #1: entry,at,order\n")


def test_a_straddled_dead_button_hand_with_a_late_show() -> None:
    result = parse(hand_log(HAND_4))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (1, 1, 0, 0)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    first_order = FIRST_ORDER  # the starting row is the log's first
    assert hand["hand_id"] == f"4-{first_order}"
    assert (hand["site"], hand["game"], hand["limit_type"], hand["currency"]) == (
        "pokernow",
        "O8",
        "PL",
        "PLAY",
    )
    # Stakes from the hand's own posts: the big blind, not the straddle; no small blind posted.
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (None, 25, None)
    assert (hand["button_seat"], hand["rake"], hand["total_pot"]) == (None, None, None)
    assert hand["started_at"] == datetime.fromtimestamp(first_order // 100 / 1000, tz=UTC)
    assert hand["board"] == cards("2c 7d Kh") and hand["board2"] is None
    actions = tables["actions"]
    assert actions.select("player", "kind", "amount", "to_amount").rows() == [
        ("cccccccccc", "post_bb", 25, 25),
        ("aaaaaaaaaa", "post_bb", 50, 50),  # the straddle: a third live blind
        ("bbbbbbbbbb", "fold", None, 0),
        ("cccccccccc", "call", 25, 50),  # "calls 0.50" is the street total
        ("aaaaaaaaaa", "check", None, 50),
        ("cccccccccc", "bet", 100, 100),
        ("aaaaaaaaaa", "fold", None, 0),
        ("cccccccccc", "uncalled_return", 100, None),
        ("cccccccccc", "show", None, None),  # shown after the ending line: still the hand's
    ]
    assert tables["collections"].select("player", "amount", "half").rows() == [
        ("cccccccccc", 100, None)
    ]
    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start", "is_hero").rows() == [
        (1, "aaaaaaaaaa", 1000, False),
        (4, "bbbbbbbbbb", 1000, False),
        (7, "cccccccccc", 1000, False),
    ]
    assert seats["hole_cards"].to_list()[2] == cards("Qs Qh 8d 4c")
    # The undealt cards and the dead small blind are the hand's; the seat request printed
    # after the hand ended is the session's and is not stored. Lines are numbered as the file
    # holds the hand, newest first from its first line (here the log's header).
    assert tables["notes"].select("line_number", "kind").rows() == [
        (3, NOTE_UNDEALT_CARDS),
        (16, NOTE_DEAD_SMALL_BLIND),
        (17, NOTE_UNATTRIBUTED_HOLE_CARDS),
    ]
    assert not any("requested a seat" in text for text in tables["notes"]["text"])


def test_a_pot_run_twice_keeps_both_boards_halves_and_descriptions() -> None:
    result = parse(hand_log(HAND_4, HAND_5))
    assert (result.parsed, result.rejected) == (2, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].filter(pl.col("hand_id") == "rit0000five").row(0, named=True)
    assert hand["board"] == cards("4h 5c 9d Ts 7c")
    assert hand["board2"] == cards("4h 5c 9d Kd 2h")
    assert (hand["small_blind"], hand["big_blind"], hand["button_seat"]) == (10, 25, 1)
    collections = tables["collections"].filter(pl.col("hand_id") == "rit0000five")
    assert collections.select("player", "amount", "half", "board_index").rows() == [
        ("cccccccccc", 478, "high", 0),
        ("aaaaaaaaaa", 477, "low", 0),
        ("cccccccccc", 478, "high", 1),
        ("aaaaaaaaaa", 477, "low", 1),
    ]
    showdowns = tables["showdowns"].filter(pl.col("hand_id") == "rit0000five")
    assert showdowns.select("player", "board_index", "high_desc", "low_desc").rows() == [
        ("aaaaaaaaaa", 0, None, "seven high (combination: A♠, 2♠, 4♥, 5♣, 7♣)"),
        ("aaaaaaaaaa", 1, None, "five high (combination: A♠, 3♦, 2♥, 4♥, 5♣)"),
        ("cccccccccc", 0, "three of a kind nines (combination: 9♠, 9♥, 9♦, 10♠, 5♣)", None),
        ("cccccccccc", 1, "three of a kind nines (combination: 9♠, 9♥, 9♦, K♦, 5♣)", None),
    ]
    assert showdowns["cards"].to_list()[:1] == [cards("As 2s 3d Kc")]
    ledger = chip_ledger(tables).filter(pl.col("hand_id") == "rit0000five").row(0, named=True)
    assert (ledger["put"], ledger["returned"], ledger["collected"]) == (1910, 0, 1910)
    calls = tables["actions"].filter(
        (pl.col("hand_id") == "rit0000five") & (pl.col("kind") == "call")
    )
    assert calls.select("amount", "to_amount", "is_all_in").rows() == [
        (60, 85, False),
        (865, 865, True),
    ]
    notes = tables["notes"].filter(pl.col("hand_id") == "rit0000five")
    assert notes["kind"].to_list() == [  # newest first, as the file holds them
        *[NOTE_RUN_IT_TWICE] * 4,
        NOTE_TABLE_ADMIN,  # the approval printed while the hand ran
        NOTE_UNATTRIBUTED_HOLE_CARDS,
    ]
    assert notes["line_number"].to_list() == [13, 14, 15, 16, 22, 26]


def test_the_hero_is_named_only_when_one_player_is_left() -> None:
    # Ann and Bob sit in every hand with a "Your hand is" line and neither contradicts it.
    ambiguous = frames(parse(hand_log(HAND_4, HAND_5)))
    assert not ambiguous["seats"]["is_hero"].any()
    unattributed = ambiguous["notes"].filter(pl.col("kind") == NOTE_UNATTRIBUTED_HOLE_CARDS)
    assert unattributed["text"].to_list() == [  # hands in file order: newest first
        "Your hand is A♠, 2♠, 3♦, K♣",
        "Your hand is A♥, 3♣, 6♦, J♠",
    ]
    # Bob's show in the skipped Hold'em hand differs from that hand's cards: Ann is left.
    result = parse(hand_log(HAND_4, HAND_5, HAND_6))
    assert (result.parsed, result.skipped, result.rejected) == (2, 1, 0)
    assert result.skipped_games == {"No Limit Texas Hold'em": 1}
    tables = frames(result)
    heroes = tables["seats"].filter(pl.col("is_hero"))
    assert sorted(heroes.select("hand_id", "player").rows()) == [
        (f"4-{FIRST_ORDER}", "aaaaaaaaaa"),
        ("rit0000five", "aaaaaaaaaa"),
    ]
    by_hand = dict(heroes.select("hand_id", "hole_cards").rows())
    assert by_hand[f"4-{FIRST_ORDER}"] == cards("Ah 3c 6d Js")
    assert by_hand["rit0000five"] == cards("As 2s 3d Kc")
    assert NOTE_UNATTRIBUTED_HOLE_CARDS not in tables["notes"]["kind"].to_list()


def test_hand_ids_do_not_depend_on_the_file_name() -> None:
    data = hand_log(HAND_4, HAND_5, HAND_6)
    first = frames(parse(data, "poker_now_log_abc.csv"))["hands"]["hand_id"].to_list()
    renamed = frames(parse(data, "renamed/export (2).csv"))["hands"]["hand_id"].to_list()
    assert first == renamed == ["rit0000five", f"4-{FIRST_ORDER}"]
    # The same hands exported from another game at another time are other hands.
    later = csv_log([*HAND_4, *HAND_5], first_order=FIRST_ORDER + 10**9)
    assert frames(parse(later))["hands"]["hand_id"].to_list() == [
        "rit0000five",
        f"4-{FIRST_ORDER + 10**9}",
    ]


def test_hand_starts_are_where_each_hands_lines_begin_in_the_file() -> None:
    data = hand_log(HAND_4, HAND_5, HAND_6)
    decoded = decode_lines(data)
    lines = decoded.lines
    starts = np.flatnonzero(PokerNowParser().hand_starts(lines))
    starting = [index for index, line in enumerate(lines) if "-- starting hand #" in line]
    # The header (the newest hand's lines follow it), then the line after each starting row
    # but the oldest hand's: what follows that one opens no hand.
    assert list(starts) == [0, starting[0] + 1, starting[1] + 1]
    assert not PokerNowParser().hand_starts(lines[1:2]).any()
    whole = parse(data)
    assert frames(whole)["hands"]["source_offset"].to_list() == [
        int(decoded.offsets[start]) for start in starts[1:]  # hand #6 (the newest) is skipped
    ]
    # Cut there, each piece is whole hands: parsed piece by piece, the same rows come out.
    bounds = [*starts, len(lines)]
    pieces = [
        PokerNowParser().parse(lines[a:b], decoded.offsets[a:b], "poker_now_log_test.csv")
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]
    assert [piece.hands_found for piece in pieces] == [1, 1, 1]
    for table in ("hands", "actions", "collections", "showdowns"):
        joined = pl.concat([frames(piece)[table] for piece in pieces])
        assert joined.equals(frames(whole)[table]), table
    # Only the hero differs: one hand alone cannot single out the exporter (see below).
    joined = pl.concat([frames(piece)["seats"] for piece in pieces])
    assert joined.drop("is_hero", "hole_cards").equals(
        frames(whole)["seats"].drop("is_hero", "hole_cards")
    )
    assert frames(whole)["seats"]["is_hero"].sum() == 2 and not joined["is_hero"].any()


def test_the_sessions_opening_is_no_hand_and_other_rows_there_are_rejected() -> None:
    opening = [
        "The game's big blind was changed from 0.20 to 0.25.",
        f"The player {ANN} requested a seat.",
        f"The admin approved the player {ANN} participation with a stack of 10.00.",
    ]
    data = hand_log(opening, HAND_4)
    lines = decode_lines(data).lines
    assert not PokerNowParser().hand_starts(lines)[len(lines) - 3 :].any()
    result = parse(data)
    assert (result.hands_found, result.parsed, result.rejected) == (1, 1, 0)
    assert not any("requested" in text for text in frames(result)["notes"]["text"])
    # A row no session line explains, older than the first hand: one entry, rejected.
    data = hand_log([*opening[:1], f"{ANN} posts a big blind of 0.25"], HAND_4)
    assert int(np.count_nonzero(PokerNowParser().hand_starts(decode_lines(data).lines))) == 2
    stray = parse(data)
    assert (stray.hands_found, stray.parsed, stray.rejected) == (2, 1, 1)
    assert reasons(stray) == [
        "rows older than the first hand that are not the session's: "
        '"""Ann @ aaaaaaaaaa"" posts a big blind of 0.25",2023-11-14T22:13:20.001Z,170000000000101'
    ]


# -- damaged logs -----------------------------------------------------------------------------


def test_damaged_rows_quarantine_their_hand_only() -> None:
    truncated = [entry for entry in HAND_4 if not entry.startswith("-- ending hand")]
    garbage = [entry.replace("raises to 0.85", "raises to 0.8.5") for entry in HAND_5]
    result = parse(hand_log(truncated, garbage, HAND_6))
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (3, 0, 1, 2)
    rejects = frames(result)["rejects"]
    assert rejects.select("hand_id", "reason").rows() == [
        ("rit0000five", "unreadable amount '0.8.5' (amount)"),
        (f"4-{FIRST_ORDER}", "truncated hand: no ending line"),
    ]
    # The reject keeps the hand's lines as the file holds them: from the line after the newer
    # hand's starting row (here the seat request printed between the hands) to its own.
    text = rejects["raw_text"][1].split("\n")
    assert text[0].startswith('"The player ""Dee @ dddddddddd"" requested a seat."')
    assert text[1].startswith('"Undealt cards: ') and text[-1].startswith('"-- starting hand #4 ')


def test_play_after_the_ending_line_quarantines_the_hand() -> None:
    late_bet = [*HAND_4[:15], f"{CY} bets 1.00", *HAND_4[15:]]
    result = parse(hand_log(late_bet))
    assert reasons(result) == [
        'a line of play after the ending line: "cccccccccc" bets 1.00'
    ]


def test_broken_quoting_and_bad_rows_are_rejected_with_a_reason() -> None:
    lines = hand_log(HAND_4, HAND_5).decode().split("\n")
    broken = next(i for i, line in enumerate(lines) if '"" calls 0.85' in line)
    lines[broken] = lines[broken].replace('calls 0.85",', "calls 0.85,")  # quote left open
    result = parse("\n".join(lines).encode())
    assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1)
    assert reasons(result)[0].startswith('malformed CSV row: """Cy @ cccccccccc"" calls 0.85,')
    # A row of two fields, an order stamp that is no number, a starting row cut short.
    for damage in ("drop a field", "stamp", "header"):
        lines = hand_log(HAND_4, HAND_5).decode().split("\n")
        if damage == "drop a field":
            index = next(i for i, line in enumerate(lines) if "Flop:  [4" in line)
            lines[index] = lines[index].rsplit(",", 1)[0]
        elif damage == "stamp":
            index = next(i for i, line in enumerate(lines) if "Flop:  [4" in line)
            lines[index] = lines[index].rsplit(",", 1)[0] + ",12x"
        else:
            index = next(i for i, line in enumerate(lines) if "starting hand #5" in line)
            lines[index] = lines[index].replace("(dealer:", "(deal")
        result = parse("\n".join(lines).encode())
        assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1), damage
        # A line that is no row of the log (no stamp) is judged as any unknown line: this one
        # prints cards, so its hand is quarantined.
        expected = "unrecognised hand header" if damage == "header" else "unrecognised line: "
        assert reasons(result)[0].startswith(expected), (damage, reasons(result))


def test_unknown_lines_are_notes_or_quarantine() -> None:
    chat = [*HAND_4[:5], f"{ANN} waves", *HAND_4[5:]]
    money = [*HAND_5[:5], f"{ANN} tips the dealer 1.00", *HAND_5[5:]]
    lines = hand_log(chat, money).decode().split("\n")
    # A line of plain text put into the file (not a row of the log) after hand #4's flop.
    flop = next(i for i, line in enumerate(lines) if line.startswith('"Flop:  [2'))
    lines.insert(flop, "Cards are being shuffled")
    first = next(i for i, line in enumerate(lines) if "starting hand #5" in line) + 1
    result = parse("\n".join(lines).encode())
    assert (result.parsed, result.rejected) == (1, 1)
    assert reasons(result) == ['unrecognised line: "Ann @ aaaaaaaaaa" tips the dealer 1.00']
    notes = frames(result)["notes"].filter(pl.col("kind") == "unrecognised")
    # Numbered from the hand's first line in the file: the line after hand #5's starting row.
    assert notes.select("line_number", "text").rows() == [
        (flop - first + 1, "Cards are being shuffled"),
        (15, f"{ANN} waves"),
    ]


# -- the corpus -------------------------------------------------------------------------------


def corpus_logs() -> list[dict[str, str]]:
    return [row for row in manifest_rows() if row["site"] == "PokerNow"]


@pytest.fixture(scope="module")
def corpus_results() -> dict[str, ParseResult]:
    return {
        row["path"]: parse((CORPUS / row["path"]).read_bytes(), row["path"])
        for row in corpus_logs()
    }


@needs_corpus
def test_every_corpus_log_is_accounted_for_and_its_chips_balance(
    corpus_results: dict[str, ParseResult],
) -> None:
    assert len(corpus_results) == 28
    totals: Counter[str] = Counter()
    for row in corpus_logs():
        result = corpus_results[row["path"]]
        variants = variant_counts(row["variants"])
        assert result.hands_found == int(row["hands"]), row["path"]
        assert (result.parsed, result.rejected) == (int(row["o8_hands"]), 0), reasons(result)
        assert result.parsed == variants["O8"]
        assert result.skipped == int(row["hands"]) - int(row["o8_hands"])
        assert set(result.skipped_games) <= {"No Limit Texas Hold'em", "Pot Limit Omaha Hi"}
        tables = frames(result)
        assert tables["hands"]["hand_id"].n_unique() == result.parsed
        ledger = chip_ledger(tables)
        unbalanced = ledger.filter(pl.col("put") - pl.col("returned") != pl.col("collected"))
        assert unbalanced.height == 0, (row["path"], unbalanced.head())
        assert (ledger["put"] > 0).all()  # a blind at least (a pot may pay 0.00: hand #52)
        totals.update(parsed=result.parsed, skipped=result.skipped)
    assert totals == Counter(parsed=1681, skipped=6651)


@needs_corpus
def test_corpus_showdowns_keep_the_halves_and_descriptions_printed(
    corpus_results: dict[str, ParseResult],
) -> None:
    path = "PokerNow/cash/poker_now_log_bw58P5S33mSU9JzSo5Dpwt1uK.csv"
    tables = frames(corpus_results[path])
    hand_id = tables["hands"].filter(pl.col("hand_id").str.starts_with("120-"))["hand_id"][0]
    assert tables["collections"].filter(pl.col("hand_id") == hand_id).select(
        "player", "amount", "half", "pot_index"
    ).rows() == [
        ("Ia-cNlUwV8", 2883, "high", None),
        ("e4MtM50XXb", 1441, "low", None),
        ("MW-qs3vGhg", 1441, "low", None),
        ("Ia-cNlUwV8", 159, "high", None),
        ("MW-qs3vGhg", 159, "low", None),
    ]
    showdowns = tables["showdowns"].filter(pl.col("hand_id") == hand_id)
    assert showdowns.select("player", "high_desc", "low_desc").rows() == [
        ("Ia-cNlUwV8", "two pair tens and sixes (combination: Q♦, 6♣, 6♥, 10♥, 10♠)", None),
        ("e4MtM50XXb", None, "seven high (combination: A♠, 2♥, 3♣, 6♥, 7♠)"),
        ("MW-qs3vGhg", None, "seven high (combination: A♦, 2♦, 3♣, 6♥, 7♠)"),
    ]
    assert showdowns["cards"].to_list()[0] == cards("Ah Th Js 6c")
    # Across the corpus: a half is labelled only where the line says "hi hand" / "low hand".
    for result in corpus_results.values():
        collections = frames(result)["collections"]
        assert set(collections["half"].drop_nulls()) <= {"high", "low"}


@needs_corpus
def test_corpus_hero_is_the_exporting_account(corpus_results: dict[str, ParseResult]) -> None:
    path = "PokerNow/cash/poker_now_log_bw58P5S33mSU9JzSo5Dpwt1uK.csv"
    seats = frames(corpus_results[path])["seats"]
    heroes = seats.filter(pl.col("is_hero"))
    assert set(heroes["player"]) == {"Di5cxDUTF9"}
    assert heroes.height == seats.filter(pl.col("player") == "Di5cxDUTF9").height == 29
    assert heroes["hole_cards"].list.len().to_list() == [4] * 29
    # Hand #97's "Your hand is 9♣, K♣, 2♣, 4♣" is the hero's, who folded without showing.
    hand_97 = heroes.filter(pl.col("hand_id").str.starts_with("97-"))
    assert hand_97["hole_cards"].to_list() == [cards("9c Kc 2c 4c")]
    for result in corpus_results.values():
        tables = frames(result)
        heroes_per_hand = tables["seats"].group_by("hand_id").agg(pl.col("is_hero").sum())
        assert heroes_per_hand["is_hero"].max() == 1
        assert NOTE_UNATTRIBUTED_HOLE_CARDS not in tables["notes"]["kind"].to_list()


@needs_corpus
def test_printed_hand_ids_are_kept(corpus_results: dict[str, ParseResult]) -> None:
    path = "PokerNow/cash/poker_now_log_pglAkVE_2mhNGnsCrAM5w9hj6.csv"
    hand_ids = frames(corpus_results[path])["hands"]["hand_id"]
    assert hand_ids.str.contains(r"^[a-z0-9]{12}$").all()


@needs_corpus
def test_a_log_cut_into_blocks_gives_the_same_tables(tmp_path: Path) -> None:
    source = CORPUS / "PokerNow/cash/poker_now_log_pglPwQfd94Y70-qSI1z6AkbHk.csv"
    whole, blocks, tiny = tmp_path / "whole", tmp_path / "blocks", tmp_path / "tiny"
    ingest([source], whole, workers=1)
    ingest([source], blocks, workers=1, block_bytes=300_000)  # four blocks of ~200 hands
    for table in dataset.PART_TABLES:
        assert table_rows(whole, table) == table_rows(blocks, table), table
    assert dataset.read_table(blocks, "hands").num_rows == 307
    # Blocks of a hand or two: no hand is split, but a block that holds too few hands to
    # single out the exporter leaves the hero unnamed (the cards go to notes), never another.
    ingest([source], tiny, workers=1, block_bytes=4096)
    for table in ("hands", "actions", "collections", "showdowns", "rejects"):
        assert table_rows(whole, table) == table_rows(tiny, table), table
    hero_columns = ("is_hero", "hole_cards")
    assert table_rows(whole, "seats", drop=hero_columns) == table_rows(
        tiny, "seats", drop=hero_columns
    )
    heroes = {
        (row["hand_id"], row["player"])
        for row in dataset.read_table(tiny, "seats").to_pylist()
        if row["is_hero"]
    }
    whole_heroes = {
        (row["hand_id"], row["player"])
        for row in dataset.read_table(whole, "seats").to_pylist()
        if row["is_hero"]
    }
    assert heroes < whole_heroes
    notes = pl.from_arrow(dataset.read_table(tiny, "notes"))
    assert isinstance(notes, pl.DataFrame)
    unnamed = notes.filter(pl.col("kind") == NOTE_UNATTRIBUTED_HOLE_CARDS)
    assert unnamed.height == len(whole_heroes - heroes)


# -- the audit of what PokerNow deals -----------------------------------------------------------


def audit_of(data: bytes) -> pl.DataFrame:
    from pipeline.audit import audit_tables

    tables = {name: frames(parse(data))[name] for name in AUDITED}
    return audit_tables(**tables).discrepancies  # type: ignore[arg-type]


AUDITED = ("hands", "seats", "actions", "collections", "showdowns")
STRADDLED = [
    "-- starting hand #9 (id: straddle009)  (Pot Limit Omaha Hi/Lo 8 or Better)"
    f" (dealer: {BOB}) --",
    f"Player stacks: #1 {ANN} (10.00) | #4 {BOB} (10.00) | #7 {CY} (10.00) | #9 {DEE} (10.00)",
    f"{CY} posts a small blind of 0.10",
    f"{DEE} posts a big blind of 0.25",
    f"{ANN} posts a straddle of 0.50",
    f"{BOB} calls 0.50",
    f"{CY} folds",
    f"{DEE} folds",
    f"{ANN} checks",
    "Flop:  [2♣, 7♦, K♥]",
    f"{ANN} bets 1.35",
    f"{BOB} raises to 5.40",
    f"{ANN} folds",
    f"Uncalled bet of 4.05 returned to {BOB}",
    f"{BOB} collected 4.05 from pot",
    "-- ending hand #9 --",
]


def test_a_straddle_is_the_bet_to_match_and_its_poster_acts_last() -> None:
    """A straddle of twice the big blind is no wrong big blind; the player left of the
    straddler acts first preflop. Acting before him is an order finding."""
    assert audit_of(hand_log(STRADDLED)).is_empty()
    early = [*STRADDLED]
    early[5], early[6] = f"{CY} folds", f"{BOB} calls 0.50"
    found = audit_of(hand_log(early))
    assert set(found["kind"]) == {"action_order"}, found


def test_a_raise_to_what_the_only_opponent_can_still_put_in_is_legal() -> None:
    """PokerNow caps a raise at the most a player still in can call: ``raises to 8.37`` over a
    7.65 bet is below a full raise but covers the bettor's 0.72 left; one cent less is a
    raise below the minimum."""
    hand = [
        "-- starting hand #10 (id: covering010)  (Pot Limit Omaha Hi/Lo 8 or Better)"
        f" (dealer: {ANN}) --",
        f"Player stacks: #1 {ANN} (48.70) | #7 {CY} (12.02)",
        f"{ANN} posts a small blind of 0.10",
        f"{CY} posts a big blind of 0.25",
        f"{ANN} calls 0.25",
        f"{CY} checks",
        "Flop:  [K♦, 8♣, 2♥]",
        f"{CY} bets 0.50",
        f"{ANN} raises to 3.40",
        f"{CY} calls 3.40",
        "Turn: K♦, 8♣, 2♥ [4♦]",
        f"{CY} bets 7.65",
        f"{ANN} raises to 8.37",
        f"{CY} calls 8.37 and go all in",
        f"{ANN} shows a K♥, K♠, 7♦, 3♣.",
        f"{CY} shows a Q♦, J♦, 10♦, 9♦.",
        "River: K♦, 8♣, 2♥, 4♦ [6♠]",
        f"{ANN} collected 24.04 from pot with hi hand with three of a kind kings"
        " (combination: K♥, K♠, K♦, 8♣, 2♥)",
        "-- ending hand #10 --",
    ]
    assert audit_of(hand_log(hand)).filter(pl.col("kind") == "bet_size").is_empty()
    short = [line.replace("raises to 8.37", "raises to 8.36") for line in hand]
    short = [line.replace("calls 8.37 and go all in", "calls 8.36") for line in short]
    short = [line.replace("collected 24.04", "collected 24.02") for line in short]
    found = audit_of(hand_log(short)).filter(pl.col("kind") == "bet_size")
    assert found["player"].to_list() == ["aaaaaaaaaa"]


@needs_corpus
def test_the_corpus_audit_finds_no_money_and_no_rule_broken(
    corpus_results: dict[str, ParseResult],
) -> None:
    """Every O8 hand of the 28 logs audited as PokerNow pays and deals: no money or rules
    finding (straddles, returning players' blinds, raises capped at what a player can call,
    "collected 0.00", halves tied by the same players shared one by one)."""
    from pipeline.audit import audit_tables

    parts = [frames(result) for result in corpus_results.values()]
    tables = {name: pl.concat([part[name] for part in parts]) for name in AUDITED}
    found = audit_tables(**tables).discrepancies  # type: ignore[arg-type]
    serious = found.filter(pl.col("severity").is_in(["money", "rules"]))
    assert serious.is_empty(), serious
