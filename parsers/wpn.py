"""Winning Poker Network hand histories, current format (``Hand #78708209 - Omaha H/L(…)``).

What WPN prints, and so what this parser records:

- ``Hand #78708209 - Omaha H/L(Fixed Limit) - $20.00/$40.00 - 2019/07/18 15:13:01 UTC``;
  tournaments ``Game Hand #N - Tournament #T - Omaha H/L(Pot Limit) - Level 1 (250.00/500.00)- …``.
  Games read (`GAME_NAMES`): ``Omaha H/L`` (Omaha Hi/Lo, ``O8``) and ``5Card Omaha H/L`` (Big O,
  ``O8-5card``: five hole cards, else printed as Omaha H/L: ``Hand #1471746632 - 5Card Omaha
  H/L(Pot Limit) - $3.00/$6.00 - …``). Other games (``Holdem``, ``Omaha``) are counted as
  skipped. Fixed-limit stakes are the bets; the blinds come from the posts. Times are printed
  in UTC.
- Cash amounts carry ``$`` (stored in cents); tournament chips are printed with two decimals
  (``30000.00``) and stored in chips.
- ``raises $30.00 to $40.00``: the second figure is the street total (the first is the chips
  added; only the total is used). ``posts dead $0.07`` is a missed small blind (dead) plus a
  live big blind; ``posts $x`` a live big blind when it is one, dead money otherwise.
- Tournament files open with one-card ``Dealt to P [4s]`` lines before the blinds: the draw for
  the button, not hole cards (ignored).
- ``Uncalled bet ($14.00) returned to P`` is recorded as ``uncalled_return``.
- Payouts are per pot and player, halves summed: ``collected $199.00 from main pot``; a run-it-
  twice hand prints ``from main pot 1`` / ``main pot 2`` where the number is the run (board), not
  the pot. A hand won without a showdown may print its payout only in the summary
  (``Seat 2: P did not show and won $9.00``): that line is the collection then (no pot named).
- ``Total pot $199.00 | Rake $0.96 | JP Fee $0.04``: the total is net of rake and jackpot fee
  (Σ collected = total). The schema has no jackpot-fee column, and the site's own arithmetic
  takes both from the pot (committed $200.00 = $199.00 paid + $0.96 + $0.04), so ``hands.rake``
  holds rake + JP fee; a hand without a printed rake has a null rake.
- ``LO - [5,4,3,2,1]`` (ace as 1) and ``LO - []`` (no low) are kept as printed; an empty low is
  stored as a null ``low_desc``.
"""

from __future__ import annotations

from typing import ClassVar

import polars as pl

