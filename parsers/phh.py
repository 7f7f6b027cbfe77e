"""Parser for PHH, the Poker Hand History standard (TOML; https://github.com/uoftcprg/phh-std).

A ``.phh`` file holds one hand as top-level TOML keys; a ``.phhs`` file holds many, one per
``[n]`` table. Only variant ``FO/8`` (Omaha hold'em high/low eight or better) is Omaha Hi/Lo;
other variants are counted as skipped. Pot- and no-limit Omaha Hi/Lo have no PHH code: hilo
writes them as ``FO/8`` with the user-defined field ``_limit = 'PL'`` / ``'NL'`` (docs/phh.md).

What PHH records, and how it becomes the canonical tables:

- Players are listed clockwise from the small blind, the button last; heads-up, the antes and
  blinds arrays are written reversed (the button posts the small blind), as the spec says.
- Forced bets are fields, not actions: they become ``ante``, ``post_sb`` and ``post_bb`` rows
  (a blind beyond the first two, a straddle or an extra live blind, is a ``post_bb``), then the
  dead blinds of hilo's ``_dead_blinds`` field.
- ``cbr X`` is a to-total, ``cc`` a check or a call of what is owed (capped by the stack).
- PHH leaves an uncalled bet's return implicit (the standard's reference implementation,
  pokerkit, hands it back when the betting round closes): it is written out as an
  ``uncalled_return`` row where the round closes, so the chips put in are those the file means.
- Payouts: PHH records ``finishing_stacks`` (and optionally ``winnings``), never who won which
  half. Each player's collection is ``finishing - starting + put in - returned`` (or the
  ``winnings`` entry when no finishing stacks are given), with ``pot_index`` and ``half`` null;
  the profile below makes the audit compare per player totals.

The hand id is hilo's ``_hand_id`` when present, else ``YYYY-MM-DD/table/hand`` from the fields
the file has, else a digest of the hand's text. The site is always ``phh``: the audit judges a
PHH hand by what PHH can carry, whichever site it first came from (``_site`` keeps that).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tomllib
import zoneinfo
from dataclasses import dataclass, field
from decimal import Decimal, DecimalException, InvalidOperation
from typing import Any, ClassVar

import numpy as np
import polars as pl

from parsers.base import ParseResult, table_from_frame
from parsers.columns import CARD_CODES
from parsers.engine.assembly import HandTables, finish
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import may_find
from parsers.engine.lines import line_frame
from pipeline.profiles import SiteProfile

__all__ = ["MAX_AMOUNT", "SITE", "VARIANT", "PhhError", "PhhParser"]

SITE = "phh"
VARIANT = "FO/8"
# Larger amounts are refused rather than risking int64 overflow in sums over a hand.
MAX_AMOUNT = 2**53
MAX_PLAYERS = 10
LIMIT_TYPES = ("FL", "PL", "NL")

# A top-level table header opening a hand of a .phhs file: "[1]", "[hand-7]", "['x y']".
# Underscore keys are user-defined tables of a single-hand file, never a hand.
_SECTION = r"""^\[\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9-][A-Za-z0-9_-]*)\s*\]\s*(?:#.*)?$"""
_SNIFF = re.compile(
    r"(?m)^\s*(?:variant|starting_stacks|blinds_or_straddles|antes|actions)\s*=\s*[\['\"]"
)
_COMMENT_OR_BLANK = r"^\s*(?:#.*)?$"
_PLAYER = re.compile(r"^p([1-9][0-9]{0,2})$")  # more digits than 3 is no player
# Python's int conversion stops at 4,300 digits, but tomllib's number pattern first matches
# the run, and a repeated group of 16 million digits costs re's matcher 2 GB. A run that long
# is no amount (at most 16 digits: MAX_AMOUNT), so the hand is refused before tomllib reads it.
_LONG_NUMBER = re.compile(r"[0-9_]{4301}")
_CARD = re.compile(r"[2-9TJQKA?][cdhs?]")
# Separates a file's index from the hand id inside a batch of files (never in a result).
_TAG = "\x1f"


class PhhError(ValueError):
    """A hand that cannot be read; the message is the quarantine reason."""


@dataclass
class _Decoded:
    """The canonical rows of one hand (``hand`` is filled in by the caller)."""

    hand: dict[str, Any]
    seats: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    collections: list[dict[str, Any]] = field(default_factory=list)
    showdowns: list[dict[str, Any]] = field(default_factory=list)
    sightings: list[dict[str, Any]] = field(default_factory=list)


class PhhParser:
    """Reads ``.phh`` and ``.phhs`` files (PHH standard, variant FO/8)."""

    site: ClassVar[str] = SITE
    # PHH prints one final stack per player: payouts are per player totals; no rake or total
    # pot fields (hilo's `_rake` is read when present); uncalled returns are written by the
    # parser itself. Tournament-style fixed limit: bet and three raises, capped heads-up too
    # (PHH's real hands are tournament hands: 2023 WSOP).
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        heads_up_uncapped=False,
        payout_lines="per_player",
        rake_printed=False,
        uncalled_printed=True,
        # A hand hilo exported keeps the pots its site printed net of rake (`_side_pots`):
        # each pot's rake is then what the site took from it.
        rake_from="running-total",
    )

    def sniff(self, head: str) -> bool:
        """A PHH required field assigned at the start of a line."""
        return may_find(_SNIFF, head) and _SNIFF.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """``[n]`` section headers; a file without any is one hand starting at its first line.

        Comments and blank lines before the first section belong to the first hand, so they
        never count as a hand of their own.
        """
        starts = lines.str.contains(_SECTION).fill_null(False).to_numpy().copy()
        if len(starts) == 0:
            return starts
        found = np.flatnonzero(starts)
        if len(found) == 0:
            starts[0] = True
        elif found[0] > 0:
            before = lines[: int(found[0])]
            if bool(before.str.contains(_COMMENT_OR_BLANK).all()):
                starts[found[0]] = False
                starts[0] = True
        return starts

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse whole hands: each section (or the whole single-hand file) with `tomllib`."""
        return self._parse_many(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_files(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        """Parse several whole files in one pass; one result per file, in order.

        PHH is often one file per hand, and the shared assembly has a fixed cost per call, so
        ingest hands this parser a batch of small files at once.
        """
        bounds = [*[int(start) for start in file_starts], len(lines)]
        pieces = [lines[bounds[i] : bounds[i + 1]] for i in range(len(source_files))]
        # A file with content before its first section has a preamble of its own: parse such
        # batches file by file so the preamble is never taken for the previous file's hand.
        if any(len(piece) and not self.hand_starts(piece)[0] for piece in pieces[1:]):
            return [
                self.parse(piece, offsets[bounds[i] : bounds[i + 1]], source_files[i])
                for i, piece in enumerate(pieces)
            ]
        return self._parse_many(lines, offsets, np.asarray(file_starts), source_files)

    def _parse_many(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        bounds = [*[int(start) for start in file_starts], len(lines)]
        starts = (
            np.concatenate(
                [
                    self.hand_starts(lines[bounds[i] : bounds[i + 1]])
                    for i in range(len(source_files))
                ]
            )
            if len(lines)
            else np.zeros(0, dtype=bool)
        )
        frame = line_frame(lines, offsets, pl.Series("start", starts, dtype=pl.Boolean))
        texts = (
            frame.filter(pl.col("hand") >= 0)
            .group_by("hand", maintain_order=True)
            .agg(pl.col("line").str.join("\n"), first_line=pl.col("line_no").first())
        )
        headers: list[dict[str, Any]] = []
        reasons: list[dict[str, Any]] = []
        decoded: list[tuple[int, _Decoded]] = []
        for hand, text, first_line in texts.iter_rows():
            # Hand ids are tagged with their file's index so one assembly serves many files.
            tag = f"{int(np.searchsorted(file_starts, first_line, side='right')) - 1}{_TAG}"
            try:
                fields, section = _load(text)
                variant = fields.get("variant")
                if variant != VARIANT:
                    if not isinstance(variant, str):
                        raise PhhError("missing or non-text field 'variant'")
                    headers.append(_header(hand, tag, False, variant))
                    continue
                hand_id = tag + _hand_id(fields, section, text)
                headers.append(_header(hand, hand_id, True, VARIANT))
                decoded.append((hand, decode_hand(fields, hand_id)))
            except PhhError as error:
                if not headers or headers[-1]["hand"] != hand:
                    headers.append(
                        _header(hand, tag + (_readable_hand_id(text) or ""), True, VARIANT)
                    )
                reasons.append({"hand": hand, "reason": str(error)})
        combined = finish(_tables(frame, source_files, headers, reasons, decoded))
        return _split_by_file(combined, source_files, headers)


def _split_by_file(
    combined: ParseResult, source_files: list[str], headers: list[dict[str, Any]]
) -> list[ParseResult]:
    """One `ParseResult` per file from the tagged result of a batch."""
    tables: dict[str, pl.DataFrame] = {}
    for name, table in combined.tables.items():
        rows = pl.from_arrow(table)
        assert isinstance(rows, pl.DataFrame)
        tag = rows["hand_id"].str.extract(f"^(\\d+){_TAG}", 1).cast(pl.Int64).fill_null(0)
        untagged = rows["hand_id"].str.replace(f"^\\d+{_TAG}", "")
        rows = rows.with_columns(hand_id=pl.when(untagged != "").then(untagged), file_index=tag)
        if name == "rejects":
            rows = rows.with_columns(
                source_file=pl.lit(pl.Series(source_files)).gather(pl.col("file_index"))
            )
        tables[name] = rows
    found = pl.DataFrame(
        headers,
        schema={
            "hand_id": pl.String,
            "is_o8": pl.Boolean,
            "game": pl.String,
            "hand": pl.Int32,
            "header_ok": pl.Boolean,
        },
    )
    found = found.with_columns(
        file_index=pl.col("hand_id").str.extract(f"^(\\d+){_TAG}", 1).cast(pl.Int64)
    )
    results = []
    for index in range(len(source_files)):
        mine = {
            name: table_from_frame(
                frame.filter(pl.col("file_index") == index).drop("file_index"), name
            )
            for name, frame in tables.items()
        }
        in_file = found.filter(pl.col("file_index") == index)
        skipped = in_file.filter(~pl.col("is_o8"))
        preamble = 1 if index == 0 and combined.hands_found > len(headers) else 0
        results.append(
            ParseResult(
                tables=mine,
                hands_found=in_file.height + preamble,
                parsed=mine["hands"].num_rows,
                skipped=skipped.height,
                rejected=mine["rejects"].num_rows,
                skipped_games={
                    str(game): int(count)
                    for game, count in skipped.group_by("game").len().sort("game").iter_rows()
                },
            )
        )
    return results


def _header(hand: int, hand_id: str | None, is_o8: bool, game: str) -> dict[str, Any]:
    return {"hand": hand, "hand_id": hand_id, "is_o8": is_o8, "game": game, "header_ok": True}


# -- reading one hand ---------------------------------------------------------------------


def _load(text: str) -> tuple[dict[str, Any], str | None]:
    """The hand's fields, and its section key in a .phhs file (None in a .phh file)."""
    if _LONG_NUMBER.search(text):
        raise PhhError("bad TOML: a number of more than 4,300 digits")
    try:
        document = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as error:
        raise PhhError(f"bad TOML: {error}") from None
    except (RecursionError, ValueError, DecimalException) as error:
        raise PhhError(f"bad TOML: {type(error).__name__}") from None
    if "variant" not in document and len(document) == 1:
        ((key, value),) = document.items()
        if isinstance(value, dict):
            return value, key
    return document, None


