"""Every registered parser keeps its contract under hostile input (fuzzing).

The contract (`tests.fuzzing.check_result`): no exception escapes; ``hands_found == parsed +
skipped + rejected`` and every recognised hand start is accounted to a hand; every reject has a
reason and its raw text; the tables conform to `pipeline.schema` with no null keys, money in
0..10^16, card codes 0..51, boards of at most 5 cards, 4 hole cards and no card dealt twice.

The default run parses a seeded ~2,000 mutated hands per parser and a few hypothesis examples
per parser; ``-m slow`` runs the long versions. ``python -m bench fuzz`` runs a million per parser.
"""

from __future__ import annotations

import random
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parsers
from parsers import parse_bytes
from parsers.engine.checks import actor_problems
from parsers.text import decode_lines
from tests.fuzzing import (
    CORPUS,
    HARMLESS_LINES,
    MUTATORS,
    NUMBER,
    Seeds,
    fuzz_parser,
    huge_line,
    load_seeds,
    mutated_block,
    parse_checked,
    parser_by_site,
    reencode,
)
from tests.shared_data import CORPUS, needs_corpus

SITES = [parser.site for parser in parsers.PARSERS]
QUICK = settings(
    max_examples=4,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
LONG = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def seeds() -> Seeds:
    return load_seeds()


def own_hands(seeds: Seeds, site: str) -> list[str]:
    """The site's seed hands; skips (visibly) a registered parser nothing seeds."""
    if site not in seeds.hands:
        pytest.skip(f"no seed hands for parser {site!r}: no corpus file or test document is its")
    return seeds.hands[site]


def assert_sound(site: str, data: bytes) -> None:
    problems = parse_checked(parser_by_site(site), data)
    assert not problems, f"{site}: {problems}\n--- input (first 2 KB) ---\n{data[:2000]!r}"


# -- the seeds ----------------------------------------------------------------------------------


@needs_corpus
def test_corpus_seeds_every_text_format_the_corpus_holds(seeds: Seeds) -> None:
    """Each corpus folder of a format with a text parser seeds that parser (so a parser the
    registry gains is fuzzed without a change to the harness)."""
    expected = {"pokerstars", "fulltilt", "partypoker", "pacific", "winamax", "wpn", "wpn_old"}
    expected |= {"everleaf", "pkr", "bovada", "ongame", "kingsclub", "cake", "absolute"}
    assert expected <= set(seeds.hands)
    assert any(source.startswith("generated/") for source in seeds.sources["pokerstars"])
    for site, hands in seeds.hands.items():
        assert all(hand.strip() for hand in hands), site


def test_mutators_change_the_text_and_stay_deterministic(seeds: Seeds) -> None:
    hand = own_hands(seeds, "pokerstars")[0]
    for name, mutate in MUTATORS.items():
        first = mutate(hand, random.Random(3), seeds.foreign("pokerstars"))
        again = mutate(hand, random.Random(3), seeds.foreign("pokerstars"))
        assert first == again, name
        if name not in {"swap_lines", "duplicate_card", "change_digits", "truncate"}:
            assert first != hand, name  # these four may draw a no-op (same line, digit, card)
    players = MUTATORS["many_players"](hand, random.Random(0), [])
    assert len(players.splitlines()) == len(hand.splitlines()) + 200


def test_reencoded_blocks_decode_back_to_their_lines() -> None:
    text = "PokerStars Hand #1: Omaha Hi/Lo\nSeat 1: Jörg (€5 in chips)\n"
    for seed in range(40):
        data = reencode(text, random.Random(seed))
        lines = decode_lines(data).lines.to_list()
        assert lines[0] == "PokerStars Hand #1: Omaha Hi/Lo"
        assert len(lines) == 2


# -- the seeded mutation run: ~2,000 hands per parser ------------------------------------------


@pytest.mark.parametrize("site", SITES)
def test_mutated_hands_keep_the_contract(seeds: Seeds, site: str) -> None:
    own_hands(seeds, site)
    run = fuzz_parser(site, seeds, hands=2000, seed=17, block_hands=500)
    assert run.hands == 2000 and run.mutations > 0
    assert not run.findings, f"{site}: {run.findings[0].problem}"


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES)
def test_many_mutated_hands_keep_the_contract(seeds: Seeds, site: str) -> None:
    own_hands(seeds, site)
    run = fuzz_parser(site, seeds, hands=50_000, seed=29, block_hands=2000, huge_line_every=10)
    assert not run.findings, f"{site}: {run.findings[0].problem}"


