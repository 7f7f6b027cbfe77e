"""Ground-truth tables of generated hands: payouts, hands (rake), faults and per-player records.

``truth_payouts`` and ``truth_hands.rake`` are what the rules say (never the faulted text);
``truth_faults`` lists what was deliberately recorded wrong; ``truth_players`` is the
generator's own record of what every seated player did, counted the way the statistics layer
defines it (docs/stats.md), with money as the text records it. Its ``dealt_in`` rows
are exactly the players the text deals in; a player seated but sitting out has a row with
``dealt_in`` false (no flags, nothing put in or won) whether or not the site's text lists the
seat: PokerStars and PartyPoker cash tables leave such players out of the seat lines, the
other sites' writers list them as sitting out (the simulator seats none in tournaments).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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


@dataclass(frozen=True, slots=True)
class _Session:
    """What every hand of one session has in common in ``truth_hands``."""

    source_file: str
    table_name: str
    tournament_id: str | None
    limit_type: str
    currency: str


@dataclass
class TruthColumns:
    """The rows of the four truth tables of a job, gathered hand by hand, converted once.

    Hands are referred to by their number in the job until `tables` turns the numbers into
    hand id texts. Per-player facts are kept as flat columns (a few list extends per hand)
    and the per-player flags derived with numpy at the end: building and converting a tuple
    per player row cost close to a tenth of the generator's time.
    """

    # The site the text was written for, and how it prints a hand id (None: the plain number).
    site: str = SITE
    hand_id_text: Callable[[HandRecord], str] | None = None
    currency: str = "USD"  # of cash games
    sessions: list[_Session] = field(default_factory=list)
    session_hands: list[int] = field(default_factory=list)
    # Per hand: hand id, small blind, big blind, ante, button seat, players dealt, pots,
    # saw flop, showdown, total pot, rake, recorded rake, fault kind.
    hand_rows: list[tuple[Any, ...]] = field(default_factory=list)
    # Per payment: hand number, pot index, half, player, amount.
    payout_rows: list[tuple[Any, ...]] = field(default_factory=list)
    # Per fault: hand number, kind, player, detail.
    fault_rows: list[tuple[Any, ...]] = field(default_factory=list)
    # Per player row (the players dealt in, in ring order, then those sitting out), and the
    # number of rows of each hand.
    player_rows: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    dealt_in: list[bool] = field(default_factory=list)
    preflop_flags: list[int] = field(default_factory=list)
    fold_street: list[int] = field(default_factory=list)
    won: list[int] = field(default_factory=list)
    put_in: list[int] = field(default_factory=list)

    def add_hands(self, hands: Sequence[HandRecord], source_file: str) -> None:
        """Append the rows of one session's ``hands``, written to ``source_file``."""
        if hands:
            self.start_session(hands[0], source_file)
            for hand in hands:
                self.add_hand(hand)

    def start_session(self, first: HandRecord, source_file: str) -> None:
        """Begin a session whose hands (``first`` the first of them) go to ``source_file``."""
        table = first.table
        tournament = table.is_tournament
        self.sessions.append(
            _Session(
                source_file=source_file,
                table_name=table.name,
                tournament_id=str(table.tournament_id) if tournament else None,
                limit_type=first.stakes.limit_type,
                currency="CHIPS" if tournament else self.currency,
            )
        )
        self.session_hands.append(0)

    def add_hand(self, hand: HandRecord) -> None:
        """Append the rows of the current session's next hand."""
        self.session_hands[-1] += 1
        number = len(self.hand_rows)
        names = hand.players
        stakes = hand.stakes
        self.hand_rows.append(
            (
                hand.hand_id if self.hand_id_text is None else self.hand_id_text(hand),
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
        self.payout_rows.extend(
            [
                (number, share.pot_index, share.half, names[share.player], share.amount)
                for share in hand.shares
            ]
        )
        if hand.fault:
            kind, player, detail = hand.fault
            self.fault_rows.append((number, kind, names[player] if player >= 0 else None, detail))
        rows = len(names)
        self.names.extend(names)
        self.seats.extend(hand.player_seats)
        self.dealt_in.extend([True] * rows)
        self.preflop_flags.extend(hand.preflop_flags)
        self.fold_street.extend(hand.fold_street)
        self.won.extend(hand.won)
        self.put_in.extend(hand.put_in)
        if len(hand.seats) > rows:
            # Seated but sitting out: not dealt in, no flags, no fold, nothing won or put in
            # (kept whether or not the site's text lists the seat: see the module docstring).
            for seat_line in hand.seats:
                if seat_line.sitting_out:
                    self.names.append(seat_line.name)
                    self.seats.append(seat_line.seat)
                    self.dealt_in.append(False)
                    self.preflop_flags.append(0)
                    self.fold_street.append(-1)
                    self.won.append(0)
                    self.put_in.append(0)
                    rows += 1
        self.player_rows.append(rows)

    def tables(self) -> dict[str, pa.Table]:
        """The four Arrow tables."""
        (
            hand_id, small_blind, big_blind, ante, button_seat, players_dealt, pots, saw_flop,
            showdown, total_pot, rake, recorded_rake, fault,
        ) = _columns(self.hand_rows, 13)  # fmt: skip
        # Each hand's id as text once; every table picks its rows' ids from it.
        if self.hand_id_text is None:
            ids = pc.cast(pa.array(hand_id, pa.int64()), pa.string())
        else:
            ids = pa.array(hand_id, pa.string())
        sessions = self.sessions
        session_of_hand = np.repeat(np.arange(len(sessions)), self.session_hands)

        def per_session(values: list[str | None]) -> pa.Array:
            return pa.array(values, pa.string()).take(session_of_hand)

        hands = {
            "hand_id": ids,
            "source_file": per_session([session.source_file for session in sessions]),
            "table_name": per_session([session.table_name for session in sessions]),
            "tournament_id": per_session([session.tournament_id for session in sessions]),
            "limit_type": per_session([session.limit_type for session in sessions]),
            "currency": per_session([session.currency for session in sessions]),
            "small_blind": small_blind,
            "big_blind": big_blind,
            "ante": ante,
            "button_seat": button_seat,
            "players_dealt": players_dealt,
            "pots": pots,
            "saw_flop": saw_flop,
            "showdown": showdown,
            "total_pot": total_pot,
            "rake": rake,
            "recorded_rake": recorded_rake,
            "fault": fault,
        }
        number, pot_index, half, player, amount = _columns(self.payout_rows, 5)
        payouts = {
            "hand_id": ids.take(pa.array(number, pa.int64())),
            "pot_index": pot_index,
            "board_index": np.zeros(len(number), dtype=np.int8),
            "half": half,
            "player": player,
            "amount": amount,
        }
        number, kind, player, detail = _columns(self.fault_rows, 4)
        faults = {
            "hand_id": ids.take(pa.array(number, pa.int64())),
            "kind": kind,
            "player": player,
            "detail": detail,
        }
        players = self._player_columns(ids, saw_flop, showdown)
        return {
            "truth_payouts": _table(self.site, "truth_payouts", len(self.payout_rows), payouts),
            "truth_hands": _table(self.site, "truth_hands", len(self.hand_rows), hands),
            "truth_faults": _table(self.site, "truth_faults", len(self.fault_rows), faults),
            "truth_players": _table(self.site, "truth_players", len(self.names), players),
        }

    def _player_columns(
        self, ids: pa.Array, hand_saw_flop: Sequence[bool], hand_showdown: Sequence[bool]
    ) -> dict[str, Any]:
        """The columns of ``truth_players`` (counted as docs/stats.md defines them)."""
        hand_of_row = np.repeat(np.arange(len(self.player_rows)), self.player_rows)
        rows = len(self.names)
        dealt_in = np.fromiter(self.dealt_in, np.bool_, rows)
        flags = np.fromiter(self.preflop_flags, np.int64, rows)
        fold_street = np.fromiter(self.fold_street, np.int64, rows)
        won = np.fromiter(self.won, np.int64, rows)
        # Sitting-out rows fold nowhere (-1) and are not dealt in: no flop, no showdown.
        saw_flop = np.array(hand_saw_flop, dtype=np.bool_)[hand_of_row] & (fold_street != 0)
        showdown = np.array(hand_showdown, dtype=np.bool_)[hand_of_row] & (fold_street < 0)
        saw_flop &= dealt_in
        showdown &= dealt_in
        return {
            "hand_id": ids.take(hand_of_row),
            "player": self.names,
            "seat": self.seats,
            "dealt_in": dealt_in,
            "vpip": (flags & 1) != 0,
            "pfr": (flags & 2) != 0,
            "saw_flop": saw_flop,
            "showdown": showdown,
            "won_at_showdown": showdown & (won > 0),
            "net_won": won - np.fromiter(self.put_in, np.int64, rows),
        }


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[Sequence[Any]]:
    """Rows turned into columns (``width`` empty ones without rows)."""
    return list(zip(*rows)) if rows else [()] * width


def _table(site: str, name: str, rows: int, columns: dict[str, Any]) -> pa.Table:
    """A truth table of ``rows`` rows: ``site``, then ``columns`` (Arrow arrays of the schema's
    types, numpy arrays or sequences)."""
    schema = TRUTH_SCHEMAS[name]
    arrays = [pa.repeat(pa.scalar(site, pa.string()), rows)]
    for column in schema:
        if column.name != "site":
            values = columns[column.name]
            if isinstance(values, (list, tuple)) and column.type != pa.string():
                # numpy reads Python numbers several times faster than pa.array does.
                values = np.fromiter(values, column.type.to_pandas_dtype(), len(values))
            arrays.append(values if isinstance(values, pa.Array) else pa.array(values, column.type))
    return pa.Table.from_arrays(arrays, schema=schema)
