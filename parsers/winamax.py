"""Winamax hand histories (``Winamax Poker - CashGame - HandId: #…``), and the line engine shared
by the Winamax, Winning Poker Network, PKR and GGPoker parsers.

What Winamax prints, and so what this parser records:

- ``Winamax Poker - CashGame - HandId: #9247976-238-1478874600 - Omaha Hi/Lo pot limit (1€/2€) -
  2016/11/11 14:30:00 UTC``; play money writes ``Omaha8 pot limit (0.05/0.10)`` and ``(play money)``
  on the table line; tournaments ``Winamax Poker - Tournament "…" buyIn: … level: 4 - HandId: …``
  with ``(ante/sb/bb)`` stakes. ``5 Card Omaha Hi/Lo`` is another game: counted as skipped.
- Amounts carry a ``€`` suffix for real money (``4.96€``) and none for play money or tournament
  chips, which still have cents (``0.47``, ``7410.50``): all are stored in hundredths
  (``money_scale`` 100). Old tournament exports round large totals (``Total pot 15.52k``): no
  total is recorded then.
- ``raises 4€ to 6€``: the second figure is the street total; ``calls`` and ``bets`` give the chips
  added. ``posts small blind 2€ out of position`` is a dead small blind (``post_dead``).
- Payouts are labelled per half: ``collected 4.96€ from pot(HI)`` / ``from pot (LO)`` (with or
  without the space), ``from main pot``, ``from side pot 1``. ``pot``/``main pot`` is pot 0,
  ``side pot N`` is pot N; ``(HI)``/``(LO)`` give ``half``; an unlabelled line has a null half.
- An uncalled bet is not returned in the text: it is paid back as a won pot (``collected 84€ from
  side pot 1``) and kept as that collection; the audit's pot builder gives the bettor that
  uncontested top pot. A small blind folding to a big blind all-in for less gets its unmatched
  chips back silently: the parser adds that ``uncalled_return`` itself. A blind posted all-in
  for less does not set the table's blind.
- Two ``shows`` lines per player at a hi/lo showdown, ``(HI : …)`` and ``(LO : …)``; older exports
  drop the labels, then the first line is the high and the second the low. One ``show`` action per
  player is recorded.
- ``Total pot 9.91€ | Rake 0.69€`` is net of rake (Σ collected = total); ``No rake`` is rake 0.
- Times are printed with their zone (``UTC``).

The engine (`TextFormat`) is the PokerStars parser's method generalised to a table of regular
expressions: every line of a block is classified by the first line kind whose pattern matches in
its section of the hand, each kind is decoded by its own expression over the column of those lines,
and the canonical tables are assembled with joins. A site fills the kind table and the few steps
that differ (header, actions, payouts). Hands of other games are skipped; a damaged or inconsistent
hand is quarantined with a reason and the rest of the block goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, TypeAlias

import numpy as np
import polars as pl

from parsers.base import ParseResult, table_from_frame
from parsers.columns import cards_list, local_time_to_utc, money
from parsers.kernels import street_totals
from parsers.notes import note_rows, triage_unknown_lines, with_other_games
from parsers.pokerstars.block_parser import BlockParser as _StarsBlock
from parsers.pokerstars.block_parser import forward_fill
from pipeline.positions import assign_positions
from pipeline.profiles import SiteProfile
from pipeline.schema import HANDS

__all__ = ["TextFormat", "WinamaxParser"]

# -- the shared engine ----------------------------------------------------------------------------

# Sections of a hand: the setup before the cards are dealt, the four streets, showdown, summary.
SETUP, PREFLOP, FLOP, TURN, RIVER, SHOWDOWN, SUMMARY = -1, 0, 1, 2, 3, 4, 5

# Line kinds every format has; a site numbers its own kinds from FIRST_SITE_KIND.
KIND_HEADER, KIND_BLANK, KIND_MARKER, KIND_INFO, KIND_UNKNOWN, KIND_OTHER = range(6)
FIRST_SITE_KIND = 10


DataTypeLike: TypeAlias = pl.DataType | type[pl.DataType]

LIVE_KINDS = ("post_sb", "post_bb", "call", "bet", "raise")
QUIET_KINDS = ("fold", "check", "show", "muck")
CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY"}
EMPTY_CARDS = pl.lit([], dtype=pl.List(pl.UInt8))


def bracket_cards(text: pl.Expr) -> pl.Expr:
    """``"[5d 4h As] [Js]"`` / ``"[3 d][2 c]"`` / ``"[10h]"`` → ``"5d 4h As Js"``-style tokens.

    Brackets go, a space inside a card (``9 d``) goes, and a printed ten ``10`` becomes ``T``.
    """
    return (
        text.str.replace_all(r"\]\s*\[", " ")
        .str.strip_chars("[] ")
        .str.replace_all(r"\b([2-9TJQKA]|10) ([cdhs])\b", "${1}${2}")
        .str.replace_all(r"\b10([cdhs])\b", "T${1}")
    )


def last_bracket(text: pl.Expr) -> pl.Expr:
    """The last ``[...]`` group of a street line (the card the street added)."""
    return text.str.extract(r"\[([^\[\]]*)\]\s*$", 1)


def ensure_columns(frame: pl.DataFrame, schema: Mapping[str, DataTypeLike]) -> pl.DataFrame:
    """Add the missing columns of ``schema`` as nulls."""
    missing = [
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in schema.items()
        if name not in frame.columns
    ]
    return frame.with_columns(missing) if missing else frame


HAND_COLUMNS: dict[str, DataTypeLike] = {
    name: pl.from_arrow(HANDS.empty_table()).schema[name]  # type: ignore[union-attr]
    for name in HANDS.names
}


class TextFormat:
    """One parse of a block of a line-oriented hand-history format.

    A site subclass fills the class attributes (hand start, street markers, line kinds with their
    patterns and sections, informational lines) and implements `headers`, `hands`, `seats`,
    `actions`, `collections` and `showdowns` over the classified lines; this class does the
    classification, the street totals, the hand checks, the quarantine and the assembly.
    """

    site: ClassVar[str]
    # A hand's first line.
    hand_start: ClassVar[str]
    # A street marker line: group ``name`` (looked up in `sections`), optional group ``cards``.
    marker: ClassVar[str]
    # Marker name -> (section, board_index); an unknown marker name makes the line unrecognised.
    sections: ClassVar[dict[str, tuple[int, int]]]
    # (kind, pattern, scope), tried in order; the first match classifies the line. Scopes:
    # "any", "setup" (before the deal), "dealt" (from the deal on), "play" (setup to
    # showdown), "body" (all but the summary), "summary".
    line_kinds: ClassVar[tuple[tuple[int, str, str], ...]]
    # Known text that carries nothing the tables need; any other line quarantines its hand.
    informational: ClassVar[str]

    def __init__(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> None:
        self.source_file = source_file
        self._decoded: dict[tuple[int, int, str], tuple[pl.DataFrame, pl.DataFrame]] = {}
        starts = lines.str.contains(self.hand_start).fill_null(False)
        self.frame = pl.DataFrame(
            {
                "line": lines.alias("line"),
                "offset": pl.Series("offset", offsets, dtype=pl.Int64),
                "hand": (starts.cast(pl.Int32).cum_sum() - 1).alias("hand"),
                "is_start": starts.alias("is_start"),
            }
        ).with_row_index("line_no")

    # -- steps a site implements -------------------------------------------------------------

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        """One row per hand: ``hand``, ``offset``, ``hand_id``, ``game``, ``is_o8``,
        ``header_ok``, ``money_scale`` and any `pipeline.schema.HANDS` column the header gives."""
        raise NotImplementedError

    def hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, actions: pl.DataFrame
    ) -> pl.DataFrame:
        """The hands table of the candidate hands (``hand`` plus HANDS columns, and an optional
        ``problem`` text for a hand-level defect); ``actions`` as `actions` returned them."""
        raise NotImplementedError

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``hand, seat, player, stack_start, sitting_out`` (+ optional ``bounty``)."""
        raise NotImplementedError

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``hand, line_no, sub, section, player, kind, amount, to, is_all_in``: ``amount`` the
        chips added where the site prints them, ``to`` the street total where it prints that."""
        raise NotImplementedError

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``hand, line_no, player, amount, pot_index, half, board_index``."""
        raise NotImplementedError

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``hand, line_no, player, cards_text, high_desc, low_desc, board_index``."""
        raise NotImplementedError

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``hand, line_no, player, cards_text, is_dealt``: every sighting of hole cards."""
        raise NotImplementedError

    def extra_problems(self, tables: dict[str, pl.DataFrame], lines: pl.DataFrame) -> pl.DataFrame:
        """Site-specific consistency checks: ``hand, reason``."""
        return pl.DataFrame(schema={"hand": pl.Int32, "reason": pl.String})

    # -- orchestration -----------------------------------------------------------------------

    def parse(self) -> ParseResult:
        preamble = self.frame.filter(pl.col("hand") < 0)
        body = self.frame.filter(pl.col("hand") >= 0)
        headers = with_other_games(self.headers(body), body)
        skipped = headers.filter(pl.col("header_ok") & ~pl.col("is_o8"))
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        bad_headers = headers.filter(~pl.col("header_ok")).select(
            "hand", reason=pl.lit("unrecognised hand header")
        )
        lines = self.classify(
            body.join(candidates.select("hand", "money_scale"), on="hand", how="inner")
        )
        raw_actions = self.tidy_actions(self.actions(lines))
        hands = self.hands(candidates, lines, raw_actions)
        seats = self.seats(lines)
        actions = self.street_totals(raw_actions)
        collections = (
            self.collections(lines)
            .sort("hand", "line_no")
            .with_columns(seq=pl.int_range(pl.len()).over("hand").cast(pl.Int32))
        )
        showdowns = self.showdowns(lines).with_columns(cards=cards_list(pl.col("cards_text")))
        seats = self.hole_cards(seats, self.known_cards(lines))
        hands = ensure_columns(hands, {"problem": pl.String, "board2": pl.List(pl.UInt8)})
        tables = {"hands": hands, "seats": seats, "actions": actions, "collections": collections}
        unknown_reasons, notes = triage_unknown_lines(
            lines.filter(pl.col("kind") == KIND_UNKNOWN).select("hand", "line_no", "line", "offset")
        )
        reasons = pl.concat(
            [
                bad_headers,
                unknown_reasons,
                self.hand_problems(hands, lines),
                _StarsBlock._seat_problems(seats),
                _StarsBlock._actor_problems(actions, collections, seats),
                _StarsBlock._card_problems(hands, seats, showdowns),
                self.extra_problems(tables, lines),
            ],
            how="vertical_relaxed",
        ).unique(subset="hand", keep="first", maintain_order=True)
        return self.assemble(
            headers,
            candidates,
            skipped,
            reasons,
            preamble,
            hands,
            seats,
            actions,
            collections,
            showdowns,
            notes,
        )

    # -- classification ----------------------------------------------------------------------

    def classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Section, board (run) and kind of every line of the candidate hands."""
        line = lines["line"]
        is_start = lines["is_start"].to_numpy()
        marker_fields = lines.select(
            pl.col("line").str.extract_groups(self.marker).alias("m")
        ).unnest("m")
        names = marker_fields["name"]
        is_marker = names.is_not_null().to_numpy()
        marker_rows = np.flatnonzero(is_marker)
        marker_names = names.gather(marker_rows)
        section_of = {name: value[0] for name, value in self.sections.items()}
        board_of = {name: value[1] for name, value in self.sections.items()}
        codes = marker_names.replace_strict(section_of, default=None, return_dtype=pl.Int8)
        runs = marker_names.replace_strict(board_of, default=None, return_dtype=pl.Int8)
        known = codes.is_not_null().to_numpy()
        section = forward_fill(
            len(line), is_start, SETUP, marker_rows[known], codes.to_numpy()[known]
        )
        not_summary = (codes.fill_null(SUMMARY) != SUMMARY).to_numpy()
        board_index = forward_fill(
            len(line),
            is_start,
            0,
            marker_rows[known & not_summary],
            runs.to_numpy()[known & not_summary],
        )
        scope_masks = {
            "any": np.ones(len(line), dtype=bool),
            "setup": section == SETUP,
            "dealt": section >= PREFLOP,
            "play": (section >= SETUP) & (section <= SHOWDOWN),
            "body": section < SUMMARY,
            "summary": section == SUMMARY,
        }
        known_marker = np.zeros(len(line), dtype=bool)
        known_marker[marker_rows[known]] = True
        conditions = [is_start, (line == "").to_numpy(), known_marker]
        choices = [KIND_HEADER, KIND_BLANK, KIND_MARKER]
        for kind, pattern, scope in self.line_kinds:
            conditions.append(
                scope_masks[scope] & line.str.contains(pattern).fill_null(False).to_numpy()
            )
            choices.append(kind)
        kinds = np.select(conditions, choices, KIND_OTHER).astype(np.int16)
        other = np.flatnonzero(kinds == KIND_OTHER)
        if len(other):
            informational = line.gather(other).str.contains(self.informational).fill_null(False)
            kinds[other] = np.where(informational.to_numpy(), KIND_INFO, KIND_UNKNOWN)
        return lines.with_columns(
            section=pl.Series(section, dtype=pl.Int8),
            board_index=pl.Series(board_index, dtype=pl.Int8),
            kind=pl.Series(kinds, dtype=pl.Int16),
            marker=marker_fields["name"],
            marker_cards=marker_fields["cards"]
            if "cards" in marker_fields.columns
            else pl.lit(None, dtype=pl.String),
        )

    def fields(self, lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
        """The named groups of ``pattern`` over the lines of one kind, with their context.

        Several steps read the same kind (actions, showdowns and hole cards all read the action
        lines): each is decoded once per parse.
        """
        key = (id(lines), kind, pattern)
        cached = self._decoded.get(key)
        # The frame is kept with its result, so its id cannot be reused by another frame.
        if cached is None or cached[0] is not lines:
            cached = (lines, self._decode(lines, kind, pattern))
            self._decoded[key] = cached
        return cached[1]

    @staticmethod
    def _decode(lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
        return (
            lines.filter(pl.col("kind") == kind)
            .select(
                "hand",
                "line_no",
                "section",
                "board_index",
                "money_scale",
                pl.col("line").str.extract_groups(pattern).alias("f"),
            )
            .unnest("f")
        )

    @staticmethod
    def money(column: str) -> pl.Expr:
        """A printed amount column in the hand's minor unit (null when unreadable)."""
        return money(pl.col(column).str.strip_chars(), pl.col("money_scale"))

    # -- shared table steps ------------------------------------------------------------------

    @staticmethod
    def boards(lines: pl.DataFrame) -> pl.DataFrame:
        """``board`` and ``board2`` of each hand from its street lines.

        A flop line gives all its cards, a turn or river line the card of its last bracket
        (sites repeat the earlier cards before it, or not). A second run's board takes the
        first run's cards on the streets it did not deal again.
        """
        streets = (
            lines.filter(
                (pl.col("kind") == KIND_MARKER)
                & pl.col("section").is_between(FLOP, RIVER)
                & pl.col("marker_cards").is_not_null()
            )
            .with_columns(
                dealt=pl.when(pl.col("section") == FLOP)
                .then(bracket_cards(pl.col("marker_cards")))
                .otherwise(bracket_cards(last_bracket(pl.col("marker_cards"))))
            )
            .filter(pl.col("dealt").str.len_chars() > 0)
        )
        per_street = streets.group_by("hand", "section", "board_index").agg(pl.col("dealt").last())
        first = per_street.filter(pl.col("board_index") == 0)
        second = per_street.filter(pl.col("board_index") == 1)
        board = (
            first.sort("hand", "section")
            .group_by("hand", maintain_order=True)
            .agg(pl.col("dealt").str.join(" "))
            .select("hand", board=cards_list(pl.col("dealt")))
        )
        if second.height == 0:
            return board.with_columns(board2=pl.lit(None, dtype=pl.List(pl.UInt8)))
        run_two = second.select("hand").unique()
        merged = (
            pl.concat([first.join(run_two, on="hand", how="semi"), second])
            .sort("hand", "section", "board_index")
            .group_by("hand", "section", maintain_order=True)
            .agg(pl.col("dealt").last())
            .group_by("hand", maintain_order=True)
            .agg(pl.col("dealt").str.join(" "))
            .select("hand", board2=cards_list(pl.col("dealt")))
        )
        return board.join(merged, on="hand", how="left")

    @staticmethod
    def tidy_actions(frame: pl.DataFrame) -> pl.DataFrame:
        """One show action per player (hi/lo and run-twice showdowns repeat the line), and no
        muck for the last player left: with everyone else folded, "mucks" only means the
        winner did not show, not that the pot was given up."""
        frame = frame.sort("hand", "line_no", "sub")
        kind = pl.col("kind")
        first_show = pl.int_range(pl.len()).over("hand", "player", "kind") == 0
        never_folded = ~(kind == "fold").any().over("hand", "player")
        left = (
            frame.with_columns(never_folded=never_folded)
            .group_by("hand")
            .agg(left=pl.col("player").filter(pl.col("never_folded")).n_unique())
        )
        return (
            frame.join(left, on="hand", how="left")
            .filter(((kind != "show") | first_show) & ((kind != "muck") | (pl.col("left") > 1)))
            .drop("left")
        )

    def street_totals(self, frame: pl.DataFrame) -> pl.DataFrame:
        """to_amount, and the chips a to-amount action added, from each player's street total.

        Rows with a printed street total (``to``) take it; other live rows add ``amount``. Antes,
        dead blinds, returns, shows and mucks stay outside the street totals.
        """
        frame = frame.sort("hand", "line_no", "sub").with_columns(
            street=pl.col("section").clip(PREFLOP, RIVER).cast(pl.Int8),
            seq=pl.int_range(pl.len()).over("hand").cast(pl.Int32),
        )
        kind = frame["kind"]
        live = kind.is_in(list(LIVE_KINDS))
        uses_to = live & frame["to"].is_not_null()
        in_flow = live | kind.is_in(["fold", "check"])
        to_amount, added = street_totals(
            frame["hand"].to_numpy(),
            frame["street"].to_numpy(),
            frame["player"].hash(seed=0).to_numpy().view(np.int64),
            live.to_numpy(),
            uses_to.to_numpy(),
            in_flow.to_numpy(),
            frame["amount"].fill_null(0).to_numpy(),
            frame["to"].fill_null(0).to_numpy(),
        )
        return frame.with_columns(
            amount=pl.when(kind.is_in(list(QUIET_KINDS)).not_()).then(
                pl.when(uses_to).then(pl.Series(added)).otherwise(pl.col("amount"))
            ),
            to_amount=pl.when(in_flow).then(pl.Series(to_amount)),
            site=pl.lit(self.site),
        )

    @staticmethod
    def hole_cards(seats: pl.DataFrame, known: pl.DataFrame) -> pl.DataFrame:
        """Hole cards of each seat from every sighting; the dealt-to player is the hero."""
        cards = (
            known.sort("hand", "line_no")
            .with_columns(hole_cards=cards_list(pl.col("cards_text")))
            .group_by("hand", "player", maintain_order=True)
            .agg(
                # The first sighting (the deal, for the hero) keeps the dealt order; sites print
                # the same cards in another order at showdown, so versions compare as sets.
                pl.col("hole_cards").first(),
                pl.col("hole_cards").list.sort().n_unique().alias("card_versions"),
                pl.col("is_dealt").any().alias("is_hero"),
            )
        )
        return seats.join(cards, on=["hand", "player"], how="left").with_columns(
            is_hero=pl.col("is_hero").fill_null(False),
            card_versions=pl.col("card_versions").fill_null(0),
        )

    @staticmethod
    def posted(actions: pl.DataFrame) -> pl.DataFrame:
        """The largest small blind, big blind and ante posted in each hand (a blind posted
        all-in for less says nothing about the table's blind)."""
        kind = pl.col("kind")
        full = ~pl.col("is_all_in").fill_null(False)
        return actions.group_by("hand").agg(
            posted_sb=pl.coalesce(
                pl.col("amount").filter((kind == "post_sb") & full).max(),
                pl.col("amount").filter(kind == "post_sb").max(),
            ),
            posted_bb=pl.col("amount").filter((kind == "post_bb") & full).max(),
            posted_ante=pl.col("amount").filter(kind == "ante").max(),
        )

    # -- checks ------------------------------------------------------------------------------

    def hand_problems(self, hands: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        """Defects every format checks the same way."""
        board = pl.col("board")
        reason = (
            pl.when(pl.col("problem").is_not_null())
            .then(pl.col("problem"))
            .when(pl.col("button_seat").is_null())
            .then(pl.lit("no button seat"))
            .when(pl.col("started_at").is_null())
            .then(pl.lit("unreadable start time"))
            .when(pl.col("limit_type").is_null())
            .then(pl.lit("unknown betting limit"))
            .when(pl.col("big_blind").is_null() | pl.col("small_blind").is_null())
            .then(pl.lit("unreadable stakes"))
            .when(board.list.drop_nulls().list.len() < board.list.len())
            .then(pl.lit("unreadable board card"))
            .when(board.list.len() > 5)
            .then(pl.lit("more than five board cards"))
            .when(
                pl.col("board2").is_not_null()
                & (pl.col("board2").list.drop_nulls().list.len() != 5)
            )
            .then(pl.lit("unreadable second board"))
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    # -- assembly ----------------------------------------------------------------------------

    def assemble(
        self,
        headers: pl.DataFrame,
        candidates: pl.DataFrame,
        skipped: pl.DataFrame,
        reasons: pl.DataFrame,
        preamble: pl.DataFrame,
        hands: pl.DataFrame,
        seats: pl.DataFrame,
        actions: pl.DataFrame,
        collections: pl.DataFrame,
        showdowns: pl.DataFrame,
        notes: pl.DataFrame,
    ) -> ParseResult:
        good = candidates.select("hand").join(reasons, on="hand", how="anti")
        hands = hands.join(good, on="hand", how="semi")
        seats = ensure_columns(seats, {"bounty": pl.String})
        seats = assign_positions(seats.join(good, on="hand", how="semi"), hands)
        actions, collections, showdowns = (
            frame.join(good, on="hand", how="semi") for frame in (actions, collections, showdowns)
        )
        dealt = seats.group_by("hand").agg(
            (~pl.col("sitting_out")).sum().cast(pl.Int16).alias("players_dealt")
        )
        hands = ensure_columns(
            hands.drop("players_dealt", strict=False)
            .join(dealt, on="hand", how="left")
            .with_columns(site=pl.lit(self.site), source_file=pl.lit(self.source_file)),
            HAND_COLUMNS,
        )
        ids = hands.select("hand", "hand_id")
        seats, actions, collections, showdowns = (
            frame.join(ids, on="hand", how="left").with_columns(site=pl.lit(self.site))
            for frame in (seats, actions, collections, showdowns)
        )
        notes = note_rows(notes, self.frame, hands, self.site)
        preamble_rejects = self.preamble_rejects(preamble)
        rejects = pl.concat(
            [preamble_rejects, self.hand_rejects(reasons, headers)], how="vertical_relaxed"
        )
        skipped_games = dict(skipped.group_by("game").len().sort("game").iter_rows())
        tables = {
            "hands": table_from_frame(hands.sort("hand"), "hands"),
            "seats": table_from_frame(seats.sort("hand", "seat"), "seats"),
            "actions": table_from_frame(actions.sort("hand", "seq"), "actions"),
            "collections": table_from_frame(collections.sort("hand", "seq"), "collections"),
            "showdowns": table_from_frame(showdowns.sort("hand", "line_no"), "showdowns"),
            "notes": table_from_frame(notes, "notes"),
            "rejects": table_from_frame(rejects, "rejects"),
        }
        return ParseResult(
            tables=tables,
            hands_found=headers.height + (1 if preamble_rejects.height else 0),
            parsed=hands.height,
            skipped=skipped.height,
            rejected=rejects.height,
            skipped_games={str(k): int(v) for k, v in skipped_games.items()},
        )

    def hand_rejects(self, reasons: pl.DataFrame, headers: pl.DataFrame) -> pl.DataFrame:
        text = (
            self.frame.join(reasons.select("hand"), on="hand", how="semi")
            .group_by("hand")
            .agg(raw_text=pl.col("line").str.join("\n"), source_offset=pl.col("offset").first())
        )
        return (
            reasons.join(text, on="hand", how="left")
            .join(headers.select("hand", "hand_id"), on="hand", how="left")
            .sort("hand")
            .select(
                source_file=pl.lit(self.source_file),
                source_offset="source_offset",
                site=pl.lit(self.site),
                hand_id="hand_id",
                reason="reason",
                raw_text="raw_text",
            )
        )

    def preamble_rejects(self, preamble: pl.DataFrame) -> pl.DataFrame:
        text = preamble.filter(pl.col("line").str.strip_chars() != "")
        schema = {
            "source_file": pl.String,
            "source_offset": pl.Int64,
            "site": pl.String,
            "hand_id": pl.String,
            "reason": pl.String,
            "raw_text": pl.String,
        }
        if text.height == 0:
            return pl.DataFrame(schema=schema)
        return pl.DataFrame(
            {
                "source_file": [self.source_file],
                "source_offset": [int(text["offset"][0])],
                "site": [self.site],
                "hand_id": [None],
                "reason": ["text before the first hand header"],
                "raw_text": ["\n".join(preamble["line"].to_list())],
            },
            schema=schema,
        )


def first_lines(body: pl.DataFrame, pattern: str, name: str) -> pl.DataFrame:
    """Per hand, the named groups of the first line matching ``pattern`` (for multi-line headers)."""
    found = body.filter(pl.col("line").str.contains(pattern)).unique("hand", keep="first")
    return found.select("hand", pl.col("line").str.extract_groups(pattern).alias(name)).unnest(name)


def utc_time(date_time: pl.Expr, zone: pl.Expr, fmt: str, zones: list[str | None]) -> pl.Expr:
    """Local time with a printed zone to UTC; a missing zone is read as UTC (the caller says so)."""
    return local_time_to_utc(date_time, zone.fill_null("UTC"), fmt=fmt, zones=[*zones, "UTC"])


# -- Winamax ---------------------------------------------------------------------------------------

SITE = "winamax"
O8_GAMES = ("Omaha Hi/Lo", "Omaha8")

HAND_START = r"^Winamax Poker - "
HEADER = (
    r"^Winamax Poker - (?:(?P<ring>CashGame|Go Fast \"[^\"]*\"|HOLD-UP \"[^\"]*\")"
    r"|Tournament \"(?P<tname>[^\"]*)\" buyIn: (?P<buy_in>.*?)(?: level: (?P<level>\d+))?)"
    r" - HandId: #(?P<hand_id>[\d-]+) - (?P<game>.+?) (?P<limit>pot limit|no limit|fixed limit|limit)"
    r" \((?P<stakes>[^)]*)\) - (?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{2}:\d{2}:\d{2})"
    r" (?P<zone>[A-Z]+)$"
)
STAKES = r"^(?:(?P<ante>[\d.,]+)€?/)?(?P<first>[\d.,]+)(?P<symbol>€?)/(?P<second>[\d.,]+)€?$"
TABLE = (
    r"^Table: '(?P<table_name>.*)' (?P<max_seats>\d+)-max \((?P<money>real money|play money)\)"
    r" Seat #(?P<button_seat>\d+) is the button$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+?) \((?P<stack>[^,)]+)(?:, (?P<bounty>[^)]*) bounty)?\)(?P<flags>.*)$"
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind|posts ante|folds|checks|calls"
    r"|bets|raises|shows|mucks)(?: (?P<first>[^ \[(]+))?(?: to (?P<to>\S+))?"
    r"(?: \[(?P<cards>[^\]]*)\])?(?P<dead> out of position)?(?P<all_in> and is all-in)?"
    r"(?: \((?P<desc>.*)\))?$"
)
COLLECTED = (
    r"^(?P<player>.+?) collected (?P<amount>\S+) from (?P<pot>pot|main pot|side pot(?: (?P<side>\d+))?)"
    r"(?: ?\((?P<half>HI|LO)\))?$"
)
TOTAL = r"^Total pot (?P<total>\S+) \| (?:Rake (?P<rake>\S+)|(?P<no_rake>No rake))$"
SUMMARY_CARDS = r"^Seat \d+: (?P<player>.+?) (?:\([^)]*\) )*(?:showed|mucked) \[(?P<cards>[^\]]*)\]"
MARKER = r"^\*\*\* (?P<name>[A-Z/ -]+?) \*\*\*(?: (?P<cards>\[.*))?$"
INFORMATIONAL = (
    r"^(?:Board: \[.*\]|Seat \d+: .+|.+ (?:deny SB|sits out|is sitting out|leaves the table"
    r"|joins the table|is disconnected|is connected|has returned|will be allowed to play after the button)"
    r"|.+ said, \".*\"?|.+ wins .+ for eliminating .+|.+ finished the tournament.*)$"
)

(
    KIND_TABLE,
    KIND_SEAT,
    KIND_DEALT,
    KIND_ACTION,
    KIND_COLLECTED,
    KIND_TOTAL,
    KIND_SUMMARY_CARDS,
) = range(FIRST_SITE_KIND, FIRST_SITE_KIND + 7)

VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts ante": "ante",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "shows": "show",
    "mucks": "muck",
}


class WinamaxFormat(TextFormat):
    site: ClassVar[str] = SITE
    hand_start: ClassVar[str] = HAND_START
    marker: ClassVar[str] = MARKER
    sections: ClassVar[dict[str, tuple[int, int]]] = {
        "ANTE/BLINDS": (SETUP, 0),
        "PRE-FLOP": (PREFLOP, 0),
        "FLOP": (FLOP, 0),
        "TURN": (TURN, 0),
        "RIVER": (RIVER, 0),
        "SHOW DOWN": (SHOWDOWN, 0),
        "SUMMARY": (SUMMARY, 0),
    }
    line_kinds: ClassVar[tuple[tuple[int, str, str], ...]] = (
        (KIND_TABLE, r"^Table: '", "setup"),
        (KIND_SEAT, SEAT, "setup"),
        (KIND_DEALT, DEALT, "body"),
        (KIND_COLLECTED, COLLECTED, "body"),
        (KIND_TOTAL, r"^Total pot ", "summary"),
        (KIND_SUMMARY_CARDS, SUMMARY_CARDS, "summary"),
        (KIND_ACTION, ACTION, "body"),
    )
    informational: ClassVar[str] = INFORMATIONAL

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        parsed = (
            body.filter(pl.col("is_start"))
            .select("hand", "offset", "line", pl.col("line").str.extract_groups(HEADER).alias("h"))
            .unnest("h")
        )
        parsed = parsed.with_columns(pl.col("stakes").str.extract_groups(STAKES).alias("s")).unnest(
            "s"
        )
        table = first_lines(body, TABLE, "t")
        parsed = parsed.join(table, on="hand", how="left")
        is_tournament = pl.col("tname").is_not_null()
        currency = (
            pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .when((pl.col("symbol") == "€") | (pl.col("money") == "real money"))
            .then(pl.lit("EUR"))
            .otherwise(pl.lit("PLAY"))
        )
        # Play money and tournament chips are printed with cents too (0.47, 7410.50).
        scale = pl.lit(100)
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null() & pl.col("first").is_not_null(),
            game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
            is_o8=pl.col("game").is_in(list(O8_GAMES)),
            limit_type=pl.col("limit").replace_strict(
                {"pot limit": "PL", "no limit": "NL", "fixed limit": "FL", "limit": "FL"},
                default=None,
            ),
            currency=currency,
            money_scale=scale.cast(pl.Int32),
            started_at=utc_time(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.col("zone"),
                "%Y/%m/%d %H:%M:%S",
                parsed["zone"].unique().to_list(),
            ),
            time_zone=pl.col("zone"),
            # The tournament's number is in the table name: 'Quitte ou Double(27536269)#0'.
            tournament_id=pl.when(is_tournament).then(
                pl.col("table_name").str.extract(r"\((\d+)\)#\d+$", 1).fill_null(pl.col("tname"))
            ),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
        )

    def hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, actions: pl.DataFrame
    ) -> pl.DataFrame:
        totals = (
            self.fields(lines, KIND_TOTAL, TOTAL)
            .unique("hand", keep="first")
            .select(
                "hand",
                total_pot=self.money("total"),
                rake=pl.when(pl.col("no_rake").is_not_null())
                .then(pl.lit(0, dtype=pl.Int64))
                .otherwise(self.money("rake")),
                # Old tournament exports round large totals ("Total pot 15.52k"): not an exact
                # amount, so no total is recorded, but the hand is not damaged.
                abbreviated=pl.col("total").str.contains(r"^\d+(?:\.\d+)?k$"),
                total_ok=pl.col("total").is_not_null(),
            )
        )
        tables = lines.filter(pl.col("kind") == KIND_TABLE).group_by("hand").len("tables")
        hands = (
            headers.join(totals, on="hand", how="left")
            .join(self.boards(lines), on="hand", how="left")
            .join(self.posted(actions), on="hand", how="left")
            .join(tables, on="hand", how="left")
        )
        scale = pl.col("money_scale")
        fixed = pl.col("limit_type") == "FL"
        first = money(pl.col("first"), scale)
        second = money(pl.col("second"), scale)
        has_summary = lines.filter(pl.col("marker") == "SUMMARY").select("hand").unique()
        hands = hands.with_columns(
            has_summary=pl.col("hand").is_in(has_summary["hand"].implode()),
        )
        problem = (
            pl.when(~pl.col("has_summary"))
            .then(pl.lit("truncated hand: no summary"))
            .when(pl.col("tables").fill_null(0) != 1)
            .then(pl.lit("table line missing or repeated"))
            .when(
                ~pl.col("total_ok").fill_null(False)
                | (pl.col("total_pot").is_null() & ~pl.col("abbreviated"))
                | pl.col("rake").is_null()
            )
            .then(pl.lit("missing or unreadable total pot / rake"))
        )
        return hands.with_columns(
            small_bet=pl.when(fixed).then(first),
            big_bet=pl.when(fixed).then(second),
            small_blind=pl.when(fixed).then(pl.col("posted_sb")).otherwise(first),
            big_blind=pl.when(fixed).then(pl.coalesce("posted_bb", first)).otherwise(second),
            ante=pl.coalesce(money(pl.col("ante"), scale), pl.col("posted_ante")),
            board=pl.col("board").fill_null(EMPTY_CARDS),
            source_offset=pl.col("offset"),
            problem=problem,
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_SEAT, SEAT).with_columns(
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=self.money("stack"),
            sitting_out=pl.col("flags").fill_null("").str.contains("sitting out"),
        )

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_ACTION, ACTION)

    def street_totals(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The engine's street totals, plus the return Winamax never prints for a player who
        folded with the largest contribution (a small blind folding to a big blind all-in for
        less): nobody still in can win those chips. A bettor who wins gets an uncalled bet
        back as a won pot instead (see the module docstring)."""
        from parsers.partypoker import folded_excess_returns

        actions = super().street_totals(frame)
        returns = folded_excess_returns(actions)
        if returns.height == 0:
            return actions
        extra = returns.select(
            "hand", "line_no", section=pl.col("street").cast(pl.Int8), player="player",
            sub="sub", kind="kind", amount="amount", to="to", is_all_in="is_all_in",
        )  # fmt: skip
        return super().street_totals(
            pl.concat([frame, extra.select(frame.columns)], how="vertical_relaxed")
        )

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        acts = self._action_fields(lines)
        dead = pl.col("dead").is_not_null()
        frame = acts.select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.when(dead)
            .then(pl.lit("post_dead"))
            .otherwise(pl.col("verb").replace_strict(VERB_KIND)),
            amount=self.money("first"),
            to=pl.when(pl.col("verb") == "raises").then(self.money("to")),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        return frame

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_COLLECTED, COLLECTED).select(
            "hand",
            "line_no",
            "player",
            "board_index",
            amount=self.money("amount"),
            pot_index=pl.when(pl.col("pot").is_in(["pot", "main pot"]))
            .then(0)
            .otherwise(pl.col("side").cast(pl.Int8, strict=False).fill_null(1))
            .cast(pl.Int8),
            half=pl.col("half").replace_strict({"HI": "high", "LO": "low"}, default=None),
        )

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        shows = self._action_fields(lines).filter(pl.col("verb") == "shows")
        desc = pl.col("desc")
        labelled = desc.str.extract(r"^(HI|LO) : ", 1)
        text = desc.str.replace(r"^(?:HI|LO) : ", "")
        order = pl.int_range(pl.len()).over("hand", "player")
        shows = shows.with_columns(
            half=pl.coalesce(
                labelled, pl.when(order == 0).then(pl.lit("HI")).otherwise(pl.lit("LO"))
            ),
            text=text,
        )
        return shows.group_by("hand", "player", maintain_order=True).agg(
            line_no=pl.col("line_no").first(),
            board_index=pl.col("board_index").first(),
            cards_text=pl.col("cards").first(),
            high_desc=pl.col("text").filter(pl.col("half") == "HI").first(),
            low_desc=pl.col("text").filter(pl.col("half") == "LO").first(),
        )

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        dealt = self.fields(lines, KIND_DEALT, DEALT).select(
            "hand", "line_no", "player", cards_text="cards", is_dealt=pl.lit(True)
        )
        shown = (
            self._action_fields(lines)
            .filter(pl.col("cards").is_not_null())
            .select("hand", "line_no", "player", cards_text="cards", is_dealt=pl.lit(False))
        )
        summary = self.fields(lines, KIND_SUMMARY_CARDS, SUMMARY_CARDS).select(
            "hand", "line_no", "player", cards_text="cards", is_dealt=pl.lit(False)
        )
        return pl.concat([dealt, shown, summary])


class WinamaxParser:
    """Parser for Winamax text hand histories."""

    site: ClassVar[str] = SITE
    # Labelled halves per pot; the printed total pot is net of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE, halves_labelled=True, total_pot_is_gross=False, raise_cap=4
    )

    def sniff(self, head: str) -> bool:
        """A Winamax hand header at the start of a line within the first lines."""
        return (
            pl.Series(head.splitlines()[:20], dtype=pl.String)
            .str.contains(HAND_START + r".*HandId: #")
            .any()
        )

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        return lines.str.contains(HAND_START).fill_null(False).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        return WinamaxFormat(lines, offsets, source_file).parse()
