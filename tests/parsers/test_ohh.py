"""OHH (Open Hand History, JSON) parser: the spec's own Omaha Hi/Lo example (a PokerStars hand,
spec 1.2.2) checked field by field against values read from the file, hand-written hands for
what the example lacks (an uncalled bet, side pots with rake, notes), the file layouts the spec
allows, other games and damaged hands.

Golden values of the corpus example, read from the file: 8 players at a 9-seat table, button
seat 7, $0.01/$0.02 pot limit; Player8 (seat 8) posts 0.01, Player9 (seat 9) 0.02, Player2
raises 0.07, everyone folds to Player9, who calls 0.05; checked down on Kc 4c 3s 5s 7h; Player9
shows 9h Tc Ah 4d, Player2 Qs As Kh Ac; one pot of 0.15, no rake: Player2 wins 0.08 (the high,
aces), Player9 0.07 (the low, 7-5-4-3-A). The hero (seat 5) holds Jh 7d Ts 5h and folds.

The side-pot hand: A (1.00, all in) B and C put in 1.00 each for a main pot of 3.00 and 3.00
more each for a side pot of 6.00; board As 2d 7h Kc 9s. A's Ah Ad 3c 4c makes trip aces and
7-4-3-2-A, so A scoops the main pot (3.00 less 0.10 rake: 2.90); in the side pot B's Kh Kd Qs Js
(trip kings) takes the high and C's 5s 6s 8d 8h (7-6-5-2-A) the low, 2.90 each of 6.00 less 0.20.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import parsers
from parsers.ohh import NOTE_ACTION, NOTE_FIELD, NOTE_UNKNOWN_FIELD, OhhParser
from parsers.text import decode_lines
from pipeline.audit import PAYOUT_KINDS
from pipeline.ingest import ingest
from tests.parsers.corpus import cards, chip_ledger, frames
from tests.parsers.structured import ingest_and_audit, parse_bytes, reasons
from tests.shared_data import CORPUS, needs_corpus

EXAMPLE = CORPUS / "OHH" / "Omaha-HiLo-Cash-PokerStars-201510.ohh"

# A hand won by a flop bet nobody called: the spec has no action for the bet handed back.
UNCALLED = """{"ohh": {"spec_version": "1.4.6", "site_name": "Example", "network_name": "Example Network", "internal_version": "7", "tournament": false, "game_number": "U-1", "start_date_utc": "2024-03-01T20:15:00Z", "table_name": "T 1", "table_skin": "Blue", "game_type": "OmahaHiLo", "bet_limit": {"bet_type": "PL", "bet_cap": 0}, "table_size": 6, "currency": "EUR", "dealer_seat": 1, "small_blind_amount": 0.05, "big_blind_amount": 0.10, "ante_amount": 0.00, "hero_player_id": 0, "flags": ["Fast"], "players": [{"id": 0, "seat": 1, "name": "Ann", "display": "Ann the Bold", "starting_stack": 10.00}, {"id": 1, "seat": 2, "name": "Bob", "starting_stack": 10.00, "is_sitting_out": false}, {"id": 2, "seat": 3, "name": "Cy", "starting_stack": 8.50}], "rounds": [{"id": 0, "street": "Preflop", "actions": [{"action_number": 1, "player_id": 1, "action": "Post SB", "amount": 0.05}, {"action_number": 2, "player_id": 2, "action": "Post BB", "amount": 0.10}, {"action_number": 3, "player_id": 0, "action": "Dealt Cards", "cards": ["Ah", "2h", "3d", "Kc"]}, {"action_number": 4, "player_id": 0, "action": "Raise", "amount": 0.30}, {"action_number": 5, "player_id": 1, "action": "Fold"}, {"action_number": 6, "player_id": 2, "action": "Call", "amount": 0.20}]}, {"id": 1, "street": "Flop", "cards": ["7s", "8s", "Td"], "actions": [{"action_number": 1, "player_id": 2, "action": "Check"}, {"action_number": 2, "player_id": 0, "action": "Bet", "amount": 0.50}, {"action_number": 3, "player_id": 1, "action": "Stands Up"}, {"action_number": 4, "player_id": 2, "action": "Fold", "mood": "sad"}]}], "pots": [{"number": 0, "amount": 0.65, "rake": 0.03, "player_wins": [{"player_id": 0, "win_amount": 0.62, "bonus_amount": 1.00}]}], "room": "east"}}"""

# All in preflop for less, a side pot, rake from both pots (see the module docstring).
SIDE_POTS = """{"ohh": {"spec_version": "1.4.6", "site_name": "Example", "network_name": "Example Network", "internal_version": "7", "tournament": false, "game_number": "S-1", "start_date_utc": "2024-03-01T20:20:00", "table_name": "T 1", "game_type": "OmahaHiLo", "bet_limit": {"bet_type": "NL"}, "table_size": 6, "currency": "USD", "dealer_seat": 1, "small_blind_amount": 0.05, "big_blind_amount": 0.10, "ante_amount": 0, "hero_player_id": null, "players": [{"id": 7, "seat": 1, "name": "A", "starting_stack": 1.00}, {"id": 8, "seat": 2, "name": "B", "starting_stack": 5.00}, {"id": 9, "seat": 3, "name": "C", "starting_stack": 5.00}], "rounds": [{"id": 0, "street": "Preflop", "cards": "", "actions": [{"action_number": 1, "player_id": 8, "action": "Post SB", "amount": 0.05}, {"action_number": 2, "player_id": 9, "action": "Post BB", "amount": 0.10}, {"action_number": 3, "player_id": 7, "action": "Raise", "amount": 1.00, "is_allin": true}, {"action_number": 4, "player_id": 8, "action": "Call", "amount": 0.95}, {"action_number": 5, "player_id": 9, "action": "Raise", "amount": 3.90}, {"action_number": 6, "player_id": 8, "action": "Call", "amount": 3.00}]}, {"id": 1, "street": "Flop", "cards": ["As", "2d", "7h"], "actions": [{"action_number": 1, "player_id": 8, "action": "Check"}, {"action_number": 2, "player_id": 9, "action": "Check"}]}, {"id": 2, "street": "Turn", "cards": ["Kc"], "actions": [{"action_number": 1, "player_id": 8, "action": "Check"}, {"action_number": 2, "player_id": 9, "action": "Check"}]}, {"id": 3, "street": "River", "cards": ["9s"], "actions": [{"action_number": 1, "player_id": 8, "action": "Check"}, {"action_number": 2, "player_id": 9, "action": "Check"}]}, {"id": 4, "street": "Showdown", "actions": [{"action_number": 1, "player_id": 8, "action": "Shows Cards", "cards": ["Kh", "Kd", "Qs", "Js"]}, {"action_number": 2, "player_id": 9, "action": "Shows Cards", "cards": ["5s", "6s", "8d", "8h"]}, {"action_number": 3, "player_id": 7, "action": "Shows Cards", "cards": ["Ah", "Ad", "3c", "4c"]}]}], "pots": [{"number": 0, "amount": 3.00, "rake": 0.10, "player_wins": [{"player_id": 7, "win_amount": 2.90}]}, {"number": 1, "amount": 6.00, "rake": 0.20, "jackpot": null, "player_wins": [{"player_id": 8, "win_amount": 2.90}, {"player_id": 9, "win_amount": 2.90}, {"player_id": 7, "win_amount": 0}]}]}}"""


def parse_text(text: str, name: str = "hands.ohh") -> Any:
    decoded = decode_lines(text.encode("utf-8"))
    result = OhhParser().parse(decoded.lines, decoded.offsets, name)
    assert result.hands_found == result.parsed + result.skipped + result.rejected
    return result


def pretty(text: str) -> str:
    """The same hand pretty-printed as the spec's examples are (amounts through floats, which
    print the shortest decimal: the same value)."""
    return json.dumps(json.loads(text), indent=4)


def one_line(text: str) -> str:
    return json.dumps(json.loads(text), separators=(",", ":"))


def with_changes(text: str, **changes: Any) -> str:
    """The hand with top-level ``ohh`` fields replaced (a value of `...` removes the field)."""
    document = json.loads(text)
    for key, value in changes.items():
        if value is ...:
            del document["ohh"][key]
        else:
            document["ohh"][key] = value
    return json.dumps(document)


# -- the spec's Omaha Hi/Lo example ---------------------------------------------------------------


@needs_corpus
def test_corpus_example_golden_values() -> None:
    result = parsers.parse_bytes(EXAMPLE.read_bytes(), str(EXAMPLE))
    assert result is not None, "the registry does not claim the example"
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (1, 1, 0, 0)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["site"], hand["hand_id"], hand["table_name"], hand["game"]) == (
        "ohh",
        "142665060918",
        "Victoria IV",
        "O8",
    )
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("PL", "USD", 100)
    assert (hand["small_blind"], hand["big_blind"], hand["ante"]) == (1, 2, None)
    assert (hand["max_seats"], hand["button_seat"], hand["players_dealt"]) == (9, 7, 8)
    assert hand["started_at"].isoformat() == "2015-10-23T15:52:33+00:00"
    assert hand["board"] == cards("Kc 4c 3s 5s 7h")
    assert (hand["total_pot"], hand["rake"], hand["side_pots"]) == (15, 0, None)

    seats = tables["seats"].sort("seat")
    assert seats.select("seat", "player", "stack_start").rows() == [
        (2, "Player2", 413),
        (3, "Player3", 66),
        (4, "Player4", 210),
        (5, "Hero", 220),
        (6, "Player6", 111),
        (7, "Player7", 158),
        (8, "Player8", 115),
        (9, "Player9", 175),
    ]
    hero = seats.filter(pl.col("is_hero"))
    assert hero["player"].to_list() == ["Hero"]
    assert hero["hole_cards"].to_list() == [cards("Jh 7d Ts 5h")]
    shown = dict(tables["showdowns"].select("player", "cards").rows())
    assert shown == {"Player9": cards("9h Tc Ah 4d"), "Player2": cards("Qs As Kh Ac")}

    actions = tables["actions"].sort("seq")
    assert actions.height == 18  # 10 preflop (the deal is no action), 2 a street, 2 shows
    assert actions.head(3).select("street", "player", "kind", "amount").rows() == [
        (0, "Player8", "post_sb", 1),
        (0, "Player9", "post_bb", 2),
        (0, "Player2", "raise", 7),
    ]
    assert actions.select("player", "kind", "amount", "to_amount").row(9) == (
        "Player9",
        "call",
        5,
        7,
    )
    assert actions.filter(pl.col("street") > 0)["kind"].to_list() == ["check"] * 6 + ["show"] * 2
    assert tables["collections"].select("player", "amount", "pot_index", "half").rows() == [
        ("Player2", 8, 0, None),
        ("Player9", 7, 0, None),
    ]
    ledger = chip_ledger(tables).row(0, named=True)
    assert ledger["put"] - ledger["returned"] == ledger["collected"] + ledger["rake"] == 15

    notes = tables["notes"]
    assert notes.select("text", "kind").rows() == [
        ('spec_version = "1.2.2"', NOTE_FIELD),
        ('site_name = "PokerStars"', NOTE_FIELD),
        ('network_name = "PokerStars"', NOTE_FIELD),
        ('internal_version = "1.2.2"', NOTE_FIELD),
    ]
    assert set(notes["hand_id"]) == {"142665060918"} and set(notes["line_number"]) == {1}


@needs_corpus
def test_corpus_example_audits_without_findings(tmp_path: Path) -> None:
    files, findings = ingest_and_audit([EXAMPLE], tmp_path / "ds")
    assert files.select("site", "hands", "skipped", "rejected").rows() == [("ohh", 1, 0, 0)]
    assert findings.height == 0, findings


@needs_corpus
def test_corpus_example_one_object_per_line_and_many_in_a_file() -> None:
    """The example written compactly on one line, three times under other game numbers and
    separated by blank lines as the spec's storage format says, reads as three such hands."""
    text = EXAMPLE.read_text()
    compact = [
        with_changes(one_line(text), game_number=f"L-{number}").replace("\n", "")
        for number in range(3)
    ]
    result = parse_text("\n\n".join(compact) + "\n")
    assert (result.hands_found, result.parsed, result.rejected) == (3, 3, 0), reasons(result)
    tables = frames(result)
    assert tables["hands"]["hand_id"].to_list() == ["L-0", "L-1", "L-2"]
    alone = frames(parsers.parse_bytes(EXAMPLE.read_bytes(), "x"))  # type: ignore[arg-type]
    columns = ["street", "player", "kind", "amount", "to_amount", "is_all_in"]
    first = tables["actions"].filter(pl.col("hand_id") == "L-0").sort("seq")
    assert first.select(columns).equals(alone["actions"].sort("seq").select(columns))
    assert tables["collections"].height == 6


