"""The fast paths of the structured readers give what the slow paths they skip would give.

Each shortcut (the XML read in one call, amounts without `decimal`, seat numbers without a
regular expression, IGT's one-hand documents read once) keeps the slower code it shortcuts for
the cases it does not take; these tests hold the two to the same answers on tricky inputs, so
a later change to either side cannot drift unnoticed.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsers
from parsers import igt
from parsers.columns import MAX_MINOR_UNITS
from parsers.engine.structured import (
    HandProblem,
    SkippedGame,
    json_depth,
    minor_units,
    small_number,
)
from parsers.engine.xml_safe import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    XmlRefused,
    _read_pulled,
    _read_whole,
    read_document,
)
from tests.shared_data import CORPUS, needs_corpus


def _nested(depth: int) -> str:
    return "<a>" * depth + "</a>" * depth


DOCUMENTS = [
    '<game id="1"><players dealer="1"><player seat="0" nickname="A &amp; B"/></players></game>',
    "<a b='x\ty\nz'>text<c/>tail &#233; &lt;</a>",
    "<a>\r\n  <b/>\r\n</a>",
    _nested(MAX_DEPTH),  # the deepest accepted
    _nested(MAX_DEPTH + 1),  # refused
    # The deep branch behind leaves and a shallower branch: accepted, then refused.
    "<r><x/><y><z/></y>" + _nested(MAX_DEPTH - 1) + "<w/></r>",
    "<r><x/><y><z/></y>" + _nested(MAX_DEPTH) + "<w/></r>",
    "<r>" + "<e/>" * (MAX_ELEMENTS - 1) + "</r>",  # the most elements accepted
    "<r>" + "<e/>" * MAX_ELEMENTS + "</r>",  # refused
    "<r>" + "<e/>" * MAX_ELEMENTS + "<unclosed>",  # too many elements, then malformed
    "<a><b></a>",
    "<a>",
    "",
    "   ",
    "<a/><b/>",
    "<a x='1' x='2'/>",
    "<p:a/>",
    '<a xmlns="urn:x"><b/></a>',
    "<a>\x00</a>",
    "<a>&undefined;</a>",
    "<?pi data?><a/>",
    "<a><?pi > <x ?></a>",
]


def _outcome(read: object, text: str) -> tuple[str, str]:
    try:
        root = read(text)  # type: ignore[operator]
    except XmlRefused as refused:
        return ("refused", str(refused))
    return ("read", ElementTree.tostring(root, encoding="unicode"))


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_whole_read_equals_the_pulled_read(text: str) -> None:
    assert _outcome(read_document, text) == _outcome(_read_pulled, text)


@pytest.mark.parametrize("text", DOCUMENTS)
def test_the_whole_read_takes_exactly_what_the_pulled_read_accepts(text: str) -> None:
    # The one-call read checks the limits on its finished tree: it must give up (None) on
    # every document the pulled read refuses, and on no other.
    assert (_read_whole(text) is not None) == (_outcome(_read_pulled, text)[0] == "read")


def _reference_minor_units(text: str | None, scale: int, what: str) -> int:
    """`minor_units` as it was, all in `decimal`."""
    if text is None:
        raise HandProblem(f"missing amount ({what})")
    cleaned = text.strip().lstrip("$€£").replace(",", "").strip()
    if len(cleaned) > 40:
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})")
    try:
        value = Decimal(cleaned) * scale
    except InvalidOperation:
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})") from None
    if not value.is_finite() or value < 0 or value != value.to_integral_value():
        raise HandProblem(f"unreadable amount {text[:40]!r} ({what})")
    if value >= MAX_MINOR_UNITS:
        raise HandProblem(f"amount out of range {text[:40]!r} ({what})")
    return int(value)


AMOUNTS = [
    "0",
    "0.05",
    "$1,000.50",
    "€0.10",
    "10.50",
    "10.5",
    "1.",
    ".5",
    "00012.3400",
    "1.234",
    "1e5",
    "1_000",
    " 3 ",
    "",
    "-1",
    "NaN",
    "١٢",
    "99999999999999.99",
    "99999999999999.995",
    "100000000000000.00",
    "9999999999999999",
    "0.0100000000000000000000000000001",  # rounded by decimal's 28 digits to 1 cent
    "1.000000000000000000000000000000000000",
    "1" * 41,
]


@pytest.mark.parametrize("scale", [1, 100])
@pytest.mark.parametrize("text", AMOUNTS)
def test_minor_units_equals_the_decimal_reading(text: str, scale: int) -> None:
    def outcome(read: object) -> tuple[str, object]:
        try:
            return ("value", read(text, scale, "amount"))  # type: ignore[operator]
        except HandProblem as problem:
            return ("problem", str(problem))

    assert outcome(minor_units) == outcome(_reference_minor_units)


@pytest.mark.parametrize("text", ["0", "7", " 12 ", "123", "1234", "", " ", "²", "١", "1a", "+1"])
@pytest.mark.parametrize("digits", [2, 3])
def test_small_number_equals_the_pattern(text: str, digits: int) -> None:
    expected = int(text) if re.fullmatch(rf"[0-9]{{1,{digits}}}", text.strip()) else None
    assert small_number(text, digits) == expected


def _nested_json(depth: int) -> object:
    value: object = 1
    for _ in range(depth - 1):
        value = [value]
    return value


def test_json_depth_limit() -> None:
    igt._load(json.dumps(_nested_json(MAX_DEPTH)))
    with pytest.raises(HandProblem, match="nested deeper"):
        igt._load(json.dumps(_nested_json(MAX_DEPTH + 1)))
    assert json_depth({}, MAX_DEPTH) == 1 and json_depth({"a": [1]}, MAX_DEPTH) == 3
    assert json_depth([[]], MAX_DEPTH) == 2


@needs_corpus
def test_repeated_one_hand_documents_are_each_read() -> None:
    """Each line of a repeated one-hand ``{"history": [...]}`` document is a hand of its own
    (the document read to look for several hands is used once, by its own line)."""
    line = (CORPUS / "IGT/cash/PLO8-GeneralHand.json.txt").read_text(encoding="utf-8-sig")
    line = line.strip()
    once = parsers.parse_bytes((line + "\n").encode(), "once.txt")
    thrice = parsers.parse_bytes(((line + "\n") * 3).encode(), "thrice.txt")
    assert once is not None and thrice is not None
    assert (thrice.hands_found, thrice.parsed, thrice.rejected) == (3, 3, 0)
    for name in ("actions", "seats", "collections", "showdowns"):
        table = thrice.tables[name]
        assert table.num_rows == 3 * once.tables[name].num_rows


@pytest.mark.parametrize(
    "text",
    [
        "2011-08-04 04:49:36",
        "2011-02-29 04:49:36",  # not a leap year
        "2012-02-29 23:59:59",
        "0000-01-01 00:00:00",
        "2011-08-04 24:00:00",
        "2011-08-04 04:60:00",
        "04-08-2011 04:49:36",
        "2011-08-04 04:49",
        "2011-08-04T04:49:36",
        "2011-08-04 04:49:36.5",
    ],
)
def test_ipoker_start_time_shortcut(text: str) -> None:
    """The ISO shortcut reads what strptime's list of forms reads, and refuses what it refuses."""
    from datetime import UTC, datetime

    from parsers.ipoker import DATE_FORMATS, _start_time

    expected = None
    for date_format in DATE_FORMATS:
        try:
            expected = datetime.strptime(text, date_format).replace(tzinfo=UTC)
            break
        except ValueError:
            continue
    assert _start_time(text) == expected


