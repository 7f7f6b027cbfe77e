"""Everleaf Gaming hand histories (``Everleaf Gaming Game #N``), Omaha Hi/Lo.

What Everleaf prints, and so what this parser records (site-formats.md, "Everleaf"):

- ``Everleaf Gaming Game #N`` opens a hand, then ``***** Hand history for game #N *****`` and the
  header ``$0.50/$1 Omaha Hi/Lo - 2010/03/01 - 11:09:52``: fixed limit when no ``PL``/``NL`` is
  given, the stakes are then the bets and the blinds come from the posts (``Blinds $0.50/$1 PL
  Omaha …`` gives blinds). No time zone is printed or documented: times are taken as UTC and
  ``hands.time_zone`` is null. Hands are separated by three or more blank lines.
- Money ``$ 0.48 USD`` and ``$0.47`` are both read as cents; tournaments (no currency) as chips.
- Every action amount is an increment (``raises [$ 0.75 USD]`` adds $0.75).
- Payouts are labelled per half and name the pot: ``wins  high ($ 0.47 USD) from main pot``,
  ``wins  low ($0.95) from main pot``; an unsplit pot is ``wins $ 1.90 USD from main pot`` (half
  null). Even an uncontested pot on a low board can be written as ``high`` + ``low``.
- No total pot and no rake are printed ("absent": ``hands.total_pot`` and ``rake`` null), and
  uncalled bets are silent: they stay in the bettor's contribution.
- Hand descriptions: the high one on the ``shows`` line, the low one only on a ``wins low … with``
  line.
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import local_time_to_utc
from parsers.engine.assembly import showdown_rows
from parsers.engine.block_parts import (
    BlockParts,
    BlockPartsParser,
    amount_value,
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
from parsers.engine.stakes import blinds_and_bets
from pipeline.profiles import SiteProfile

__all__ = ["EverleafParser"]

SITE = "everleaf"
O8_GAMES = ("Omaha Hi/Lo",)

HAND_START = r"^\ufeff?Everleaf Gaming Game #(?P<hand_id>\d+)$"
_SNIFF = re.compile(
    r"^\ufeff?(?:Everleaf Gaming Game #\d+$|\*{5} Hand history for game #\d+ )", re.MULTILINE
)
HISTORY = r"^\*{5} Hand history for game #(?P<number>\d+) \*{5}$"
HEADER = (
    r"^(?:Blinds )?(?P<first>[$€£]?[\d.,]+) ?/ ?(?P<second>[$€£]?[\d.,]+) (?:(?P<limit>NL|PL) )?"
    r"(?P<game>.+?)(?: - (?P<max_seats>\d+) Max)?"
    r" - (?P<date>\d{4}/\d{2}/\d{2}) - (?P<time>\d{2}:\d{2}:\d{2})$"
)
TABLE = r"^Table (?P<table_name>.+)$"
BUTTON = r"^Seat (?P<button_seat>\d+) is the button$"
PLAYERS = r"^Total number of players: \d+$"
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+?) \( +(?P<stack>[^)]*?) *\)$"
DEAL = r"^\*\* Dealing (?P<street>down cards|Flop|Turn|River) \*\*(?: \[(?P<cards>[^\]]*)\])?$"
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
ACTION = (
    r"^(?P<player>.+?):? (?P<verb>posts small blind|posts big blind|posts both blinds|posts ante"
    r"|calls|bets|raises|checks|folds)(?: \[(?P<amount>[^\]]*)\])?(?P<all_in> and is all-in)?$"
)
SHOW = r"^(?P<player>.+?) (?P<verb>shows|mucks) \[(?P<cards>[^\]]*)\] ?(?P<desc>.*)$"
WIN = (
    r"^(?P<player>.+?) wins +(?:(?P<half>high|low) +)?\(?(?P<amount>[$€£]? ?[\d.,]+(?: [A-Z]{3})?)\)?"
    r" from (?P<pot>main|side) pot(?: (?P<side>\d+))?(?: with (?P<desc>.*?))?(?: \[[^\]]*\])?$"
)
INFORMATIONAL = (
    r"^(?:.+ (?:has left the table|has joined the table|is sitting out|sits out|is back"
    r"|has been disconnected|has reconnected|has timed out"
    r"|has disconnected(?: and has been given a further \d+ seconds to react)?)"
    r")$"
)
NO_SHOW = r"^(?P<player>.+?) does not show cards$"
CHAT = r"^[^:\[\]]+: "  # tried after the actions, some of which carry a colon
VERBS = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts both blinds": "post_both",
    "posts ante": "ante",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "checks": "check",
    "folds": "fold",
}
SECTIONS = {"down cards": 0, "Flop": 1, "Turn": 2, "River": 3}


class EverleafParser(BlockPartsParser):
    """Parser for Everleaf Gaming text hand histories (Omaha Hi/Lo)."""

    site: ClassVar[str] = SITE
    # Labelled halves with the pot named, no total pot and no rake printed ("absent").
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=True,
        odd_chip_unit=1,
        raise_cap=4,
        rake_printed=False,
        uncalled_printed=False,
    )

    # An ``Everleaf Gaming Game #N`` or ``***** Hand history for game #N`` line.
    sniff_pattern: ClassVar[re.Pattern[str]] = _SNIFF
    hand_start: ClassVar[str] = HAND_START

    @staticmethod
    def read_parts(frame: pl.DataFrame) -> BlockParts:
        return _parts(frame)


def _parts(frame: pl.DataFrame) -> BlockParts:
    body = frame.filter(pl.col("hand") >= 0)
    forms = (
        LineForm("blank", pattern=r"^\s*$"),
        LineForm("start", pattern=HAND_START),
        LineForm("history", pattern=HISTORY),
        LineForm("header", pattern=HEADER),
        LineForm("button", pattern=BUTTON),
        LineForm("players", pattern=PLAYERS),
        LineForm("seat", pattern=SEAT),
        LineForm("deal", pattern=DEAL),
        LineForm("dealt", pattern=DEALT),
        LineForm("win", pattern=WIN),
        LineForm("show", pattern=SHOW),
        LineForm("noshow", pattern=NO_SHOW),
        LineForm("info", pattern=INFORMATIONAL),
        LineForm("action", pattern=ACTION),
        LineForm("table", pattern=TABLE),
        LineForm("chat", pattern=CHAT),
    )
    lines = body.with_columns(kind=kinds_of(body, forms, "unknown"))
    # "Table <name>" comes once, between the stakes header and the button and seat lines;
    # another line that starts with "Table" is free text.
    kind = pl.col("kind")
    header_seen = (kind == "header").cum_sum().over("hand") > 0
    setup_seen = kind.is_in(["button", "players", "seat"]).cum_sum().over("hand") > 0
    table_line = (kind == "table") & header_seen & ~setup_seen
    lines = lines.with_columns(
        kind=pl.when((kind == "table") & ~(table_line & (table_line.cum_sum().over("hand") == 1)))
        .then(pl.lit("unknown"))
        .otherwise(kind)
    )
    street = lines["line"].str.extract(DEAL, 1).replace_strict(
        SECTIONS, default=None, return_dtype=pl.Int8
    )
    lines = lines.with_columns(section=sections(lines, street, 0))

    # -- headers --------------------------------------------------------------------------------
    header_lines = (
        lines.filter(pl.col("kind") == "header")
        .unique("hand", keep="first")
        .select("hand", pl.col("line").str.extract_groups(HEADER).alias("h"))
        .unnest("h")
    )
    parsed = (
        lines.filter(pl.col("is_start"))
        .select(
            "hand", "line", source_offset="offset",
            hand_id=pl.col("line").str.extract(HAND_START, 1),
        )
        .join(header_lines, on="hand", how="left")
        .join(first_per_hand(lines, "table", TABLE), on="hand", how="left")
    )
    symbol = pl.col("first").str.extract(r"^([$€£])", 1)
    currency = (
        pl.when(symbol.is_null())
        .then(pl.lit("CHIPS"))
        .otherwise(symbol.replace_strict({"$": "USD", "€": "EUR", "£": "GBP"}, default="UNKNOWN"))
    )
    parsed = parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null() & pl.col("game").is_not_null(),
        is_o8=pl.col("game").is_in(list(O8_GAMES)).fill_null(False),
        game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
        currency=currency,
        money_scale=pl.when(symbol.is_null()).then(1).otherwise(100),
        limit_type=pl.col("limit").fill_null("FL"),
    )
    headers = parsed.select("hand", "hand_id", "header_ok", "game", "is_o8")
    scale_of = parsed.select("hand", "money_scale")
    scale = pl.col("money_scale")

    # -- actions --------------------------------------------------------------------------------
    acts = (
        kind_fields(lines, "action", ACTION, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            kind=pl.col("verb").replace_strict(VERBS, default=None),
            amount=amount_value(pl.col("amount"), scale),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.col("all_in").is_not_null(),
            sub=pl.lit(0),
        )
    )
    posted = acts.group_by("hand").agg(
        posted_sb=pl.col("amount").filter(pl.col("kind") == "post_sb").max(),
        posted_bb=pl.col("amount").filter(pl.col("kind") == "post_bb").max(),
        posted_ante=pl.col("amount").filter(pl.col("kind") == "ante").max(),
    )
    boards = deal_board(lines, DEAL)
    is_fixed = pl.col("limit_type") == "FL"
    first_stake = amount_value(pl.col("first"), scale)
    second_stake = amount_value(pl.col("second"), scale)
    hands = (
        parsed.join(posted, on="hand", how="left")
        .join(first_per_hand(lines, "button", BUTTON), on="hand", how="left")
        .join(boards, on="hand", how="left")
        .with_columns(
            **blinds_and_bets(is_fixed, first_stake, second_stake),
            ante=pl.col("posted_ante"),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            # No zone printed or documented: the wall-clock time is taken as UTC.
            started_at=local_time_to_utc(
                pl.concat_str("date", pl.lit(" "), "time"), pl.lit("UTC"), zones=["UTC"]
            ),
            total_pot=pl.lit(None, dtype=pl.Int64),
            rake=pl.lit(None, dtype=pl.Int64),
        )
    )
    big_blind = hands.select("hand", "big_blind")
    both = acts.filter(pl.col("kind") == "post_both").join(big_blind, on="hand", how="left")
    acts = pl.concat(
        [
            acts.filter(pl.col("kind") != "post_both"),
            both.with_columns(
                kind=pl.lit("post_dead"), amount=pl.col("amount") - pl.col("big_blind")
            ).drop("big_blind"),
            both.with_columns(
                kind=pl.lit("post_bb"), amount=pl.col("big_blind"), sub=pl.lit(1)
            ).drop("big_blind"),
        ],
        how="vertical_relaxed",
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

    wins = (
        kind_fields(lines, "win", WIN, "hand", "line_no")
        .join(scale_of, on="hand", how="left")
    )
    noshows = lines.filter(pl.col("kind") == "noshow").select(
        "hand", "line_no", "section", player=pl.col("line").str.extract(NO_SHOW, 1)
    )
    actions = pl.concat(
        [actions, declined_shows(noshows, wins, shows.filter(pl.col("verb") == "shows"))],
        how="vertical_relaxed",
    )
    collections = wins.select(
        "hand",
        "line_no",
        "player",
        amount=amount_value(pl.col("amount"), scale),
        pot_index=pl.when(pl.col("pot") == "side")
        .then(pl.col("side").cast(pl.Int8, strict=False).fill_null(1))
        .otherwise(0)
        .cast(pl.Int8),
        half=pl.col("half"),
        board_index=pl.lit(0, dtype=pl.Int8),
    )
    lows = (
        wins.filter((pl.col("half") == "low") & pl.col("desc").is_not_null())
        .unique(["hand", "player"], keep="first")
        .select("hand", "player", low_desc="desc")
    )
    shown = (
        shows.filter(pl.col("verb") == "shows")
        .unique(["hand", "player"], keep="first", maintain_order=True)
        .join(lows, on=["hand", "player"], how="left")
    )
    showdowns = showdown_rows(
        shown, high_desc=pl.when(pl.col("desc") != "").then(pl.col("desc")), low_desc="low_desc"
    )
    # Seat lines after the first marker are summary lines: only the opening ones are seats.
    seats = seat_rows(lines.filter(pl.col("section") == 0), scale_of, SEAT)
    sightings = card_sightings(lines, shows, DEALT)
    checks = hand_problems(lines, hands, "win", "truncated hand: no payout line")

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