# -- hand-written hands ---------------------------------------------------------------------------


def test_uncalled_bet_is_written_out_and_facts_kept_in_notes() -> None:
    result = parsers.parse_bytes(UNCALLED.encode(), "uncalled.ohh")
    assert result is not None
    assert (result.parsed, result.rejected) == (1, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["currency"], hand["total_pot"], hand["rake"], hand["small_blind"]) == (
        "EUR",
        65,
        3,
        5,
    )
    assert hand["started_at"].isoformat() == "2024-03-01T20:15:00+00:00"
    assert hand["board"] == cards("7s 8s Td")
    actions = tables["actions"].sort("seq")
    flop = actions.filter(pl.col("street") == 1).select("player", "kind", "amount").rows()
    assert flop == [
        ("Cy", "check", None),
        ("Ann", "bet", 50),
        ("Cy", "fold", None),
        ("Ann", "uncalled_return", 50),
    ]
    ledger = chip_ledger(tables).row(0, named=True)
    assert (ledger["put"], ledger["returned"], ledger["collected"]) == (115, 50, 62)
    assert ledger["put"] - ledger["returned"] == ledger["collected"] + ledger["rake"]
    seats = tables["seats"].sort("seat")
    assert seats.filter(pl.col("is_hero"))["hole_cards"].to_list() == [cards("Ah 2h 3d Kc")]
    notes = tables["notes"].select("text", "kind").rows()
    assert notes == [
        ("room = \"east\"", NOTE_UNKNOWN_FIELD),
        ('spec_version = "1.4.6"', NOTE_FIELD),
        ('site_name = "Example"', NOTE_FIELD),
        ('network_name = "Example Network"', NOTE_FIELD),
        ('internal_version = "7"', NOTE_FIELD),
        ('table_skin = "Blue"', NOTE_FIELD),
        ('flags = "Fast"', NOTE_FIELD),
        ('players[0].display = "Ann the Bold"', NOTE_FIELD),
        (
            'rounds[1].actions[2] = {"action_number":3,"player_id":1,"action":"Stands Up"}',
            NOTE_ACTION,
        ),
        ('rounds[1].actions[3].mood = "sad"', NOTE_UNKNOWN_FIELD),
        ("pots[0].player_wins[0].bonus_amount = 1.00", NOTE_FIELD),
    ]


