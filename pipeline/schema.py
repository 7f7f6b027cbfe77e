"""Canonical Arrow schemas of the hilo dataset (see docs/architecture.md, "Canonical tables").

Every parser produces these columns and every stage reads them. Money is int64 in the hand's
minor unit (cents for cash, chips for tournaments and play money); cards are ``rank * 4 + suit``
with rank 0..12 = 2..A and suit 0..3 = c, d, h, s; streets are 0 preflop .. 3 river.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ACTION_KINDS",
    "ACTIONS",
    "COLLECTIONS",
    "FILES",
    "HANDS",
    "HAND_TABLES",
    "NOTES",
    "REJECTS",
    "SEATS",
    "SHOWDOWNS",
    "TABLES",
    "empty_table",
]

CARDS = pa.list_(pa.uint8())

HANDS = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("tournament_id", pa.string()),
        ("table_name", pa.string()),
        ("game", pa.string()),
        ("limit_type", pa.string()),  # FL / PL / NL
        ("currency", pa.string()),  # ISO code, "CHIPS" for tournaments, "PLAY" for play money
        ("money_scale", pa.int32()),  # minor units per printed unit (100 for cents, 1 for chips)
        ("small_blind", pa.int64()),
        ("big_blind", pa.int64()),
        ("small_bet", pa.int64()),  # fixed limit only
        ("big_bet", pa.int64()),  # fixed limit only
        ("ante", pa.int64()),
        ("max_seats", pa.int16()),
        ("button_seat", pa.int16()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("time_zone", pa.string()),  # the zone the site printed, e.g. "ET"
        ("level", pa.string()),  # tournament level as printed ("V")
        ("buy_in", pa.string()),  # tournament buy-in as printed ("$1.08+$0.27+$0.15 USD")
        ("mixed_game", pa.string()),  # e.g. "8-Game", null when not a mixed game
        ("board", CARDS),
        ("board2", CARDS),  # second board when the pot was run twice
        ("total_pot", pa.int64()),
        ("rake", pa.int64()),
        ("side_pots", pa.list_(pa.int64())),  # summary "Main pot x. Side pot-1 y." (main first)
        ("players_dealt", pa.int16()),
        ("source_file", pa.string()),
        ("source_offset", pa.int64()),
    ]
)

SEATS = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("seat", pa.int16()),
        ("player", pa.string()),
        ("position", pa.string()),  # BTN, SB, BB, UTG, UTG+1, .., LJ, HJ, CO; null if not dealt in
        ("stack_start", pa.int64()),
        ("hole_cards", CARDS),  # null if never seen
        ("is_hero", pa.bool_()),
        ("sitting_out", pa.bool_()),
        ("bounty", pa.string()),  # as printed, knockout tournaments
    ]
)

ACTION_KINDS = (
    "post_sb",
    "post_bb",
    "post_dead",
    "ante",
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "uncalled_return",
    "show",
    "muck",
)

ACTIONS = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("seq", pa.int32()),
        ("street", pa.int8()),
        ("player", pa.string()),
        ("kind", pa.string()),
        ("amount", pa.int64()),  # chips put in by this action (returned, for uncalled_return)
        ("to_amount", pa.int64()),  # the player's street total after it
        ("is_all_in", pa.bool_()),
    ]
)

COLLECTIONS = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("seq", pa.int32()),  # order of the line within the hand
        ("player", pa.string()),
        ("amount", pa.int64()),
        ("pot_index", pa.int8()),  # 0 main, 1.. side; null when the site does not say
        ("half", pa.string()),  # high / low; null when the site does not label it
        ("board_index", pa.int8()),  # 0, or 1 for the second run of a run-it-twice hand
    ]
)

SHOWDOWNS = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("player", pa.string()),
        ("cards", CARDS),
        ("high_desc", pa.string()),
        ("low_desc", pa.string()),
        ("board_index", pa.int8()),
    ]
)

# A line of a stored hand that no other table holds: a line the parser does not know and that
# carries neither money nor cards. Kept so that nothing a site wrote is lost.
NOTES = pa.schema(
    [
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("source_file", pa.string()),
        ("source_offset", pa.int64()),  # byte offset of the line in its file
        ("line_number", pa.int32()),  # 1 = the hand's first line
        ("text", pa.string()),
        ("kind", pa.string()),  # "unrecognised"
    ]
)

REJECTS = pa.schema(
    [
        ("source_file", pa.string()),
        ("source_offset", pa.int64()),
        ("site", pa.string()),
        ("hand_id", pa.string()),
        ("reason", pa.string()),
        ("raw_text", pa.string()),
    ]
)

FILES = pa.schema(
    [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("sha256", pa.string()),
        ("site", pa.string()),
        ("hands", pa.int64()),
        ("skipped", pa.int64()),
        ("rejected", pa.int64()),
        ("duplicates", pa.int64()),  # hands stored already from another file (not stored again)
        ("error", pa.string()),  # why a whole file could not be read; null when it was
        ("parts", pa.list_(pa.string())),  # dataset files this input contributed rows to
        ("ingested_at", pa.timestamp("us", tz="UTC")),
    ]
)

HAND_TABLES: dict[str, pa.Schema] = {
    "hands": HANDS,
    "seats": SEATS,
    "actions": ACTIONS,
    "collections": COLLECTIONS,
    "showdowns": SHOWDOWNS,
    "notes": NOTES,
}

TABLES: dict[str, pa.Schema] = {**HAND_TABLES, "rejects": REJECTS, "files": FILES}


def empty_table(schema: pa.Schema) -> pa.Table:
    """Return a table with no rows and the given schema."""
    return schema.empty_table()
