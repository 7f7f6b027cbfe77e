"""``hilo export DATASET --format phh``: the dataset's hands as PHH files (docs/phh.md).

Every hand of the dataset is written as one ``[n]`` section of a ``.phhs`` file (variant
``FO/8``; pot- and no-limit hands carry ``_limit``), ``hands_per_file`` hands per file, one folder
per source site: ``OUT/<site>/<site>-00001.phhs``. Hands are ordered by source file, offset and
hand id, so the same dataset gives the same bytes. Each file is written under a temporary name
and renamed; ``.phhs`` files of an earlier export that this one does not write are removed.

Amounts are integers in the hand's minor unit (``_money_scale`` says which: 100 = cents), so no
decimal fraction is ever rounded. What PHH has no field for is kept in user-defined fields
(underscore names, which PHH readers ignore): the source site and hand id, the limit, sitting-out
players, dead blinds, the hero, the pots the site printed net of rake (``_side_pots``), shows
after an uncontested pot (``_after_hand``).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.columns import format_card
from parsers.games import OMAHA_HI_LO, game_named
from pipeline.dataset import read_table
from pipeline.profiles import site_profile

__all__ = [
    "DEFAULT_HANDS_PER_FILE",
    "EXPORT_FORMATS",
    "ExportSummary",
    "export_dataset",
    "finishing_stacks",
    "hand_sections",
]

EXPORT_FORMATS = ("phh",)
DEFAULT_HANDS_PER_FILE = 10_000
VARIANT = "FO/8"
MONEY_KINDS = ("post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise")
_FILE_NAME = re.compile(r"^[A-Za-z0-9_.-]+-\d{5,}\.phhs$")
_SITE_FOLDER = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass
class ExportSummary:
    """What an export wrote, and the hands it could not write (with why)."""

    hands: int = 0
    files: list[Path] = field(default_factory=list)
    not_exported: dict[str, int] = field(default_factory=dict)  # reason -> hands


def finishing_stacks(
    starting: list[int], put_in: list[int], returned: list[int], collected: list[int]
) -> list[int]:
    """Each player's stack after the hand: start − chips put in + returned + collected.

    >>> finishing_stacks([100, 100], [10, 20], [10, 0], [0, 20])
    [100, 100]
    """
    return [
        start - put + back + won
        for start, put, back, won in zip(starting, put_in, returned, collected, strict=True)
    ]


def export_dataset(
    dataset: Path, out: Path, fmt: str = "phh", hands_per_file: int = DEFAULT_HANDS_PER_FILE
) -> ExportSummary:
    """Write every hand of ``dataset`` under ``out`` in ``fmt`` (only ``"phh"`` today)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    if hands_per_file < 1:
        raise ValueError("hands_per_file must be at least 1")
    tables = {
        name: _frame(read_table(dataset, name))
        for name in ("hands", "seats", "actions", "collections", "showdowns")
    }
    summary = ExportSummary()
    written: set[Path] = set()
    hands = tables["hands"].sort("site", "source_file", "source_offset", "hand_id", nulls_last=True)
    for (site,), site_hands in hands.group_by("site", maintain_order=True):
        folder = out / _SITE_FOLDER.sub("_", str(site))
        sections = hand_sections(site_hands, tables, summary.not_exported)
        for start in range(0, len(sections), hands_per_file):
            chunk = sections[start : start + hands_per_file]
            path = folder / f"{folder.name}-{start // hands_per_file + 1:05d}.phhs"
            text = "\n\n".join(
                f"[{number}]\n{section}" for number, section in enumerate(chunk, start=1)
            )
            _write_atomically(path, text + "\n")
            written.add(path)
            summary.files.append(path)
            summary.hands += len(chunk)
    _remove_stale(out, written)
    return summary


