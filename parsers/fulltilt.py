"""Full Tilt Poker hand histories (``Full Tilt Poker Game #`` / ``FullTiltPoker Game #``), Omaha H/L.

What Full Tilt prints, and so what this parser records (site-formats.md, "Full Tilt"):

- Headers: ``Full Tilt Poker Game #1088791321: Table Vero (6 max) - $200/$400 - Limit Omaha Hi/Lo
  - 0:03:34 ET - 2006/10/11``; 2011 ``… - Limit Omaha H/L - 19:36:43 CET - 2011/04/07 [13:36:43 ET -
  2011/04/07]`` (the bracketed ET time is used); 2014 ``… - FL Omaha H/L - $0.50/$1 - …`` (stakes
  after the game); old tournaments ``FullTiltPoker Game #579366587: $200 + $10 Heads Up Sit & Go
  (3795352), Table 1 - 40/80 - Limit Omaha H/L - …`` (chips). Fixed-limit stakes are the bets; the
  blinds come from the ``posts the small/big blind of`` lines. Other games are skipped.
- ``raises to $800`` gives the street total (the increment is derived); ``calls`` and ``bets`` give
  the chips added; ``, and is all in`` marks all-ins (a blind posted all in for less does not set
  the table's blind). ``posts a dead small blind of`` is dead money,
  ``posts $20`` a live big blind.
- ``Uncalled bet of $5 returned to P`` is an explicit return (``uncalled_return``).
- Payouts per pot and labelled half: ``wins the high pot ($2,048.50)``, ``wins the low pot``,
  ``wins the pot``, ``wins the main pot``, ``wins the side pot #2``, ``ties for the high pot``.
- ``Total pot $4,100 | Rake $3``: printed gross of rake.
- ``P mucks`` by a player who then wins the pot means "did not show": it is not a muck (the audit
  would otherwise treat the winner as having given up); a losing player's ``mucks`` is a muck.
- Observer and player chat, ``has 15 seconds left to act``, ``adds $5``, ``sits down`` and the
  2006 separate low lines `` (8,7,4,3,A)`` are informational; the HI/LO descriptions are read from
  the summary's ``showed [..] and won (..) with HI: …; LO: …`` lines.
- Run-it-twice hands (``*** RIVER 1 ***``, ``wins pot 1``) are quarantined: not supported.
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import holds_a_null, local_time_to_utc
from parsers.engine.assembly import showdown_rows
from parsers.engine.block_parts import (
    BlockParts,
    BlockPartsParser,
    amount_value,
    card_codes,
    declined_shows,
    first_per_hand,
    seat_rows,
    sections,
    unknown_lines,
)
from parsers.engine.checks import first_problem
from parsers.engine.line_forms import LineForm, kind_fields, kinds_of
from parsers.engine.stakes import blinds_and_bets
from pipeline.profiles import SiteProfile

__all__ = ["FullTiltParser"]

SITE = "fulltilt"
O8_GAMES = ("Omaha Hi/Lo", "Omaha H/L")

HAND_START = r"^\ufeff?Full ?Tilt ?Poker Game #\d+: "
_SNIFF = re.compile(HAND_START, re.MULTILINE)

HEADER = (
    r"^\ufeff?Full ?Tilt ?Poker Game #(?P<hand_id>\d+): "
    r"(?:(?P<tournament>.+?) \((?P<tournament_id>\d+)\), )?"
    r"(?:Table |Match )?(?P<table_name>.+?)(?: \((?P<attributes>[^)]*)\))? - "
    r"(?:(?P<stakes1>[^ ]+/[^ ]+)(?: Ante (?P<ante1>[^ ]+))? - )?"
    r"(?:(?:[^ ]+ )?(?:Cap|CAP) )?"
    r"(?P<limit>No Limit|Pot Limit|Limit|NL|PL|FL) (?P<game>.+?)"
    r"(?: - (?P<stakes2>[^ ]+/[^ ]+)(?: Ante (?P<ante2>[^ ]+))?)?"
    r" - (?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>[A-Z]+) - (?P<date>\d{4}/\d{2}/\d{2})"
    r"(?: \[(?P<et_time>\d{1,2}:\d{2}:\d{2}) (?P<et_zone>[A-Z]+) - (?P<et_date>\d{4}/\d{2}/\d{2})\])?"
    r"(?P<partial> \(partial\))?$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[$€£]?[\d,.]+)\)(?P<flags>, is sitting out)?$"
BUTTON = r"^The button is in seat #(?P<button_seat>\d+)$"
MARKER = r"^\*\*\* (?P<name>[A-Z ]+?) \*\*\*"
BOARD = r"^Board: \[(?P<cards>[^\]]*)\]$"
TOTAL = r"^Total pot (?P<total>[^ ]+)(?P<pots>.*?) \| Rake (?P<rake>[^ ]+)$"
DEALT = r"^Dealt to (?P<player>.+?) (?:\[[^\]]*\] )?\[(?P<cards>[^\]]*)\]$"
UNCALLED = r"^Uncalled bet of (?P<amount>[^ ]+) returned to (?P<player>.+)$"
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts the small blind of|posts the big blind of"
    r"|posts a dead small blind of|posts|antes|calls|bets|raises to|checks|folds)"
    r"(?: (?P<amount>[$€£]?[\d,.]+))?(?P<all_in>, and is all in)?(?:, and is capped)?$"
)
SHOW = r"^(?P<player>.+?) shows \[(?P<cards>[^\]]*)\](?: \((?P<paren>.*)\)| (?P<bare>.*))?$"
MUCK = r"^(?P<player>.+?) mucks(?: \[(?P<cards>[^\]]*)\])?$"
WIN = (
    r"^(?P<player>.+?) (?P<verb>wins|ties for) (?:the )?(?:(?P<half>high|low) )?"
    r"(?:(?P<pot>main|side) )?pot(?: #?(?P<number>\d+))? \((?P<amount>[^)]+)\)(?: with .*)?$"
)
SUMMARY_SEAT = (
    r"^Seat \d+: (?P<player>.+?) (?:\((?:button|small blind|big blind)\) )*"
    r"(?P<how>showed|mucked) \[(?P<cards>[^\]]*)\]"
    r"(?: and (?:won \([^)]*\)|lost) with (?P<desc>.*)| - (?P<mdesc>.*))?$"
)
INFORMATIONAL = (
    r"^(?:"
    r".+ \(Observer\): .*"
    r"|[^:\[\]]+: .*"  # player chat; Full Tilt actions carry no colon
    r"|.+ has \d+ seconds? left to act"
    r"|.+ has requested TIME"
    r"|.+ (?:adds|has added) [$€£]?[\d,.]+"
    r"|.+ (?:stands up|sits down|is sitting out|sits out|has returned|has reconnected"
    r"|has been disconnected|is disconnected|has timed out|leaves the table|is feeling .+"
    r"|is back|has (?:re)?joined the table|will be allowed to play after the button)"
    r"|.+ shows .+"  # a shown hand described without cards, e.g. "P shows two pair, …"
    r"| ?\([^)]*\)"  # 2006: the low of the previous shows line, e.g. " (8,7,4,3,A)"
    r"|Seat \d+: .+"  # summary seat lines: cards and descriptions are read apart
    r"|Duration \d+.*|Pot \d+ .*"
    r"|Players agree to Run It Twice"
    r"|.+ is sitting out"
    r")$"
)
SECTIONS: dict[str, int] = {
    "HOLE CARDS": 0,
    "FLOP": 1,
    "TURN": 2,
    "RIVER": 3,
    "SHOW DOWN": 4,
    "SUMMARY": 5,
}
UNSUPPORTED_MARKERS = r"^\*\*\* (?:FLOP|TURN|RIVER|SHOW DOWN|SUMMARY) [12] \*\*\*"
VERBS = {
    "posts the small blind of": "post_sb",
    "posts the big blind of": "post_bb",
    "posts a dead small blind of": "post_dead",
    "posts": "post_bb",
    "antes": "ante",
    "calls": "call",
    "bets": "bet",
    "raises to": "raise",
    "checks": "check",
    "folds": "fold",
}
CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP"}


class FullTiltParser(BlockPartsParser):
    """Parser for Full Tilt Poker text hand histories (Omaha Hi/Lo, any limit)."""

    site: ClassVar[str] = SITE
    # Labelled halves per pot ("wins the high pot", "wins the low side pot"), total printed gross
    # of rake. Split unit (payout-rules P9): the table's smallest chip. $0.50/$1 fixed limit splits
    # $7.75 as $3.90/$3.85, a 5-cent unit; $2000/$4000 splits $31,999.50 as $16,000/$15,999.50
    # (50 cents); the corpus' $200/$400 hand ($4,097 as 2 x $2,048.50) fits both. The unit grows
    # with the stake; the profile declares the documented low-stakes cash unit, 5 cents.
    # Tournaments (chips) split to the chip, which this single per-site value cannot express.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE, halves_labelled=True, total_pot_is_gross=True, odd_chip_unit=5, raise_cap=4
    )

    sniff_pattern: ClassVar[re.Pattern[str]] = _SNIFF
    hand_start: ClassVar[str] = HAND_START

    @staticmethod
    def read_parts(frame: pl.DataFrame) -> BlockParts:
        return _parts(frame)


def _parts(frame: pl.DataFrame) -> BlockParts:
    body = frame.filter(pl.col("hand") >= 0)
    names = body["line"].str.extract(MARKER, 1)
    body = body.with_columns(
        section=sections(
            body, names.replace_strict(SECTIONS, default=None, return_dtype=pl.Int8), -1
        )
    )
    section = pl.col("section")
    forms = (
        LineForm("blank", pattern=r"^\s*$"),
        LineForm("header", pattern=HAND_START),
        LineForm("unsupported", pattern=UNSUPPORTED_MARKERS),
        LineForm("marker", pattern=MARKER),
        LineForm("seat", pattern=SEAT),
        LineForm("button", pattern=BUTTON),
        LineForm("dealt", pattern=DEALT),
        LineForm("uncalled", pattern=UNCALLED),
        LineForm("win", pattern=WIN),
        LineForm("total", pattern=TOTAL),
        LineForm("board", pattern=BOARD),
        LineForm("show", pattern=SHOW),
        LineForm("muck", pattern=MUCK),
        LineForm("action", pattern=ACTION),
        LineForm("info", pattern=INFORMATIONAL),
    )
    kinds = kinds_of(body, forms, "unknown")
    lines = body.with_columns(kind=kinds).with_columns(
        # Seat lines count only before the cards; in the summary they are read apart.
        kind=pl.when((pl.col("kind") == "seat") & (section >= 0))
        .then(pl.lit("info"))
        .when(pl.col("kind").is_in(["total", "board"]) & (section != 5))
        .then(pl.lit("unknown"))
        .when(pl.col("kind").is_in(["action", "win", "uncalled"]) & (section == 5))
        .then(pl.lit("unknown"))
        .otherwise(pl.col("kind"))
    )

    # -- headers --------------------------------------------------------------------------------
    parsed = (
        lines.filter(pl.col("is_start"))
        .select("hand", "line", source_offset="offset")
        .with_columns(pl.col("line").str.extract_groups(HEADER).alias("h"))
        .unnest("h")
    )
    is_tournament = pl.col("tournament_id").is_not_null()
    stakes = pl.coalesce("stakes1", "stakes2")
    symbol = stakes.str.extract(r"^([$€£])", 1)
    play = pl.col("table_name").fill_null("").str.starts_with("Play Chip")
    currency = (
        pl.when(is_tournament)
        .then(pl.lit("CHIPS"))
        .when(symbol.is_not_null() & ~play)
        .then(symbol.replace_strict(CURRENCY_SYMBOLS, default="UNKNOWN"))
        .otherwise(pl.lit("PLAY"))
    )
    parsed = parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null() & pl.col("game").is_not_null() & stakes.is_not_null(),
        is_o8=pl.col("game").is_in(list(O8_GAMES)).fill_null(False),
        game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
        currency=currency,
        money_scale=pl.when(currency.is_in(["CHIPS", "PLAY"])).then(1).otherwise(100),
        limit_type=pl.col("limit").replace_strict(
            {"Limit": "FL", "FL": "FL", "Pot Limit": "PL", "PL": "PL", "No Limit": "NL", "NL": "NL"},
            default=None,
        ),
        stakes=stakes,
        ante_text=pl.coalesce("ante1", "ante2"),
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
            value=amount_value(pl.col("amount"), scale),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        .with_columns(
            amount=pl.when(pl.col("kind") != "raise").then(pl.col("value")),
            to=pl.when(pl.col("kind") == "raise").then(pl.col("value")),
        )
    )
    uncalled = (
        kind_fields(lines, "uncalled", UNCALLED, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            kind=pl.lit("uncalled_return"),
            amount=amount_value(pl.col("amount"), scale),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
        )
    )
    shows = (
        kind_fields(lines, "show", SHOW, "hand", "line_no", "section")
        .with_columns(cards=card_codes(pl.col("cards")))
    )
    mucks = (
        kind_fields(lines, "muck", MUCK, "hand", "line_no", "section")
        .with_columns(cards=card_codes(pl.col("cards")))
    )
    wins = (
        kind_fields(lines, "win", WIN, "hand", "line_no")
        .join(scale_of, on="hand", how="left")
    )
    no_money = {"amount": pl.lit(None, dtype=pl.Int64), "to": pl.lit(None, dtype=pl.Int64)}
    columns = ["hand", "line_no", "sub", "street", "player", "kind", "amount", "to", "is_all_in"]
    actions = pl.concat(
        [
            acts.select("hand", "line_no", sub=pl.lit(0), street="section", player="player",
                        kind="kind", amount="amount", to="to", is_all_in="is_all_in"),
            uncalled.select("hand", "line_no", sub=pl.lit(0), street="section", player="player",
                            kind="kind", amount="amount", to="to", is_all_in="is_all_in"),
            shows.select("hand", "line_no", sub=pl.lit(0), street="section", player="player",
                         kind=pl.lit("show"), **no_money, is_all_in=pl.lit(False)),
            # "P mucks" by the winner of an uncontested pot means "did not show", not "gave up".
            declined_shows(mucks, wins, shows),
        ],
        how="vertical_relaxed",
    ).select(columns)

    # -- hands ----------------------------------------------------------------------------------
    # A blind posted all in for less says nothing about the table's blind.
    full = ~pl.col("is_all_in")
    posted = acts.group_by("hand").agg(
        posted_sb=pl.coalesce(
            pl.col("amount").filter((pl.col("verb") == "posts the small blind of") & full).max(),
            pl.col("amount").filter(pl.col("verb") == "posts the small blind of").max(),
        ),
        posted_bb=pl.col("amount").filter((pl.col("verb") == "posts the big blind of") & full).max(),
        posted_ante=pl.col("amount").filter(pl.col("kind") == "ante").max(),
    )
    totals = first_per_hand(lines, "total", TOTAL)
    boards = first_per_hand(lines, "board", BOARD).select(
        "hand", board=card_codes(pl.col("cards"))
    )
    parts_of_stakes = pl.col("stakes").str.split("/")
    first_stake = amount_value(parts_of_stakes.list.get(0, null_on_oob=True), scale)
    second_stake = amount_value(parts_of_stakes.list.get(1, null_on_oob=True), scale)
    is_fixed = pl.col("limit_type") == "FL"
    hands = (
        parsed.join(posted, on="hand", how="left")
        .join(first_per_hand(lines, "button", BUTTON), on="hand", how="left")
        .join(totals, on="hand", how="left")
        .join(boards, on="hand", how="left")
        .with_columns(
            **blinds_and_bets(is_fixed, first_stake, second_stake),
            ante=pl.coalesce(amount_value(pl.col("ante_text"), scale), pl.col("posted_ante")),
            max_seats=pl.when(
                pl.concat_str(
                    pl.col("attributes").fill_null(""), pl.col("tournament").fill_null("")
                ).str.contains("(?i)heads[ -]up")
            )
            .then(2)
            .otherwise(pl.col("attributes").str.extract(r"(\d+) max", 1).cast(pl.Int16, strict=False))
            .cast(pl.Int16),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            started_at=pl.coalesce(
                local_time_to_utc(
                    pl.concat_str("et_date", pl.lit(" "), "et_time"),
                    pl.col("et_zone"),
                    zones=parsed["et_zone"].drop_nulls().unique().to_list(),
                ),
                local_time_to_utc(
                    pl.concat_str("date", pl.lit(" "), "time"),
                    pl.col("zone"),
                    zones=parsed["zone"].drop_nulls().unique().to_list(),
                ),
            ),
            time_zone=pl.coalesce("et_zone", "zone"),
            buy_in=pl.col("tournament").str.strip_chars(),
            total_pot=amount_value(pl.col("total"), scale),
            rake=amount_value(pl.col("rake"), scale),
        )
    )

    # -- payouts and showdowns ------------------------------------------------------------------
    collections = wins.select(
        "hand",
        "line_no",
        "player",
        amount=amount_value(pl.col("amount"), scale),
        pot_index=pl.when(pl.col("pot") == "side")
        .then(pl.col("number").cast(pl.Int8, strict=False).fill_null(1))
        .otherwise(0)
        .cast(pl.Int8),
        half=pl.col("half"),
        board_index=pl.lit(0, dtype=pl.Int8),
    )
    summary = (
        lines.filter((pl.col("section") == 5) & pl.col("line").str.starts_with("Seat "))
        .select("hand", "line_no", pl.col("line").str.extract_groups(SUMMARY_SEAT).alias("s"))
        .unnest("s")
        .filter(pl.col("player").is_not_null())
        .with_columns(cards=card_codes(pl.col("cards")), desc=pl.coalesce("desc", "mdesc"))
    )
    described = summary.filter(pl.col("desc").is_not_null()).select(
        "hand",
        "player",
        summary_high=pl.when(pl.col("desc").str.starts_with("HI: "))
        .then(pl.col("desc").str.extract(r"^HI: (.*?)(?:; LO: .*)?$", 1))
        .otherwise(pl.col("desc")),
        summary_low=pl.col("desc").str.extract(r"; LO: (.*)$", 1),
    ).unique(["hand", "player"], keep="first")
    inline = pl.coalesce("paren", "bare")
    showdowns = showdown_rows(
        shows.unique(["hand", "player"], keep="first", maintain_order=True).join(
            described, on=["hand", "player"], how="left"
        ),
        high_desc=pl.coalesce(
            "summary_high",
            inline.str.extract(r"^(.*?), for high(?: and .*)?$", 1),
            pl.when(~inline.fill_null("").str.contains(", for low$")).then(inline),
        ),
        low_desc=pl.coalesce(
            "summary_low", inline.str.extract(r"(?:^|and )([^ ]*?), for low$", 1)
        ),
    )

    seats = seat_rows(lines, scale_of, SEAT, sitting_out=pl.col("flags").is_not_null())
    dealt = (
        kind_fields(lines, "dealt", DEALT, "hand", "line_no")
        .select("hand", "line_no", "player", cards=card_codes(pl.col("cards")), dealt=pl.lit(True))
    )
    sightings = pl.concat(
        [
            dealt,
            shows.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
            mucks.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
            summary.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
        ]
    )

    structure = lines.group_by("hand").agg(
        has_summary=(pl.col("section") == 5).any(),
        has_hole=(pl.col("section") >= 0).any(),
        unsupported=(pl.col("kind") == "unsupported").any(),
        board_run=(
            (pl.col("kind") == "win") & pl.col("line").str.contains(r" wins pot \d", literal=False)
        ).any(),
    )
    checks = hands.join(structure, on="hand", how="left").select(
        "hand",
        reason=first_problem(
            (pl.col("partial").is_not_null(), "partial hand (the site marked it so)"),
            (
                pl.col("unsupported").fill_null(False) | pl.col("board_run").fill_null(False),
                "run it twice is not supported",
            ),
            (~pl.col("has_summary").fill_null(False), "truncated hand: no summary"),
            (~pl.col("has_hole").fill_null(False), "truncated hand: no hole cards section"),
            (pl.col("button_seat").is_null(), "no button seat"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (
                pl.col("total_pot").is_null() | pl.col("rake").is_null(),
                "missing or unreadable total pot / rake",
            ),
            (pl.col("limit_type").is_null(), "unknown betting limit"),
            (pl.col("big_blind").is_null() | pl.col("small_blind").is_null(), "unreadable stakes"),
            (
                holds_a_null(pl.col("board").fill_null([])),
                "unreadable board card",
            ),
            (pl.col("board").fill_null([]).list.len() > 5, "more than five board cards"),
        ),
    ).filter(pl.col("reason").is_not_null())

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

