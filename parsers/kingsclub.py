"""KingsClub hand histories (``#39969304: Pot Limit Omaha Hi-Lo - 5/10``), Omaha Hi/Lo and Big O.

What KingsClub prints, and so what this parser records:

- A two-line header: ``#id: <limit> <game> - <stakes>`` then ``2021-01-02 15:45:10`` (no zone:
  stored as UTC as printed). Games read (`GAME_NAMES`): ``Omaha Hi-Lo`` (``O8``) and ``Big O``
  (five-card Omaha Hi/Lo, ``O8-5card``: ``#37580598: Pot Limit Big O - 11/22``, dealt
  ``Dealt to Hero: [6h As 2d 2c 9d]``, the others ``[X X X X X]``); every other game is counted
  as skipped. Stakes use thousands separators (``500/1,000``); in fixed limit they are the bets
  and the blinds come from the posts.
- Amounts carry no currency symbol; cash tables are recorded in USD cents (``1,138.87``).
  Tournament tables (``Table 'T123 [4]'``) are quarantined: no sample shows their chips.
- ``raises to 90``, ``bets 40`` **and** ``calls 90`` all print the player's street total
  (``Hero calls 90`` after raising to 30, facing 90): increments are derived from it.
- Opponents' cards are ``[X X X X]`` (``[X X X X X]`` in Big O) until shown
  (``Player0 shows [Qs Ac Th 2s]``); no hand
  descriptions are printed (``showdowns.high_desc`` null).
- Payouts: ``Player0 wins pot (179)`` / ``Player1 wins (222.12) from pot``, one line per player
  for all halves (and boards when run twice): ``pot_index`` and ``half`` null;
  ``wins side pot 1 (x)`` keeps its pot number. ``Rake 1`` is the rake; no total pot is
  printed (``hands.total_pot`` null). An all-in preflop hand prints no rake line (null).
- Uncalled bets are returned silently (``Seat 1: Hero (32,500)``: the 375 over Player0's
  all-in came back with no line); ``Uncalled bet (x) returned to P``, where printed, is kept.
- ``*** BOARD 1 - RIVER ***`` / ``*** BOARD 2 - RIVER *** [- - - Qd] [Jd]``: run twice; the
  dashes repeat the first board's cards (``hands.board2``).
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.columns import cards_list, money
from parsers.engine.anchored import AnchoredParser, Block, seat_lines, with_sitting_out
from parsers.engine.assembly import HandTables, showdown_rows
from parsers.engine.betting import ordered_actions, street_amounts
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import LineForm, classify, kind_fields
from parsers.engine.lines import forward_fill, in_printed_order
from parsers.engine.stakes import blinds_and_bets
from parsers.games import game_codes
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "KingsClubParser"]

SITE = "kingsclub"
# The games read, by the name the header prints (`parsers.games` codes); any other is skipped.
GAME_NAMES = {"Omaha Hi-Lo": "O8", "Big O": "O8-5card"}
HAND_START = r"^#\d+: (?:Pot Limit|No Limit|Limit) .+ - [\d,.]+/[\d,.]+$"
_HAND_START_LINE = re.compile(
    r"^\ufeff?#\d+: (?:Pot Limit|No Limit|Limit) .+ - [\d,.]+/[\d,.]+\n"
    r"\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}\n(?:Table|Seat) ",
    re.MULTILINE,
)
HEADER = (
    r"^#(?P<hand_id>\d+): (?P<limit>Pot Limit|No Limit|Limit) (?P<game>.+) - "
    r"(?P<first>[\d,.]+)/(?P<second>[\d,.]+)$"
)
DATE = r"^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}:\d{2}$"
TABLE = (
    r"^Table (?:ID )?'(?P<table_name>.+?)' (?:(?P<max_seats>\d+)-max )?(?:\(Play Money\) )?"
    r"Seat #?(?P<button_seat>\d+) is the button$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[\d,.]+)\)$"
RESULT_SEAT = (
    r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[\d,.]+)\)(?: (?P<net>[-+][\d,.]+))?$"
)
POST = (
    r"^(?P<player>.+?): (?P<verb>posts the small blind|posts the big blind|posts ante"
    r"|posts blind) (?P<amount>[\d,.]+)(?P<all_in>, and is all in)?$"
)
ACTION = (
    r"^(?P<player>.+?) (?P<verb>folds|checks|calls|bets|raises to)(?: (?P<amount>[\d,.]+))?"
    r"(?P<all_in>, and is all in)?$"
)
DEALT = r"^Dealt to (?P<player>.+?): \[(?P<cards>[^\]]*)\]$"
SHOW = r"^(?P<player>.+?) shows \[(?P<cards>[^\]]*)\]$"
MARKER = (
    r"^\*\*\* (?P<name>HOLE CARDS|FLOP|TURN|RIVER|SUMMARY"
    r"|BOARD (?P<board>[0-9]) - (?:FLOP|TURN|RIVER)) \*\*\*(?P<cards>.*)$"
)
COLLECT = (
    r"^(?P<player>.+?) wins (?:pot |side pot (?P<side>\d+) )?\((?P<amount>[\d,.]+)\)(?: from pot)?$"
)
UNCALLED = r"^Uncalled bet \((?P<amount>[\d,.]+)\) returned to (?P<player>.+)$"
RAKE = r"^Rake (?P<rake>[\d,.]+)$"
INFORMATIONAL = r"^(?:.+ (?:sits out|is sitting out|has returned|is disconnected|is connected))$"

VERB_KIND = {
    "posts the small blind": "post_sb",
    "posts the big blind": "post_bb",
    "posts blind": "post_bb",
    "posts ante": "ante",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises to": "raise",
}
SECTIONS = {"HOLE CARDS": 0, "FLOP": 1, "TURN": 2, "RIVER": 3, "SUMMARY": 5}
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_DATE,
    KIND_TABLE,
    KIND_SEAT,
    KIND_POST,
    KIND_DEALT,
    KIND_MARKER,
    KIND_SHOW,
    KIND_UNCALLED,
    KIND_RESULT_SEAT,
    KIND_RAKE,
    KIND_COLLECT,
    KIND_ACTION,
    KIND_INFO,
    KIND_UNKNOWN,
) = range(16)
INFO = (KIND_INFO, INFORMATIONAL)
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    # The line after the header is the date; before the first street everything is preflop.
    LineForm(KIND_DATE, pattern=DATE, where="after_header"),
    LineForm(KIND_TABLE, starts="Table "),
    LineForm(KIND_SEAT, pattern=SEAT, where="body"),
    LineForm(KIND_POST, pattern=POST),
    LineForm(KIND_DEALT, starts="Dealt to "),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_SHOW, pattern=SHOW),
    LineForm(KIND_UNCALLED, starts="Uncalled bet ("),
    LineForm(KIND_RESULT_SEAT, pattern=RESULT_SEAT, where="summary"),
    LineForm(KIND_RAKE, pattern=RAKE, where="summary"),
    LineForm(KIND_COLLECT, pattern=COLLECT, where="summary"),
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
        hands = self._hands(candidates, lines, acts)
        seats = self._seats(lines, acts, candidates)
        actions = self._actions(acts)
        collections = self._collections(lines)
        showdowns = self._showdowns(acts)
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
                self._result_problems(lines, seats, hands),
            ],
        )

    def _headers(self) -> pl.DataFrame:
        first = self.frame.filter(pl.col("is_start"))
        parsed = first.select(
            "hand", "offset", pl.col("line").str.extract_groups(HEADER).alias("h")
        ).unnest("h")
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null(),
            game_code=game_codes(pl.col("game"), GAME_NAMES),
            is_o8=game_codes(pl.col("game"), GAME_NAMES).is_not_null(),
            limit_type=pl.col("limit").replace_strict(
                {"Pot Limit": "PL", "No Limit": "NL", "Limit": "FL"}, default=None
            ),
            currency=pl.lit("USD"),
            money_scale=pl.lit(100),
        )

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        names = lines["line"].str.extract(MARKER, 1)
        street = names.str.extract(r"(FLOP|TURN|RIVER|HOLE CARDS|SUMMARY)$", 1)
        section = forward_fill(lines, street.replace_strict(SECTIONS, default=None))
        after_header = np.concatenate(([False], lines["is_start"].to_numpy()[:-1]))
        return classify(
            lines,
            section,
            LINE_FORMS,
            KIND_UNKNOWN,
            {"marker": names.is_not_null().to_numpy(), "after_header": after_header},
            INFO,
        ).with_columns(marker=names)

    @staticmethod
    def _action_fields(lines: pl.DataFrame) -> pl.DataFrame:
        """Posts, actions, shows and uncalled returns, one row each, in line order."""

        def fields(kind: int, pattern: str) -> pl.DataFrame:
            return (
                lines.filter(pl.col("kind") == kind)
                .select(
                    "hand",
                    "line_no",
                    "section",
                    "money_scale",
                    pl.col("line").str.extract_groups(pattern).alias("a"),
                )
                .unnest("a")
            )

        posts = fields(KIND_POST, POST)
        actions = fields(KIND_ACTION, ACTION)
        shows = fields(KIND_SHOW, SHOW).with_columns(verb=pl.lit("shows"))
        uncalled = fields(KIND_UNCALLED, UNCALLED).with_columns(verb=pl.lit("uncalled"))
        frame = pl.concat([posts, actions, shows, uncalled], how="diagonal_relaxed").sort(
            "hand", "line_no"
        )
        return frame.with_columns(
            amount=money(pl.col("amount"), pl.col("money_scale")),
            kind=pl.col("verb").replace_strict(
                {**VERB_KIND, "shows": "show", "uncalled": "uncalled_return"}, default=None
            ),
            is_all_in=pl.col("all_in").is_not_null(),
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
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
        date = first_of(KIND_DATE, "date_line")
        rake = first_of(KIND_RAKE, "rake_line")
        markers = lines.filter(pl.col("marker").is_not_null())
        summary = (
            markers.filter(pl.col("marker") == "SUMMARY").group_by("hand").agg(summaries=pl.len())
        )
        # The board of each run: the last street line of the run lists all its cards.
        streets = (
            markers.filter(pl.col("marker") != "SUMMARY")
            .with_columns(
                run=pl.col("line").str.extract(MARKER, 2).cast(pl.Int8).fill_null(1),
                cards=pl.col("line")
                .str.extract(MARKER, 3)
                .str.replace_all(r"[\[\]]", " ")
                .str.strip_chars()
                .str.replace_all(r"\s+", " ")
                .str.split(" "),
            )
            .filter(pl.col("cards").list.len() > 0)
        )
        last = (
            streets.sort("line_no")
            .group_by("hand", "run")
            .agg(cards=pl.col("cards").last(), codes=pl.col("section"))
        )
        first_run = last.filter(pl.col("run") == 1).select("hand", "codes", board_tokens="cards")
        second_run = last.filter(pl.col("run") == 2).select("hand", board2_tokens="cards")
        joined = (
            headers.join(table, on="hand", how="left")
            .join(date, on="hand", how="left")
            .join(rake, on="hand", how="left")
            .join(summary, on="hand", how="left")
            .join(first_run, on="hand", how="left")
            .join(second_run, on="hand", how="left")
        )
        # "[- - - Qd] [Jd]": a dash repeats the first board's card at that place.
        second = (
            joined.filter(pl.col("board2_tokens").is_not_null())
            .select("hand", "board_tokens", token=pl.col("board2_tokens"))
            .with_columns(place=pl.int_ranges(pl.col("token").list.len()))
            .explode("token", "place")
            .with_columns(
                token=pl.when(pl.col("token") == "-")
                .then(pl.col("board_tokens").list.get(pl.col("place"), null_on_oob=True))
                .otherwise(pl.col("token"))
            )
            .group_by("hand", maintain_order=True)
            .agg(board2_text=pl.col("token").str.join(" "))
        )
        kind = pl.col("kind")
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(kind == "post_sb").max(),
            posted_bb=pl.col("amount").filter(kind == "post_bb").max(),
            posted_ante=pl.col("amount").filter(kind == "ante").max(),
        )
        scale = pl.col("money_scale")
        is_fixed = pl.col("limit_type") == "FL"
        first = money(pl.col("first"), scale)
        second_stake = money(pl.col("second"), scale)
        return (
            joined.join(second, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .with_columns(
                **blinds_and_bets(is_fixed, first, second_stake),
                ante=pl.col("posted_ante"),
                max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
                button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
                started_at=pl.col("date_line")
                .str.strptime(pl.Datetime("us"), "%Y-%m-%d %H:%M:%S", strict=False)
                .dt.replace_time_zone("UTC"),
                board=cards_list(pl.col("board_tokens").list.join(" ")).fill_null(
                    pl.lit([], dtype=pl.List(pl.UInt8))
                ),
                board2=cards_list(pl.col("board2_text")),
                total_pot=pl.lit(None, dtype=pl.Int64),
                rake=money(pl.col("rake_line").str.extract(RAKE, 1), scale),
                source_offset=pl.col("offset"),
            )
        )

    def _seats(
        self, lines: pl.DataFrame, acts: pl.DataFrame, headers: pl.DataFrame
    ) -> pl.DataFrame:
        seats = seat_lines(lines, KIND_SEAT, SEAT)
        dealt = kind_fields(lines, KIND_DEALT, DEALT, "hand", "line_no")
        # "[X X X X]" is a hidden hand: the player was dealt in but nothing is known.
        known = dealt.filter(~pl.col("cards").str.contains("X", literal=True))
        shown = acts.filter(pl.col("kind") == "show").select(
            "hand", "line_no", "player", "cards", dealt=pl.lit(False)
        )
        sightings = pl.concat(
            [known.select("hand", "line_no", "player", "cards", dealt=pl.lit(True)), shown]
        )
        sightings = sightings.with_columns(cards=cards_list(pl.col("cards")))
        heroes = known.select("hand", "player")
        in_hand = pl.concat([dealt.select("hand", "player"), acts.select("hand", "player")])
        seats = with_sitting_out(seats, in_hand)
        return attach_hole_cards(seats, sightings, heroes, headers.select("hand", "game_code"))

    @staticmethod
    def _actions(acts: pl.DataFrame) -> pl.DataFrame:
        # Calls, bets and raises print the street total; blinds and antes the chips posted.
        printed_total = pl.col("kind").is_in(["call", "bet", "raise"])
        frame = acts.filter(pl.col("kind").is_not_null()).with_columns(
            to=pl.when(printed_total).then(pl.col("amount")),
            amount=pl.when(printed_total).then(None).otherwise(pl.col("amount")),
        )
        return street_amounts(ordered_actions(frame, "street"))

    @staticmethod
    def _collections(lines: pl.DataFrame) -> pl.DataFrame:
        found = kind_fields(lines, KIND_COLLECT, COLLECT, "hand", "line_no", "money_scale")
        return in_printed_order(
            found.select(
                "hand",
                "line_no",
                "player",
                amount=money(pl.col("amount"), pl.col("money_scale")),
                pot_index=pl.col("side").cast(pl.Int8, strict=False),
                half=pl.lit(None, dtype=pl.String),
                board_index=pl.lit(None, dtype=pl.Int8),
            )
        )

    @staticmethod
    def _showdowns(acts: pl.DataFrame) -> pl.DataFrame:
        # No descriptions printed; a hand run twice is shown once for both boards.
        return showdown_rows(
            acts.filter(pl.col("kind") == "show"), cards_list(pl.col("cards")), board_index=None
        )

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame) -> pl.DataFrame:
        board = pl.col("board")
        reason = first_problem(
            (pl.col("summaries").fill_null(0) != 1, "truncated hand: summary missing or repeated"),
            (pl.col("table_line_count").fill_null(0) != 1, "table line missing or repeated"),
            (
                pl.col("table_name").is_null() | pl.col("button_seat").is_null(),
                "unreadable table line",
            ),
            # Tournament tables ("Table 'T123 [4]'") play chips: no sample shows how they print.
            (
                pl.col("table_name").str.contains(r"^T\d+ \[\d+\]$"),
                "KingsClub tournament hands are not supported",
            ),
            (pl.col("started_at").is_null(), "missing or unreadable start time"),
            (pl.col("big_blind").is_null(), "unreadable stakes"),
            (pl.col("rake_line").is_not_null() & pl.col("rake").is_null(), "unreadable rake"),
            (board.list.drop_nulls().list.len() < board.list.len(), "unreadable board card"),
            (~board.list.len().is_in([0, 3, 4, 5]), "wrong number of board cards"),
            (
                pl.col("board2").is_not_null() & (pl.col("board2").list.len() != 5),
                "unreadable second board",
            ),
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    @staticmethod
    def _result_problems(
        lines: pl.DataFrame, seats: pl.DataFrame, hands: pl.DataFrame
    ) -> pl.DataFrame:
        """Per seat the summary's final stack is the starting stack plus the printed net, and
        the nets add up to minus the rake (chips only move between players and the house)."""
        results = kind_fields(lines, KIND_RESULT_SEAT, RESULT_SEAT, "hand", "money_scale")
        sign = pl.when(pl.col("net").str.starts_with("-")).then(-1).otherwise(1)
        results = results.select(
            "hand",
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            final=money(pl.col("stack"), pl.col("money_scale")),
            net=pl.when(pl.col("net").is_null())
            .then(0)
            .otherwise(
                sign * money(pl.col("net").str.strip_chars_start("+-"), pl.col("money_scale"))
            ),
        )
        both = results.join(
            seats.select("hand", "seat", "stack_start"),
            on=["hand", "seat"],
            how="full",
            coalesce=True,
        )
        per_seat = (
            both.filter(
                pl.col("final").is_null()
                | pl.col("stack_start").is_null()
                | pl.col("net").is_null()
                | (pl.col("stack_start") + pl.col("net") != pl.col("final"))
            )
            .sort("hand", "seat")
            .unique("hand", keep="first", maintain_order=True)
            .select(
                "hand",
                reason=pl.lit("summary seat ")
                + pl.col("seat").cast(pl.String).fill_null("(unreadable)")
                + pl.lit(": final stack is not the starting stack plus the net"),
            )
        )
        balance = (
            both.group_by("hand")
            .agg(net=pl.col("net").sum())
            .join(hands.select("hand", "rake"), on="hand", how="inner")
            .filter(pl.col("net") + pl.col("rake").fill_null(0) != 0)
            .select(
                "hand",
                reason=pl.lit("summary nets add up to ")
                + pl.col("net").cast(pl.String).fill_null("(unreadable)")
                + pl.lit(", not minus the rake"),
            )
        )
        return pl.concat([per_seat, balance])


class KingsClubParser(AnchoredParser):
    """Parser for KingsClub text hand histories."""

    site: ClassVar[str] = SITE
    # One line per player (halves and boards summed); rake printed whenever taken, no total
    # pot; uncalled bets returned silently.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_player",
        rake_printed=True,
        uncalled_printed=False,
        # Hand 3969308: a side pot of the folded small blind's chips goes back to the big blind,
        # the only player left in it, without a line; the summary's nets show him whole.
        sole_pots_printed=False,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = _Block