def _hand_id(fields: dict[str, Any], section: str | None, text: str) -> str:
    """hilo's ``_hand_id``, else date/table/hand from the standard fields, else a digest."""
    own = fields.get("_hand_id")
    if isinstance(own, (str, int)) and not isinstance(own, bool) and str(own):
        return str(own)
    parts: list[str] = []
    year, month, day = (fields.get(name) for name in ("year", "month", "day"))
    if all(isinstance(value, int) and not isinstance(value, bool) for value in (year, month, day)):
        parts.append(f"{year:04d}-{month:02d}-{day:02d}")
    table = fields.get("table")
    if isinstance(table, (str, int)) and not isinstance(table, bool):
        parts.append(str(table))
    number = fields.get("hand")
    if isinstance(number, (str, int)) and not isinstance(number, bool):
        parts.append(str(number))
        return "/".join(parts)
    if section is not None:
        parts.append(section)
    digest = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return "/".join([*parts, f"sha256:{digest}"])


def _readable_hand_id(text: str) -> str | None:
    """The hand id of a rejected hand, when its TOML can be read at all."""
    try:
        fields, section = _load(text)
        return _hand_id(fields, section, text)
    except PhhError:
        return None


def _integer(value: Any, what: str, scale: int, allow_zero: bool = True) -> int:
    """A PHH number (int, or a decimal for currency amounts) in minor units."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise PhhError(f"{what} is not a number: {value!r}"[:200])
    try:
        if not Decimal(value).is_finite():
            raise PhhError(f"{what} is not finite: {value}")
        # Before scaling: 1e999999999 would overflow the context, or become a huge int.
        if Decimal(value).copy_abs() > MAX_AMOUNT:
            raise PhhError(f"{what} out of range (over 2^53 units): {str(value)[:40]}")
        scaled = Decimal(value) * scale
        if scaled != scaled.to_integral_value():
            raise PhhError(f"{what} has more decimals than the money unit: {str(value)[:40]}")
        amount = int(scaled)
    except DecimalException:
        raise PhhError(f"{what} is not a number: {value!r}"[:200]) from None
    if amount < 0 or (amount == 0 and not allow_zero):
        raise PhhError(f"{what} out of range: {value}")
    if amount > MAX_AMOUNT:
        raise PhhError(f"{what} out of range (over 2^53 units): {str(value)[:40]}")
    return amount


def _amounts(fields: dict[str, Any], name: str, count: int, scale: int) -> list[int]:
    values = _array(fields, name, count)
    return [_integer(value, f"{name}[{index}]", scale) for index, value in enumerate(values)]


def _array(fields: dict[str, Any], name: str, count: int | None) -> list[Any]:
    if name not in fields:
        raise PhhError(f"missing required field '{name}'")
    values = fields[name]
    if not isinstance(values, list):
        raise PhhError(f"field '{name}' is not an array")
    if count is not None and len(values) != count:
        raise PhhError(f"field '{name}' has {len(values)} entries for {count} players")
    return values


def _text(fields: dict[str, Any], name: str) -> str | None:
    value = fields.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise PhhError(f"field '{name}' is not text or an integer")
    return str(value)


def _cards(text: str, what: str) -> list[int | None]:
    """``"Ac8d??"`` → ``[48, 25, None]``."""
    if not text or len(text) % 2:
        raise PhhError(f"unreadable cards in {what}: {text[:40]}")
    cards: list[int | None] = []
    for index in range(0, len(text), 2):
        token = text[index : index + 2]
        if _CARD.fullmatch(token) is None:
            raise PhhError(f"unreadable cards in {what}: {text[:40]}")
        cards.append(CARD_CODES.get(token) if "?" not in token else None)
    return cards


def _money_scale(fields: dict[str, Any]) -> tuple[int, int, str]:
    """``(scale of the file's numbers, money_scale, currency)``.

    hilo writes integers in minor units and says so in ``_money_scale``; another PHH file
    with a ``currency`` writes currency units (``1.25``), read here as cents; without either
    the amounts are chips.
    """
    declared = fields.get("_money_scale")
    currency = fields.get("_currency", fields.get("currency"))
    if currency is not None and (not isinstance(currency, str) or not currency.strip()):
        raise PhhError("field 'currency' is not text")
    if declared is not None:
        if isinstance(declared, bool) or declared not in (1, 100):
            raise PhhError(f"field '_money_scale' must be 1 or 100, not {declared!r}"[:120])
        return 1, int(declared), currency or ("CHIPS" if declared == 1 else "USD")
    if currency is not None:
        return 100, 100, currency
    return 1, 1, "CHIPS"


def decode_hand(fields: dict[str, Any], hand_id: str) -> _Decoded:
    """The canonical rows of one FO/8 hand's fields; raises `PhhError` on anything unreadable."""
    stacks_raw = _array(fields, "starting_stacks", None)
    players_count = len(stacks_raw)
    if not 2 <= players_count <= MAX_PLAYERS:
        raise PhhError(f"{players_count} players: Omaha Hi/Lo is played by 2 to {MAX_PLAYERS}")
    file_scale, money_scale, currency = _money_scale(fields)
    stacks = [
        _integer(value, f"starting_stacks[{index}]", file_scale, allow_zero=False)
        for index, value in enumerate(stacks_raw)
    ]
    antes = _amounts(fields, "antes", players_count, file_scale)
    blinds = _amounts(fields, "blinds_or_straddles", players_count, file_scale)
    small_bet = (
        _integer(fields.get("small_bet"), "small_bet", file_scale)
        if "small_bet" in fields
        else None
    )
    big_bet = (
        _integer(fields.get("big_bet"), "big_bet", file_scale) if "big_bet" in fields else None
    )
    if small_bet is None or big_bet is None:
        raise PhhError("missing required field 'small_bet' or 'big_bet'")
    actions_raw = _array(fields, "actions", None)
    if not all(isinstance(action, str) for action in actions_raw):
        raise PhhError("field 'actions' holds a value that is not text")
    after_hand = fields.get("_after_hand", [])
    if not isinstance(after_hand, list) or not all(isinstance(a, str) for a in after_hand):
        raise PhhError("field '_after_hand' is not an array of text")
    limit = fields.get("_limit", "FL")  # hilo writes "" when the source did not say
    if limit not in (*LIMIT_TYPES, ""):
        raise PhhError(f"field '_limit' must be one of {', '.join(LIMIT_TYPES)}")
    dead = (
        _amounts(fields, "_dead_blinds", players_count, file_scale)
        if "_dead_blinds" in fields
        else [0] * players_count
    )

    names = _player_names(fields, players_count)
    seats = _seat_numbers(fields, players_count)
    # Heads-up, the arrays are written reversed: the button (last player) posts the first entry.
    if players_count == 2:
        antes, blinds = antes[::-1], blinds[::-1]
    decoded = _Decoded(hand={})
    play = _Play(names, stacks, decoded, max(blinds))
    for index in range(players_count):
        if antes[index]:
            play.force(index, "ante", antes[index], live=False)
    blind_order = range(players_count) if players_count > 2 else (1, 0)
    for rank, index in enumerate(blind_order):
        if blinds[index]:
            play.force(index, "post_sb" if rank == 0 else "post_bb", blinds[index], live=True)
    for index in range(players_count):
        if dead[index]:
            play.force(index, "post_dead", dead[index], live=False)
    for number, action in enumerate([*actions_raw, *after_hand]):
        play.act(action, file_scale, f"action {number + 1}")
    play.close_round()

    finishing = fields.get("finishing_stacks")
    winnings = fields.get("winnings")
    if finishing is not None:
        ends = _amounts(fields, "finishing_stacks", players_count, file_scale)
        won = [
            end - start + put - back
            for end, start, put, back in zip(ends, stacks, play.put_in, play.returned, strict=True)
        ]
    elif winnings is not None:
        won = _amounts(fields, "winnings", players_count, file_scale)
    else:
        won = [0] * players_count
    for index, amount in enumerate(won):
        if amount < 0:
            raise PhhError(
                f"finishing stack of p{index + 1} is below its starting stack less the chips"
                f" it put in ({-amount} units missing)"
            )
        if amount:
            decoded.collections.append(
                {
                    "seq": len(decoded.collections),
                    "player": names[index],
                    "amount": amount,
                    "pot_index": None,
                    "half": None,
                    "board_index": 0,
                }
            )
    hero = fields.get("_hero")
    # hilo's ``_sitting_out_dealt``: players the site flagged as sitting out but dealt in.
    idle = fields.get("_sitting_out_dealt", [])
    if not isinstance(idle, list):
        raise PhhError("field '_sitting_out_dealt' is not an array")
    for index in range(players_count):
        decoded.seats.append(
            {
                "seat": seats[index],
                "player": names[index],
                "stack_start": stacks[index],
                "sitting_out": names[index] in idle,
                "hero_flag": hero == names[index],
            }
        )
    for entry in _sitting_out(fields, file_scale):
        decoded.seats.append({**entry, "sitting_out": True, "hero_flag": hero == entry["player"]})
    decoded.hand = _hand_row(
        fields,
        hand_id,
        limit,
        money_scale,
        currency,
        file_scale,
        blinds,
        antes,
        seats,
        small_bet,
        big_bet,
        play.board,
        players_count,
    )
    return decoded


def _player_names(fields: dict[str, Any], count: int) -> list[str]:
    if "players" not in fields:
        return [f"p{index + 1}" for index in range(count)]
    names = _array(fields, "players", count)
    if not all(isinstance(name, str) for name in names):
        raise PhhError("field 'players' holds a value that is not text")
    # The spec writes an unknown player as "": name them by position instead.
    return [name if name.strip() else f"p{index + 1}" for index, name in enumerate(names)]


def _seat_numbers(fields: dict[str, Any], count: int) -> list[int]:
    if "seats" not in fields:
        return list(range(1, count + 1))
    seats = _array(fields, "seats", count)
    for seat in seats:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 255:
            raise PhhError(f"seat number out of range: {seat!r}"[:80])
    return [int(seat) for seat in seats]


def _sitting_out(fields: dict[str, Any], file_scale: int) -> list[dict[str, Any]]:
    """hilo's ``_sitting_out``: seated players who were not dealt in."""
    entries = fields.get("_sitting_out", [])
    if not isinstance(entries, list):
        raise PhhError("field '_sitting_out' is not an array")
    rows = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("player"), str):
            raise PhhError("field '_sitting_out' holds an entry without a player name")
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 255:
            raise PhhError("field '_sitting_out' holds a seat number out of range")
        rows.append(
            {
                "seat": seat,
                "player": entry["player"],
                "stack_start": _integer(entry.get("stack"), "_sitting_out stack", file_scale),
            }
        )
    return rows


