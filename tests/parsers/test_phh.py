"""PHH (Poker Hand History, TOML) parser: the 14 real WSOP FO/8 hands, one hand checked field by
field against values read from the file, the audit on them, streaming of .phhs files, and
hostile or garbled input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import parsers
from parsers.phh import PhhParser
from parsers.text import decode_lines
from pipeline.audit import run_audit
from pipeline.dataset import read_table
from pipeline.ingest import ingest
from tests.parsers.corpus import cards, frames
from tests.shared_data import CORPUS, needs_corpus

PHH_DIR = CORPUS / "phh"
HAND_12 = PHH_DIR / "wsop_2023_43_5_12.phh"


def parse_text(text: str, name: str = "t.phhs") -> dict[str, pl.DataFrame]:
    decoded = decode_lines(text.encode("utf-8"))
    result = PhhParser().parse(decoded.lines, decoded.offsets, name)
    tables = frames(result)
    assert result.hands_found == result.parsed + result.skipped + result.rejected
    tables["_counts"] = pl.DataFrame(
        {
            "found": [result.hands_found],
            "parsed": [result.parsed],
            "skipped": [result.skipped],
            "rejected": [result.rejected],
        }
    )
    return tables


GOOD_HAND = """variant = 'FO/8'
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
small_bet = 10
big_bet = 20
starting_stacks = [100, 200, 300]
actions = ['d dh p1 AcKd2h3s', 'd dh p2 ????????', 'd dh p3 ????????', 'p3 cbr 20', 'p1 f', 'p2 f']
players = ['Ann', 'Bob', 'Cy']
finishing_stacks = [95, 190, 315]
"""


# -- the real corpus ------------------------------------------------------------------------


@needs_corpus
def test_corpus_hands_all_parse_without_rejects(tmp_path: Path) -> None:
    summary = ingest([PHH_DIR], tmp_path / "ds", workers=1)
    assert (summary.parsed, summary.skipped, summary.rejected) == (14, 0, 0)
    hands = pl.from_arrow(read_table(tmp_path / "ds", "hands"))
    assert hands["site"].unique().to_list() == ["phh"]
    assert hands["hand_id"].n_unique() == 14


@needs_corpus
def test_registry_sniffs_a_phh_file() -> None:
    result = parsers.parse_bytes(HAND_12.read_bytes(), str(HAND_12))
    assert result is not None and result.parsed == 1


@needs_corpus
def test_hand_12_field_by_field() -> None:
    """Values read by hand from wsop_2023_43_5_12.phh (2023 WSOP $50K PPC, day 5, hand 12)."""
    tables = frames(parsers.parse_bytes(HAND_12.read_bytes(), str(HAND_12)))  # type: ignore[arg-type]
    hand = tables["hands"].row(0, named=True)
    assert hand["hand_id"] == "2023-06-22/12"
    assert hand["tournament_id"].startswith("2023 World Series of Poker Event #43")
    assert (hand["limit_type"], hand["currency"], hand["money_scale"]) == ("FL", "CHIPS", 1)
    assert (hand["small_blind"], hand["big_blind"]) == (100_000, 200_000)
    assert (hand["small_bet"], hand["big_bet"]) == (200_000, 400_000)
    assert hand["ante"] is None and hand["button_seat"] == 5 and hand["players_dealt"] == 5
    assert hand["board"] == cards("3s 7h Ks 8s Ah")
    seats = tables["seats"].sort("seat")
    assert seats["player"].to_list() == [
        "Brian Rast",
        "Matthew Ashton",
        "Kristopher Tong",
        "James Obst",
        "Talal Shakerchi",
    ]
    assert seats["position"].to_list() == ["SB", "BB", "UTG", "CO", "BTN"]
    assert seats["stack_start"].to_list() == [4_175_000, 6_675_000, 4_600_000, 4_750_000, 9_500_000]
    assert seats["hole_cards"][2].to_list() == cards("As 8c 7s 5h")
    assert seats["hole_cards"][0].to_list() == cards("8d 7d 5d 4d")
    actions = tables["actions"].sort("seq")
    assert actions.select("player", "kind", "amount", "to_amount").rows()[:7] == [
        ("Brian Rast", "post_sb", 100_000, 100_000),
        ("Matthew Ashton", "post_bb", 200_000, 200_000),
        ("Kristopher Tong", "raise", 400_000, 400_000),
        ("James Obst", "fold", None, 0),
        ("Talal Shakerchi", "fold", None, 0),
        ("Brian Rast", "fold", None, 100_000),
        ("Matthew Ashton", "call", 200_000, 400_000),
    ]
    assert actions["street"].to_list() == [0] * 7 + [1] * 3 + [2] * 3 + [3] * 5
    assert actions["kind"].to_list()[-2:] == ["show", "muck"]
    # finishing 6,100,000 - starting 4,600,000 + put in (400k + 200k + 400k + 400k).
    assert tables["collections"].select("player", "amount", "half", "pot_index").rows() == [
        ("Kristopher Tong", 2_900_000, None, None)
    ]
    assert tables["showdowns"]["player"].to_list() == ["Kristopher Tong"]


@needs_corpus
def test_audit_finds_nothing_in_the_corpus_hands(tmp_path: Path) -> None:
    """Their finishing stacks agree with the payouts the rules give (per player totals)."""
    ingest([PHH_DIR], tmp_path / "ds", workers=1)
    summary = run_audit(tmp_path / "ds")
    assert summary.hands == 14
    assert summary.findings_by_kind == {}
    assert summary.unevaluable == 0


# -- .phhs files and streaming ----------------------------------------------------------------


def test_phhs_sections_each_become_a_hand_and_a_bad_one_is_isolated() -> None:
    text = "# a comment before the first hand\n\n[1]\n" + GOOD_HAND
    text += "\n[2]\nvariant = 'FO/8'\nantes = [0, 0\n"  # broken TOML
    text += "\n[3]\n" + GOOD_HAND.replace("'Cy'", "'Dee'")
    text += "\n[4]\n" + GOOD_HAND.replace("FO/8", "NT")  # another game: skipped
    tables = parse_text(text)
    assert tables["_counts"].row(0) == (4, 2, 1, 1)
    assert tables["rejects"]["reason"][0].startswith("bad TOML")
    assert tables["rejects"]["raw_text"][0].startswith("[2]")
    assert sorted(tables["seats"]["player"].unique().to_list()) == ["Ann", "Bob", "Cy", "Dee"]


def test_uncalled_bet_goes_back_and_collections_follow_the_stacks() -> None:
    tables = parse_text(GOOD_HAND, "one.phh")
    actions = tables["actions"]
    returned = actions.filter(pl.col("kind") == "uncalled_return")
    # Cy raised to 20; the largest other total is Bob's big blind of 10.
    assert returned.select("player", "amount", "street").rows() == [("Cy", 10, 0)]
    # Cy: 315 - 300 + 20 - 10 = 25 (the blinds 5 + 10 and his own 10).
    assert tables["collections"].select("player", "amount").rows() == [("Cy", 25)]
    assert tables["seats"].filter(pl.col("player") == "Ann")["hole_cards"][0].to_list() == cards(
        "Ac Kd 2h 3s"
    )


def test_large_phhs_streams_in_blocks_with_the_same_result(tmp_path: Path) -> None:
    source = tmp_path / "many.phhs"
    source.write_text(
        "\n".join(f"[{n}]\n{GOOD_HAND}_hand_id = 'h{n}'\n" for n in range(1, 301)),
        encoding="utf-8",
    )
    small = ingest([source], tmp_path / "small", workers=1, block_bytes=4096)
    whole = ingest([source], tmp_path / "whole", workers=1)
    assert small.parsed == whole.parsed == 300 and small.rejected == 0
    ids = pl.from_arrow(read_table(tmp_path / "small", "hands"))["hand_id"]
    assert ids.n_unique() == 300


# -- hostile and garbled input ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("variant = 'FO/8'\nantes = [0, 0\n", "bad TOML"),
        ("variant = 'FO/8'\nantes = 'x' = 2\n", "bad TOML"),
        (GOOD_HAND.replace("actions =", "_actions ="), "missing required field 'actions'"),
        (GOOD_HAND.replace("small_bet = 10\n", ""), "missing required field 'small_bet'"),
        (GOOD_HAND.replace("'p2 f'", "'p9 f'"), "action for unknown player p9"),
        (GOOD_HAND.replace("'p2 f'", "'p2 xyz'"), "unrecognised action"),
        (
            GOOD_HAND.replace("[100, 200, 300]", "[1000000000000000000000000000000, 200, 300]"),
            "out of range",
        ),
        (GOOD_HAND.replace("[100, 200, 300]", "[-100, 200, 300]"), "out of range"),
        (GOOD_HAND.replace("[100, 200, 300]", "[100.5, 200, 300]"), "more decimals"),
        (GOOD_HAND.replace("[100, 200, 300]", "[inf, 200, 300]"), "not finite"),
        (GOOD_HAND.replace("antes = [0, 0, 0]", "antes = [0, 0]"), "'antes' has 2 entries"),
        (GOOD_HAND.replace("'p3 cbr 20'", "'p3 cbr 2000'"), "p3 puts in 2000 with 300 behind"),
        (GOOD_HAND.replace("'p3 cbr 20'", "'p3 cbr twenty'"), "unreadable amount"),
        # Found by the fuzz harness: a number past the context's exponent raised out of the
        # parser, and so did an actor number past Python's 4,300-digit int conversion limit.
        (GOOD_HAND.replace("'p3 cbr 20'", "'p3 cbr 1e999999999'"), "out of range"),
        (GOOD_HAND.replace("'p2 f'", f"'p{'9' * 50} f'"), "unknown actor"),
        (GOOD_HAND.replace("[100, 200, 300]", "[1.5e9999999999999999999, 200, 300]"), "bad TOML"),
        (GOOD_HAND.replace("'p2 f'", f"'p{'9' * 5000} f'"), "a number of more than 4,300 digits"),
        (GOOD_HAND.replace("AcKd2h3s", "AcKd2h3x"), "unreadable cards"),
        (GOOD_HAND.replace("[95, 190, 315]", "[95, 190, 200]"), "finishing stack of p3"),
        (GOOD_HAND.replace("['Ann', 'Bob', 'Cy']", "['Ann', 'Ann', 'Cy']"), "duplicate player"),
        (GOOD_HAND.replace("'d dh p2 ????????'", "'d dh p2 AcQdQhQs'"), "duplicate card"),
        ("variant = 7\nactions = []\n", "missing or non-text field 'variant'"),
        (GOOD_HAND.replace("[100, 200, 300]", "[100]").replace("[0, 0, 0]", "[0]"), "1 players"),
    ],
)
def test_hostile_hands_are_rejected_with_a_reason(text: str, reason: str) -> None:
    tables = parse_text(text)
    assert tables["_counts"].row(0) == (1, 0, 0, 1)
    assert reason in tables["rejects"]["reason"][0]
    assert tables["rejects"]["raw_text"][0] == text.rstrip("\n")


def test_a_number_of_millions_of_digits_is_refused_before_tomllib_reads_it() -> None:
    # tomllib's number pattern matched such a run with a repeated group: ~128 bytes of re's
    # memory per digit (2 GB for 16 MiB, found by the fuzz harness's huge-line probe).
    import tracemalloc

    text = GOOD_HAND.replace("[100, 200, 300]", f"[1{'0' * (2 << 20)}, 200, 300]")
    tracemalloc.start()
    try:
        tables = parse_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tables["_counts"].row(0) == (1, 0, 0, 1)
    assert "a number of more than 4,300 digits" in tables["rejects"]["reason"][0]
    assert peak < 32 * len(text)


def test_deeply_nested_toml_is_rejected_not_crashing() -> None:
    text = "variant = 'FO/8'\nx = " + "[" * 5000 + "]" * 5000 + "\n"
    tables = parse_text(text)
    assert tables["_counts"].row(0) == (1, 0, 0, 1)
    assert "bad TOML" in tables["rejects"]["reason"][0]


def test_batched_files_give_each_file_its_own_result() -> None:
    """Ingest parses many small .phh files in one batch: the result per file must be what
    parsing each file alone gives (rows, counts, rejects with their own file)."""
    texts = {
        "a.phh": GOOD_HAND,
        "b.phh": GOOD_HAND.replace("'p2 f'", "'p9 f'"),  # rejected
        "c.phhs": "[1]\n" + GOOD_HAND.replace("FO/8", "NT") + "\n[2]\n" + GOOD_HAND,
        "d.phh": GOOD_HAND.replace("'Cy'", "'Dee'") + "_hand_id = 'd-1'\n",
    }
    decoded = [decode_lines(text.encode()) for text in texts.values()]
    parser = PhhParser()
    alone = [parser.parse(d.lines, d.offsets, name) for d, name in zip(decoded, texts, strict=True)]
    sizes = [len(d.lines) for d in decoded]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    batched = parser.parse_files(
        pl.concat([d.lines for d in decoded]),
        np.concatenate([d.offsets for d in decoded]),
        starts,
        list(texts),
    )
    for one, many in zip(alone, batched, strict=True):
        assert (one.hands_found, one.parsed, one.skipped, one.rejected) == (
            many.hands_found,
            many.parsed,
            many.skipped,
            many.rejected,
        )
        for name, table in one.tables.items():
            assert table.equals(many.tables[name]), name
    assert [result.rejected for result in batched] == [0, 1, 0, 0]
    assert batched[1].tables["rejects"].column("source_file").to_pylist() == ["b.phh"]
    assert batched[2].skipped_games == {"NT": 1}
    assert batched[3].tables["hands"].column("hand_id").to_pylist() == ["d-1"]