def test_ipoker_amount_cache_keeps_each_message() -> None:
    """A cached unreadable amount still says which field it was read for, every time."""
    from parsers.ipoker import ipoker_amount

    for what in ("chips", "win", "chips"):
        with pytest.raises(HandProblem, match=rf"'x' \({what}\)"):
            ipoker_amount("x", 100, what)
    assert [ipoker_amount("$0.05", scale, "t") for scale in (100, 100, 1000)] == [5, 5, 50]


def test_caches_of_input_texts_keep_only_short_ones() -> None:
    """A long hostile token is read as without the cache and never stored in it; the caches
    of the structured readers are all bounded that way."""
    from parsers import igt, ipoker, merge
    from parsers.engine.structured import cached_when_short

    calls: list[str] = []

    @cached_when_short(4, maxsize=8)
    def length(text: str, extra: int) -> int:
        calls.append(text)
        return len(text.strip()) + extra

    assert [length("ab", 1), length("ab", 1), length(" " * 100 + "x", 0)] == [3, 3, 1]
    assert length(" " * 100 + "x", 0) == 1
    assert calls == ["ab", " " * 100 + "x", " " * 100 + "x"]
    assert length.cache_info().currsize == 1  # type: ignore[attr-defined]

    padded_king = "D" + " " * 2_000 + "K"  # strips to a readable card
    assert ipoker.ipoker_card(padded_king) == ipoker.ipoker_card("DK")
    before = ipoker.ipoker_card.cache_info().currsize  # type: ignore[attr-defined]
    ipoker.ipoker_card("H" + " " * 5_000 + "Q")
    assert ipoker.ipoker_card.cache_info().currsize == before  # type: ignore[attr-defined]
    long_text = "9" * 100_000
    for cached, rest in (
        (ipoker._known_amount, (100,)),
        (merge._card, ()),
        (igt._boss_name, ()),
        (igt._attribute_name, ()),
    ):
        before = cached.cache_info().currsize  # type: ignore[attr-defined]
        cached(long_text, *rest)
        assert cached.cache_info().currsize == before, cached  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "2012-09-27 16:45:13",
        "2011-02-29 04:49:36",  # not a leap year
        "2012-02-29 23:59:59",
        "0000-01-01 00:00:00",
        "2012-13-01 00:00:00",
        "2012-00-10 00:00:00",
        "2011-08-04 24:00:00",
        "2011-08-04 04:60:00",
        "2011-08-04 04:49:60",
        "2012-9-27 16:45:13",  # strptime's one-digit month
        "2012-09-27  16:45:13",
        "2012-09-27T16:45:13",
        "2012-09-27 16:45",
        "2012-09-27 16:45:13.5",
        "２０１２-09-27 16:45:13",
        "",
    ],
)
def test_microgaming_start_time_shortcut(text: str) -> None:
    """The plain-date shortcut reads what strptime reads, and refuses what it refuses."""
    from datetime import datetime

    from parsers.microgaming import _start_time

    try:
        expected: object = datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        expected = "unreadable start time"
    try:
        found: object = _start_time(text)
    except HandProblem as problem:
        found = str(problem)
    assert found == expected


