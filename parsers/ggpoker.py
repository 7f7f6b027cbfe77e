"""GGPoker hand histories (``Poker Hand #OM232657303: …``), Omaha Hi/Lo.

UNCONFIRMED AGAINST REAL OMAHA HI/LO EXPORTS. No GGPoker Omaha Hi/Lo hand history was available:
this parser follows the documented GGPoker Omaha (high only) layout — public samples such as
``jejellyroll-fr/fpdb-3`` ``regression-test-files/cash/GGPoker/Flop/PLO-6max-USD-2-5-202101.RIT.txt``
— with the game named ``Omaha Hi/Lo`` (as in ``Omaha Hi/Lo Pot Limit ($0.5/$1)``; ``PLO Hi/Lo``
and ``PLO8`` are read as pot limit too). site-formats.md asks for real golden files before
GGPoker O8 is trusted; the parser is registered so that ``hilo generate --site ggpoker``
archives (written to this layout) round-trip, and is validated against that generated text
only. Real files must still confirm the game name, how a split pot's ``collected`` lines are
written (one per half, or one per player and pot) and how the hi/lo showdown text reads. Its
tests run on a hand written to imitate that layout.

What the documented layout prints, and so what this parser records:

- ``Poker Hand #OM181427446: Omaha Pot Limit ($0.5/$1) - 2020/04/14 07:56:19``: no time zone is
  printed; the time is read as UTC (``time_zone`` null). Tournament headers
  (``Poker Hand #TM…: Tournament #9364957, … Hold'em No Limit - Level10 (1,000/2,000) - …``) are
  recognised the same way. Other games (``PLO``, ``PLO-5``, ``Hold'em``) are counted as skipped.
- ``Seat 1: Hero ($82.4 in chips)`` (tournament chips grouped: ``1,500 in chips``); actions ``P: raises $14 to $19`` (the second figure is the
  street total), ``P: calls $29 and is all-in``; ``posts missed blind $2`` is dead money.
- ``Uncalled bet ($16) returned to Hero`` is an ``uncalled_return``.
- ``P collected $48.93 from pot``: kept line by line; halves are not labelled. ``from pot`` is
  printed for every pot a player wins (a main and a side pot give two ``from pot`` lines), so it
  names no pot (``pot_index`` null); ``main pot`` / ``side pot-N`` would. A run-it-twice hand
  prints ``*** FIRST SHOWDOWN ***`` / ``*** SECOND SHOWDOWN ***`` before each board's lines
  (``board_index`` 0 / 1); the second board takes the first board's cards on the streets it did
  not deal again. A hand run three times cannot be stored (two boards only): quarantined.
- ``Total pot $597.08 | Rake $7.5 | Jackpot $5 | Bingo $0``: the total is gross; rake, jackpot and
  bingo all leave the pot (Σ collected = total − rake − jackpot), so ``hands.rake`` holds their
  sum. ``Cash Drop to Pot : total $0.2`` adds house money to the pot that no action accounts for:
  such a hand is quarantined rather than stored with a pot that cannot balance.
- ``shows [..] (desc)``: a ``HI: …; LO: …`` description is split as at PokerStars, any other text is
  the high description.
"""

from __future__ import annotations

from typing import ClassVar

import polars as pl

from parsers.columns import money
from parsers.engine.line_forms import LineForm
from parsers.engine.line_kinds import (
    CURRENCY_SYMBOLS,
    FIRST_SITE_KIND,
    FLOP,
    KIND_MARKER,
    PREFLOP,
    RIVER,
    SHOWDOWN,
    SUMMARY,
    TURN,
    Required,
    TextFormat,
    TextFormatParser,
    first_lines,
    head_has_line,
    sightings,
    utc_time,
)
from pipeline.profiles import SiteProfile

__all__ = ["GGPokerParser"]

SITE = "ggpoker"
O8_GAMES = ("Omaha Hi/Lo", "PLO Hi/Lo", "PLO8")