def _frame(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def hand_sections(
    hands: pl.DataFrame, tables: dict[str, pl.DataFrame], not_exported: dict[str, int]
) -> list[str]:
    """The PHH text (without its ``[n]`` header) of each row of ``hands``, in order.

    Hands that PHH cannot hold (fewer than two or more than ten players dealt in, a game other
    than 4-card Omaha Hi/Lo) are counted in ``not_exported`` by reason instead.
    """
    keys = hands.select("site", "hand_id").with_row_index("k")
    grouped = {
        name: _grouped(tables[name], keys, order)
        for name, order in (
            ("seats", "seat"),
            ("actions", "seq"),
            ("collections", "seq"),
            ("showdowns", None),
        )
    }
    sections = []
    for k, hand in enumerate(hands.iter_rows(named=True)):
        parts = {name: _slice(rows, k) for name, rows in grouped.items()}
        try:
            sections.append(_section(hand, parts))
        except _NotExportable as reason:
            not_exported[str(reason)] = not_exported.get(str(reason), 0) + 1
    return sections


class _NotExportable(ValueError):
    """A hand PHH cannot represent; the message is the reason."""


def _grouped(
    frame: pl.DataFrame, keys: pl.DataFrame, order: str | None
) -> tuple[np.ndarray, dict[str, list[Any]]]:
    """Rows of ``frame`` for the hands in ``keys``, sorted by hand, with each hand's bounds."""
    joined = frame.join(keys, on=["site", "hand_id"], how="inner", maintain_order="left")
    joined = joined.sort(["k", order] if order else ["k"], maintain_order=True)
    bounds = np.searchsorted(joined["k"].to_numpy(), np.arange(keys.height + 1))
    return bounds, {name: joined[name].to_list() for name in joined.columns}


def _slice(grouped: tuple[np.ndarray, dict[str, list[Any]]], k: int) -> list[dict[str, Any]]:
    bounds, columns = grouped
    begin, end = int(bounds[k]), int(bounds[k + 1])
    return [
        {name: values[index] for name, values in columns.items()} for index in range(begin, end)
    ]


def _cards(codes: list[int | None] | None, count: int = 4) -> str:
    if not codes or any(code is None for code in codes):
        return "??" * count
    return "".join(format_card(int(code)) for code in codes if code is not None)


def _section(hand: dict[str, Any], parts: dict[str, list[dict[str, Any]]]) -> str:
    seats = parts["seats"]
    button = hand["button_seat"] or 0  # 0: the site did not say
    # Stars deals a tournament player who sits out and folds them: they are in PHH's hand.
    acting = {action["player"] for action in parts["actions"]}
    dealt = sorted(
        (seat for seat in seats if not seat["sitting_out"] or seat["player"] in acting),
        key=lambda seat: (seat["seat"] - button - 1) % 256,
    )
    game = game_named(hand.get("game"))
    if game is not OMAHA_HI_LO:  # PHH's variant codes have none for these games
        raise _NotExportable(f"{game.title}: PHH has no variant code for it")
    count = len(dealt)
    if not 2 <= count <= 10:
        raise _NotExportable(f"{count} players dealt in (PHH Omaha Hi/Lo needs 2 to 10)")
    index_of = {seat["player"]: index for index, seat in enumerate(dealt)}
    antes, blinds, dead = [0] * count, [0] * count, [0] * count
    put_in, returned, collected = [0] * count, [0] * count, [0] * count
    for action in parts["actions"]:
        index = index_of.get(action["player"])
        if index is None:
            raise _NotExportable("an action by a player not dealt in")
        amount = action["amount"] or 0
        kind = action["kind"]
        if kind == "call" and amount == 0:
            # All-in for nothing while holding chips (WPN's disconnect protection): a PHH
            # call always pays what is owed, so the hand would come back different.
            raise _NotExportable("a call of 0 chips (disconnect protection)")
        if kind in MONEY_KINDS:
            put_in[index] += amount
        # PHH's forced bets are the nominal amounts (a short stack posts what it has): a
        # short all-in post is written at its nominal size, which the reader caps again.
        if kind == "ante":
            antes[index] += _nominal(action, hand["ante"])
        elif kind in ("post_sb", "post_bb"):
            nominal = hand["small_blind"] if kind == "post_sb" else hand["big_blind"]
            blinds[index] += _nominal(action, nominal)
        elif kind == "post_dead":
            dead[index] += amount
        elif kind == "uncalled_return":
            returned[index] += amount
    if not any(returned) and not site_profile(str(hand["site"])).uncalled_printed:
        # The site hands an uncalled bet back without a word (the audit does the same): the
        # unmatched part of the largest contribution never left its owner's stack.
        ranked = sorted(put_in, reverse=True)
        if ranked[0] > ranked[1]:
            returned[put_in.index(ranked[0])] = ranked[0] - ranked[1]
    for collection in parts["collections"]:
        index = index_of.get(collection["player"])
        if index is None:
            raise _NotExportable("a collection by a player not dealt in")
        collected[index] += collection["amount"] or 0
    starting = [seat["stack_start"] or 0 for seat in dealt]
    # Heads-up, PHH writes the forced bets reversed: the button posts the first entry.
    reverse = count == 2
    limit = hand["limit_type"] or ""  # "": the site did not say
    big_blind = hand["big_blind"] or max(blinds) or 1
    small_bet = hand["small_bet"] if limit == "FL" and hand["small_bet"] else big_blind
    big_bet = hand["big_bet"] if limit == "FL" and hand["big_bet"] else 2 * small_bet
    if limit != "FL":
        big_bet = small_bet  # pot and no limit: one minimum bet, as PHH's min_bet

    lines = [
        f"variant = {_string(VARIANT)}",
        f"antes = {_integers(antes[::-1] if reverse else antes)}",
        f"blinds_or_straddles = {_integers(blinds[::-1] if reverse else blinds)}",
        f"small_bet = {small_bet}",
        f"big_bet = {big_bet}",
        f"starting_stacks = {_integers(starting)}",
        f"actions = {_strings(_actions(hand, dealt, index_of, parts))}",
        f"players = {_strings([seat['player'] for seat in dealt])}",
        f"seats = {_integers([seat['seat'] for seat in dealt])}",
        f"finishing_stacks = {_integers(finishing_stacks(starting, put_in, returned, collected))}",
        f"hand = {_string(str(hand['hand_id']))}",
    ]
    if hand["max_seats"]:
        lines.append(f"seat_count = {hand['max_seats']}")
    if hand["table_name"] is not None:
        lines.append(f"table = {_string(hand['table_name'])}")
    started = hand["started_at"]
    if isinstance(started, dt.datetime):
        utc = started.astimezone(dt.UTC) if started.tzinfo else started
        lines += [
            f"year = {utc.year}",
            f"month = {utc.month}",
            f"day = {utc.day}",
            f"time = {utc.time().isoformat()}",
            f"time_zone = {_string('UTC')}",
        ]
    lines += [
        f"_site = {_string(hand['site'])}",
        f"_hand_id = {_string(str(hand['hand_id']))}",
        f"_limit = {_string(limit)}",
        f"_currency = {_string(hand['currency'] or 'CHIPS')}",
        f"_money_scale = {hand['money_scale'] or 1}",
        f"_button_seat = {button}",
    ]
    optional = {
        "_tournament_id": hand["tournament_id"],
        "_time_zone": hand["time_zone"],
        "_level": hand["level"],
        "_buy_in": hand["buy_in"],
        "_mixed_game": hand["mixed_game"],
    }
    lines += [f"{name} = {_string(value)}" for name, value in optional.items() if value is not None]
    if hand["rake"] is not None:
        lines.append(f"_rake = {hand['rake']}")
    if hand["side_pots"]:
        lines.append(f"_side_pots = {_integers(hand['side_pots'])}")
    if hand["board2"]:
        lines.append(f"_board2 = {_string(_cards(hand['board2'], len(hand['board2'])))}")
    if any(dead):
        lines.append(f"_dead_blinds = {_integers(dead)}")
    heroes = [seat["player"] for seat in seats if seat["is_hero"]]
    if heroes:
        lines.append(f"_hero = {_string(heroes[0])}")
    after = _after_hand(parts, index_of)
    if after:
        lines.append(f"_after_hand = {_strings(after)}")
    idle = [seat["player"] for seat in dealt if seat["sitting_out"]]
    if idle:
        lines.append(f"_sitting_out_dealt = {_strings(idle)}")
    away = [seat for seat in seats if seat["sitting_out"] and seat["player"] not in acting]
    if away:
        entries = [
            f"{{seat = {seat['seat']}, player = {_string(seat['player'])}, "
            f"stack = {seat['stack_start'] or 0}}}"
            for seat in away
        ]
        lines.append(f"_sitting_out = [{', '.join(entries)}]")
    lines += [
        f"_source_file = {_string(hand['source_file'] or '')}",
        f"_source_offset = {hand['source_offset'] or 0}",
    ]
    return "\n".join(lines)


def _nominal(action: dict[str, Any], nominal: int | None) -> int:
    """The forced bet's size: what was posted, or the stake's amount for a short all-in."""
    amount = int(action["amount"] or 0)
    if action["is_all_in"] and nominal is not None and nominal > amount:
        return int(nominal)
    return amount


def _shown_cards(parts: dict[str, list[dict[str, Any]]], player: str, hole: Any) -> str:
    for shown in parts["showdowns"]:
        if shown["player"] == player and shown["cards"]:
            return _cards(shown["cards"])
    return _cards(hole)


def _is_after_hand(action: dict[str, Any], live: int) -> bool:
    """A show or muck once everyone else has folded: PHH's hand is over by then."""
    return action["kind"] in ("show", "muck") and live <= 1


def _actions(
    hand: dict[str, Any],
    dealt: list[dict[str, Any]],
    index_of: dict[str, int],
    parts: dict[str, list[dict[str, Any]]],
) -> list[str]:
    """The action notation: hole cards, then every voluntary action with the board dealt
    before the first action of its street (forced bets are fields, returns are implicit)."""
    notation = [
        f"d dh p{index + 1} {_cards(seat['hole_cards'])}" for index, seat in enumerate(dealt)
    ]
    board = list(hand["board"] or [])
    streets = [board[:3], board[3:4], board[4:5]]
    dealt_streets = 0
    live = len(dealt)
    hole = {seat["player"]: seat["hole_cards"] for seat in dealt}

    def deal_until(street: int) -> None:
        nonlocal dealt_streets
        while dealt_streets < min(street, 3) and streets[dealt_streets]:
            notation.append(f"d db {_cards(streets[dealt_streets], len(streets[dealt_streets]))}")
            dealt_streets += 1

    for action in parts["actions"]:
        kind, actor = action["kind"], f"p{index_of[action['player']] + 1}"
        if kind in MONEY_KINDS[:4] or kind == "uncalled_return" or _is_after_hand(action, live):
            continue
        deal_until(action["street"] or 0)
        if kind == "fold":
            live -= 1
            notation.append(f"{actor} f")
        elif kind in ("check", "call"):
            notation.append(f"{actor} cc")
        elif kind in ("bet", "raise"):
            notation.append(f"{actor} cbr {action['to_amount']}")
        elif kind == "show":
            notation.append(
                f"{actor} sm {_shown_cards(parts, action['player'], hole[action['player']])}"
            )
        elif kind == "muck":
            notation.append(f"{actor} sm")
    deal_until(3)
    return notation


def _after_hand(parts: dict[str, list[dict[str, Any]]], index_of: dict[str, int]) -> list[str]:
    """Shows and mucks after the pot was won uncontested (kept for the round trip)."""
    live = len(index_of)
    notation = []
    for action in parts["actions"]:
        if action["kind"] == "fold":
            live -= 1
        elif _is_after_hand(action, live):
            actor = f"p{index_of[action['player']] + 1}"
            if action["kind"] == "show":
                notation.append(f"{actor} sm {_shown_cards(parts, action['player'], None)}")
            else:
                notation.append(f"{actor} sm")
    return notation


# -- TOML values --------------------------------------------------------------------------


def _string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _strings(values: list[str]) -> str:
    return "[" + ", ".join(_string(value) for value in values) + "]"


def _integers(values: list[int]) -> str:
    return "[" + ", ".join(str(int(value)) for value in values) + "]"


# -- files --------------------------------------------------------------------------------


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def _remove_stale(out: Path, written: set[Path]) -> None:
    """Delete export files (``<site>-NNNNN.phhs``) an earlier, larger export left behind."""
    if not out.is_dir():
        return
    for folder in out.iterdir():
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            if _FILE_NAME.match(path.name) and path not in written:
                path.unlink()