@needs_corpus
def test_repeated_refused_one_hand_documents_keep_their_reason() -> None:
    """A one-hand document decoded while the block is cut into hands is refused, line by line,
    with the reason it has when read alone."""
    line = (CORPUS / "IGT/cash/PLO8-GeneralHand.json.txt").read_text(encoding="utf-8-sig")
    line = line.strip().replace('"limit":"Pot Limit"', '"limit":"Spread Limit"', 1)
    assert "Spread Limit" in line
    thrice = parsers.parse_bytes(((line + "\n") * 3).encode(), "thrice.txt")
    alone = parsers.parse_bytes(line.replace('{"history":[', "", 1)[:-2].encode(), "alone.txt")
    assert thrice is not None and alone is not None
    assert (thrice.hands_found, thrice.rejected, alone.rejected) == (3, 3, 1)
    reasons = thrice.tables["rejects"].column("reason").to_pylist()
    assert reasons == alone.tables["rejects"].column("reason").to_pylist() * 3
    assert reasons[0].startswith("unrecognised limit")


def _igt_export_hand() -> dict[str, Any]:
    """A fresh copy of the corpus's IGT export hand (each example changes its own)."""
    return copy.deepcopy(_igt_export())


@functools.cache
def _igt_export() -> dict[str, Any]:
    text = (CORPUS / "IGT/cash/PLO8-GeneralHand.json.txt").read_text(encoding="utf-8-sig")
    hand: dict[str, Any] = json.loads(text)["history"][0]
    return hand