HAND_START = r"^Poker Hand #[A-Z]{0,3}\d+: "
HEADER = (
    r"^Poker Hand #(?P<hand_id>[A-Z]{0,3}\d+): "
    r"(?:Tournament #(?P<tournament_id>\d+), (?P<tournament_name>.*?) )?"
    r"(?P<game>Omaha Hi/Lo|PLO Hi/Lo|PLO8|PLO-5|PLO-6|PLO|Omaha|Hold'em|ShortDeck|[A-Za-z0-9'/-]+)"
    r"(?: (?P<limit>No Limit|Pot Limit|Fixed Limit|Limit))?(?: - Level(?P<level>\S+))? "
    r"\((?P<stakes>[^)]*)\) - (?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})$"
)
STAKES = (
    r"^(?:ante (?P<ante>[\d.,]+), )?(?P<symbol>[$€£¥]?)(?P<first>[\d.,]+)/[$€£¥]?(?P<second>[\d.,]+)"
    r"(?: .*)?$"
)
TABLE = (
    r"^Table '(?P<table_name>.*)' (?P<max_seats>\d+)-max (?:\(Play Money\) )?"
    r"Seat #(?P<button_seat>\d+) is the button$"
)
SEAT = (
    r"^Seat (?P<seat>\d+): (?P<player>.+?) \((?P<stack>[^ )]+) in chips"
    r"(?:, (?P<bounty>[^)]*?) bounty)?\)(?P<flags>.*)$"
)
DEALT = r"^Dealt to (?P<player>.+?)(?: \[(?P<cards>[^\]]*)\])?$"
ACTION = (
    r"^(?P<player>.+?): (?P<verb>posts small blind|posts big blind|posts missed blind|posts the ante"
    r"|posts straddle|straddle|folds|checks|calls|bets|raises|shows|mucks hand|mucks)"
    r"(?: (?P<first>[^ \[(]+))?(?: to (?P<to>\S+))?(?: \[(?P<cards>[^\]]*)\])?"
    r"(?P<all_in> and is all-in)?(?: \((?P<desc>.*)\))?$"
)
UNCALLED = r"^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<player>.+)$"
COLLECTED = (
    r"^(?P<player>.+?) collected (?P<amount>\S+) from "
    r"(?P<pot>pot|main pot|side pot(?:-(?P<side>\d+))?)$"
)
TOTAL = (
    r"^Total pot (?P<total>\S+)(?: \| Rake (?P<rake>\S+))?(?: \| Jackpot (?P<jackpot>\S+))?"
    r"(?: \| Bingo (?P<bingo>\S+))?(?: \| .*)?$"
)
SUMMARY_CARDS = r"^Seat \d+: (?P<player>.+?) (?:\([^)]*\) )*(?:showed|mucked) \[(?P<cards>[^\]]*)\]"
CASH_DROP = r"^Cash Drop to Pot : total "
MARKER = r"^\*\*\* (?P<name>[A-Z][A-Z ]*?) \*\*\*(?: (?P<cards>\[.*))?$"
INFORMATIONAL = (
    r"^(?:(?:FIRST |SECOND |THIRD )?Board \[.*\]|Hand was run (?:two|three) times|Seat \d+: .+"
    r"|Cash Drop to Pot : total .+|.+: doesn't show hand|.+: (?:get an all-in insurance|pay premium"
    r" of all-in insurance|Receives Cashout|Chooses to EV Cashout|Pays Cashout Risk).*"
    r"|.+ (?:is sitting out|sits out|has timed out|is disconnected|is connected|has returned"
    r"|leaves the table|joins the table.*)|.+ cashed out the hand for .+"
    r"|.+ wins .+ for eliminating .+|.+ finished the tournament.*|.+ wins the tournament.*)$"
)

(
    KIND_TABLE,
    KIND_SEAT,
    KIND_DEALT,
    KIND_UNCALLED,
    KIND_COLLECTED,
    KIND_TOTAL,
    KIND_SUMMARY_CARDS,
    KIND_CASH_DROP,
    KIND_ACTION,
) = range(FIRST_SITE_KIND, FIRST_SITE_KIND + 9)

VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts missed blind": "post_dead",
    "posts the ante": "ante",
    "posts straddle": "post_bb",
    "straddle": "post_bb",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "shows": "show",
    "mucks hand": "muck",
    "mucks": "muck",
}
STREETS = {"FLOP": FLOP, "TURN": TURN, "RIVER": RIVER, "SHOWDOWN": SHOWDOWN}
RUNS = {"": 0, "FIRST ": 0, "SECOND ": 1, "THIRD ": 2}


class GGPokerFormat(TextFormat):
    site: ClassVar[str] = SITE
    hand_start: ClassVar[str] = HAND_START
    marker: ClassVar[str] = MARKER
    sections: ClassVar[dict[str, tuple[int, int]]] = {
        "HOLE CARDS": (PREFLOP, 0),
        "SUMMARY": (SUMMARY, 0),
        **{
            f"{run}{name}": (section, board)
            for name, section in STREETS.items()
            for run, board in RUNS.items()
        },
    }
    line_kinds: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_TABLE, starts="Table '", where="setup"),
        LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
        LineForm(KIND_DEALT, pattern=DEALT, where="dealt"),
        LineForm(KIND_UNCALLED, pattern=UNCALLED, where="body"),
        LineForm(KIND_COLLECTED, pattern=COLLECTED, where="body"),
        LineForm(KIND_TOTAL, starts="Total pot ", where="summary"),
        LineForm(KIND_SUMMARY_CARDS, pattern=SUMMARY_CARDS, where="summary"),
        LineForm(KIND_CASH_DROP, pattern=CASH_DROP),
        LineForm(KIND_ACTION, pattern=ACTION, where="body"),
    )
    informational: ClassVar[str] = INFORMATIONAL
    required_lines: ClassVar[tuple[Required, ...]] = (
        Required(pl.col("marker") == "SUMMARY", "truncated hand: no summary"),
        Required(pl.col("marker") == "HOLE CARDS", "truncated hand: no hole cards section"),
        Required(pl.col("kind") == KIND_TABLE, "table line missing or repeated", exactly_one=True),
    )

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        parsed = (
            body.filter(pl.col("is_start"))
            .select("hand", "offset", "line", pl.col("line").str.extract_groups(HEADER).alias("h"))
            .unnest("h")
        )
        parsed = (
            parsed.with_columns(pl.col("stakes").str.extract_groups(STAKES).alias("s"))
            .unnest("s")
            .join(first_lines(body, TABLE, "t"), on="hand", how="left")
        )
        is_tournament = pl.col("tournament_id").is_not_null()
        game = pl.col("game")
        limit_type = pl.coalesce(
            pl.col("limit").replace_strict(
                {"No Limit": "NL", "Pot Limit": "PL", "Fixed Limit": "FL", "Limit": "FL"},
                default=None,
            ),
            pl.when(game.str.starts_with("PLO")).then(pl.lit("PL")),
        )
        currency = (
            pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .when(pl.col("symbol").fill_null("") != "")
            .then(pl.col("symbol").replace_strict(CURRENCY_SYMBOLS, default=None))
            .otherwise(pl.lit("PLAY"))
        )
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null() & pl.col("first").is_not_null(),
            game=game.fill_null(pl.col("line").str.slice(0, 80)),
            is_o8=game.is_in(list(O8_GAMES)),
            limit_type=limit_type,
            currency=currency,
            money_scale=pl.when(is_tournament).then(1).otherwise(100).cast(pl.Int32),
            started_at=utc_time(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.lit(None, dtype=pl.String),
                "%Y/%m/%d %H:%M:%S",
                [],
            ),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
        )

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_ACTION, ACTION)

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        columns = [
            "hand",
            "line_no",
            "section",
            "player",
            "sub",
            "kind",
            "amount",
            "to",
            "is_all_in",
        ]
        played = self._action_fields(lines).select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.col("verb").replace_strict(VERB_KIND),
            amount=self.money("first"),
            to=pl.when(pl.col("verb") == "raises").then(self.money("to")),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        uncalled = self.uncalled_returns(lines, KIND_UNCALLED, UNCALLED)
        return pl.concat([played.select(columns), uncalled.select(columns)], how="vertical_relaxed")

    def hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, actions: pl.DataFrame
    ) -> pl.DataFrame:
        parts = ("total", "rake", "jackpot", "bingo")
        totals = self.fields(lines, KIND_TOTAL, TOTAL).unique("hand", keep="first")
        totals = totals.select(
            "hand",
            *[self.money(part).alias(f"{part}_value") for part in parts],
            bad_money=self.unreadable_money(*parts),
        )
        counts = lines.group_by("hand").agg(
            third_run=(
                (pl.col("kind") == KIND_MARKER) & pl.col("marker").str.starts_with("THIRD ")
            ).any(),
            cash_drop=(pl.col("kind") == KIND_CASH_DROP).any(),
        )
        checks = (
            (
                pl.col("total_value").is_null() | pl.col("bad_money").fill_null(True),
                "missing or unreadable total pot / rake",
            ),
            (
                pl.col("third_run").fill_null(False),
                "hand run three times: only two boards can be stored",
            ),
            (
                pl.col("cash_drop").fill_null(False),
                "cash drop to pot: house money no action accounts for",
            ),
        )
        taken = [pl.col(f"{part}_value") for part in ("rake", "jackpot", "bingo")]
        return self.hand_table(
            headers,
            lines,
            actions,
            (totals, counts),
            checks,
            **self.header_stakes(),
            ante=pl.coalesce(money(pl.col("ante"), pl.col("money_scale")), pl.col("posted_ante")),
            total_pot=pl.col("total_value"),
            # Rake, jackpot and bingo all leave the pot (see the module docstring).
            rake=pl.when(pl.any_horizontal([value.is_not_null() for value in taken])).then(
                pl.sum_horizontal([value.fill_null(0) for value in taken])
            ),
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.seat_rows(lines, KIND_SEAT, SEAT, sitting_out="sitting out")

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_COLLECTED, COLLECTED).select(
            "hand",
            "line_no",
            "player",
            "board_index",
            amount=self.money("amount"),
            # "from pot" is also printed for side pots (one line per pot won): no pot named.
            pot_index=pl.when(pl.col("pot") == "main pot")
            .then(0)
            .when(pl.col("pot").str.starts_with("side pot"))
            .then(pl.col("side").cast(pl.Int8, strict=False).fill_null(1))
            .cast(pl.Int8),
            half=pl.lit(None, dtype=pl.String),
        )

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        desc = pl.col("desc")
        split = desc.str.contains(r"^HI: ")
        return (
            self._action_fields(lines)
            .filter(pl.col("verb") == "shows")
            .select(
                "hand",
                "line_no",
                "player",
                "board_index",
                cards_text=pl.col("cards"),
                high_desc=pl.when(split)
                .then(desc.str.extract(r"^HI: (.*?)(?:; LO: |$)", 1))
                .otherwise(desc),
                low_desc=pl.when(split).then(desc.str.extract(r"; LO: (.*)$", 1)),
            )
        )

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        return pl.concat(
            [
                sightings(self.fields(lines, KIND_DEALT, DEALT), dealt=True),
                sightings(self._action_fields(lines), dealt=False),
                sightings(self.fields(lines, KIND_SUMMARY_CARDS, SUMMARY_CARDS), dealt=False),
            ]
        )


class GGPokerParser(TextFormatParser):
    """Parser for GGPoker text hand histories (Omaha Hi/Lo layout unconfirmed: see the module)."""

    site: ClassVar[str] = SITE
    text_format = GGPokerFormat
    # Payout lines per pot (halves not labelled, one line or two per player: unconfirmed);
    # the printed total is gross of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE, halves_labelled=False, total_pot_is_gross=True, raise_cap=4
    )

    def sniff(self, head: str) -> bool:
        """A GGPoker hand header at the start of a line within the first lines."""
        return head_has_line(head, HAND_START)