def _hand_row(
    fields: dict[str, Any],
    hand_id: str,
    limit: str,
    money_scale: int,
    currency: str,
    file_scale: int,
    blinds: list[int],
    antes: list[int],
    seats: list[int],
    small_bet: int,
    big_bet: int,
    board: list[int],
    players_count: int,
) -> dict[str, Any]:
    """The ``hands`` row; ``blinds`` and ``antes`` in player order (already un-reversed)."""
    if players_count == 2:
        small_blind, big_blind = blinds[1], blinds[0]
    else:
        small_blind, big_blind = blinds[0], blinds[1]
    # hilo writes 0 when the source did not say where the button was.
    button = fields.get("_button_seat", seats[-1])
    if isinstance(button, bool) or not isinstance(button, int) or not 0 <= button <= 255:
        raise PhhError("field '_button_seat' out of range")
    seat_count = fields.get("seat_count")
    if seat_count is not None and (type(seat_count) is not int or not 1 <= seat_count <= 255):
        raise PhhError("field 'seat_count' out of range")
    rake = fields.get("_rake")
    return {
        "hand_id": hand_id,
        "tournament_id": _tournament_id(fields, money_scale),
        "table_name": _text(fields, "table"),
        "limit_type": limit or None,
        "currency": currency,
        "money_scale": money_scale,
        "small_blind": small_blind or None,
        "big_blind": big_blind or None,
        "small_bet": small_bet if limit == "FL" else None,
        "big_bet": big_bet if limit == "FL" else None,
        "ante": max(antes) or None,
        "max_seats": seat_count,
        "button_seat": button or None,
        "started_at": _started_at(fields),
        "time_zone": _text(fields, "_time_zone") or _text(fields, "time_zone_abbreviation"),
        "level": _text(fields, "_level") or _text(fields, "level"),
        "buy_in": _text(fields, "_buy_in"),
        "mixed_game": _text(fields, "_mixed_game"),
        "board": board,
        "board2": _second_board(fields),
        "rake": None if rake is None else _integer(rake, "_rake", file_scale),
        "side_pots": _side_pots(fields, file_scale),
    }


