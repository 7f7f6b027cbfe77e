"""Absolute Poker / UltimateBet hand histories (``Stage #…``), Omaha Hi/Lo.

What Absolute prints, and so what this parser records:

- ``Stage #1828549717: Omaha Hi/Lo (1 on 1)  Normal $30/$60 - 2009-12-31 18:23:36.005 (ET)
  [ 2009-12-31 18:23:36 ]``: ``Normal`` is fixed limit (the stakes are the bets, the blinds
  come from the posts), ``Pot Limit`` / ``No Limit`` print the blinds; ``(1 on 1)`` is a
  two-seat table. The time is in the printed zone (ET) and stored in UTC.
- ``Seat 6 - Player0 ($1,195.50 in chips)``; actions are ``name - Verb …``.
- ``Raises $45 to $60``: the second figure is the street total (the first the chips added);
  ``Calls``/``Bets`` give the chips added; ``All-In $x`` too (recorded as a bet, call or
  raise by its effect).
- ``Player0 - returned ($30) : not called`` is an explicit ``uncalled_return``.
- Payouts: ``Player0 Collects $119.25 from main pot`` per player and pot (halves summed):
  ``pot_index`` 0 (``side pot N`` → N), ``half`` null. The summary's ``collected Total
  ($119.25) HI:($119.25)`` (and ``LO:($x)``) is checked against them, not stored twice.
- ``Total Pot($120) | Rake ($0.75)``: the total is gross of the rake.
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import cards_list, holds_a_null, money
from parsers.engine.anchored import AnchoredParser, Block, seat_lines, with_sitting_out
from parsers.engine.assembly import HandTables, showdown_rows
from parsers.engine.betting import ordered_actions, settle_all_in_kinds, street_amounts
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import LineForm, classify, kind_fields
from parsers.engine.lines import forward_fill, in_printed_order, local_to_utc
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "AbsoluteParser"]

SITE = "absolute"
GAME = "Omaha Hi/Lo"
HAND_START = r"^Stage #C?\d+:? "
_HAND_START_LINE = re.compile(r"^\ufeff?Stage #C?\d+:? .* - \d{4}-\d{2}-\d{2} ", re.MULTILINE)
HEADER = (
    r"^Stage #C?(?P<hand_id>\d+):?\s+(?:Tourney ID (?P<tournament_id>\d+)\s+)?"
    r"(?P<game>.+?)\s+(?P<kind>\(1 on 1\)|Single Tournament|)\s*"
    r"(?P<limit>No Limit|Pot Limit|Normal|)\s?"
    r"(?P<stakes>(?:\$| €|)[\d,.]+(?:/(?:\$| €|)[\d,.]+)?)"
    r"\s+-\s+(?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})(?:\.\d+)?"
    r"(?:\s+\((?P<zone>[A-Z]+)\))?(?:\s+\[.*\])?$"
)
STAKES = r"^(?P<symbol>\$| €|)(?P<first>[\d,.]+)(?:/(?:\$| €|)(?P<second>[\d,.]+))?$"
TABLE = (
    r"^Table: (?P<table_name>.+?) \((?P<money>Real Money|Play Money|[^)]*)\) "
    r"Seat #(?P<button_seat>\d+) is the (?:dead )?dealer$"
)
SEAT = r"^Seat (?P<seat>\d+) - (?P<player>.+) \((?P<stack>[^ ]+) in chips\)(?P<flags>.*)$"
ACTION = (
    r"^(?P<player>.+?) - (?P<verb>Posts small blind|Posts big blind|Posts dead|Posts|Ante"
    r"|Raises|All-In\(Raise\)|All-In|Calls|Bets|Checks|Folds|Shows|Mucks|Does not show)"
    r"(?: \[?(?P<first>(?:\$| €)?[\d,.]+)\]?)?(?: to (?P<to>(?:\$| €)?[\d,.]+))?"
    r"(?: \[(?P<cards>[^\]]*)\])?(?: \((?P<desc>.*)\))?$"
)
UNCALLED = r"^(?P<player>.+?) - returned \((?P<amount>[^)]+)\) : not called$"
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
COLLECT = (
    r"^(?P<player>.+?) Collects (?P<amount>(?:\$| €)?[\d,.]+) from "
    r"(?P<pot>main pot|pot|side pot(?:[ -](?P<side>\d+))?)$"
)
MARKER = r"^\*\*\* (?P<name>POCKET CARDS|FLOP|TURN|RIVER|SHOW DOWN|SUMMARY) \*\*\*(?P<cards>.*)$"
TOTAL = r"^Total Pot\((?P<total>[^)]*)\)(?: \| Rake \((?P<rake>[^)]*)\))?$"
BOARD = r"^Board \[(?P<cards>[^\]]*)\]$"
SUMMARY_SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+?) (?:\([^)]*\) )*(?P<rest>.*)$"
SECTIONS = {"POCKET CARDS": 0, "FLOP": 1, "TURN": 2, "RIVER": 3, "SHOW DOWN": 4, "SUMMARY": 5}
VERB_KIND = {
    "Posts small blind": "post_sb",
    "Posts big blind": "post_bb",
    "Posts dead": "post_dead",
    "Posts": "post_bb",
    "Ante": "ante",
    "Raises": "raise",
    "All-In(Raise)": "raise",
    "All-In": "call",  # provisional: settled by its effect on the street totals
    "Calls": "call",
    "Bets": "bet",
    "Checks": "check",
    "Folds": "fold",
    "Shows": "show",
    "Mucks": "muck",
}
INFORMATIONAL = r"^(?:.+ (?:is sitting out|has left the table|has joined the table|sits out))$"
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_TABLE,
    KIND_SEAT,
    KIND_DEALT,
    KIND_MARKER,
    KIND_UNCALLED,
    KIND_COLLECT,
    KIND_TOTAL,
    KIND_BOARD,
    KIND_SUMMARY_SEAT,
    KIND_ACTION,
    KIND_INFO,
    KIND_UNKNOWN,
) = range(14)
INFO = (KIND_INFO, INFORMATIONAL)
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_TABLE, starts="Table: "),
    LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
    LineForm(KIND_DEALT, starts="Dealt to "),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_UNCALLED, pattern=UNCALLED),
    LineForm(KIND_COLLECT, pattern=COLLECT, where="body"),
    LineForm(KIND_TOTAL, starts="Total Pot(", where="summary"),
    LineForm(KIND_BOARD, starts="Board [", where="summary"),
    LineForm(KIND_SUMMARY_SEAT, pattern=SUMMARY_SEAT, where="summary"),
    LineForm(KIND_ACTION, pattern=ACTION, where="body"),
)


class _Block(Block):
    """One parse of a block of lines: the site's own decoding, handed to `finish`."""

    unknown_kind = KIND_UNKNOWN

    def tables(self) -> HandTables:
        headers = self._headers()
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = self._classify(self.candidate_lines(candidates, "money_scale"))
        acts = self._action_fields(lines)
        collections = self._collections(lines)
        hands = self._hands(candidates, lines, acts)
        seats = self._seats(lines, acts)
        actions = self._actions(acts)
        showdowns = showdown_rows(
            acts.filter(pl.col("kind") == "show"), cards_list(pl.col("cards")), high_desc="desc"
        )
        return self.assemble(
            lines,
            headers=headers,
            hands=hands,
            seats=seats,
            actions=actions,
            collections=collections,
            showdowns=showdowns,
            reasons=[
                self._hand_problems(hands),
                self._summary_problems(lines, collections),
            ],
        )

    def _headers(self) -> pl.DataFrame:
        first = self.frame.filter(pl.col("is_start"))
        parsed = (
            first.select("hand", "offset", pl.col("line").str.extract_groups(HEADER).alias("h"))
            .unnest("h")
            .with_columns(pl.col("stakes").str.extract_groups(STAKES).alias("s"))
            .unnest("s")
        )
        is_tournament = pl.col("tournament_id").is_not_null()
        currency = (
            pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .when(pl.col("symbol") == "$")
            .then(pl.lit("USD"))
            .when(pl.col("symbol") == " €")
            .then(pl.lit("EUR"))
            .otherwise(pl.lit("PLAY"))
        )
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null(),
            is_o8=pl.col("game") == GAME,
            game=pl.coalesce("game", pl.lit("unknown")),
            limit_type=pl.col("limit").replace_strict(
                {"Normal": "FL", "Pot Limit": "PL", "No Limit": "NL"}, default=None
            ),
            max_seats=pl.when(pl.col("kind") == "(1 on 1)").then(2).cast(pl.Int16),
            currency=currency,
            money_scale=pl.when(currency.is_in(["CHIPS", "PLAY"])).then(1).otherwise(100),
            time_zone=pl.col("zone"),
            started_at=local_to_utc(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.coalesce("zone", pl.lit("UTC")),
                {},
                "%Y-%m-%d %H:%M:%S",
            ),
        )

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        names = lines["line"].str.extract(MARKER, 1)
        section = forward_fill(lines, names.replace_strict(SECTIONS, default=None))
        markers = {"marker": names.is_not_null().to_numpy()}
        classified = classify(lines, section, LINE_FORMS, KIND_UNKNOWN, markers, INFO)
        return classified.with_columns(marker=names)

    @staticmethod
    def _action_fields(lines: pl.DataFrame) -> pl.DataFrame:
        actions = (
            kind_fields(lines, KIND_ACTION, ACTION, "hand", "line_no", "section", "money_scale")
        )
        uncalled = (
            kind_fields(lines, KIND_UNCALLED, UNCALLED, "hand", "line_no", "section", "money_scale")
            .rename({"amount": "first"})
            .with_columns(verb=pl.lit("returned"))
        )
        frame = pl.concat([actions, uncalled], how="diagonal_relaxed").sort("hand", "line_no")
        return frame.with_columns(
            kind=pl.col("verb").replace_strict(
                {**VERB_KIND, "returned": "uncalled_return"}, default=None
            ),
            amount=money(pl.col("first"), pl.col("money_scale")),
            to=money(pl.col("to"), pl.col("money_scale")),
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
            is_all_in=pl.col("verb").str.starts_with("All-In"),
        )

    def _hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, acts: pl.DataFrame
    ) -> pl.DataFrame:
        def first_of(kind: int, name: str) -> pl.DataFrame:
            return (
                lines.filter(pl.col("kind") == kind)
                .group_by("hand")
                .agg(pl.col("line").first().alias(name), pl.len().alias(f"{name}_count"))
            )

        table = (
            first_of(KIND_TABLE, "table_line")
            .with_columns(pl.col("table_line").str.extract_groups(TABLE).alias("t"))
            .unnest("t")
        )
        total = (
            first_of(KIND_TOTAL, "total_line")
            .with_columns(pl.col("total_line").str.extract_groups(TOTAL).alias("p"))
            .unnest("p")
        )
        board = first_of(KIND_BOARD, "board_line")
        markers = (
            lines.filter(pl.col("marker").is_not_null())
            .group_by("hand")
            .agg(
                has_summary=(pl.col("marker") == "SUMMARY").any(),
                has_pocket=(pl.col("marker") == "POCKET CARDS").any(),
                streets=pl.col("section").filter(pl.col("section").is_between(1, 3)),
            )
        )
        kind = pl.col("kind")
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(kind == "post_sb").max(),
            posted_bb=pl.col("amount").filter(pl.col("verb") == "Posts big blind").max(),
            posted_ante=pl.col("amount").filter(kind == "ante").max(),
        )
        scale = pl.col("money_scale")
        is_fixed = pl.col("limit_type") == "FL"
        first = money(pl.col("first"), scale)
        second = money(pl.col("second"), scale)
        return (
            headers.join(table, on="hand", how="left")
            .join(total, on="hand", how="left")
            .join(board, on="hand", how="left")
            .join(markers, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .with_columns(
                game=pl.lit("O8"),
                small_bet=pl.when(is_fixed).then(first),
                big_bet=pl.when(is_fixed).then(pl.coalesce(second, first * 2)),
                small_blind=pl.when(is_fixed)
                .then(pl.col("posted_sb"))
                .otherwise(pl.when(second.is_not_null()).then(first)),
                big_blind=pl.when(is_fixed)
                .then(pl.coalesce("posted_bb", first))
                .otherwise(pl.coalesce(second, first)),
                ante=pl.col("posted_ante"),
                button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
                board=cards_list(
                    pl.col("board_line").str.extract(BOARD, 1).str.strip_chars()
                ).fill_null(pl.lit([], dtype=pl.List(pl.UInt8))),
                total_pot=money(pl.col("total"), scale),
                rake=money(pl.col("rake"), scale),
                source_offset=pl.col("offset"),
            )
        )

    def _seats(self, lines: pl.DataFrame, acts: pl.DataFrame) -> pl.DataFrame:
        seats = seat_lines(lines, KIND_SEAT, SEAT)
        dealt = kind_fields(lines, KIND_DEALT, DEALT, "hand", "line_no")
        shown = acts.filter(pl.col("cards").is_not_null()).select(
            "hand", "line_no", "player", "cards", dealt=pl.lit(False)
        )
        sightings = pl.concat(
            [dealt.select("hand", "line_no", "player", "cards", dealt=pl.lit(True)), shown]
        )
        sightings = sightings.with_columns(cards=cards_list(pl.col("cards")))
        seats = with_sitting_out(seats, acts)
        return attach_hole_cards(seats, sightings, dealt.select("hand", "player"))

    @staticmethod
    def _actions(acts: pl.DataFrame) -> pl.DataFrame:
        frame = acts.filter(pl.col("kind").is_not_null()).with_columns(
            to=pl.when(pl.col("kind") == "raise").then(pl.col("to"))
        )
        return settle_all_in_kinds(
            street_amounts(ordered_actions(frame, "street")),
            (pl.col("verb") == "All-In")
            | ((pl.col("verb") == "All-In(Raise)") & pl.col("to").is_null()),
        )

    @staticmethod
    def _collections(lines: pl.DataFrame) -> pl.DataFrame:
        found = kind_fields(lines, KIND_COLLECT, COLLECT, "hand", "line_no", "money_scale")
        return in_printed_order(
            found.select(
                "hand",
                "line_no",
                "player",
                amount=money(pl.col("amount"), pl.col("money_scale")),
                pot_index=pl.when(pl.col("pot") == "main pot")
                .then(0)
                .otherwise(pl.col("side").cast(pl.Int8, strict=False))
                .cast(pl.Int8),
                half=pl.lit(None, dtype=pl.String),
                board_index=pl.lit(0, dtype=pl.Int8),
            )
        )

    @staticmethod
    def _hand_problems(hands: pl.DataFrame) -> pl.DataFrame:
        board = pl.col("board")
        streets = pl.col("streets").fill_null(pl.lit([], dtype=pl.List(pl.Int8)))
        reason = first_problem(
            (~pl.col("has_summary").fill_null(False), "truncated hand: no summary"),
            (~pl.col("has_pocket").fill_null(False), "truncated hand: no pocket cards section"),
            (pl.col("table_line_count").fill_null(0) != 1, "table line missing or repeated"),
            (pl.col("button_seat").is_null(), "unreadable table line"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (pl.col("limit_type").is_null() | pl.col("big_blind").is_null(), "unreadable stakes"),
            (
                (pl.col("total_line_count").fill_null(0) != 1)
                | pl.col("total_pot").is_null()
                | pl.col("rake").is_null(),
                "missing or unreadable total pot / rake",
            ),
            (holds_a_null(board), "unreadable board card"),
            (
                streets != pl.int_ranges(1, streets.list.len() + 1).cast(pl.List(pl.Int8)),
                "streets missing or out of order",
            ),
            (
                board.list.len()
                != pl.when(streets.list.len() == 0).then(0).otherwise(streets.list.len() + 2),
                "summary Board differs from the streets dealt",
            ),
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    @staticmethod
    def _summary_problems(lines: pl.DataFrame, collections: pl.DataFrame) -> pl.DataFrame:
        """The summary's ``collected Total ($x) HI:($y) LO:($z)`` per player must match the
        ``Collects`` lines, and its halves must add up to its total."""
        scale = pl.col("money_scale")
        summary = (
            kind_fields(lines, KIND_SUMMARY_SEAT, SUMMARY_SEAT, "hand", "money_scale")
            .select(
                "hand",
                "player",
                total_text=pl.col("rest").str.extract(r"(?:collected|won) Total \(([^)]*)\)", 1),
                total=money(
                    pl.col("rest").str.extract(r"(?:collected|won) Total \(([^)]*)\)", 1), scale
                ),
                high=money(pl.col("rest").str.extract(r"HI:\(([^)]*)\)", 1), scale),
                low=money(pl.col("rest").str.extract(r"LO:\(([^)]*)\)", 1), scale),
            )
            .filter(pl.col("total_text").is_not_null())
        )
        paid = collections.group_by("hand", "player").agg(paid=pl.col("amount").sum())
        both = summary.join(paid, on=["hand", "player"], how="full", coalesce=True)
        wrong = both.filter(
            pl.col("total").is_null()
            | (pl.col("total") != pl.col("paid").fill_null(0))
            | (pl.col("high").fill_null(0) + pl.col("low").fill_null(0) != pl.col("total"))
        )
        return (
            wrong.sort("hand", "player")
            .unique("hand", keep="first", maintain_order=True)
            .select(
                "hand",
                reason=pl.lit("summary collected Total of ")
                + pl.col("player").fill_null("(unreadable name)")
                + pl.lit(" differs from its Collects lines or its HI/LO parts"),
            )
        )


class AbsoluteParser(AnchoredParser):
    """Parser for Absolute Poker / UltimateBet text hand histories."""

    site: ClassVar[str] = SITE
    # One line per player and pot (halves summed); Total Pot printed gross with the rake;
    # uncalled bets returned by an explicit line.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_pot",
        rake_printed=True,
        uncalled_printed=True,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = _Block
