"""Cake Poker hand histories (``Hand#3389E587C7000012 - …``), Omaha Hi/Lo.

What Cake prints, and so what this parser records:

- One header line: ``Hand#<hex id> - <title> -- CASH -- $5 + $0.25 -- 2 Max -- Table 1 --
  0/10/20 PL OmahaHiLo -- 2013/07/16 - 10:38:40``. A title ending in ``T<digits>`` is a
  tournament (its id; "CASH" is the buy-in kind), stakes are ante/small blind/big blind (or
  small/big blind). No zone is printed: times are stored as UTC as printed.
- ``Dealer: Seat 8`` is the button; cards are dealt as ``[5s,3c,4s,5c]`` and shown as
  ``[5s 3c 4s 5c]``.
- ``raises to 60`` prints the street total; ``calls 40`` and ``bets 80`` the chips added;
  ``is all in 500`` the chips added (recorded as a bet, call or raise by its effect).
- ``returns uncalled bet 10`` is an explicit ``uncalled_return``.
- Payouts: ``Player0 wins high pot 327 with Pair of Aces`` / ``Hero wins low pot 327 with``
  (the low text may be empty) / ``Hero wins high pot 20`` then ``There is no low hand``: one
  collection per line, ``half`` high / low, ``pot_index`` null (the pot is not numbered).
- No total pot and no rake are printed (``hands.total_pot`` and ``hands.rake`` null).
- ``Hero: mucks`` is written for a winner who does not show as well as for a loser: it is a
  ``muck`` only for a player who collects nothing (like PokerStars' "doesn't show hand").
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
from parsers.engine.lines import forward_fill, in_printed_order
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "CakeBlock", "CakeParser"]

SITE = "cake"
GAMES = ("OmahaHiLo", "Omaha Hi/Lo")
HAND_START = r"^Hand#[0-9A-Z]+ - "
_HAND_START_LINE = re.compile(r"^\ufeff?Hand#[0-9A-Z]+ - .* -- \d{4}/\d{2}/\d{2} - ", re.MULTILINE)
HEADER = (
    r"^Hand#(?P<hand_id>[0-9A-Z]+) - (?P<title>.+?)"
    r"(?: -- (?P<entry>TICKET|CASH|TICKETCASH) -- (?P<buy_in>.+?) -- (?P<max_seats>\d+) Max)?"
    r"(?: -- Table (?P<table_no>\S+))?"
    r" -- (?P<stakes>[^ ]+) (?P<limit>NL|PL|FL) (?P<game>.+?)"
    r" -- (?P<date>\d{4}/\d{2}/\d{2}) - (?P<time>\d{1,2}:\d{2}:\d{2})$"
)
STAKES = r"^(?:(?P<ante>[$€]?[\d,.]+)/)?(?P<sb>[$€]?[\d,.]+)/(?P<bb>[$€]?[\d,.]+)$"
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[$€]?[\d,.]+) in chips\)$"
ACTION = (
    r"^(?P<player>.+?): (?P<verb>posts small blind|posts big blind|posts ante of|raises to"
    r"|calls|bets|checks|folds|is all in|returns uncalled bet|shows|mucks)"
    r"(?: (?P<amount>[$€]?[\d,.]+))?(?: \[(?P<cards>[^\]]*)\])?(?: \((?P<desc>.*)\))?$"
)
DEALT = r"^Dealt to (?P<player>.+?) \[(?P<cards>[^\]]*)\]$"
MARKER = r"^\*\*\* ?(?P<name>FLOP|TURN|RIVER|SHOW DOWN) ?\*\*\*(?: \[(?P<cards>[^\]]*)\])?$"
COLLECT = (
    r"^(?P<player>.+?) wins (?:(?P<half>high|low) )?"
    r"(?P<pot>pot|main pot|side pot(?: (?P<side>\d+))?) (?P<amount>[$€]?[\d,.]+)(?: with.*)?$"
)
INFORMATIONAL = (
    r"^(?:There is no low hand|.+ (?:sits out|is sitting out|has returned|is disconnected"
    r"|finished \d+ out of \d+ players))$"
)
SECTIONS = {"FLOP": 1, "TURN": 2, "RIVER": 3, "SHOW DOWN": 4}
VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts ante of": "ante",
    "raises to": "raise",
    "calls": "call",
    "bets": "bet",
    "checks": "check",
    "folds": "fold",
    "is all in": "call",  # provisional: settled by its effect on the street totals
    "returns uncalled bet": "uncalled_return",
    "shows": "show",
    "mucks": "muck",
}
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_BUTTON,
    KIND_SEAT,
    KIND_DEALT,
    KIND_MARKER,
    KIND_COLLECT,
    KIND_ACTION,
    KIND_INFO,
    KIND_UNKNOWN,
) = range(10)
INFO = (KIND_INFO, INFORMATIONAL)
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_BUTTON, starts="Dealer: Seat "),
    LineForm(KIND_SEAT, pattern=SEAT),
    LineForm(KIND_DEALT, pattern=DEALT),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_COLLECT, pattern=COLLECT),
    LineForm(KIND_ACTION, pattern=ACTION),
)


class CakeBlock(Block):
    """One parse of a block of lines: the site's own decoding, handed to `finish`.

    Horizon's client prints Cake's lines and a few of its own: `parsers.horizon` extends this
    decoding with them (its ``line_forms`` and the rows they give).
    """

    unknown_kind = KIND_UNKNOWN
    line_forms: ClassVar[tuple[LineForm, ...]] = LINE_FORMS

    def tables(self) -> HandTables:
        headers = self._headers()
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = self._classify(self.candidate_lines(candidates, "money_scale"))
        acts = self._action_fields(lines)
        collections = self._collections(lines)
        hands = self._hands(candidates, lines, acts)
        seats = self._seats(lines, acts)
        actions = self._actions(acts, collections)
        showdowns = showdown_rows(
            acts.filter(pl.col("kind") == "show"),
            cards_list(pl.col("cards")),
            high_desc=pl.col("desc").str.strip_chars(),
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
        tournament = pl.col("title").str.extract(r"\b(T\d+)$", 1)
        symbol = pl.col("bb").str.extract(r"^([$€])", 1)
        currency = (
            pl.when(tournament.is_not_null())
            .then(pl.lit("CHIPS"))
            .when(symbol == "$")
            .then(pl.lit("USD"))
            .when(symbol == "€")
            .then(pl.lit("EUR"))
            .otherwise(pl.lit("PLAY"))
        )
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null() & pl.col("sb").is_not_null(),
            is_o8=pl.col("game").is_in(list(GAMES)),
            tournament_id=tournament,
            table_name=pl.when(tournament.is_not_null())
            .then(pl.col("table_no"))
            .otherwise(pl.col("title")),
            limit_type=pl.col("limit").replace_strict(
                {"NL": "NL", "PL": "PL", "FL": "FL"}, default=None
            ),
            currency=currency,
            money_scale=pl.when(currency.is_in(["CHIPS", "PLAY"])).then(1).otherwise(100),
            buy_in=pl.col("buy_in"),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            started_at=pl.concat_str("date", pl.lit(" "), "time")
            .str.strptime(pl.Datetime("us"), "%Y/%m/%d %H:%M:%S", strict=False)
            .dt.replace_time_zone("UTC"),
        )

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        names = lines["line"].str.extract(MARKER, 1)
        section = forward_fill(lines, names.replace_strict(SECTIONS, default=None), 0)
        markers = {"marker": names.is_not_null().to_numpy()}
        classified = classify(lines, section, self.line_forms, KIND_UNKNOWN, markers, INFO)
        return classified.with_columns(marker=names)

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.decoded_actions(
            kind_fields(lines, KIND_ACTION, ACTION, "hand", "line_no", "section", "money_scale")
        )

    @staticmethod
    def decoded_actions(found: pl.DataFrame) -> pl.DataFrame:
        """Action rows from the ``player``, ``verb``, ``amount``, ``cards`` and ``desc`` groups
        of an action line (and its ``section`` and ``money_scale``)."""
        return found.with_columns(
            kind=pl.col("verb").replace_strict(VERB_KIND, default=None),
            amount=money(pl.col("amount"), pl.col("money_scale")),
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
            is_all_in=pl.col("verb") == "is all in",
        )

    def _hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, acts: pl.DataFrame
    ) -> pl.DataFrame:
        markers = lines.filter(pl.col("marker").is_not_null()).sort("line_no")
        streets = markers.group_by("hand").agg(
            board_text=pl.col("line")
            .filter(pl.col("marker") != "SHOW DOWN")
            .str.extract(MARKER, 2)
            .str.join(",")
            .replace("", None),
            codes=pl.col("section"),
        )
        button = (
            lines.filter(pl.col("kind") == KIND_BUTTON)
            .group_by("hand")
            .agg(button_line=pl.col("line").first(), buttons=pl.len())
        )
        kind = pl.col("kind")
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(kind == "post_sb").max(),
            posted_bb=pl.col("amount").filter(kind == "post_bb").max(),
            posted_ante=pl.col("amount").filter(kind == "ante").max(),
        )
        wins = lines.filter(pl.col("kind") == KIND_COLLECT).group_by("hand").agg(wins=pl.len())
        scale = pl.col("money_scale")
        is_fixed = pl.col("limit_type") == "FL"
        return (
            headers.join(streets, on="hand", how="left")
            .join(button, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .join(wins, on="hand", how="left")
            .with_columns(
                game=pl.lit("O8"),
                small_bet=pl.when(is_fixed).then(money(pl.col("sb"), scale)),
                big_bet=pl.when(is_fixed).then(money(pl.col("bb"), scale)),
                small_blind=pl.when(is_fixed)
                .then(pl.col("posted_sb"))
                .otherwise(money(pl.col("sb"), scale)),
                big_blind=pl.when(is_fixed)
                .then(pl.coalesce("posted_bb", money(pl.col("sb"), scale)))
                .otherwise(money(pl.col("bb"), scale)),
                ante=pl.coalesce(
                    "posted_ante",
                    pl.when(money(pl.col("ante"), scale) > 0).then(money(pl.col("ante"), scale)),
                ),
                button_seat=pl.col("button_line")
                .str.extract(r"^Dealer: Seat (\d+)$", 1)
                .cast(pl.Int16, strict=False),
                board=cards_list(pl.col("board_text"), separator=",").fill_null(
                    pl.lit([], dtype=pl.List(pl.UInt8))
                ),
                total_pot=pl.lit(None, dtype=pl.Int64),
                rake=pl.lit(None, dtype=pl.Int64),
                time_zone=pl.lit(None, dtype=pl.String),
                source_offset=pl.col("offset"),
            )
        )

    def _seats(self, lines: pl.DataFrame, acts: pl.DataFrame) -> pl.DataFrame:
        seats = seat_lines(lines, KIND_SEAT, SEAT)
        dealt = kind_fields(lines, KIND_DEALT, DEALT, "hand", "line_no")
        shown = acts.filter(pl.col("cards").is_not_null()).select(
            "hand",
            "line_no",
            "player",
            # Shown cards are space separated, mucked ones (per fpdb) comma separated.
            cards=pl.col("cards").str.replace_all(",", " "),
            dealt=pl.lit(False),
        )
        sightings = pl.concat(
            [
                dealt.select(
                    "hand",
                    "line_no",
                    "player",
                    cards=pl.col("cards").str.replace_all(",", " "),
                    dealt=pl.lit(True),
                ),
                shown,
            ]
        ).with_columns(cards=cards_list(pl.col("cards").str.replace_all(r"\s+", " ")))
        seats = with_sitting_out(seats, acts)
        return attach_hole_cards(seats, sightings, dealt.select("hand", "player"))

    @staticmethod
    def _actions(acts: pl.DataFrame, collections: pl.DataFrame) -> pl.DataFrame:
        winners = collections.select("hand", "player").unique()
        # A winner's "mucks" is a hand not shown, not a hand given up.
        winner_mucks = acts.filter(pl.col("kind") == "muck").join(
            winners, on=["hand", "player"], how="semi"
        )
        frame = (
            acts.filter(pl.col("kind").is_not_null())
            .join(winner_mucks.select("hand", "line_no"), on=["hand", "line_no"], how="anti")
            .with_columns(
                to=pl.when(pl.col("kind") == "raise").then(pl.col("amount")),
                amount=pl.when(pl.col("kind") == "raise").then(None).otherwise(pl.col("amount")),
            )
        )
        return settle_all_in_kinds(
            street_amounts(ordered_actions(frame, "street")), pl.col("verb") == "is all in"
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
                half=pl.col("half"),
                board_index=pl.lit(0, dtype=pl.Int8),
            )
        )

    @staticmethod
    def _hand_problems(hands: pl.DataFrame) -> pl.DataFrame:
        codes = pl.col("codes").fill_null(pl.lit([], dtype=pl.List(pl.Int8)))
        streets = codes.list.eval(pl.element().filter(pl.element() < 4))
        board = pl.col("board")
        reason = first_problem(
            (~codes.list.contains(4), "truncated hand: no showdown section"),
            (pl.col("wins").fill_null(0) == 0, "truncated hand: nobody wins a pot"),
            (pl.col("buttons").fill_null(0) != 1, "dealer line missing or repeated"),
            (pl.col("button_seat").is_null(), "unreadable dealer seat"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (pl.col("limit_type").is_null() | pl.col("big_blind").is_null(), "unreadable stakes"),
            (
                streets != pl.int_ranges(1, streets.list.len() + 1).cast(pl.List(pl.Int8)),
                "streets missing or out of order",
            ),
            (holds_a_null(board), "unreadable board card"),
            (
                board.list.len()
                != pl.when(streets.list.len() == 0).then(0).otherwise(streets.list.len() + 2),
                "wrong number of board cards",
            ),
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())


class CakeParser(AnchoredParser):
    """Parser for Cake Poker text hand histories."""

    site: ClassVar[str] = SITE
    # Labelled halves, pots not numbered; no total pot and no rake printed (the audit infers
    # it: nothing in tournaments); uncalled bets returned by an explicit line.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_half",
        rake_printed=False,
        uncalled_printed=True,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = CakeBlock