def _side_pots(fields: dict[str, Any], scale: int) -> list[int] | None:
    """hilo's ``_side_pots``: the pots net of rake as the source site printed them (main
    first), which say how the rake was taken pot by pot."""
    values = fields.get("_side_pots")
    if values is None:
        return None
    if not isinstance(values, list) or not 2 <= len(values) <= 16:
        raise PhhError("field '_side_pots' is not a list of 2 to 16 amounts")
    return [_integer(value, "_side_pots", scale) for value in values]


def _second_board(fields: dict[str, Any]) -> list[int] | None:
    """hilo's ``_board2``: the second run of a pot run twice (PHH has one board)."""
    text = fields.get("_board2")
    if text is None:
        return None
    if not isinstance(text, str):
        raise PhhError("field '_board2' is not text")
    cards = _cards(text, "_board2")
    if None in cards or not 3 <= len(cards) <= 5:
        raise PhhError("field '_board2' is not 3 to 5 known cards")
    return [card for card in cards if card is not None]


def _tournament_id(fields: dict[str, Any], money_scale: int) -> str | None:
    """hilo's ``_tournament_id``; else the event of a hand played for chips."""
    own = _text(fields, "_tournament_id")
    if own is not None or "_tournament_id" in fields or "_site" in fields:
        return own
    event = fields.get("event")
    return event if isinstance(event, str) and event and money_scale == 1 else None


