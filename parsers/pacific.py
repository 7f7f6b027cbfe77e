"""888 / Pacific Poker hand histories (``***** Cassava Hand History for Game N *****``), OmahaHL.

What 888 prints, and so what this parser records (site-formats.md, "888 / Pacific (Cassava)"):

- ``#Game No : N`` and ``***** Cassava Hand History for Game N *****`` (also ``888poker``) open a
  hand. The header gives the **blinds** and the limit: ``15/30 Blinds Fix Limit OmahaHL - *** 11 03
  2011 15:43:53`` (day month year). No time zone is printed and none is documented
  (site-formats §3), so times are taken as UTC and ``hands.time_zone`` is null.
- Money: real-money cash in cents; play money (``(Practice Play)``) also carries cents
  (``( 1,459.13 )``) and is stored in hundredths (``currency`` PLAY, ``money_scale`` 100);
  tournament chips are printed with ``$`` but are chips (``money_scale`` 1).
- Every action amount is an increment (``raises [$30]`` adds 30). Fixed limit: the small bet is
  the big blind, the big bet twice that.
- Payouts are unlabelled and name no pot: ``collected [ $116 ]`` once per half, so a scoop is two
  identical lines (``collections.pot_index`` and ``half`` are null).
- No total pot, no rake (``hands.total_pot`` and ``rake`` null) and uncalled bets are silent: the
  chips stay in the bettor's contribution and are never returned in the text.
- ``(Hi: …)`` / ``(Lo: …)`` lines after a ``shows`` line are that player's hand descriptions.
"""

from __future__ import annotations

import re
from typing import ClassVar

import numpy as np
import polars as pl

from parsers.columns import local_time_to_utc
from parsers.engine.assembly import showdown_rows
from parsers.engine.block_parts import (
    BlockParts,
    BlockPartsParser,
    amount_value,
    anchor_starts,
    card_codes,
    card_sightings,
    deal_board,
    declined_shows,
    first_per_hand,
    hand_problems,
    seat_rows,
    sections,
    unknown_lines,
)
from parsers.engine.line_forms import LineForm, kind_fields, kinds_of
from pipeline.profiles import SiteProfile

__all__ = ["PacificParser"]

SITE = "pacific"
O8_GAMES = ("OmahaHL", "Omaha Hi/Lo")

_BRAND = r"(?:Cassava|888poker|888)(?:\.[a-z]{2})? (?:Snap Poker |BLAST )?"
GAME_NUMBER = r"^#Game No : (?P<number>\d+)$"
HISTORY_LINE = r"^\*{4,5} " + _BRAND + r"Hand History for Game (?P<number>\d+) \*{4,5}$"
_ANCHOR = (
    r"^(?:#Game No : (\d+)$|\*{4,5} " + _BRAND + r"Hand History for Game (\d+) \*{4,5}$)"
)
_SNIFF = re.compile(r"^\*{4,5} " + _BRAND + r"Hand History for Game \d+ ", re.MULTILINE)

HEADER = (
    r"^(?P<sb>[$€£]?[\d.,]+)/(?P<bb>[$€£]?[\d.,]+) Blinds "
    r"(?P<limit>No Limit|Pot Limit|Fix Limit|Limit) (?P<game>.+?)(?: Jackpot table)?"
    r" - \*\*\* (?P<day>\d{2}) (?P<month>\d{2}) (?P<year>\d{4}) (?P<time>\d{1,2}:\d{2}:\d{2})$"
)
TABLE = (
    r"^(?:Tournament #(?P<tournament_id>\d+) (?P<buy_in>.+?) - Table #(?P<tournament_table>\d+)"
    r"|Table (?P<table_name>.+?))(?: (?P<max_seats>\d+) Max)?"
    r" \((?P<money>Real Money|Practice Play|Play Money)\)$"
)
BUTTON = r"^Seat (?P<button_seat>\d+) is the button$"
PLAYERS = r"^Total number of players : \d+$"
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \( (?P<stack>[^)]*?) \)$"
DEAL = r"^\*\* Dealing (?P<street>down cards|flop|turn|river) \*\*(?: \[(?P<cards>[^\]]*)\])?$"
SUMMARY = r"^\*\* Summary \*\*$"
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind|posts (?:the )?ante"
    r"|posts dead blind|calls|bets|raises|checks|folds)"
    r"(?: \[(?P<amount>[^\]+]*?)(?: \+ (?P<second>[^\]]*?))?\])?(?P<all_in> and is all.in)?"
    r"(?: and has reached the .* cap)?$"
)
SHOW = r"^(?P<player>.+?) (?P<verb>shows|mucks) \[(?P<cards>[^\]]*)\]$"
DESCRIPTION = r"^\((?P<half>Hi|Lo): (?P<desc>.*)\)$"
COLLECTED = r"^(?P<player>.+?) collected \[ (?P<amount>[^\]]*?) \]$"
INFORMATIONAL = (
    r"^(?:.+ (?:has left the table|has joined the table|is sitting out|sits out|is back"
    r"|has been disconnected|has reconnected|is connected|has timed out)"
    r"|[^:\[\]]+: .*"  # chat; 888 actions carry no colon
    r")$"
)
NO_SHOW = r"^(?P<player>.+?) did not show (?:his|her) hand$"
VERBS = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts ante": "ante",
    "posts the ante": "ante",
    "posts dead blind": "post_both",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "checks": "check",
    "folds": "fold",
}
SECTIONS = {"down cards": 0, "flop": 1, "turn": 2, "river": 3}


