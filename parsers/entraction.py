"""Entraction hand histories (``Game # 2646515969 - Omaha Hi/Lo Fixed Limit EUR …``), Omaha Hi/Lo.

What Entraction prints, and so what this parser records (site-formats.md, "Entraction"):

- ``Game # <id> - <game> <Fixed Limit|Pot Limit|No Limit> <ISO> <a>/<b> - Table "<name>"``
  opens a hand; ``Omaha Hi/Lo`` is the only game kept (hold'em, ``Omaha High``, ``5-Card Omaha
  Hi/Lo`` are skipped). In fixed limit ``a/b`` are the bets (100.00/200.00) and the blinds come
  from the posts (50.00/100.00); in pot and no limit they are the blinds.
- ``Players(max 2):``, then one line per seat, the name padded to a column:
  ``Ballyhoo                    (EUR 4,000.00 in seat 1)``. Names may hold spaces (``zinzan
  71``), so a name is what precedes the padding, checked against the seat list.
- ``Dealer:  <name>`` names the button player (the button seat is that player's seat);
  ``Small Blind:  <name>  (50.00)`` / ``Big Blind:  <name>  (100.00)`` are the posts.
- Actions are ``<name>  <Verb>  (<amount>)``: ``Fold``, ``Check``, ``Call``, ``Bet``, ``Raise``,
  ``All-In`` and ``Payback``. Every amount is the chips the action adds (the small blind's
  ``Raise (150.00)`` reaches 200), ``All-In`` is recorded as a bet, call or raise by its effect,
  and ``Payback (x)`` is an uncalled bet returned (``uncalled_return``).
- ``Flop  4c - 3s - 6c``, ``Turn`` and ``River`` repeat the whole board so far.
- ``<name> shows:  3h - 3d - 7s - 2s``; ``<name> didn't show hand`` (sometimes with the cards in
  parentheses) is a ``muck`` for a player who wins nothing, and no action for a winner.
- Payouts: ``<name> wins:  EUR 999.25`` once per half, unlabelled and naming no pot (a scoop is
  two lines): ``pot_index`` and ``half`` null. ``Rake:  EUR 1.50`` is always printed (0.00 when
  none); no total pot is (``hands.total_pot`` null).
- The time is printed only at the end, with its offset: ``Game ended 2012-05-31 04:46:52
  GMT+01:00`` is stored as 03:46:52 UTC (``hands.time_zone`` keeps ``GMT+01:00``).
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import cards_list, holds_a_null, money
from parsers.engine.anchored import AnchoredParser, Block, seat_fields, with_sitting_out
from parsers.engine.assembly import HandTables, showdown_rows
from parsers.engine.betting import ordered_actions, settle_all_in_kinds, street_amounts
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import LineForm, classify, kind_fields
from parsers.engine.lines import forward_fill, in_printed_order
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "EntractionParser"]

SITE = "entraction"
GAME = "Omaha Hi/Lo"
HAND_START = r"^Game # [0-9]+ - "
_HAND_START_LINE = re.compile(
    r'^\ufeff?Game # [0-9]+ - .+ [A-Z]{3} [0-9,.]+/[0-9,.]+ - Table ".*"$', re.MULTILINE
)
HEADER = (
    r"^Game # (?P<hand_id>[0-9]+) - (?P<game>.+?) (?P<limit>Fixed Limit|Pot Limit|No Limit) "
    r'(?P<currency>[A-Z]{3}) (?P<first>[0-9,.]+)/(?P<second>[0-9,.]+) - Table "(?P<table_name>.*)"$'
)
PLAYERS = r"^Players\(max (?P<max_seats>[0-9]+)\):$"
SEAT = r"^(?P<player>.+?) +\((?P<currency>[A-Z]{3}) (?P<stack>[^ ()]+) in seat (?P<seat>[0-9]+)\)$"
DEALER = r"^Dealer: +(?P<player>.+)$"
POST = r"^(?P<verb>Small Blind|Big Blind): +(?P<player>.+?) +\((?P<amount>[^()]*)\)$"
ACTION = (
    r"^(?P<player>.+?) +(?P<verb>Fold|Check|Call|Bet|Raise|All-In|Payback)"
    r"(?: +\((?P<amount>[^()]*)\))?$"
)
STREET = r"^(?P<street>Flop|Turn|River) +(?P<cards>[^ ]{2}(?: - [^ ]{2})*)$"
SHOW = r"^(?P<player>.+?) shows: +(?P<cards>.+)$"
NO_SHOW = r"^(?P<player>.+?) didn't show hand(?: \((?P<cards>[^()]*)\))?$"
WIN = r"^(?P<player>.+?) wins: +(?P<currency>[A-Z]{3}) (?P<amount>[^ ]+)$"
RAKE = r"^Rake: +(?P<currency>[A-Z]{3}) (?P<rake>[^ ]+)$"
END = (
    r"^Game ended (?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{1,2}:[0-9]{2}:[0-9]{2}) "
    r"(?P<zone>GMT(?P<sign>[+-])(?P<hours>[0-9]{2}):(?P<minutes>[0-9]{2}))$"
)
STREETS = {"Flop": 1, "Turn": 2, "River": 3}
VERB_KIND = {
    "Small Blind": "post_sb",
    "Big Blind": "post_bb",
    "Fold": "fold",
    "Check": "check",
    "Call": "call",
    "Bet": "bet",
    "Raise": "raise",
    "All-In": "call",  # provisional: settled by its effect on the street totals
    "Payback": "uncalled_return",
    "shows": "show",
    "didn't show": "muck",
}
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_PLAYERS,
    KIND_SEAT,
    KIND_DEALER,
    KIND_POST,
    KIND_STREET,
    KIND_SHOW,
    KIND_NO_SHOW,
    KIND_WIN,
    KIND_RAKE,
    KIND_END,
    KIND_ACTION,
    KIND_UNKNOWN,
) = range(14)
# The first form that matches wins: the lines with a fixed label go before the free
# "<name> <Verb>" form, so a player called "Call" posting a blind is still a post.
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_PLAYERS, pattern=PLAYERS),
    LineForm(KIND_SEAT, pattern=SEAT),
    LineForm(KIND_DEALER, pattern=DEALER),
    LineForm(KIND_POST, pattern=POST),
    LineForm(KIND_STREET, where="street"),
    LineForm(KIND_SHOW, pattern=SHOW),
    LineForm(KIND_NO_SHOW, pattern=NO_SHOW),
    LineForm(KIND_WIN, pattern=WIN),
    LineForm(KIND_RAKE, pattern=RAKE),
    LineForm(KIND_END, starts="Game ended "),
    LineForm(KIND_ACTION, pattern=ACTION),
)


class _Block(Block):
    """One parse of a block of lines: the site's own decoding, handed to `finish`."""

    unknown_kind = KIND_UNKNOWN

    def tables(self) -> HandTables:
        headers = self._headers()
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = self._classify(
            self.candidate_lines(
                candidates, "money_scale", pl.col("currency").alias("table_currency")
            )
        )
        seat_rows = _fields(lines, KIND_SEAT, SEAT)
        win_rows = _fields(lines, KIND_WIN, WIN)
        rake_rows = _fields(lines, KIND_RAKE, RAKE)
        collections = in_printed_order(
            win_rows.select(
                "hand",
                "line_no",
                "player",
                amount=money(pl.col("amount"), pl.col("money_scale")),
                pot_index=pl.lit(None, dtype=pl.Int8),
                half=pl.lit(None, dtype=pl.String),
                board_index=pl.lit(0, dtype=pl.Int8),
            )
        )
        acts = self._action_fields(lines)
        seats = self._seats(seat_rows, acts)
        # "didn't show hand" is a muck only for a player who wins nothing.
        winners = collections.select("hand", "player").unique()
        winner_no_shows = acts.filter(pl.col("kind") == "muck").join(
            winners, on=["hand", "player"], how="semi"
        )
        actions = acts.join(
            winner_no_shows.select("hand", "line_no"), on=["hand", "line_no"], how="anti"
        ).with_columns(to=pl.lit(None, dtype=pl.Int64))
        actions = settle_all_in_kinds(
            street_amounts(ordered_actions(actions, "street")), pl.col("verb") == "All-In"
        )
        hands = self._hands(candidates, lines, acts, seats, rake_rows, collections)
        showdowns = showdown_rows(acts.filter(pl.col("kind") == "show"), "card_codes")
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
                self._street_problems(lines),
                self._line_problems(
                    acts, pl.concat([seat_rows, win_rows, rake_rows], how="diagonal_relaxed")
                ),
            ],
        )

    def _headers(self) -> pl.DataFrame:
        first = self.frame.filter(pl.col("is_start"))
        parsed = first.select(
            "hand", "offset", pl.col("line").str.extract_groups(HEADER).alias("h")
        ).unnest("h")
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null(),
            is_o8=pl.col("game") == GAME,
            limit_type=pl.col("limit").replace_strict(
                {"Fixed Limit": "FL", "Pot Limit": "PL", "No Limit": "NL"}, default=None
            ),
            money_scale=pl.lit(100),
        )

    @staticmethod
    def _classify(lines: pl.DataFrame) -> pl.DataFrame:
        street = lines["line"].str.extract(STREET, 1)
        section = forward_fill(lines, street.replace_strict(STREETS, default=None), 0)
        streets = {"street": street.is_not_null().to_numpy()}
        return classify(lines, section, LINE_FORMS, KIND_UNKNOWN, streets)

    @staticmethod
    def _action_fields(lines: pl.DataFrame) -> pl.DataFrame:
        """Posts, actions, shows and no-shows, one row each, in line order."""
        frame = pl.concat(
            [
                _fields(lines, KIND_POST, POST),
                _fields(lines, KIND_ACTION, ACTION),
                _fields(lines, KIND_SHOW, SHOW).with_columns(verb=pl.lit("shows")),
                _fields(lines, KIND_NO_SHOW, NO_SHOW).with_columns(verb=pl.lit("didn't show")),
            ],
            how="diagonal_relaxed",
        ).sort("hand", "line_no")
        return frame.with_columns(
            kind=pl.col("verb").replace_strict(VERB_KIND, default=None),
            has_amount=pl.col("amount").is_not_null(),
            amount=money(pl.col("amount"), pl.col("money_scale")),
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
            is_all_in=pl.col("verb") == "All-In",
            card_codes=cards_list(pl.col("cards").str.replace_all(" - ", " ", literal=True)),
        )

    @staticmethod
    def _seats(seat_rows: pl.DataFrame, acts: pl.DataFrame) -> pl.DataFrame:
        seats = with_sitting_out(seat_fields(seat_rows), acts)
        # The hand prints no deal: every sighting is a show (or a no-show naming the cards).
        sightings = acts.filter(pl.col("card_codes").is_not_null()).select(
            "hand", "line_no", "player", cards=pl.col("card_codes"), dealt=pl.lit(False)
        )
        return attach_hole_cards(seats, sightings)

    def _hands(
        self,
        headers: pl.DataFrame,
        lines: pl.DataFrame,
        acts: pl.DataFrame,
        seats: pl.DataFrame,
        rake_rows: pl.DataFrame,
        collections: pl.DataFrame,
    ) -> pl.DataFrame:
        def first_of(kind: int, name: str) -> pl.DataFrame:
            return (
                lines.filter(pl.col("kind") == kind)
                .group_by("hand")
                .agg(pl.col("line").first().alias(name), pl.len().alias(f"{name}_count"))
            )

        players = first_of(KIND_PLAYERS, "players_line")
        end = (
            first_of(KIND_END, "end_line")
            .with_columns(pl.col("end_line").str.extract_groups(END).alias("e"))
            .unnest("e")
        )
        dealer = first_of(KIND_DEALER, "dealer_line").with_columns(
            player=pl.col("dealer_line").str.extract(DEALER, 1)
        )
        button = dealer.join(
            seats.select("hand", "player", "seat"), on=["hand", "player"], how="left"
        ).select("hand", "dealer_line_count", "player", "seat")
        rake = rake_rows.group_by("hand").agg(
            rake=money(pl.col("rake"), pl.col("money_scale")).first(),
            rake_line_count=pl.len(),
        )
        wins = collections.group_by("hand").agg(wins=pl.len())
        board = (
            lines.filter(pl.col("kind") == KIND_STREET)
            .sort("line_no")
            .group_by("hand")
            .agg(board_text=pl.col("line").last().str.extract(STREET, 2))
        )
        kind = pl.col("kind")
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(kind == "post_sb").max(),
            posted_bb=pl.col("amount").filter(kind == "post_bb").max(),
        )
        scale = pl.col("money_scale")
        is_fixed = pl.col("limit_type") == "FL"
        first = money(pl.col("first"), scale)
        second = money(pl.col("second"), scale)
        # "GMT+01:00": the wall clock runs an hour ahead of UTC.
        hours = pl.col("hours").cast(pl.Int64, strict=False)
        minutes = pl.col("minutes").cast(pl.Int64, strict=False)
        sign = pl.when(pl.col("sign") == "-").then(-1).otherwise(1)
        local = pl.col("date").str.strptime(pl.Datetime("us"), "%Y-%m-%d %H:%M:%S", strict=False)
        utc = local - pl.duration(minutes=sign * (hours * 60 + minutes))
        return (
            headers.join(players, on="hand", how="left")
            .join(end, on="hand", how="left")
            .join(button, on="hand", how="left")
            .join(rake, on="hand", how="left")
            .join(wins, on="hand", how="left")
            .join(board, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .with_columns(
                game=pl.lit("O8"),
                small_bet=pl.when(is_fixed).then(first),
                big_bet=pl.when(is_fixed).then(second),
                small_blind=pl.when(is_fixed).then(pl.col("posted_sb")).otherwise(first),
                big_blind=pl.when(is_fixed).then(pl.col("posted_bb")).otherwise(second),
                max_seats=pl.col("players_line")
                .str.extract(PLAYERS, 1)
                .cast(pl.Int16, strict=False),
                dealer=pl.col("player"),
                button_seat=pl.col("seat"),
                started_at=pl.when((hours <= 14) & (minutes < 60))
                .then(utc)
                .dt.replace_time_zone("UTC"),
                time_zone=pl.col("zone"),
                board=cards_list(
                    pl.col("board_text").str.replace_all(" - ", " ", literal=True)
                ).fill_null(pl.lit([], dtype=pl.List(pl.UInt8))),
                total_pot=pl.lit(None, dtype=pl.Int64),
                source_offset=pl.col("offset"),
            )
            .drop("player", "seat")
        )

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame) -> pl.DataFrame:
        board = pl.col("board")
        reason = (
            pl.when(pl.col("end_line_count").fill_null(0) != 1)
            .then(pl.lit("truncated hand: 'Game ended' line missing or repeated"))
            .when(pl.col("started_at").is_null())
            .then(pl.lit("unreadable end time"))
            .when(pl.col("players_line_count").fill_null(0) != 1)
            .then(pl.lit("players line missing or repeated"))
            .when(pl.col("max_seats").is_null())
            .then(pl.lit("unreadable players line"))
            .when(pl.col("dealer_line_count").fill_null(0) != 1)
            .then(pl.lit("dealer line missing or repeated"))
            .when(pl.col("button_seat").is_null())
            .then(pl.lit("dealer is not a seated player: ") + pl.col("dealer").fill_null(""))
            .when(pl.col("rake_line_count").fill_null(0) != 1)
            .then(pl.lit("rake line missing or repeated"))
            .when(pl.col("rake").is_null())
            .then(pl.lit("unreadable rake"))
            .when(pl.col("wins").fill_null(0) == 0)
            .then(pl.lit("truncated hand: nobody wins"))
            .when(
                pl.col("limit_type").is_null()
                | pl.col("big_blind").is_null()
                | ((pl.col("limit_type") == "FL") & pl.col("big_bet").is_null())
            )
            .then(pl.lit("unreadable stakes or blinds"))
            .when(holds_a_null(board))
            .then(pl.lit("unreadable board card"))
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    @staticmethod
    def _street_problems(lines: pl.DataFrame) -> pl.DataFrame:
        """Each street line repeats the board so far: Flop 3 cards, Turn 4, River 5, in order."""
        streets = (
            lines.filter(pl.col("kind") == KIND_STREET)
            .sort("hand", "line_no")
            .select("hand", code="section", text=pl.col("line").str.extract(STREET, 2))
            .with_columns(
                order=(pl.int_range(pl.len()).over("hand") + 1).cast(pl.Int8),
                cards=pl.col("text").str.count_matches(" - ", literal=True) + 1,
                previous=pl.col("text").shift(1).over("hand"),
            )
        )
        reason = first_problem(
            (pl.col("code") != pl.col("order"), "streets missing or out of order"),
            (pl.col("cards") != pl.col("code").cast(pl.UInt32) + 2, "wrong number of board cards"),
            (
                pl.col("previous").is_not_null()
                & ~pl.col("text").str.starts_with(pl.col("previous") + " - "),
                "street lines disagree on the board",
            ),
        )
        return (
            streets.select("hand", reason=reason)
            .filter(pl.col("reason").is_not_null())
            .unique("hand", keep="first", maintain_order=True)
        )

    @staticmethod
    def _line_problems(acts: pl.DataFrame, money_rows: pl.DataFrame) -> pl.DataFrame:
        """A fold or check with an amount; a stack, win or rake in another currency."""
        amounts = acts.filter(
            pl.col("kind").is_in(["fold", "check"]) & pl.col("has_amount")
        ).select("hand", "line_no", reason=pl.lit("amount on a ") + pl.col("kind"))
        currencies = money_rows.filter(pl.col("currency") != pl.col("table_currency")).select(
            "hand",
            "line_no",
            reason=pl.lit("amount in ")
            + pl.col("currency")
            + pl.lit(" at a table in ")
            + pl.col("table_currency"),
        )
        return (
            pl.concat([amounts, currencies])
            .sort("hand", "line_no")
            .unique("hand", keep="first", maintain_order=True)
            .select("hand", "reason")
        )


def _fields(lines: pl.DataFrame, kind: int, pattern: str) -> pl.DataFrame:
    """The named groups of ``pattern`` on the lines of one kind."""
    return kind_fields(
        lines, kind, pattern, "hand", "line_no", "section", "money_scale", "table_currency"
    )


class EntractionParser(AnchoredParser):
    """Parser for Entraction text hand histories."""

    site: ClassVar[str] = SITE
    # One unlabelled line per half naming no pot (a scoop is two lines); the rake is printed,
    # the total pot is not; uncalled bets come back by an explicit ``Payback`` line.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_half",
        rake_printed=True,
        uncalled_printed=True,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = _Block