def _started_at(fields: dict[str, Any]) -> dt.datetime | None:
    """The hand's start in UTC from ``year``/``month``/``day``/``time`` (+ ``time_zone``).

    Without a time of day the start is unknown (null). The spec reads a time without a zone
    as the venue's local time when city, region and country are given: that zone cannot be
    looked up here, so the start is left null too.
    """
    year, month, day, clock = (fields.get(name) for name in ("year", "month", "day", "time"))
    if not isinstance(clock, dt.time):
        return None
    if not all(type(value) is int for value in (year, month, day)):
        return None
    assert isinstance(year, int) and isinstance(month, int) and isinstance(day, int)
    zone_name = fields.get("time_zone")
    if zone_name is None:
        if all(fields.get(name) for name in ("city", "region", "country")):
            return None
        zone_name = "UTC"
    try:
        zone = zoneinfo.ZoneInfo(str(zone_name))
        local = dt.datetime.combine(dt.date(year, month, day), clock.replace(tzinfo=None))
    except (ValueError, zoneinfo.ZoneInfoNotFoundError, OverflowError):
        raise PhhError("unreadable date, time or time zone") from None
    return local.replace(tzinfo=zone).astimezone(dt.UTC).replace(tzinfo=None)


class _Play:
    """Replays the action notation into canonical action rows, tracking stacks and totals."""

    def __init__(
        self, names: list[str], stacks: list[int], decoded: _Decoded, big_blind: int
    ) -> None:
        self.names = names
        # Preflop a call is to the full big blind even when its poster was all in for less.
        self.big_blind = big_blind
        self.left = list(stacks)  # chips behind
        self.put_in = [0] * len(names)  # everything put in, forced bets included
        self.returned = [0] * len(names)
        self.street_total = [0] * len(names)
        self.folded = [False] * len(names)
        self.street = 0
        self.board: list[int] = []
        self.decoded = decoded
        self.hole_dealt: set[int] = set()

    def _row(self, index: int, kind: str, amount: int | None, to_amount: int | None) -> None:
        self.decoded.actions.append(
            {
                "seq": len(self.decoded.actions),
                "street": self.street,
                "player": self.names[index],
                "kind": kind,
                "amount": amount,
                "to_amount": to_amount,
                "is_all_in": amount is not None
                and kind != "uncalled_return"
                and self.left[index] == 0,
            }
        )

    def _pay(self, index: int, amount: int) -> None:
        if amount > self.left[index]:
            raise PhhError(f"p{index + 1} puts in {amount} with {self.left[index]} behind")
        self.left[index] -= amount
        self.put_in[index] += amount

    def force(self, index: int, kind: str, amount: int, live: bool) -> None:
        """A forced bet: ante, blind or straddle, or a dead blind."""
        paid = min(amount, self.left[index])  # a short stack posts what it has, all in
        self._pay(index, paid)
        if live:
            self.street_total[index] += paid
        self._row(index, kind, paid, self.street_total[index] if live else None)

    def close_round(self) -> None:
        """Hand back the part of the round's largest total nobody matched."""
        totals = sorted(self.street_total, reverse=True)
        if len(totals) < 2 or totals[0] == totals[1]:
            return
        index = self.street_total.index(totals[0])
        excess = totals[0] - totals[1]
        self.left[index] += excess
        self.returned[index] += excess
        self.street_total[index] -= excess
        self._row(index, "uncalled_return", excess, None)

    def _player(self, actor: str, what: str) -> int:
        match = _PLAYER.match(actor)
        if match is None:
            raise PhhError(f"{what}: unknown actor {actor[:20]!r}")
        index = int(match.group(1)) - 1
        if index >= len(self.names):
            raise PhhError(f"{what}: action for unknown player {actor[:20]}")
        return index

    def act(self, notation: str, file_scale: int, what: str) -> None:
        words = notation.split("#", 1)[0].split()
        if not words:
            return  # a no-op or a standalone commentary
        actor, verb, arguments = words[0], words[1] if len(words) > 1 else "", words[2:]
        if actor == "d":
            self._deal(verb, arguments, what)
            return
        index = self._player(actor, what)
        if verb == "f" and not arguments:
            self.folded[index] = True
            self._row(index, "fold", None, self.street_total[index])
        elif verb == "cc" and not arguments:
            highest = max(self.street_total)
            if self.street == 0 and highest > 0:
                highest = max(highest, self.big_blind)
            owed = highest - self.street_total[index]
            if owed <= 0:
                self._row(index, "check", None, self.street_total[index])
            else:
                paid = min(owed, self.left[index])
                self._pay(index, paid)
                self.street_total[index] += paid
                self._row(index, "call", paid, self.street_total[index])
        elif verb == "cbr" and len(arguments) == 1:
            try:
                target = _integer(Decimal(arguments[0]), f"{what} amount", file_scale)
            except InvalidOperation:
                raise PhhError(f"{what}: unreadable amount {arguments[0][:30]!r}") from None
            added = target - self.street_total[index]
            if added <= 0:
                raise PhhError(
                    f"{what}: raise to {arguments[0][:30]} is not above the player's total"
                )
            kind = "bet" if max(self.street_total) == 0 else "raise"
            self._pay(index, added)
            self.street_total[index] = target
            self._row(index, kind, added, target)
        elif verb == "sm" and len(arguments) <= 1:
            self._showdown(index, arguments[0] if arguments else None, what)
        else:
            raise PhhError(f"{what}: unrecognised action {notation.strip()[:60]!r}")

    def _deal(self, verb: str, arguments: list[str], what: str) -> None:
        if verb == "dh" and len(arguments) == 2:
            index = self._player(arguments[0], what)
            cards = _cards(arguments[1], what)
            if len(cards) != 4:
                raise PhhError(f"{what}: {len(cards)} hole cards dealt, Omaha deals 4")
            if index in self.hole_dealt:
                raise PhhError(f"{what}: p{index + 1} is dealt hole cards twice")
            self.hole_dealt.add(index)
            self._sighting(index, cards, dealt=True)
        elif verb == "db" and len(arguments) == 1:
            cards = _cards(arguments[0], what)
            if None in cards or len(cards) != (3 if not self.board else 1) or len(self.board) >= 5:
                raise PhhError(
                    f"{what}: board dealt as {arguments[0][:20]} after {len(self.board)} cards"
                )
            self.close_round()
            self.board.extend(card for card in cards if card is not None)
            self.street += 1
            self.street_total = [0] * len(self.names)
        else:
            raise PhhError(f"{what}: unrecognised dealing action")

    def _showdown(self, index: int, shown: str | None, what: str) -> None:
        # The betting is over once cards are shown: an unmatched bet goes back first.
        self.close_round()
        if shown is None:
            self._row(index, "muck", None, None)
            return
        cards: list[int | None]
        if shown == "-":
            dealt = [row for row in self.decoded.sightings if row["index"] == index]
            cards = dealt[-1]["cards"] if dealt else [None] * 4
        else:
            cards = _cards(shown, what)
        if len(cards) != 4:
            raise PhhError(f"{what}: {len(cards)} cards shown, Omaha has 4")
        self._row(index, "show", None, None)
        known = None if None in cards else cards
        self.decoded.showdowns.append(
            {
                "player": self.names[index],
                "cards": known,
                "board_index": 0,
                "line_no": len(self.decoded.actions),
            }
        )
        self._sighting(index, cards, dealt=False)

    def _sighting(self, index: int, cards: list[int | None], dealt: bool) -> None:
        # Partly known cards (cash-game "??Ad") are kept as unknown: hole_cards holds four or none.
        self.decoded.sightings.append(
            {
                "index": index,
                "player": self.names[index],
                "cards": None if None in cards else cards,
                "line_no": len(self.decoded.sightings),
                "dealt": dealt,
            }
        )