class PacificParser(BlockPartsParser):
    """Parser for 888 / Pacific Poker text hand histories (Omaha Hi/Lo)."""

    site: ClassVar[str] = SITE
    # Unlabelled lines per half, no pot named, no total and no rake printed ("absent").
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        odd_chip_unit=1,
        raise_cap=4,
        rake_printed=False,
        uncalled_printed=False,
        # A walk's "collected [ $3 ]" at $1/$2 holds both blinds, while an uncalled bet or
        # raise is left out of the collected line (the 2016 Lubbock file: 27 walks).
        blinds_in_collected=True,
    )

    # A ``***** Cassava Hand History for Game N *****`` (or 888poker) line.
    sniff_pattern: ClassVar[re.Pattern[str]] = _SNIFF

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """The first anchor line (``#Game No`` or the history line) of each game number."""
        return anchor_starts(lines, _ANCHOR)

    @staticmethod
    def read_parts(frame: pl.DataFrame) -> BlockParts:
        return _parts(frame)


def _parts(frame: pl.DataFrame) -> BlockParts:
    body = frame.filter(pl.col("hand") >= 0)
    forms = (
        LineForm("blank", pattern=r"^\s*$"),
        LineForm("anchor", pattern=GAME_NUMBER),
        LineForm("history", pattern=HISTORY_LINE),
        LineForm("header", pattern=HEADER),
        LineForm("table", pattern=TABLE),
        LineForm("button", pattern=BUTTON),
        LineForm("players", pattern=PLAYERS),
        LineForm("seat", pattern=SEAT),
        LineForm("deal", pattern=DEAL),
        LineForm("summary", pattern=SUMMARY),
        LineForm("dealt", pattern=DEALT),
        LineForm("collected", pattern=COLLECTED),
        LineForm("show", pattern=SHOW),
        LineForm("description", pattern=DESCRIPTION),
        LineForm("noshow", pattern=NO_SHOW),
        LineForm("info", pattern=INFORMATIONAL),
        LineForm("action", pattern=ACTION),
    )
    lines = body.with_columns(kind=kinds_of(body, forms, "unknown"))
    street = lines["line"].str.extract(DEAL, 1).replace_strict(
        SECTIONS, default=None, return_dtype=pl.Int8
    )
    street = pl.select(
        pl.when(lines["kind"] == "summary").then(pl.lit(4, dtype=pl.Int8)).otherwise(street)
    ).to_series()
    lines = lines.with_columns(section=sections(lines, street, 0))

    # -- headers --------------------------------------------------------------------------------
    history_at = lines.filter(pl.col("kind") == "history").unique("hand", keep="first")
    header_lines = (
        lines.join(history_at.select("hand", history=pl.col("line_no")), on="hand", how="inner")
        .filter(pl.col("line_no") == pl.col("history") + 1)
        .select("hand", "line")
    )
    numbers = lines.filter(pl.col("is_start")).select(
        "hand",
        source_offset="offset",
        hand_id=pl.coalesce(
            pl.col("line").str.extract(GAME_NUMBER, 1), pl.col("line").str.extract(HISTORY_LINE, 1)
        ),
    )
    table = first_per_hand(lines, "table", TABLE)
    parsed = (
        numbers.join(header_lines, on="hand", how="left")
        .with_columns(pl.col("line").str.extract_groups(HEADER).alias("h"))
        .unnest("h")
        .join(table, on="hand", how="left")
    )
    is_tournament = pl.col("tournament_id").is_not_null()
    symbol = pl.col("sb").str.extract(r"^([$€£])", 1)
    currency = (
        pl.when(is_tournament)
        .then(pl.lit("CHIPS"))
        .when(pl.col("money").is_in(["Practice Play", "Play Money"]))
        .then(pl.lit("PLAY"))
        .otherwise(symbol.replace_strict({"$": "USD", "€": "EUR", "£": "GBP"}, default="UNKNOWN"))
    )
    parsed = parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null() & pl.col("game").is_not_null(),
        is_o8=pl.col("game").is_in(list(O8_GAMES)).fill_null(False),
        game=pl.col("game").fill_null(pl.col("line").fill_null("").str.slice(0, 80)),
        currency=currency,
        money_scale=pl.when(is_tournament).then(1).otherwise(100),
        limit_type=pl.col("limit").replace_strict(
            {"Fix Limit": "FL", "Limit": "FL", "Pot Limit": "PL", "No Limit": "NL"}, default=None
        ),
    )
    headers = parsed.select("hand", "hand_id", "header_ok", "game", "is_o8")
    scale_of = parsed.select("hand", "money_scale")
    scale = pl.col("money_scale")

    boards = deal_board(lines, DEAL)
    is_fixed = pl.col("limit_type") == "FL"
    hands = (
        parsed.join(first_per_hand(lines, "button", BUTTON), on="hand", how="left")
        .join(boards, on="hand", how="left")
        .with_columns(
            small_blind=amount_value(pl.col("sb"), scale),
            big_blind=amount_value(pl.col("bb"), scale),
        )
        .with_columns(
            small_bet=pl.when(is_fixed).then(pl.col("big_blind")),
            big_bet=pl.when(is_fixed).then(pl.col("big_blind") * 2),
            table_name=pl.coalesce("table_name", "tournament_table"),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            # No zone printed or documented: the wall-clock time is taken as UTC.
            started_at=local_time_to_utc(
                pl.concat_str("year", "month", "day", "time", separator=" "),
                pl.lit("UTC"),
                fmt="%Y %m %d %H:%M:%S",
                zones=["UTC"],
            ),
            total_pot=pl.lit(None, dtype=pl.Int64),
            rake=pl.lit(None, dtype=pl.Int64),
        )
    )

    # -- actions --------------------------------------------------------------------------------
    acts = (
        kind_fields(lines, "action", ACTION, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            kind=pl.col("verb").replace_strict(VERBS, default=None),
            amount=amount_value(pl.col("amount"), scale),
            second=amount_value(pl.col("second"), scale),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.col("all_in").is_not_null(),
            sub=pl.lit(0),
        )
    )
    # "posts dead blind [$15 + $30]": the first part is dead, the second a live big blind.
    both = acts.filter(pl.col("kind") == "post_both")
    acts = pl.concat(
        [
            acts.filter(pl.col("kind") != "post_both"),
            both.with_columns(kind=pl.lit("post_dead")),
            both.with_columns(kind=pl.lit("post_bb"), amount=pl.col("second"), sub=pl.lit(1)),
        ]
    )
    shows = (
        kind_fields(lines, "show", SHOW, "hand", "line_no", "section")
        .with_columns(cards=card_codes(pl.col("cards")))
    )
    columns = ["hand", "line_no", "sub", "street", "player", "kind", "amount", "to", "is_all_in"]
    actions = pl.concat(
        [
            acts.rename({"section": "street"}).select(columns),
            shows.select(
                "hand", "line_no", sub=pl.lit(0), street="section", player="player",
                kind=pl.when(pl.col("verb") == "shows").then(pl.lit("show")).otherwise(pl.lit("muck")),
                amount=pl.lit(None, dtype=pl.Int64), to=pl.lit(None, dtype=pl.Int64),
                is_all_in=pl.lit(False),
            ),
        ],
        how="vertical_relaxed",
    )

    # -- showdowns: "(Hi: …)" / "(Lo: …)" belong to the latest shows line -----------------------
    shower = pl.when(pl.col("kind") == "show").then(
        pl.col("line").str.extract(SHOW, 1)
    )
    described = (
        lines.with_columns(shower=shower.forward_fill().over("hand"))
        .filter(pl.col("kind") == "description")
        .select("hand", player="shower", d=pl.col("line").str.extract_groups(DESCRIPTION))
        .unnest("d")
        .group_by("hand", "player")
        .agg(
            high_desc=pl.col("desc").filter(pl.col("half") == "Hi").first(),
            low_desc=pl.col("desc").filter(pl.col("half") == "Lo").first(),
        )
    )
    shown = (
        shows.filter(pl.col("verb") == "shows")
        .unique(["hand", "player"], keep="first", maintain_order=True)
        .join(described, on=["hand", "player"], how="left")
    )
    showdowns = showdown_rows(shown, high_desc="high_desc", low_desc="low_desc")
    collections = (
        kind_fields(lines, "collected", COLLECTED, "hand", "line_no")
        .join(scale_of, on="hand", how="left")
        .select(
            "hand",
            "line_no",
            "player",
            amount=amount_value(pl.col("amount"), scale),
            pot_index=pl.lit(None, dtype=pl.Int8),
            half=pl.lit(None, dtype=pl.String),
            board_index=pl.lit(0, dtype=pl.Int8),
        )
    )
    noshows = lines.filter(pl.col("kind") == "noshow").select(
        "hand", "line_no", "section", player=pl.col("line").str.extract(NO_SHOW, 1)
    )
    actions = pl.concat(
        [actions, declined_shows(noshows, collections, shows.filter(pl.col("verb") == "shows"))],
        how="vertical_relaxed",
    )
    # Seat lines after the first marker are summary lines: only the opening ones are seats.
    seats = seat_rows(lines.filter(pl.col("section") == 0), scale_of, SEAT)
    sightings = card_sightings(lines, shows, DEALT)
    checks = hand_problems(lines, hands, "summary", "truncated hand: no summary")

    return BlockParts(
        frame=frame,
        headers=headers,
        hands=hands,
        seats=seats,
        actions=actions,
        collections=collections,
        showdowns=showdowns,
        sightings=sightings,
        problems=[checks],
        unknown_lines=unknown_lines(lines),
    )