# -- lines without money or cards are kept, in notes -------------------------------------------

# Formats read as documents (XML, JSON, TOML), not line by line: a free line is not a form there.
# A PokerNow log is CSV: a free line is a malformed row (its own tests put harmless text in as
# rows, `tests/parsers/test_pokernow.py`).
DOCUMENT_SITES = {"merge", "boss", "microgaming", "ipoker", "igt", "phh", "ohh", "pokernow"}
TEXT_SITES = [site for site in SITES if site not in DOCUMENT_SITES]


# Sites whose hand header is several lines: a free line goes after the line that ends it.
HEADER_ENDS = {"pacific": "Table "}  # "#Game No : N", "***** 888poker ...", stakes, table


def _header_lines(site: str, lines: list[str]) -> int:
    end = HEADER_ENDS.get(site)
    if end is None:
        return 1
    return 1 + next((i for i, line in enumerate(lines) if line.startswith(end)), 0)


@pytest.mark.parametrize("site", TEXT_SITES)
def test_a_free_line_without_money_or_cards_is_a_note(seeds: Seeds, site: str) -> None:
    """Every seed hand that parses still parses with a harmless line inserted anywhere after
    its first line, and the line is stored in `notes` with its hand and line number."""
    parser = parser_by_site(site)
    rng = random.Random(16)
    checked = 0
    for hand in own_hands(seeds, site)[:60]:
        clean = parse_bytes((hand + "\n").encode(), "seed.txt")
        if clean is None or clean.parsed != 1 or clean.hands_found != 1:
            continue
        lines = hand.split("\n")
        position = rng.randint(_header_lines(site, lines), len(lines))
        line = rng.choice(HARMLESS_LINES)
        data = ("\n".join([*lines[:position], line, *lines[position:]]) + "\n").encode()
        result = parser.parse(*_decoded(data), "seed.txt")
        assert (result.parsed, result.rejected) == (1, 0), (
            site,
            line,
            position,
            [r for r in result.tables["rejects"].column("reason").to_pylist()],
        )
        notes = pl.from_arrow(result.tables["notes"])
        assert isinstance(notes, pl.DataFrame)
        kept = notes.filter(pl.col("text") == line)
        hand_id = result.tables["hands"].column("hand_id")[0].as_py()
        assert kept.select("hand_id", "line_number", "kind").rows() == [
            (hand_id, position + 1, "unrecognised")
        ], (site, line, position, notes)
        assert data[kept["source_offset"][0] :].startswith(line.encode())
        checked += 1
    if not checked and not CORPUS.exists():
        pytest.skip(f"no seed hand of {site} parses on its own without the corpus at {CORPUS}")
    assert checked, f"no seed hand of {site} parses on its own"


def _decoded(data: bytes) -> tuple[pl.Series, np.ndarray]:
    decoded = decode_lines(data)
    return decoded.lines, decoded.offsets


# -- hypothesis properties, per parser ----------------------------------------------------------