def test_uncalled_bet_hand_audits_without_findings(tmp_path: Path) -> None:
    source = tmp_path / "hands.ohh"
    source.write_text(UNCALLED + "\n\n" + SIDE_POTS + "\n")
    files, findings = ingest_and_audit([source], tmp_path / "ds")
    assert files.select("hands", "rejected").rows() == [(2, 0)]
    assert findings.height == 0, findings


def test_side_pots_collections_per_pot_and_rake() -> None:
    result = parse_text(pretty(SIDE_POTS))
    assert (result.parsed, result.rejected) == (1, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["total_pot"], hand["rake"], hand["side_pots"]) == (900, 30, [290, 580])
    assert hand["board"] == cards("As 2d 7h Kc 9s")
    assert tables["collections"].select("player", "amount", "pot_index").rows() == [
        ("A", 290, 0),
        ("B", 290, 1),
        ("C", 290, 1),
    ]
    assert not tables["seats"]["is_hero"].any()
    all_in = tables["actions"].filter(pl.col("is_all_in"))
    assert all_in.select("player", "kind", "amount").rows() == [("A", "raise", 100)]
    ledger = chip_ledger(tables).row(0, named=True)
    assert ledger["put"] - ledger["returned"] == ledger["collected"] + ledger["rake"] == 900