# -- assembling the block -----------------------------------------------------------------

_HAND_SCHEMA = {
    "hand": pl.Int32,
    "hand_id": pl.String,
    "tournament_id": pl.String,
    "table_name": pl.String,
    "limit_type": pl.String,
    "currency": pl.String,
    "money_scale": pl.Int32,
    "small_blind": pl.Int64,
    "big_blind": pl.Int64,
    "small_bet": pl.Int64,
    "big_bet": pl.Int64,
    "ante": pl.Int64,
    "max_seats": pl.Int16,
    "button_seat": pl.Int16,
    "started_at": pl.Datetime("us", "UTC"),
    "time_zone": pl.String,
    "level": pl.String,
    "buy_in": pl.String,
    "mixed_game": pl.String,
    "board": pl.List(pl.UInt8),
    "board2": pl.List(pl.UInt8),
    "rake": pl.Int64,
    "side_pots": pl.List(pl.Int64),
}
_SEAT_SCHEMA = {
    "hand": pl.Int32,
    "seat": pl.Int16,
    "player": pl.String,
    "stack_start": pl.Int64,
    "sitting_out": pl.Boolean,
    "hero_flag": pl.Boolean,
}
_ACTION_SCHEMA = {
    "hand": pl.Int32,
    "seq": pl.Int32,
    "street": pl.Int8,
    "player": pl.String,
    "kind": pl.String,
    "amount": pl.Int64,
    "to_amount": pl.Int64,
    "is_all_in": pl.Boolean,
}
_COLLECTION_SCHEMA = {
    "hand": pl.Int32,
    "seq": pl.Int32,
    "player": pl.String,
    "amount": pl.Int64,
    "pot_index": pl.Int8,
    "half": pl.String,
    "board_index": pl.Int8,
}
_SHOWDOWN_SCHEMA = {
    "hand": pl.Int32,
    "player": pl.String,
    "cards": pl.List(pl.UInt8),
    "board_index": pl.Int8,
    "line_no": pl.Int64,
}
_SIGHTING_SCHEMA = {
    "hand": pl.Int32,
    "player": pl.String,
    "cards": pl.List(pl.UInt8),
    "line_no": pl.Int64,
    "dealt": pl.Boolean,
}