_edit = st.tuples(
    st.sampled_from(["insert", "overwrite", "delete"]),
    st.floats(0, 1),
    st.binary(min_size=1, max_size=48),
)
_amounts = st.one_of(
    st.integers(-(10**40), 10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.from_regex(r"[$€£]?-?[\d,]{0,30}(\.\d{0,5})?( [A-Z]{3})?", fullmatch=True),
    st.text(alphabet="0123456789.,$€-+eE xX½", max_size=24),
)


def _apply(data: bytes, edit: tuple[str, float, bytes]) -> bytes:
    kind, where, chunk = edit
    at = int(where * len(data))
    if kind == "insert":
        return data[:at] + chunk + data[at:]
    if kind == "overwrite":
        return data[:at] + chunk + data[at + len(chunk) :]
    return data[:at] + data[at + len(chunk) :]


def _byte_edits_property(seeds: Seeds, site: str) -> Callable[[], None]:
    hands = own_hands(seeds, site)

    @given(st.integers(0, len(hands) - 1), st.lists(_edit, min_size=1, max_size=6))
    def prop(index: int, edits: list[tuple[str, float, bytes]]) -> None:
        data = hands[index].encode("utf-8", errors="surrogateescape") + b"\n"
        for edit in edits:
            data = _apply(data, edit)
        assert_sound(site, data)

    return prop


def _splice_property(seeds: Seeds, site: str) -> Callable[[], None]:
    hands, foreign = own_hands(seeds, site), seeds.foreign(site)

    @given(st.integers(0, len(hands) - 1), st.integers(0, len(foreign) - 1), st.floats(0, 1))
    def prop(index: int, other: int, where: float) -> None:
        lines = hands[index].split("\n")
        stranger = foreign[other].split("\n")
        at = int(where * len(lines))
        assert_sound(site, "\n".join(lines[:at] + stranger + lines[at:]).encode("utf-8") + b"\n")

    return prop


def _amounts_property(seeds: Seeds, site: str) -> Callable[[], None]:
    hands = own_hands(seeds, site)

    @given(
        st.integers(0, len(hands) - 1), st.lists(st.tuples(st.floats(0, 1), _amounts), max_size=4)
    )
    def prop(index: int, replacements: list[tuple[float, str]]) -> None:
        text = hands[index]
        for where, amount in replacements:
            match = NUMBER.search(text, int(where * len(text))) or NUMBER.search(text)
            if match:
                text = text[: match.start()] + amount + text[match.end() :]
        assert_sound(site, text.encode("utf-8") + b"\n")

    return prop


PROPERTIES = {
    "byte_edits": _byte_edits_property,
    "splice": _splice_property,
    "amounts": _amounts_property,
}


@pytest.mark.parametrize("prop", sorted(PROPERTIES))
@pytest.mark.parametrize("site", SITES)
def test_hypothesis_property(seeds: Seeds, site: str, prop: str) -> None:
    QUICK(PROPERTIES[prop](seeds, site))()


@pytest.mark.slow
@pytest.mark.parametrize("prop", sorted(PROPERTIES))
@pytest.mark.parametrize("site", SITES)
def test_hypothesis_property_long(seeds: Seeds, site: str, prop: str) -> None:
    LONG(PROPERTIES[prop](seeds, site))()


# -- single hostile shapes ----------------------------------------------------------------------


@pytest.mark.parametrize("site", SITES)
def test_a_megabyte_line_is_quarantined_or_parsed(seeds: Seeds, site: str) -> None:
    hand = own_hands(seeds, site)[0]
    rng = random.Random(site)  # a giant name, amount or junk line, depending on the site
    assert_sound(site, (huge_line(hand, rng, (), size=1 << 20) + "\n").encode("utf-8"))


@pytest.mark.parametrize("site", SITES)
def test_whole_file_reencodings(seeds: Seeds, site: str) -> None:
    """The same mutated block as UTF-8, UTF-16 (with and without BOM), cp1252 or mojibake."""
    hands = own_hands(seeds, site)
    for seed in range(3):
        data, _ = mutated_block(hands, seeds.foreign(site), random.Random(seed), 20)
        assert_sound(site, data)


def test_unseated_actor_with_an_unreadable_name_gets_a_reason() -> None:
    """Found by fuzzing (WPN old format, Bovada, OnGame, KingsClub): an action or payment
    whose player name could not be read gave a reject with a null reason."""
    seats = pl.DataFrame({"hand": [0], "player": ["alice"]}, schema_overrides={"hand": pl.Int32})
    actions = pl.DataFrame(
        {"hand": [0], "seq": [0], "player": [None], "amount": [5], "kind": ["call"]},
        schema={
            "hand": pl.Int32,
            "seq": pl.Int32,
            "player": pl.String,
            "amount": pl.Int64,
            "kind": pl.String,
        },
    )
    collections = pl.DataFrame(
        {"hand": [0], "seq": [0], "player": ["alice"], "amount": [5]},
        schema={"hand": pl.Int32, "seq": pl.Int32, "player": pl.String, "amount": pl.Int64},
    )
    problems = actor_problems(actions, collections, seats)
    assert problems["reason"].to_list() == ["player not seated: (unreadable name)"]


_UNREADABLE_FIELD = [
    # (corpus file, text to replace, replacement): each made a reject without a reason.
    ("Bovada/cash/PLO8-9max-USD-0.02-0.05-201408.corrupted.lines.txt", "Seat+1:", "Seat+x1:"),
    ("OnGame/tour/R-186-1481_1.txt", "Rake taken: $0", "Rake taken: $-0"),
    ("KingsClub/cash/PLO8-USD-5-10-202101.txt", "\nSeat 1:", "\nSeat 99999999999:"),
]


@needs_corpus
@pytest.mark.parametrize(("path", "old", "new"), _UNREADABLE_FIELD)
def test_unreadable_field_in_a_check_still_gives_a_reason(path: str, old: str, new: str) -> None:
    data = (CORPUS / path).read_bytes()
    parser = parsers.detect("\n".join(decode_lines(data).lines.head(20).to_list()))
    assert parser is not None
    text = data.decode("utf-8")
    assert old in text
    # The edit in the first hand only, so the file's other hands still parse.
    first_hand_end = text.find("\n\n\n") if "\n\n\n" in text else len(text)
    edited = text[:first_hand_end].replace(old, new) + text[first_hand_end:]
    result = parsers.parse_bytes(edited.encode("utf-8"), path)
    assert result is not None and result.rejected >= 1
    reasons = pl.from_arrow(result.tables["rejects"])["reason"]  # type: ignore[index]
    assert reasons.null_count() == 0 and (reasons.str.len_chars() > 0).all()
    assert not parse_checked(parser, edited.encode("utf-8"))


# -- through ingest -----------------------------------------------------------------------------


def _ingest_files(seeds: Seeds, site: str, folder: Path, mutators: list[str]) -> list[Path]:
    rng = random.Random(4)
    paths = []
    for number in range(3):
        data, _ = mutated_block(
            own_hands(seeds, site), seeds.foreign(site), rng, 60, mutators=mutators
        )
        path = folder / f"{site}-{number}.txt"
        path.write_bytes(data)
        paths.append(path)
    with zipfile.ZipFile(folder / f"{site}.zip", "w") as archive:
        data, _ = mutated_block(
            own_hands(seeds, site), seeds.foreign(site), rng, 60, mutators=mutators
        )
        archive.writestr("member.txt", data)
    return [*paths, folder / f"{site}.zip"]


def _assert_ingest_accounts(paths: list[Path], out: Path) -> None:
    from pipeline import dataset
    from pipeline.ingest import ingest

    summary = ingest(paths, out, workers=1)
    duplicates = getattr(summary, "duplicates", 0)
    assert summary.files == len(paths)
    assert summary.hands_found == summary.parsed + summary.skipped + summary.rejected + duplicates
    assert dataset.read_table(out, "hands").num_rows == summary.parsed
    rejects = dataset.read_table(out, "rejects")
    assert rejects.num_rows == summary.rejected + len(summary.errors)
    assert all(reason for reason in rejects.column("reason").to_pylist())


@pytest.mark.parametrize("site", ["pokerstars", "bovada"])
def test_mutated_files_through_ingest_keep_the_accounting(
    seeds: Seeds, site: str, tmp_path: Path
) -> None:
    mutators = [name for name in MUTATORS if name != "nul_bytes"]
    (tmp_path / "in").mkdir()
    _assert_ingest_accounts(_ingest_files(seeds, site, tmp_path / "in", mutators), tmp_path / "ds")


@pytest.mark.slow
@pytest.mark.parametrize("site", SITES)
def test_mutated_files_through_ingest_every_parser(seeds: Seeds, site: str, tmp_path: Path) -> None:
    own_hands(seeds, site)
    (tmp_path / "in").mkdir()
    paths = _ingest_files(seeds, site, tmp_path / "in", list(MUTATORS))
    _assert_ingest_accounts(paths, tmp_path / "ds")


def test_one_nul_byte_does_not_lose_the_files_other_hands(seeds: Seeds, tmp_path: Path) -> None:
    from pipeline.ingest import ingest

    hands = [hand for hand in own_hands(seeds, "pokerstars") if "Hold'em" not in hand][:20]
    text = "\n\n\n".join(hands) + "\n"
    damaged = text.replace("Seat 1: ", "Seat 1: \x00", 1)
    path = tmp_path / "stars.txt"
    path.write_text(damaged, encoding="utf-8")
    direct = parsers.parse_bytes(damaged.encode("utf-8"), str(path))
    assert direct is not None and direct.parsed + direct.skipped >= len(hands) - 1
    summary = ingest([path], tmp_path / "ds", workers=1)
    # A hand two corpus files hold (the 2025 Big O hand) is stored once: one duplicate.
    stored = summary.parsed + summary.skipped + summary.rejected + summary.duplicates
    assert stored == direct.hands_found


@pytest.mark.parametrize("site", SITES)
def test_two_hundred_players_never_make_a_parsed_hand(seeds: Seeds, site: str) -> None:
    """Found by fuzzing: 200 extra seat lines made a "parsed" hand of 206 players on every
    text format; no Omaha table seats more than 10."""
    hand = own_hands(seeds, site)[0]
    assert_sound(site, (MUTATORS["many_players"](hand, random.Random(0), []) + "\n").encode())


@needs_corpus
def test_two_hundred_players_are_quarantined_with_a_reason(seeds: Seeds) -> None:
    hand = own_hands(seeds, "pokerstars")[0]
    data = (MUTATORS["many_players"](hand, random.Random(0), []) + "\n").encode()
    result = parsers.parse_bytes(data, "many.txt")
    assert result is not None and (result.parsed, result.rejected) == (0, 1)
    assert result.tables["rejects"].column("reason").to_pylist() == ["more than 10 seat lines"]


@needs_corpus
def test_two_hundred_players_of_a_one_line_json_hand_stay_one_hand(seeds: Seeds) -> None:
    """The harness's own bug, found by the IGT fuzz run: on IGT's one-line hand the mutator
    cloned the whole line, so one mutated hand became 201 hands (a 50-hand fuzz block grew to
    137 MB and 14,450 hands). The 200 players now go inside the one line."""
    hand = own_hands(seeds, "igt")[0]
    data = (MUTATORS["many_players"](hand, random.Random(0), []) + "\n").encode()
    result = parsers.parse_bytes(data, "many.json")
    assert result is not None and (result.hands_found, result.parsed, result.rejected) == (1, 0, 1)
    assert result.tables["rejects"].column("reason").to_pylist() == ["more than 10 seat lines"]


def test_amounts_with_misplaced_thousands_separators_are_unreadable() -> None:
    """Found by fuzzing (PKR "Blinds are now 1,2,3 / $4" read as 123 dollars): a separator
    must group three digits (two for Indian lakhs)."""
    from parsers.columns import money

    printed = ["1,2,3", "12,3456", "1,000", "$1,195.50", "32,500", "1000", "1,00,000"]
    frame = pl.DataFrame({"text": printed}).select(cents=money(pl.col("text"), 100))
    assert frame["cents"].to_list() == [None, None, 100000, 119550, 3250000, 100000, 10000000]


def test_amounts_of_a_hundred_trillion_or_more_are_unreadable() -> None:
    """Found by fuzzing (Everleaf, slow run): ``wins $ 09999999999999999.99`` was stored as
    10^18 cents, which a few such rows would sum past int64. Amounts of 10^16 minor units or
    more are now unreadable, so the hand is quarantined."""
    from parsers.columns import money

    printed = ["99999999999999.99", "100000000000000.00", "09999999999999999.99"]
    frame = pl.DataFrame({"text": printed}).select(
        cents=money(pl.col("text"), 100), chips=money(pl.col("text").str.replace(r"\..*", ""), 1)
    )
    assert frame["cents"].to_list() == [10**16 - 1, None, None]
    assert frame["chips"].to_list() == [99999999999999, 100000000000000, 10**16 - 1]
    from tests.parsers.test_everleaf import HAND

    hand = HAND.format(hand_id="148737675", hero="6h, Ah, 6d, Ac")
    for amount, parsed in (("0.95", 1), ("09999999999999999.99", 0)):
        data = hand.replace("wins $ 0.95 USD", f"wins $ {amount} USD").encode()
        assert_sound("everleaf", data)
        result = parsers.parse_bytes(data, "everleaf.txt")
        assert result is not None and (result.parsed, result.rejected) == (parsed, 1 - parsed)


@needs_corpus
def test_pkr_cash_hand_without_a_currency_symbol_is_quarantined() -> None:
    """Found by fuzzing: a PKR cash hand whose blinds line lost its "$" was parsed with a null
    currency."""
    path = "PKR/cash/PLO8-USD-2.00-4.00-201108.ties.low.txt"
    text = (CORPUS / path).read_bytes().decode("utf-8")
    assert "Blinds are now $2 / $4" in text
    edited = text.replace("Blinds are now $2 / $4", "Blinds are now 2 / $4").encode("utf-8")
    result = parsers.parse_bytes(edited, path)
    assert result is not None and (result.parsed, result.rejected) == (0, 1)
    reasons = result.tables["rejects"].column("reason").to_pylist()
    assert reasons == ["unknown currency: no currency symbol on the blinds line"]


@needs_corpus
def test_pkr_megabyte_line_among_many_players_stays_small(seeds: Seeds) -> None:
    """Found by fuzzing (1.5 GiB peak in the benchmark): PKR's chat detection joined every
    unrecognised line with every seated player, copying a 4 MiB line once per player."""
    from tests.fuzzing import memory_now, peak_memory, reset_peak_memory

    hand = own_hands(seeds, "pkr")[0]
    lines = MUTATORS["many_players"](hand, random.Random(0), []).split("\n")
    lines.insert(len(lines) // 2, "Hero " + "x" * (4 << 20))
    data = ("\n".join(lines) + "\n").encode()
    if not reset_peak_memory():
        pytest.skip("peak memory cannot be reset here (needs Linux /proc/self/clear_refs)")
    before = memory_now()
    assert_sound("pkr", data)
    assert peak_memory() - before < 300 << 20  # was 1.6 GiB


@needs_corpus
def test_boss_showdown_of_an_unseated_player_with_an_unreadable_card() -> None:
    path = CORPUS / "Boss/cash/LO8-EUR-0.05-0.10-201207.xml"
    text = path.read_text(encoding="utf-8")
    result = re.search(r'<RESULT[^>]*PLAYER="([^"]+)"[^>]*>\s*<CARD LINK="(\d+)">', text)
    assert result is not None
    edited = (
        text[: result.start(1)]
        + "Stranger"
        + text[result.end(1) : result.start(2)]
        + "NaN"
        + text[result.end(2) :]
    )
    assert_sound("boss", edited.encode("utf-8"))


def test_igt_amount_of_thousands_of_digits_is_quarantined(seeds: Seeds) -> None:
    hand = own_hands(seeds, "igt")[0]
    amount = re.compile(r'"amount":\s*"[0-9.]+"')
    assert amount.search(hand)
    damaged = amount.sub('"amount": ' + "9" * 5000, hand, count=1)
    assert_sound("igt", (damaged + "\n").encode("utf-8"))


SHOWN_CARDS = re.compile(r"(?m)^(?P<who>.+? shows \[)(?P<card>[2-9TJQKA][cdhs])(?= )")


def _parses_whole(hand: str) -> bool:
    result = parsers.parse_bytes((hand + "\n").encode("utf-8"), "seed.txt")
    return result is not None and result.parsed == 1


# The formats that print a shown hand as "P shows [Ah 2c ...]" (each of the four parsing engines).
SHOWS_IN_BRACKETS = ["pokerstars", "fulltilt", "winamax", "ggpoker", "wpn", "kingsclub", "cake"]


@pytest.mark.parametrize("site", SHOWS_IN_BRACKETS)
def test_a_shown_hand_with_an_unreadable_card_is_quarantined(seeds: Seeds, site: str) -> None:
    """Found by fuzzing (Full Tilt, 1M run): ``P shows [1,2,3c 9h As Qs]`` made a showdown row
    with a null card. The hand is now quarantined (`unreadable shown card`) by every engine."""
    hand = next(
        (
            text
            for text in own_hands(seeds, site)
            if SHOWN_CARDS.search(text) and _parses_whole(text)
        ),
        None,
    )
    if hand is None:
        pytest.skip(f"no {site} seed hand of Omaha Hi/Lo with a 'P shows [cards]' line")
    damaged = SHOWN_CARDS.sub(r"\g<who>1,2,3c", hand, count=1)
    assert_sound(site, (damaged + "\n").encode("utf-8"))
    result = parsers.parse_bytes((damaged + "\n").encode("utf-8"), "damaged.txt")
    assert result is not None and result.parsed == 0 and result.rejected == 1


ASCII_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")  # Arabic-Indic: \d matches them too


@pytest.mark.parametrize("site", SITES)
def test_unicode_digits_in_any_line_never_raise(seeds: Seeds, site: str) -> None:
    """Found by fuzzing (KingsClub, 1M run): ``*** BOARD ٣ - RIVER ***`` matched ``\\d`` (the
    regex engine's digits are Unicode's) and then failed a strict integer cast, so the parse
    raised. Every line of up to 6 seed hands, one line at a time, gets Arabic-Indic digits."""
    variants = []
    for hand in own_hands(seeds, site)[:6]:
        lines = hand.split("\n")
        for number, line in enumerate(lines):
            if any(character.isdigit() for character in line):
                changed = [*lines[:number], line.translate(ASCII_DIGITS), *lines[number + 1 :]]
                variants.append("\n".join(changed))
    assert variants
    step = max(1, len(variants) // 300)  # XML hands have hundreds of lines with digits
    data = "\n\n\n".join(variants[::step]) + "\n"
    assert_sound(site, data.encode("utf-8"))


def test_kingsclub_run_marker_with_a_unicode_digit_is_quarantined(seeds: Seeds) -> None:
    """The KingsClub finding itself: a run-twice hand (the corpus has them in Big O, here
    relabelled Omaha Hi/Lo so it is parsed, not skipped) whose ``*** BOARD 1 - RIVER ***``
    carries an Arabic-Indic three."""
    hand = next(
        (text for text in own_hands(seeds, "kingsclub") if "*** BOARD 1 - RIVER ***" in text),
        None,
    )
    if hand is None:
        pytest.skip("no KingsClub seed hand that runs the board twice")
    relabelled = hand.replace("Pot Limit Big O", "Pot Limit Omaha Hi-Lo", 1)
    damaged = relabelled.replace("*** BOARD 1 - RIVER ***", "*** BOARD ٣ - RIVER ***", 1)
    for text, parsed in ((relabelled, None), (damaged, 0)):
        data = (text + "\n").encode("utf-8")
        assert_sound("kingsclub", data)
        result = parsers.parse_bytes(data, "kingsclub.txt")
        assert result is not None and result.skipped == 0
        if parsed is not None:
            assert result.parsed == parsed and result.rejected == 1