def test_several_pretty_printed_hands_in_one_file_and_across_blocks(tmp_path: Path) -> None:
    """Pretty-printed objects one after another (a lone ``{`` opens each), read whole or cut
    into blocks of a few hundred bytes by ingest: every hand is found once."""
    texts = [pretty(with_changes(UNCALLED, game_number=f"P-{number}")) for number in range(4)]
    texts.append(pretty(SIDE_POTS))
    data = "\n\n".join(texts) + "\n"
    result = parse_text(data)
    assert (result.hands_found, result.parsed, result.rejected) == (5, 5, 0), reasons(result)
    assert frames(result)["hands"]["hand_id"].to_list() == ["P-0", "P-1", "P-2", "P-3", "S-1"]
    lines = decode_lines(data.encode()).lines
    starts = np.flatnonzero(OhhParser().hand_starts(lines))
    assert [lines[int(row)] for row in starts] == ["{"] * 5
    source = tmp_path / "many.ohh"
    source.write_text(data)
    summary = ingest([source], tmp_path / "ds", workers=1, block_bytes=700)
    assert (summary.parsed, summary.rejected) == (5, 0)


def test_other_games_are_skipped() -> None:
    holdem = with_changes(UNCALLED, game_number="H-1", game_type="Holdem")
    five_cards = UNCALLED.replace('"Ah", "2h", "3d", "Kc"', '"Ah", "2h", "3d", "Kc", "Qc"')
    data = "\n\n".join([holdem, five_cards, one_line(SIDE_POTS)]) + "\n"
    result = parse_text(data)
    assert (result.hands_found, result.parsed, result.skipped, result.rejected) == (3, 1, 2, 0)
    assert result.skipped_games == {"Holdem": 1, "OmahaHiLo (5 hole cards)": 1}