def _rows(decoded: list[tuple[int, _Decoded]], name: str, schema: dict[str, Any]) -> pl.DataFrame:
    rows = [
        {key: row.get(key) for key in schema} | {"hand": hand}
        for hand, item in decoded
        for row in ([item.hand] if name == "hand" else getattr(item, name))
    ]
    return pl.DataFrame(rows, schema=schema)


def _tables(
    frame: pl.DataFrame,
    source_files: list[str],
    headers: list[dict[str, Any]],
    reasons: list[dict[str, Any]],
    decoded: list[tuple[int, _Decoded]],
) -> HandTables:
    header_frame = pl.DataFrame(
        headers,
        schema={
            "hand": pl.Int32,
            "hand_id": pl.String,
            "is_o8": pl.Boolean,
            "game": pl.String,
            "header_ok": pl.Boolean,
        },
    )
    starts = frame.filter(pl.col("is_start")).select(
        pl.col("hand").cast(pl.Int32), source_offset="offset"
    )
    hands = (
        _rows(decoded, "hand", _HAND_SCHEMA)
        .join(starts, on="hand", how="left")
        .with_columns(
            source_file=pl.lit(pl.Series(source_files)).gather(
                pl.col("hand_id").str.extract(f"^(\\d+){_TAG}", 1).cast(pl.Int64)
            )
        )
    )
    seats = _rows(decoded, "seats", _SEAT_SCHEMA)
    heroes = seats.filter(pl.col("hero_flag")).select("hand", "player")
    seats = attach_hole_cards(
        seats.drop("hero_flag"), _rows(decoded, "sightings", _SIGHTING_SCHEMA), heroes
    )
    return HandTables(
        site=SITE,
        source_file=source_files[0] if len(source_files) == 1 else "",
        frame=frame,
        headers=header_frame,
        hands=hands,
        seats=seats,
        actions=_rows(decoded, "actions", _ACTION_SCHEMA),
        collections=_rows(decoded, "collections", _COLLECTION_SCHEMA),
        showdowns=_rows(decoded, "showdowns", _SHOWDOWN_SCHEMA),
        reasons=[pl.DataFrame(reasons, schema={"hand": pl.Int32, "reason": pl.String})],
    )
