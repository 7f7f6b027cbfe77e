"""`TextFormat`: a site's line kinds as a table of regular expressions, and the steps after.

The PokerStars parser's method generalised: every line of a block is classified by the first line
kind whose pattern matches in its section of the hand, each kind is decoded by its own expression
over the column of those lines, and the rows go to `parsers.engine.assembly.finish`. A site
fills the kind table and the few steps that differ (header, actions, payouts). Used by the
Winamax, Winning Poker Network (both layouts), PKR and GGPoker parsers.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

import numpy as np
import polars as pl

from parsers.columns import cards_list, local_time_to_utc, money
from parsers.engine.assembly import HandTables
from parsers.engine.betting import ordered_actions, street_amounts
from parsers.engine.checks import board_checks, first_problem
from parsers.engine.file_batches import FileBatchParser
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import DecodedFields, LineForm, classify, may_find
from parsers.engine.lines import fill_from_rows, in_printed_order, line_frame
from parsers.engine.stakes import blinds_and_bets

__all__ = [
    "CURRENCY_SYMBOLS",
    "EMPTY_CARDS",
    "FIRST_SITE_KIND",
    "FLOP",
    "KIND_BLANK",
    "KIND_HEADER",
    "KIND_INFO",
    "KIND_MARKER",
    "KIND_UNKNOWN",
    "PREFLOP",
    "RIVER",
    "Required",
    "SETUP",
    "SHOWDOWN",
    "SUMMARY",
    "TURN",
    "TextFormat",
    "TextFormatParser",
    "bracket_cards",
    "ensure_columns",
    "first_lines",
    "head_has_line",
    "head_has_lines",
    "last_bracket",
    "sightings",
    "utc_time",
]

# Sections of a hand: the setup before the cards are dealt, the four streets, showdown, summary.
SETUP, PREFLOP, FLOP, TURN, RIVER, SHOWDOWN, SUMMARY = -1, 0, 1, 2, 3, 4, 5

# Line kinds every format has; a site numbers its own kinds from FIRST_SITE_KIND.
KIND_HEADER, KIND_BLANK, KIND_MARKER, KIND_INFO, KIND_UNKNOWN = range(5)
FIRST_SITE_KIND = 10
# The columns every decoded kind keeps beside its groups.
FIELD_CONTEXT = ("hand", "line_no", "section", "board_index", "money_scale")


DataTypeLike: TypeAlias = pl.DataType | type[pl.DataType]

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


def sightings(rows: pl.DataFrame, dealt: bool, cards: pl.Expr | None = None) -> pl.DataFrame:
    """`TextFormat.known_cards` rows from the ``rows`` of one kind that print cards (``cards``,
    by default the ``cards`` column; rows without them dropped): dealt ones or shown ones."""
    text = pl.col("cards") if cards is None else cards
    return rows.filter(text.is_not_null()).select(
        "hand", "line_no", "player", cards_text=text, dealt=pl.lit(dealt)
    )


def ensure_columns(frame: pl.DataFrame, schema: Mapping[str, DataTypeLike]) -> pl.DataFrame:
    """Add the missing columns of ``schema`` as nulls."""
    missing = [
        pl.lit(None, dtype=dtype).alias(name)
        for name, dtype in schema.items()
        if name not in frame.columns
    ]
    return frame.with_columns(missing) if missing else frame


@dataclass(frozen=True)
class Required:
    """Lines a complete hand prints (a truncated one lacks them): ``lines``, a condition over the
    classified lines (``kind``, ``marker``, ...), held by at least one of a hand's lines, or by
    exactly one with ``exactly_one``; ``reason``, the reject reason of a hand that fails."""

    lines: pl.Expr
    reason: str
    exactly_one: bool = False


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
    # The site's line forms, tried in order after the header, blank and marker lines; the first
    # a line has classifies it (`parsers.engine.line_forms`).
    line_kinds: ClassVar[tuple[LineForm, ...]]
    # Known text that carries nothing the tables need; any other line quarantines its hand.
    informational: ClassVar[str]
    # The lines a complete hand prints, checked first by `hand_table`, in this order (the order
    # decides a damaged hand's reason).
    required_lines: ClassVar[tuple[Required, ...]] = ()

    def __init__(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> None:
        self.source_file = source_file
        self._decoded = DecodedFields()
        self.frame = line_frame(lines, offsets, starts)

    # -- steps a site implements -------------------------------------------------------------

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        """One row per hand: ``hand``, ``offset``, ``hand_id``, ``game`` (the printed name),
        ``is_o8`` (a game hilo reads), ``header_ok``, ``money_scale``, ``game_code`` where the
        site reads more than one game (`parsers.games.game_codes`) and any
        `pipeline.schema.HANDS` column the header gives."""
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
        """``hand, line_no, player, cards_text, dealt``: every sighting of hole cards (see
        `parsers.engine.hole_cards`)."""
        raise NotImplementedError

    def extra_problems(self, tables: dict[str, pl.DataFrame], lines: pl.DataFrame) -> pl.DataFrame:
        """Site-specific consistency checks: ``hand, reason``."""
        return pl.DataFrame(schema={"hand": pl.Int32, "reason": pl.String})

    # -- orchestration -----------------------------------------------------------------------

    def hand_tables(self) -> HandTables:
        """The block's decoding, handed to `finish`."""
        body = self.frame.filter(pl.col("hand") >= 0)
        headers = self.headers(body)
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = self.classify(
            body.join(candidates.select("hand", "money_scale"), on="hand", how="inner")
        )
        raw_actions = self.tidy_actions(self.actions(lines))
        hands = self.hands(candidates, lines, raw_actions)
        actions = self.street_totals(raw_actions)
        collections = in_printed_order(self.collections(lines))
        showdowns = self.showdowns(lines).with_columns(cards=cards_list(pl.col("cards_text")))
        seats = self.hole_cards(self.seats(lines), self.known_cards(lines), candidates)
        hands = ensure_columns(hands, {"problem": pl.String, "board2": pl.List(pl.UInt8)})
        tables = {"hands": hands, "seats": seats, "actions": actions, "collections": collections}
        return HandTables(
            site=self.site,
            source_file=self.source_file,
            frame=self.frame,
            headers=headers,
            hands=hands,
            seats=seats,
            actions=actions,
            collections=collections,
            showdowns=showdowns,
            reasons=[self.hand_problems(hands, lines)],
            cross_checks=[self.extra_problems(tables, lines)],
            unknown_lines=lines.filter(pl.col("kind") == KIND_UNKNOWN).select(
                "hand", "line_no", "line", "offset"
            ),
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
        section = fill_from_rows(
            len(line), is_start, SETUP, marker_rows[known], codes.to_numpy()[known]
        )
        not_summary = (codes.fill_null(SUMMARY) != SUMMARY).to_numpy()
        board_index = fill_from_rows(
            len(line),
            is_start,
            0,
            marker_rows[known & not_summary],
            runs.to_numpy()[known & not_summary],
        )
        known_marker = np.zeros(len(line), dtype=bool)
        known_marker[marker_rows[known]] = True
        forms = (
            LineForm(KIND_HEADER, where="start"),
            LineForm(KIND_BLANK, equals=""),
            LineForm(KIND_MARKER, where="marker"),
            *self.line_kinds,
        )
        informational = (KIND_INFO, self.informational)
        classified = classify(
            lines, section, forms, KIND_UNKNOWN, {"marker": known_marker}, informational
        )
        return classified.with_columns(
            board_index=pl.Series(board_index, dtype=pl.Int8),
            marker=marker_fields["name"],
            marker_cards=marker_fields["cards"]
            if "cards" in marker_fields.columns
            else pl.lit(None, dtype=pl.String),
        )

    def fields(self, lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
        """The named groups of ``pattern`` over the lines of one kind, with their context,
        decoded once per parse."""
        return self._decoded(lines, kind, pattern, *FIELD_CONTEXT)

    def seat_rows(
        self, lines: pl.DataFrame, kind: int, pattern: str, sitting_out: str
    ) -> pl.DataFrame:
        """The seats of the ``kind`` lines, whose ``pattern`` has the groups ``seat``,
        ``player``, ``stack`` and ``flags``: a seat whose flags hold the text ``sitting_out``
        sits out."""
        return self.fields(lines, kind, pattern).with_columns(
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=self.money("stack"),
            sitting_out=pl.col("flags").fill_null("").str.contains(sitting_out, literal=True),
        )

    @staticmethod
    def money(column: str) -> pl.Expr:
        """A printed amount column in the hand's minor unit (null when unreadable)."""
        return money(pl.col(column).str.strip_chars(), pl.col("money_scale"))

    # -- shared table steps ------------------------------------------------------------------

    def uncalled_returns(self, lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
        """Action rows of the uncalled bets returned: ``pattern``'s ``player`` and ``amount``
        on the lines of ``kind``."""
        return self.fields(lines, kind, pattern).select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.lit("uncalled_return"),
            amount=self.money("amount"),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
        )

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
        # Hashes of the keys, not windows over them: windows over two keys cost ~8x as much.
        first_show = pl.struct("hand", "player", "kind").is_first_distinct()
        left = frame.group_by("hand").agg(
            left=pl.col("player").n_unique() - pl.col("player").filter(kind == "fold").n_unique()
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
        return street_amounts(ordered_actions(frame, "section")).with_columns(
            site=pl.lit(self.site)
        )

    @staticmethod
    def hole_cards(
        seats: pl.DataFrame, known: pl.DataFrame, headers: pl.DataFrame | None = None
    ) -> pl.DataFrame:
        """Hole cards of each seat from every sighting (`hole_cards.attach_hole_cards`), as
        many as each hand's game deals (the headers' ``game_code``, where a site reads more
        than one game); the dealt-to player is the hero."""
        sightings = known.with_columns(cards=cards_list(pl.col("cards_text")))
        heroes = known.filter(pl.col("dealt")).select("hand", "player")
        games = None
        if headers is not None and "game_code" in headers.columns:
            games = headers.select("hand", "game_code")
        return attach_hole_cards(seats, sightings, heroes, games)

    def hand_table(
        self,
        headers: pl.DataFrame,
        lines: pl.DataFrame,
        actions: pl.DataFrame,
        printed: tuple[pl.DataFrame, ...],
        checks: tuple[tuple[pl.Expr, str], ...],
        **columns: pl.Expr,
    ) -> pl.DataFrame:
        """The hands table `hands` returns, from what the site decoded.

        ``headers`` (one row per candidate hand) joined with the site's per-hand frames
        (``printed``, keyed by ``hand``), the boards (`boards`), the largest posts (`posted`)
        and whether each hand has its `required_lines`; then the site's ``columns`` (stakes,
        ante, pot, rake: expressions over those joined columns), the board (empty where none
        was dealt), ``source_offset`` and ``problem``: the reason of the first required line a
        hand lacks, else of the first of the site's ``checks`` (``(condition, reason)`` pairs,
        as `first_problem` takes them) that holds.
        """
        hands = headers
        for frame in printed:
            hands = hands.join(frame, on="hand", how="left")
        hands = hands.join(self.boards(lines), on="hand", how="left").join(
            self.posted(actions), on="hand", how="left"
        )
        missing = [f"missing_required_{index}" for index in range(len(self.required_lines))]
        if missing:
            present = lines.group_by("hand").agg(
                (
                    (required.lines.sum() != 1) if required.exactly_one else ~required.lines.any()
                ).alias(name)
                for required, name in zip(self.required_lines, missing, strict=True)
            )
            hands = hands.join(present, on="hand", how="left")
        problem = first_problem(
            *(
                (pl.col(name).fill_null(True), required.reason)
                for required, name in zip(self.required_lines, missing, strict=True)
            ),
            *checks,
        )
        return hands.with_columns(
            **columns,
            board=pl.col("board").fill_null(EMPTY_CARDS),
            source_offset=pl.col("offset"),
            problem=problem,
        )

    @staticmethod
    def header_stakes() -> dict[str, pl.Expr]:
        """Blinds and bets from the header's two stakes (``first``, ``second``: the bets in fixed
        limit, else the blinds), as `parsers.engine.stakes.blinds_and_bets` reads them."""
        scale = pl.col("money_scale")
        first, second = money(pl.col("first"), scale), money(pl.col("second"), scale)
        return blinds_and_bets(pl.col("limit_type") == "FL", first, second)

    @classmethod
    def unreadable_money(cls, *columns: str) -> pl.Expr:
        """Whether any of the printed amount ``columns`` is printed but unreadable."""
        return pl.any_horizontal(
            [pl.col(column).is_not_null() & cls.money(column).is_null() for column in columns]
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
        board2 = pl.col("board2")
        reason = first_problem(
            (pl.col("problem").is_not_null(), pl.col("problem")),
            (pl.col("button_seat").is_null(), "no button seat"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (pl.col("limit_type").is_null(), "unknown betting limit"),
            (pl.col("big_blind").is_null() | pl.col("small_blind").is_null(), "unreadable stakes"),
            *board_checks(pl.col("board")),
            # Five cards, the first run's on the streets the second did not deal again.
            (
                board2.is_not_null() & (board2.list.drop_nulls().list.len() != 5),
                "unreadable second board",
            ),
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())


class TextFormatParser(FileBatchParser):
    """The parser of a site that a `TextFormat` reads: hands start at its ``hand_start``
    lines and ``text_format`` decodes them. A site adds its ``site``, ``profile`` and ``sniff``."""

    text_format: ClassVar[type[TextFormat]]

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of the lines that open a hand."""
        return lines.str.contains(self.text_format.hand_start).fill_null(False).to_numpy()

    def hand_tables(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> HandTables:
        """The site's decoding of a block of whole hands."""
        return self.text_format(lines, offsets, starts, source_file).hand_tables()


# Sniffing reads this many of a file's first lines.
SNIFF_LINES = 20


def head_has_line(head: str, pattern: str) -> bool:
    """Whether one of the first lines of ``head`` matches ``pattern`` (searched)."""
    if not may_find(pattern, head):
        return False
    lines = pl.Series(head.splitlines()[:SNIFF_LINES], dtype=pl.String)
    return bool(lines.str.contains(pattern).any())


def head_has_lines(head: str, first: str, then: str) -> bool:
    """Whether, among the first lines of ``head``, a line starting with ``first`` is
    followed by one starting with ``then``."""
    if first not in head or then not in head:
        return False
    lines = head.splitlines()[:SNIFF_LINES]
    return any(
        line.startswith(first) and following.startswith(then)
        for line, following in itertools.pairwise(lines)
    )


def first_lines(body: pl.DataFrame, pattern: str, name: str) -> pl.DataFrame:
    """Per hand, the named groups of the first line matching ``pattern`` (for multi-line headers)."""
    found = body.filter(pl.col("line").str.contains(pattern)).unique("hand", keep="first")
    return found.select("hand", pl.col("line").str.extract_groups(pattern).alias(name)).unnest(name)


def utc_time(date_time: pl.Expr, zone: pl.Expr, fmt: str, zones: list[str | None]) -> pl.Expr:
    """Local time with a printed zone to UTC; a missing zone is read as UTC (the caller says so)."""
    return local_time_to_utc(date_time, zone.fill_null("UTC"), fmt=fmt, zones=[*zones, "UTC"])