def in_chips(text: str, **changes: Any) -> str:
    """The hand with every decimal amount multiplied by 100 (whole chips) and top-level
    ``ohh`` fields replaced."""

    def convert(value: Any) -> Any:
        if isinstance(value, Decimal):
            return int(value * 100)
        if isinstance(value, dict):
            return {key: convert(item) for key, item in value.items()}
        if isinstance(value, list):
            return [convert(item) for item in value]
        return value

    document = convert(json.loads(text, parse_float=Decimal))
    document["ohh"].update(changes)
    return json.dumps(document)


def test_tournament_chips_are_whole() -> None:
    tournament = in_chips(
        UNCALLED, tournament=True, tournament_info={"tournament_number": 5, "name": "Sunday 8"}
    )
    result = parse_text(tournament)
    assert (result.parsed, result.rejected) == (1, 0), reasons(result)
    tables = frames(result)
    hand = tables["hands"].row(0, named=True)
    assert (hand["currency"], hand["money_scale"], hand["tournament_id"]) == ("CHIPS", 1, "5")
    assert (hand["total_pot"], hand["rake"], hand["big_blind"]) == (65, 3, 10)
    notes = tables["notes"]["text"].to_list()
    assert 'currency = "EUR"' in notes and 'tournament_info.name = "Sunday 8"' in notes
    fractional = tournament.replace('"amount": 30', '"amount": 30.5')
    result = parse_text(fractional)
    assert (result.parsed, result.rejected) == (0, 1)
    assert reasons(result)[0][1] == (
        "rounds[0].actions[3].amount: amount finer than the money unit (30.5)"
    )
    # From spec 1.3 on, "tournament" is required.
    result = parse_text(with_changes(UNCALLED, tournament=...))
    assert reasons(result)[0][1] == "tournament: missing"