def _mutated_export(rng: random.Random, changes: int) -> dict[str, Any]:
    """The export hand with ``changes`` random changes (`_mutated`)."""
    hand = _igt_export_hand()
    for _ in range(changes):
        hand = _mutated(hand, rng)
    return hand


_ODD_VALUES: list[Any] = [None, True, False, 3, 2.5, "", " x ", "b", [], {}, ["1"], {"link": "1"}]
_ODD_VALUES += [[{"link": 3}], [{"link": "3", "x": 1}], [{"link": " 4 "}], "-1", " 0.10 ", "1e3"]


def _mutated(value: Any, rng: random.Random) -> Any:
    """A random change somewhere in a decoded JSON value: a key renamed, dropped or added,
    a value replaced, an item dropped or repeated."""
    if isinstance(value, dict) and value:
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.5:
            value[key] = _mutated(value[key], rng)
        elif roll < 0.6:
            value[rng.choice([key.upper(), key.capitalize(), "Players", "showdown"])] = value.pop(
                key
            )
        elif roll < 0.7:
            del value[key]
        elif roll < 0.8:
            value[rng.choice(["cards", "card", "results", "winCard", "link", "x", key])] = _odd(rng)
        else:
            value[key] = _odd(rng)
        return value
    if isinstance(value, list) and value:
        index = rng.randrange(len(value))
        roll = rng.random()
        if roll < 0.6:
            value[index] = _mutated(value[index], rng)
        elif roll < 0.8:
            del value[index]
        else:
            value.append(json.loads(json.dumps(value[index])))
        return value
    return value if rng.random() < 0.2 else _odd(rng)


def _odd(rng: random.Random) -> Any:
    return copy.deepcopy(rng.choice(_ODD_VALUES))  # a fresh one: values are changed in place


def _flat_outcome(hand: dict[str, Any]) -> tuple[str, Any]:
    try:
        return ("read", igt._flat_parts(igt._as_flat_hand(hand)))
    except HandProblem as problem:
        return ("refused", str(problem))


@needs_corpus
def test_igt_real_export_takes_the_one_pass_read() -> None:
    hand = _igt_export_hand()
    assert igt._exported_parts(hand) is not None
    assert ("read", igt._exported_parts(hand)) == _flat_outcome(hand)