from parsers.columns import money
from parsers.games import game_codes
from parsers.engine.line_forms import LineForm
from parsers.engine.line_kinds import (
    CURRENCY_SYMBOLS,
    FIRST_SITE_KIND,
    FLOP,
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

__all__ = ["WpnParser"]

SITE = "wpn"
# The games read, by the name the header prints (`parsers.games` codes); any other is skipped.
GAME_NAMES = {"Omaha H/L": "O8", "5Card Omaha H/L": "O8-5card"}

HAND_START = r"^(?:Game )?Hand #\d+ - "
HEADER = (
    r"^(?:Game )?Hand #(?P<hand_id>\d+) - "
    r"(?:(?P<guarantee>\S+ GTD )?Tournament #(?P<tournament_id>\d+) - )?"
    r"(?P<game>[^(]+?) ?\((?P<limit>[^)]*)\) - (?:Level (?P<level>\S+) )?"  # 2023: "H/L (No"
    r"\(?(?P<symbol>[$€£]?)(?P<first>[\d.,]+)/[$€£]?(?P<second>[\d.,]+)\)?\s?- "
    r"(?P<date>\d{4}/\d{2}/\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>[A-Z]+)$"
)
TABLE = (
    r"^(?:Table '(?P<quoted>[^']*)'|(?P<plain>.+?)) (?P<max_seats>\d+)-max "
    r"(?P<play>\(Play Money\) )?Seat #(?P<button_seat>\d+) is the button$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+?) \((?P<stack>[^)]*)\)(?P<flags>.*)$"
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts the small blind|posts the big blind|posts ante|posts dead"
    r"|posts|folds|checks|calls|bets|raises|shows|mucks hand)"
    r"(?: (?P<first>[^ \[(]+))?(?: to (?P<to>\S+))?(?: \[(?P<cards>[^\]]*)\])?"
    r"(?P<all_in> and is all-in)?(?: \((?P<desc>.*)\))?$"
)
UNCALLED = r"^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<player>.+)$"
COLLECTED = (
    r"^(?P<player>.+?) collected (?P<amount>\S+) from (?P<pot>main pot|side pot|pot)"
    r"(?:[- ]#?(?P<first_number>\d+))?(?: (?P<second_number>\d+))?$"
)
TOTAL = r"^Total pot (?P<total>\S+)(?: \| Rake (?P<rake>\S+))?(?: \| JP Fee (?P<jp_fee>\S+))?$"
SUMMARY_SEAT = (
    r"^Seat (?P<seat>\d+): (?P<player>.+?) (?:\((?:button|small blind|big blind)\) )*"
    r"(?:(?P<showed>showed|mucked) \[(?P<cards>[^\]]*)\]|did not show)"
    r"(?: and (?:won (?P<won>\S+)|lost))?(?: with .*)?$"
)
MARKER = r"^\*\*\* (?P<name>[A-Z][A-Z -]*?(?: \d)?) \*\*\*(?: (?P<cards>\[.*))?$"
INFORMATIONAL = (
    r"^(?:Main pot .+|Board(?: \d)? \[.*\]|Seat \d+: .+|Dealt to .+ \[[^ \]]+\]"
    r"|.+ does not show|.+ (?:is sitting out|sits out|has timed out|is disconnected"
    r"|is connected|has returned|leaves the table|joins the table.*)"
    r"|.+ wins .+ for eliminating .+|.+ finished the tournament.*)$"
)

(
    KIND_TABLE,
    KIND_SEAT,
    KIND_DEALT,
    KIND_UNCALLED,
    KIND_COLLECTED,
    KIND_TOTAL,
    KIND_SUMMARY_SEAT,
    KIND_ACTION,
) = range(FIRST_SITE_KIND, FIRST_SITE_KIND + 8)

VERB_KIND = {
    "posts the small blind": "post_sb",
    "posts the big blind": "post_bb",
    "posts ante": "ante",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "shows": "show",
    "mucks hand": "muck",
}
STREET_MARKERS = {"FLOP": FLOP, "TURN": TURN, "RIVER": RIVER, "SHOW DOWN": SHOWDOWN}


class WpnFormat(TextFormat):
    site: ClassVar[str] = SITE
    hand_start: ClassVar[str] = HAND_START
    marker: ClassVar[str] = MARKER
    sections: ClassVar[dict[str, tuple[int, int]]] = {
        "HOLE CARDS": (PREFLOP, 0),
        "RUN IT TWICE": (SHOWDOWN, 0),
        "SUMMARY": (SUMMARY, 0),
        **{name: (section, 0) for name, section in STREET_MARKERS.items()},
        **{
            f"{name} {run}": (section, run - 1)
            for name, section in STREET_MARKERS.items()
            for run in (1, 2)
        },
    }
    line_kinds: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_TABLE, pattern=r"-max .*Seat #\d+ is the button$", where="setup"),
        LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
        LineForm(KIND_DEALT, pattern=r"^Dealt to .+ \[\S+ \S+", where="dealt"),
        LineForm(KIND_UNCALLED, pattern=UNCALLED, where="body"),
        LineForm(KIND_COLLECTED, pattern=COLLECTED, where="body"),
        LineForm(KIND_TOTAL, starts="Total pot ", where="summary"),
        LineForm(KIND_SUMMARY_SEAT, pattern=SUMMARY_SEAT, where="summary"),
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
            .join(first_lines(body, TABLE, "t"), on="hand", how="left")
        )
        is_tournament = pl.col("tournament_id").is_not_null()
        currency = (
            pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .when(pl.col("symbol").fill_null("") != "")
            .then(pl.col("symbol").replace_strict(CURRENCY_SYMBOLS, default=None))
            .otherwise(pl.lit("PLAY"))
        )
        limit_type = pl.col("limit").replace_strict(
            {"Fixed Limit": "FL", "Pot Limit": "PL", "No Limit": "NL"}, default=None
        )
        headers = parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null(),
            game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
            game_code=game_codes(pl.col("game"), GAME_NAMES),
            is_o8=game_codes(pl.col("game"), GAME_NAMES).is_not_null(),
            limit_type=limit_type,
            currency=currency,
            money_scale=pl.when(is_tournament).then(1).otherwise(100).cast(pl.Int32),
            started_at=utc_time(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.col("zone"),
                "%Y/%m/%d %H:%M:%S",
                parsed["zone"].unique().to_list(),
            ),
            time_zone=pl.col("zone"),
            table_name=pl.coalesce("quoted", "plain"),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
        )
        fixed = pl.col("limit_type") == "FL"
        self._big_blinds = headers.select(
            "hand",
            header_big_blind=money(
                pl.when(fixed).then(pl.col("first")).otherwise(pl.col("second")),
                pl.col("money_scale"),
            ),
        )
        return headers

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_ACTION, ACTION)

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        acts = self._action_fields(lines).join(self._big_blinds, on="hand", how="left")
        amount = self.money("first")
        big_blind = pl.col("header_big_blind")
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
        single = acts.filter(~pl.col("verb").is_in(["posts dead", "posts"])).select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.col("verb").replace_strict(VERB_KIND),
            amount=amount,
            to=pl.when(pl.col("verb") == "raises").then(self.money("to")),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        # "posts $x": a live big blind when it is one, else dead money.
        posts = acts.filter(pl.col("verb") == "posts").select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.when(amount == big_blind)
            .then(pl.lit("post_bb"))
            .otherwise(pl.lit("post_dead")),
            amount=amount,
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        # "posts dead $x": the small blind part is dead, the big blind part live.
        both = acts.filter(pl.col("verb") == "posts dead")
        dead = both.select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.lit("post_dead"),
            amount=amount - big_blind,
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
        )
        live = both.select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(1),
            kind=pl.lit("post_bb"),
            amount=big_blind,
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        uncalled = self.uncalled_returns(lines, KIND_UNCALLED, UNCALLED)
        return pl.concat(
            [frame.select(columns) for frame in (single, posts, dead, live, uncalled)],
            how="vertical_relaxed",
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
                printed_rake=self.money("rake"),
                jp_fee=self.money("jp_fee"),
                money_bad=self.unreadable_money("total", "rake", "jp_fee"),
            )
        )
        checks = (
            (
                pl.col("total_pot").is_null() | pl.col("money_bad").fill_null(True),
                "missing or unreadable total pot / rake",
            ),
        )
        return self.hand_table(
            headers,
            lines,
            actions,
            (totals,),
            checks,
            **self.header_stakes(),
            ante=pl.col("posted_ante"),
            # Rake and jackpot fee both leave the pot (see the module docstring).
            rake=pl.when(pl.col("jp_fee").is_not_null())
            .then(pl.col("printed_rake").fill_null(0) + pl.col("jp_fee"))
            .otherwise(pl.col("printed_rake")),
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.seat_rows(lines, KIND_SEAT, SEAT, sitting_out="sitting out")

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        run_twice = lines.filter(pl.col("marker") == "RUN IT TWICE").select("hand").unique()
        found = self.fields(lines, KIND_COLLECTED, COLLECTED).with_columns(
            run_twice=pl.col("hand").is_in(run_twice["hand"].implode())
        )
        # In a run-it-twice hand the number after the pot is the run; otherwise the side pot.
        side = (
            pl.when(pl.col("run_twice") & (pl.col("pot") == "main pot"))
            .then(None)
            .otherwise(pl.col("first_number"))
        )
        body = found.select(
            "hand",
            "line_no",
            "player",
            "board_index",
            amount=self.money("amount"),
            pot_index=pl.when(pl.col("pot") != "side pot")
            .then(0)
            .otherwise(side.cast(pl.Int8, strict=False).fill_null(1))
            .cast(pl.Int8),
            half=pl.lit(None, dtype=pl.String),
        )
        summary_won = (
            self.fields(lines, KIND_SUMMARY_SEAT, SUMMARY_SEAT)
            .filter(pl.col("won").is_not_null())
            .join(body.select("hand").unique(), on="hand", how="anti")
            .select(
                "hand",
                "line_no",
                "player",
                board_index=pl.lit(0, dtype=pl.Int8),
                amount=self.money("won"),
                pot_index=pl.lit(None, dtype=pl.Int8),
                half=pl.lit(None, dtype=pl.String),
            )
        )
        return pl.concat([body, summary_won], how="vertical_relaxed")

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        desc = pl.col("desc")
        low = desc.str.extract(r"(?:^|\| )LO - (.*)$", 1)
        return (
            self._action_fields(lines)
            .filter(pl.col("verb") == "shows")
            .select(
                "hand",
                "line_no",
                "player",
                "board_index",
                cards_text=pl.col("cards"),
                high_desc=desc.str.extract(r"^HI - (.*?)(?: \| LO - .*)?$", 1).fill_null(
                    pl.when(~desc.str.contains(r"^(?:HI|LO) - ")).then(desc)
                ),
                low_desc=pl.when(low != "[]").then(low),
            )
        )

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        return pl.concat(
            [
                sightings(self.fields(lines, KIND_DEALT, DEALT), dealt=True),
                sightings(self._action_fields(lines), dealt=False),
                sightings(self.fields(lines, KIND_SUMMARY_SEAT, SUMMARY_SEAT), dealt=False),
            ]
        )


class WpnParser(TextFormatParser):
    """Parser for Winning Poker Network text hand histories (current format)."""

    site: ClassVar[str] = SITE
    text_format = WpnFormat
    # Per pot per player, halves summed; printed total net of rake and jackpot fee.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=False,
        raise_cap=4,
        payout_lines="per_pot",
    )

    def sniff(self, head: str) -> bool:
        """A WPN hand header (``Hand #N - game(limit) - …``) at the start of a line."""
        return head_has_line(head, HAND_START + r".*\((?:No|Pot|Fixed) Limit\) - ")
