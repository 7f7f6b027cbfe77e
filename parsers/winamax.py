"""Winamax hand histories (``Winamax Poker - CashGame - HandId: #…``).

What Winamax prints, and so what this parser records:

- ``Winamax Poker - CashGame - HandId: #9247976-238-1478874600 - Omaha Hi/Lo pot limit (1€/2€) -
  2016/11/11 14:30:00 UTC``; play money writes ``Omaha8 pot limit (0.05/0.10)`` and ``(play money)``
  on the table line; tournaments ``Winamax Poker - Tournament "…" buyIn: … level: 4 - HandId: …``
  with ``(ante/sb/bb)`` stakes. Games read (`GAME_NAMES`): ``Omaha Hi/Lo`` and ``Omaha8``
  (Omaha Hi/Lo, ``O8``), ``5 Card Omaha Hi/Lo`` (Big O, ``O8-5card``: five hole cards, else
  printed as Omaha Hi/Lo); every other game is counted as skipped.
- Amounts carry a ``€`` suffix for real money (``4.96€``) and none for play money or tournament
  chips, which still have cents (``0.47``, ``7410.50``): all are stored in hundredths
  (``money_scale`` 100). Old tournament exports round large totals (``Total pot 15.52k``): no
  total is recorded then.
- ``raises 4€ to 6€``: the second figure is the street total; ``calls`` and ``bets`` give the chips
  added. ``posts small blind 2€ out of position`` is a dead small blind (``post_dead``); a big
  blind out of position is live (``post_bb``: its poster then checks or calls).
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

Read by the line-kind engine (`parsers.engine.line_kinds.TextFormat`): this module holds only
Winamax's line forms and the steps its text needs.
"""

from __future__ import annotations

from typing import ClassVar

import polars as pl

from parsers.columns import money
from parsers.engine.block_parts import folded_excess_returns
from parsers.games import game_codes
from parsers.engine.line_forms import LineForm
from parsers.engine.line_kinds import (
    FIRST_SITE_KIND,
    FLOP,
    PREFLOP,
    RIVER,
    SETUP,
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

__all__ = ["WinamaxParser"]

# -- Winamax ---------------------------------------------------------------------------------------

SITE = "winamax"
# The games read, by the name the header prints (`parsers.games` codes); any other is skipped.
GAME_NAMES = {"Omaha Hi/Lo": "O8", "Omaha8": "O8", "5 Card Omaha Hi/Lo": "O8-5card"}

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
    line_kinds: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_TABLE, starts="Table: '", where="setup"),
        LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
        LineForm(KIND_DEALT, pattern=DEALT, where="body"),
        LineForm(KIND_COLLECTED, pattern=COLLECTED, where="body"),
        LineForm(KIND_TOTAL, starts="Total pot ", where="summary"),
        LineForm(KIND_SUMMARY_CARDS, pattern=SUMMARY_CARDS, where="summary"),
        LineForm(KIND_ACTION, pattern=ACTION, where="body"),
    )
    informational: ClassVar[str] = INFORMATIONAL
    required_lines: ClassVar[tuple[Required, ...]] = (
        Required(pl.col("marker") == "SUMMARY", "truncated hand: no summary"),
        Required(pl.col("kind") == KIND_TABLE, "table line missing or repeated", exactly_one=True),
    )

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
            game_code=game_codes(pl.col("game"), GAME_NAMES),
            is_o8=game_codes(pl.col("game"), GAME_NAMES).is_not_null(),
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
        checks = (
            (
                ~pl.col("total_ok").fill_null(False)
                | (pl.col("total_pot").is_null() & ~pl.col("abbreviated"))
                | pl.col("rake").is_null(),
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
            ante=pl.coalesce(money(pl.col("ante"), pl.col("money_scale")), pl.col("posted_ante")),
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.seat_rows(lines, KIND_SEAT, SEAT, sitting_out="sitting out")

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_ACTION, ACTION)

    def street_totals(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The engine's street totals, plus the return Winamax never prints for a player who
        folded with the largest contribution (a small blind folding to a big blind all-in for
        less): nobody still in can win those chips. A bettor who wins gets an uncalled bet
        back as a won pot instead (see the module docstring)."""
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
        # Out of position, a small blind is dead; a big blind is live (its poster then checks
        # or calls to the bet: "x CarlosD x posts big blind 0.02€ out of position").
        dead = pl.col("dead").is_not_null() & (pl.col("verb") == "posts small blind")
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
        return pl.concat(
            [
                sightings(self.fields(lines, KIND_DEALT, DEALT), dealt=True),
                sightings(self._action_fields(lines), dealt=False),
                sightings(self.fields(lines, KIND_SUMMARY_CARDS, SUMMARY_CARDS), dealt=False),
            ]
        )


class WinamaxParser(TextFormatParser):
    """Parser for Winamax text hand histories."""

    site: ClassVar[str] = SITE
    text_format = WinamaxFormat
    # Labelled halves per pot; the printed total pot is net of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=False,
        raise_cap=4,
        # HandId: #<table>-<the table's hand count>-<unix time> (see SiteProfile.hand_counter).
        hand_counter=r"^[0-9]+-([0-9]+)-[0-9]+$",
    )

    def sniff(self, head: str) -> bool:
        """A Winamax hand header at the start of a line within the first lines."""
        return head_has_line(head, HAND_START + r".*HandId: #")