@needs_corpus
@settings(max_examples=400, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_igt_one_pass_read_equals_the_flat_read(rng: random.Random, changes: int) -> None:
    # The one-pass read of a real export gives what the flat read gives, or declines (None)
    # and leaves the hand to it: never another answer, and never where the flat read refuses.
    hand = _mutated_export(rng, changes)
    fast = igt._exported_parts(hand)
    if fast is not None:
        assert _flat_outcome(hand) == ("read", fast)


def test_hidden_card_id_reads_as_no_card_at_both_sites() -> None:
    # read_boss_hand passes over a deal of hidden cards without asking either site.
    from parsers.boss import boss_card
    from parsers.engine.boss_schema import HIDDEN

    assert boss_card(HIDDEN) is None and igt.igt_card(HIDDEN) is None


@pytest.mark.parametrize("cards", [5, "35", {"link": "35"}])
def test_igt_cards_that_are_not_a_list_refuse_the_hand(cards: Any) -> None:
    # A number did not iterate (a TypeError, not a reason); a text was read digit by digit.
    document = {
        "id": "1", "game": "GAME_OMAHL", "players": [{"name": "a", "seat": "1", "cards": cards}]
    }  # fmt: skip
    with pytest.raises(HandProblem, match="cards is not a list"):
        igt.IgtParser().read_hand(json.dumps(document), {})


def _old_igt_outcome(text: str) -> tuple[str, Any]:
    """The read before the depth walk was skipped: `_load` (parse, then `json_depth`) first."""
    try:
        return ("read", igt._read_document(igt._load(text)))
    except HandProblem as problem:
        return ("refused", str(problem))
    except SkippedGame as skipped:
        return ("skipped", skipped.game)
    except Exception as error:  # noqa: BLE001 - a parser error, the same either way
        return ("error", type(error).__name__)


def _new_igt_outcome(text: str) -> tuple[str, Any]:
    try:
        return ("read", igt._read_text(text))
    except HandProblem as problem:
        return ("refused", str(problem))
    except SkippedGame as skipped:
        return ("skipped", skipped.game)
    except Exception as error:  # noqa: BLE001 - a parser error, the same either way
        return ("error", type(error).__name__)


def _nest(depth: int, kind: str) -> Any:
    value: Any = "35"
    for _ in range(depth - 1):
        value = [value] if kind == "list" else {"link": value}
    return value


def _places(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of a JSON value, level by level."""
    places: list[tuple[Any, Any]] = []
    level = [value]
    while level:
        below = []
        for item in level:
            keys = (
                list(item) if type(item) is dict else range(len(item)) if type(item) is list else []
            )
            for key in keys:
                places.append((item, key))
                below.append(item[key])
        level = below
    return places


# Nesting around the limit wherever a place sits (a hand is 3 deep inside its history), and
# far past it (json reads 200 levels without a RecursionError).
_HOSTILE_DEPTHS = [MAX_DEPTH - 24, MAX_DEPTH - 4, MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH, 200]


@needs_corpus
def test_igt_skipped_depth_walk_refuses_every_deep_document_as_before() -> None:
    # Hostile nesting in every place the one-pass read looks (each value of the hand and of
    # its items, replaced), next to them (a new key, read or passed over), and outside the
    # hand (the history and the document): read, or refused with the same reason, as before.
    assert igt._EXPORT_DEPTH + 2 <= MAX_DEPTH  # a hand it accepts, in its history, is safe
    base = {"history": [_igt_export_hand()]}
    count = len(_places(base))
    checked = 0
    for index in range(count):
        for depth in _HOSTILE_DEPTHS:
            for kind in ("list", "object"):
                for how in ("replace", "add"):
                    document = copy.deepcopy(base)
                    container, key = _places(document)[index]
                    if how == "replace":
                        container[key] = _nest(depth, kind)
                    elif type(container[key]) is dict:
                        for extra in ("winCard", "result", "bet", "card", "x"):
                            container[key][extra] = _nest(depth, kind)
                    elif type(container[key]) is list:
                        container[key].append(_nest(depth, kind))
                    else:
                        continue
                    text = json.dumps(document)
                    old = _old_igt_outcome(text)
                    assert _new_igt_outcome(text) == old
                    if old[0] == "error":  # the block's read meets the same error
                        try:
                            igt._history_hands(text, {})
                        except Exception as error:  # noqa: BLE001
                            assert type(error).__name__ == old[1]
                        else:
                            raise AssertionError("no error")
                        continue
                    lines = igt._history_hands(text, decoded := {})
                    if lines == [text] and not decoded:  # refused when the line is read
                        assert old[0] == "refused"
                    checked += 1
    assert checked > 2000


@needs_corpus
@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_igt_accepted_hands_stay_shallow(rng: random.Random, changes: int) -> None:
    # Whatever the one-pass read accepts is at most _EXPORT_DEPTH deep (so not walked), and
    # reads as the old way does.
    hand = _igt_export_hand()
    for _ in range(changes):
        hand = _mutated(hand, rng)
        container, key = rng.choice(_places(hand) or [(hand, "x")])
        if rng.random() < 0.3 and type(container) is dict:
            container[rng.choice(["winCard", "result", key])] = _nest(rng.randint(2, 40), "list")
    if igt._exported_parts(hand) is not None:
        assert json_depth(hand, MAX_DEPTH) <= igt._EXPORT_DEPTH
    text = json.dumps({"history": [hand]})
    assert _new_igt_outcome(text) == _old_igt_outcome(text)


@needs_corpus
@pytest.mark.parametrize(("item", "key"), [("player", "name"), ("action", "player")])
def test_igt_names_that_are_lists_refuse_the_hand(item: str, key: str) -> None:
    # They keyed the bankrolls: a TypeError (unhashable) stopped the whole block.
    hand = _igt_export_hand()
    hand[item][0][key] = ["x"]
    with pytest.raises(HandProblem, match=f"unexpected nested value under '{key}'"):
        igt.IgtParser().read_hand(json.dumps(hand), {})
