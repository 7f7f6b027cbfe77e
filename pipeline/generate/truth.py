"""Ground-truth tables of generated hands: payouts, hands (rake), faults and per-player records.

``truth_payouts`` and ``truth_hands.rake`` are what the rules say (never the faulted text);
``truth_faults`` lists what was deliberately recorded wrong; ``truth_players`` is the
generator's own record of what every seated player did, counted the way the statistics layer
defines it (stats-definitions.md §2), with money as the text records it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from pipeline.generate.simulate import HandRecord

__all__ = ["SITE", "TRUTH_SCHEMAS", "TruthColumns"]

SITE = "pokerstars"

TRUTH_SCHEMAS: dict[str, pa.Schema] = {
    "truth_payouts": pa.schema(
        [
            ("site", pa.string()),
            ("hand_id", pa.string()),
            ("pot_index", pa.int8()),
            ("board_index", pa.int8()),
            ("half", pa.string()),  # high / low / scoop (whole pot: no low, uncontested, P6)
            ("player", pa.string()),
            ("amount", pa.int64()),
        ]
    ),
    "truth_hands": pa.schema(
        [
            ("site", pa.string()),
            ("hand_id", pa.string()),
            ("source_file", pa.string()),
            ("table_name", pa.string()),
            ("tournament_id", pa.string()),
            ("limit_type", pa.string()),
            ("currency", pa.string()),
            ("small_blind", pa.int64()),
            ("big_blind", pa.int64()),
            ("ante", pa.int64()),
            ("button_seat", pa.int16()),
            ("players_dealt", pa.int16()),
            ("pots", pa.int8()),
            ("saw_flop", pa.bool_()),
            ("showdown", pa.bool_()),
            ("total_pot", pa.int64()),
            ("rake", pa.int64()),  # what the rake rule says
            ("recorded_rake", pa.int64()),  # what the text says
            ("fault", pa.string()),  # the injected fault's kind, null when the hand is clean
        ]
    ),
    "truth_faults": pa.schema(
        [
            ("site", pa.string()),
            ("hand_id", pa.string()),
            ("kind", pa.string()),
            ("player", pa.string()),
            ("detail", pa.string()),
        ]
    ),
    "truth_players": pa.schema(
        [
            ("site", pa.string()),
            ("hand_id", pa.string()),
            ("player", pa.string()),
            ("seat", pa.int16()),
            ("dealt_in", pa.bool_()),
            ("vpip", pa.bool_()),
            ("pfr", pa.bool_()),
            ("saw_flop", pa.bool_()),
            ("showdown", pa.bool_()),
            ("won_at_showdown", pa.bool_()),
            ("net_won", pa.int64()),
        ]
    ),
}


@dataclass
class TruthColumns:
    """Rows of the four truth tables, filled hand by hand (tuples in schema column order)."""

    rows: dict[str, list[tuple[Any, ...]]] = field(
        default_factory=lambda: {table: [] for table in TRUTH_SCHEMAS}
    )

    def add_hands(self, hands: Iterable[HandRecord], source_file: str) -> None:
        """Append the rows of ``hands``, all written to ``source_file``."""
        payouts = self.rows["truth_payouts"]
        hand_rows = self.rows["truth_hands"]
        faults = self.rows["truth_faults"]
        for hand in hands:
            hand_id = str(hand.hand_id)
            names = hand.players
            payouts.extend(
                (SITE, hand_id, share.pot_index, 0, share.half, names[share.player], share.amount)
                for share in hand.shares
            )
            table = hand.table
            stakes = hand.stakes
            tournament = table.is_tournament
            hand_rows.append(
                (
                    SITE,
                    hand_id,
                    source_file,
                    table.name,
                    str(table.tournament_id) if tournament else None,
                    stakes.limit_type,
                    "CHIPS" if tournament else "USD",
                    stakes.small_blind,
                    stakes.big_blind,
                    stakes.ante,
                    hand.button_seat,
                    len(names),
                    len(hand.pots),
                    hand.board_shown >= 3,
                    hand.showdown,
                    sum(hand.put_in),
                    hand.rake,
                    hand.recorded_rake,
                    hand.fault[0] if hand.fault else None,
                )
            )
            if hand.fault:
                kind, player, detail = hand.fault
                faults.append((SITE, hand_id, kind, names[player] if player >= 0 else None, detail))
            self._add_players(hand, hand_id)

    def _add_players(self, hand: HandRecord, hand_id: str) -> None:
        rows = self.rows["truth_players"]
        names = hand.players
        won = [0] * len(names)
        for share in hand.recorded_shares:
            won[share.player] += share.amount
        saw_flop = hand.board_shown >= 3
        showdown = hand.showdown
        fold_street = hand.fold_street
        put_in = hand.put_in
        flags = hand.preflop_flags
        for index, name in enumerate(names):
            folded_at = fold_street[index]
            at_showdown = showdown and folded_at < 0
            rows.append(
                (
                    SITE,
                    hand_id,
                    name,
                    hand.player_seats[index],
                    True,
                    bool(flags[index] & 1),
                    bool(flags[index] & 2),
                    saw_flop and folded_at != 0,
                    at_showdown,
                    at_showdown and won[index] > 0,
                    won[index] - put_in[index],
                )
            )
        if len(hand.seats) > len(names):
            # Seated but sitting out: not dealt in.
            for seat_line in hand.seats:
                if seat_line.sitting_out:
                    rows.append(
                        (SITE, hand_id, seat_line.name, seat_line.seat, False, False, False,
                         False, False, False, 0)
                    )  # fmt: skip

    def tables(self) -> dict[str, pa.Table]:
        """The four Arrow tables."""
        result = {}
        for name, schema in TRUTH_SCHEMAS.items():
            rows = self.rows[name]
            columns: list[Sequence[Any]] = list(zip(*rows)) if rows else [[] for _ in schema.names]
            result[name] = pa.table(
                {
                    field.name: pa.array(column, type=field.type)
                    for field, column in zip(schema, columns)
                },
                schema=schema,
            )
        return result