# -- damaged hands ---------------------------------------------------------------------------------


def test_damaged_hands_are_quarantined_with_the_field_named() -> None:
    def damaged(number: int, old: str, new: str) -> str:
        text = UNCALLED.replace('"U-1"', f'"D-{number}"')
        assert old in text
        return text.replace(old, new)

    cases = {
        "truncated": UNCALLED.replace('"U-1"', '"D-1"')[:-60],
        "missing": with_changes(UNCALLED, game_number=...),
        "stack": damaged(3, '"starting_stack": 8.50', '"starting_stack": "8.50"'),
        "nan": damaged(4, '"amount": 0.30', '"amount": NaN'),
        "negative": damaged(5, '"win_amount": 0.62', '"win_amount": -0.62'),
        "cents": damaged(6, '"amount": 0.20', '"amount": 0.205'),
        "table_size": with_changes(UNCALLED.replace('"U-1"', '"D-7"'), table_size="6"),
        "action": damaged(8, '"Check"}', '"Knock"}'),
        "player": damaged(9, '2, "action": "Call"', '5, "action": "Call"'),
        "card": damaged(10, '"Td"', '"10d"'),
        "deep": damaged(11, '"room": "east"', '"room": ' + "[" * 40 + "]" * 40),
        "street": damaged(12, '"street": "Flop"', '"street": "Turn"'),
        "pot": damaged(13, '"Stands Up"', '"Add to Pot"'),
    }
    data = "\n\n".join([*cases.values(), UNCALLED]) + "\n"
    result = parse_text(data)
    assert (result.hands_found, result.parsed, result.rejected) == (len(cases) + 1, 1, len(cases))
    found = dict(zip(cases, (reason for _, reason in reasons(result)), strict=True))
    assert found["truncated"].startswith("malformed JSON")
    assert found["missing"] == "game_number: missing"
    assert found["stack"] == 'players[2].starting_stack: not a number ("8.50")'
    assert found["nan"] == "rounds[0].actions[3].amount: not a finite number (NaN)"
    assert found["negative"] == "pots[0].player_wins[0].win_amount: negative amount (-0.62)"
    assert found["cents"] == "rounds[0].actions[5].amount: amount finer than the money unit (0.205)"
    assert found["table_size"] == 'table_size: not an integer ("6")'
    assert found["action"] == "rounds[1].actions[0].action: unknown action ('Knock')"
    assert found["player"] == "rounds[0].actions[5].player_id: no player with id 5"
    assert found["card"] == 'rounds[1].cards[2]: unreadable card ("10d")'
    assert found["deep"] == "unsafe JSON: nested deeper than 32"
    assert found["street"] == "rounds[1].street: Turn out of order"
    assert found["pot"].startswith("rounds[1].actions[2]: Add to Pot")
    # A reject keeps its hand's text and its game number where the text starts with it.
    rejects = frames(result)["rejects"]
    assert rejects["raw_text"].str.starts_with('{"ohh"').all()
    assert rejects["hand_id"][2] == "D-3"


def test_text_around_the_hands() -> None:
    junk_before = "exported by a tool\n" + UNCALLED + "\n"
    result = parse_text(junk_before)
    assert (result.hands_found, result.parsed, result.rejected) == (2, 1, 1)
    assert reasons(result)[0][1].startswith("text before the first hand")
    junk_after = UNCALLED + " trailing words\n"
    result = parse_text(junk_after)
    assert (result.parsed, result.rejected) == (0, 1)
    assert reasons(result)[0][1] == "unrecognised text after the hand: trailing words"


def test_sniffed_by_the_registry_in_both_layouts() -> None:
    assert isinstance(parsers.detect(UNCALLED), OhhParser)
    assert isinstance(parsers.detect(pretty(UNCALLED)), OhhParser)
    assert parsers.detect('{"history": []}') is None
    assert parse_bytes(OhhParser(), pretty(SIDE_POTS).encode()).parsed == 1
