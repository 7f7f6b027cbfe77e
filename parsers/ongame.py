"""OnGame hand histories (``***** History for hand R5-… / T5-… *****``), Omaha Hi/Lo.

What OnGame prints, and so what this parser records:

- ``Start hand: Fri Jun 28 18:54:24 GST 2013``: the zone is printed (``GST`` = Gulf Standard
  Time, UTC+4, as fpdb reads it; ``GMT+0100`` offsets are read too); stored in UTC.
- ``Table: Table #3 [330030241] (POT_LIMIT OMAHA_HI_LO 10/20, Chips)``: limit, game and
  stakes; ``Chips`` for tournaments, ``Real money`` / ``Play money`` for cash. The blinds are
  the posted ones when posted (cash tables print ``$0.50/$0.50``).
- Player names may contain spaces (``KREST 78``); actions are ``name verb …`` with no colon.
- ``raises 3165 to 3540``: the second figure is the street total; ``calls`` and ``bets`` give
  the chips added. ``[all in]`` marks all-ins.
- Uncalled bets are returned silently: nothing is recorded, so a player's contributions can
  exceed what the pots hold (``Lakesdie raises 3165 to 3540 [all in]`` against a 1855 stack,
  the 1685 back in ``Seat 5: Lakesdie (4308)``).
- ``Main pot: 3585 won by A (1793 High), B (896 Low), C (896 Low)`` and ``Side pot 1: …``: one
  collection per winner and pot, ``pot_index`` 0 / N, ``half`` high / low when labelled (an
  unsplit pot prints ``won by A (200)``: half null). The pot figures go to ``hands.side_pots``
  (main first); no total pot is printed (``hands.total_pot`` null); ``Rake taken: $0`` is the
  rake. Cash pots are gross, the winners' amounts net of rake.
- Shown cards appear only in the summary (``Seat 6: zlnalea (1920), net: -80, [4c, 9s, Ks,
  9c] (TWO_PAIR NINE, EIGHT)``): they become ``show`` actions after the last street, with the
  description as ``showdowns.high_desc``. A player still in at a showdown whose cards the
  summary does not print did not show them: recorded as ``muck``.
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import cards_list, money
from parsers.engine.anchored import AnchoredParser, Block, seat_lines, with_sitting_out
from parsers.engine.assembly import HandTables, showdown_rows
from parsers.engine.betting import ordered_actions, street_amounts
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import LineForm, classify, kind_fields
from parsers.engine.lines import forward_fill, in_printed_order, local_to_utc
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "OnGameParser"]

SITE = "ongame"
GAME = "OMAHA_HI_LO"
HAND_START = r"^\*{5} History for hand [A-Z0-9-]+"
_HAND_START_LINE = re.compile(r"^\ufeff?\*{5} History for hand [A-Z0-9-]+", re.MULTILINE)
# Zones OnGame prints that `parsers.columns.TIME_ZONES` does not know.
ZONES = {"GST": "Asia/Dubai", "BST": "Europe/London", "CEST": "Europe/Paris"}

HEADER = (
    r"^\*{5} History for hand (?P<hand_id>[A-Z0-9-]+)"
    r"(?: \(TOURNAMENT: (?:\"(?P<tournament_name>.*?)\", )?(?P<tournament_id>[A-Z0-9-]+)"
    r"(?:, buy-in: (?P<buy_in>[^)]*))?\))? \*{5}$"
)
START = (
    r"^Start hand: \w{3} (?P<month>\w{3}) (?P<day>\d{1,2}) (?P<time>\d{1,2}:\d{2}:\d{2}) "
    r"(?P<zone>\S+) (?P<year>\d{4})$"
)
TABLE = (
    r"^Table: (?:\[\w+\] )?(?P<table_name>.+?) \[(?P<table_id>\d+)\] \((?P<limit>[A-Z_]+) "
    r"(?P<game>[A-Z_]+) (?P<first>[^/ ]+)/(?P<second>[^, ]+)(?:, ante: (?P<ante>[^,]+))?, "
    r"(?P<money>Chips|Real money|Play money|TC)\)$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[^()]+)\)$"
RESULT_SEAT = (
    r"^Seat (?P<seat>\d+): (?P<player>.+?) \((?P<stack>[^()]+)\)(?:, net: (?P<net>[-+]\S+?))?"
    r"(?:, \[(?P<cards>[^\]]*)\](?: \((?P<desc>.*)\))?)?$"
)
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind|posts small & big blind"
    r"|posts dead blind|posts ante|calls|bets|raises|checks|folds)"
    r"(?: \(?\s?(?P<first>\$?[\d,.]+)\)?)?(?: to (?P<to>\$?[\d,.]+))?(?P<all_in> \[all in\])?$"
)
POT = r"^(?:Main pot|Side pot (?P<side>\d+)): (?P<pot>\$?[\d,.]+) won by (?P<winners>.+)$"
WINNER = r"^(?P<player>.+) \((?P<amount>\$?[\d,.]+)(?: (?P<half>High|Low))?$"
STREET = r"^--- Dealing (?P<street>flop|turn|river) \[(?P<cards>[^\]]*)\]$"
INFORMATIONAL = r"^(?:---|Dealing pocket cards|.+ (?:sits out|is sitting out|has returned))$"

VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts small & big blind": "both",
    "posts dead blind": "post_dead",
    "posts ante": "ante",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "checks": "check",
    "folds": "fold",
}
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_START,
    KIND_TABLE,
    KIND_USER,
    KIND_BUTTON,
    KIND_PLAYERS,
    KIND_SEAT,
    KIND_DEALT,
    KIND_STREET,
    KIND_SUMMARY,
    KIND_POT,
    KIND_RAKE,
    KIND_RESULT_SEAT,
    KIND_END,
    KIND_ACTION,
    KIND_INFO,
    KIND_UNKNOWN,
) = range(18)
INFO = (KIND_INFO, INFORMATIONAL)
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_START, starts="Start hand: "),
    LineForm(KIND_TABLE, starts="Table: "),
    LineForm(KIND_USER, starts="User: "),
    LineForm(KIND_BUTTON, starts="Button: seat "),
    LineForm(KIND_PLAYERS, starts="Players in round: "),
    LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
    LineForm(KIND_DEALT, starts="Dealing to "),
    LineForm(KIND_STREET, where="street"),
    LineForm(KIND_SUMMARY, equals="Summary:"),
    LineForm(KIND_POT, pattern=POT, where="summary"),
    LineForm(KIND_RAKE, starts="Rake taken: ", where="summary"),
    LineForm(KIND_RESULT_SEAT, pattern=RESULT_SEAT, where="summary"),
    LineForm(KIND_END, starts="***** End of hand "),
    LineForm(KIND_ACTION, pattern=ACTION, where="body"),
)
MONTHS = {
    m: i
    for i, m in enumerate(
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], 1
    )
}


class _Block(Block):
    """One parse of a block of lines: the site's own decoding, handed to `finish`."""

    unknown_kind = KIND_UNKNOWN

    def tables(self) -> HandTables:
        lines = self._classify(self.frame.filter(pl.col("hand") >= 0))
        headers = self._headers(lines)
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = lines.join(candidates.select("hand", "money_scale"), on="hand", how="inner")
        hands = self._hands(candidates, lines)
        seats = self._seats(lines)
        collections = self._collections(lines)
        actions = self._actions(lines, seats, collections, hands)
        showdowns = self._showdowns(lines, seats)
        return self.assemble(
            lines,
            headers=headers,
            hands=hands,
            seats=seats,
            actions=actions,
            collections=collections,
            showdowns=showdowns,
            reasons=[
                self._hand_problems(hands, lines),
                self._result_problems(lines, seats, collections),
            ],
        )

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        line = lines["line"]
        street = line.str.extract(STREET, 1).replace_strict(
            {"flop": 1, "turn": 2, "river": 3}, default=None, return_dtype=pl.Int8
        )
        marker = pl.select(
            pl.when(line == "Dealing pocket cards")
            .then(0)
            .when(line == "Summary:")
            .then(5)
            .otherwise(street)
        ).to_series()
        section = forward_fill(lines, marker)
        streets = {"street": street.is_not_null().to_numpy()}
        return classify(lines, section, LINE_FORMS, KIND_UNKNOWN, streets, INFO)

    def _headers(self, lines: pl.DataFrame) -> pl.DataFrame:
        first = kind_fields(lines, KIND_HEADER, HEADER, "hand", "offset")
        table = (
            lines.filter(pl.col("kind") == KIND_TABLE)
            .group_by("hand")
            .agg(pl.col("line").first(), tables=pl.len())
            .select("hand", "tables", pl.col("line").str.extract_groups(TABLE).alias("t"))
            .unnest("t")
        )
        parsed = first.join(table, on="hand", how="left")
        money_kind = pl.col("money")
        symbol = pl.col("first").str.extract(r"^([^\d]+)", 1)
        currency = (
            pl.when(money_kind == "Chips")
            .then(pl.lit("CHIPS"))
            .when(money_kind.is_in(["Play money", "TC"]))
            .then(pl.lit("PLAY"))
            .when(symbol == "€")
            .then(pl.lit("EUR"))
            .when(symbol == "£")
            .then(pl.lit("GBP"))
            .otherwise(pl.lit("USD"))
        )
        return parsed.with_columns(
            is_o8=pl.col("game") == GAME,
            # A hand whose table line is missing is judged below as an O8 candidate, so the
            # header alone decides whether it is readable.
            header_ok=pl.col("hand_id").is_not_null(),
            game=pl.coalesce("game", pl.lit("unknown")),
            currency=currency,
            money_scale=pl.when(currency.is_in(["CHIPS", "PLAY"])).then(1).otherwise(100),
        ).with_columns(is_o8=pl.col("is_o8").fill_null(True))

    def _hands(self, headers: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        def first_of(kind: int, name: str) -> pl.DataFrame:
            return (
                lines.filter(pl.col("kind") == kind)
                .group_by("hand")
                .agg(pl.col("line").first().alias(name), pl.len().alias(f"{name}_count"))
            )

        start = (
            first_of(KIND_START, "start_line")
            .with_columns(pl.col("start_line").str.extract_groups(START).alias("s"))
            .unnest("s")
        )
        month = pl.col("month").replace_strict(MONTHS, default=None, return_dtype=pl.Int32)
        stamp = pl.format(
            "{}-{}-{} {}",
            pl.col("year"),
            month.cast(pl.String).str.zfill(2),
            pl.col("day").str.zfill(2),
            pl.col("time"),
        )
        offset = pl.col("zone").str.extract(r"^(?:GMT|UTC)([+-]\d{2}:?\d{2})$", 1)
        start = start.with_columns(
            started_at=pl.when(offset.is_not_null())
            .then(
                pl.concat_str(stamp, pl.lit(" "), offset.str.replace(":", "")).str.strptime(
                    pl.Datetime("us", "UTC"), "%Y-%m-%d %H:%M:%S %z", strict=False
                )
            )
            .otherwise(local_to_utc(stamp, pl.col("zone"), ZONES, "%Y-%m-%d %H:%M:%S")),
            time_zone=pl.col("zone"),
            # A zone no table knows loses the time (kept as printed in the file), not the hand.
            start_readable=stamp.str.strptime(
                pl.Datetime("us"), "%Y-%m-%d %H:%M:%S", strict=False
            ).is_not_null(),
        )
        button = first_of(KIND_BUTTON, "button_line")
        players = first_of(KIND_PLAYERS, "players_line")
        rake = first_of(KIND_RAKE, "rake_line")
        summary = first_of(KIND_SUMMARY, "summary_line")
        end = first_of(KIND_END, "end_line")
        streets = (
            lines.filter(pl.col("kind") == KIND_STREET)
            .sort("line_no")
            .group_by("hand")
            .agg(
                board_text=pl.col("line").str.extract(STREET, 2).str.join(", "),
                street_codes=pl.col("section"),
            )
        )
        pots = (
            self.fields(lines, KIND_POT, POT, "hand", "line_no", "money_scale")
            .sort("line_no")
            .group_by("hand")
            .agg(
                side_pots=money(pl.col("pot"), pl.col("money_scale")),
                pot_names=pl.col("side").fill_null("0"),
            )
        )
        verb = pl.col("verb")
        acts = self._action_fields(lines)
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(verb == "posts small blind").max(),
            posted_bb=pl.col("amount").filter(verb == "posts big blind").max(),
            posted_ante=pl.col("amount").filter(verb == "posts ante").max(),
        )
        scale = pl.col("money_scale")
        is_fixed = pl.col("limit_type") == "FL"
        first = money(pl.col("first"), scale)
        second = money(pl.col("second"), scale)
        return (
            headers.join(start, on="hand", how="left")
            .join(button, on="hand", how="left")
            .join(players, on="hand", how="left")
            .join(rake, on="hand", how="left")
            .join(summary, on="hand", how="left")
            .join(end, on="hand", how="left")
            .join(streets, on="hand", how="left")
            .join(pots, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .with_columns(
                limit_type=pl.col("limit").replace_strict(
                    {"NO_LIMIT": "NL", "POT_LIMIT": "PL", "LIMIT": "FL", "FIXED_LIMIT": "FL"},
                    default=None,
                ),
            )
            .with_columns(
                game=pl.lit("O8"),
                table_name=pl.col("table_name"),
                small_bet=pl.when(is_fixed).then(first),
                big_bet=pl.when(is_fixed).then(second),
                small_blind=pl.coalesce("posted_sb", pl.when(~is_fixed).then(first)),
                big_blind=pl.coalesce("posted_bb", pl.when(is_fixed).then(first).otherwise(second)),
                ante=pl.coalesce("posted_ante", money(pl.col("ante"), scale)),
                button_seat=pl.col("button_line")
                .str.extract(r"^Button: seat (\d+)$", 1)
                .cast(pl.Int16, strict=False),
                max_seats=pl.col("players_line")
                .str.extract(r"\((\d+)\)$", 1)
                .cast(pl.Int16, strict=False),
                board=cards_list(pl.col("board_text"), separator=", ").fill_null(
                    pl.lit([], dtype=pl.List(pl.UInt8))
                ),
                total_pot=pl.lit(None, dtype=pl.Int64),
                rake=money(pl.col("rake_line").str.strip_prefix("Rake taken: "), scale),
                source_offset=pl.col("offset"),
            )
        )

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        return (
            self.fields(lines, KIND_ACTION, ACTION, "hand", "line_no", "section", "money_scale")
            .with_columns(
                amount=money(pl.col("first"), pl.col("money_scale")),
                to=money(pl.col("to"), pl.col("money_scale")),
            )
        )

    def _seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        seats = seat_lines(lines, KIND_SEAT, SEAT)
        seats = with_sitting_out(seats, self._action_fields(lines))
        dealt = (
            lines.filter(pl.col("kind") == KIND_DEALT)
            .select(
                "hand",
                "line_no",
                pl.col("line")
                .str.extract_groups(r"^Dealing to (?P<player>.+?): \[(?P<cards>[^\]]*)\]$")
                .alias("d"),
            )
            .unnest("d")
        )
        shown = self._shown(lines)
        sightings = pl.concat(
            [
                dealt.select("hand", "line_no", "player", "cards", dealt=pl.lit(True)),
                shown.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
            ]
        ).with_columns(cards=cards_list(pl.col("cards"), separator=", "))
        heroes = lines.filter(pl.col("kind") == KIND_USER).select(
            "hand", player=pl.col("line").str.strip_prefix("User: ")
        )
        return attach_hole_cards(seats, sightings, heroes)

    def _shown(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_RESULT_SEAT, RESULT_SEAT, "hand", "line_no", "money_scale")

    def _collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        pots = (
            self.fields(lines, KIND_POT, POT, "hand", "line_no", "money_scale")
            .with_columns(winner=pl.col("winners").str.strip_suffix(")").str.split("), "))
            .explode("winner")
            .with_columns(pl.col("winner").str.extract_groups(WINNER).alias("w"))
            .unnest("w")
        )
        return in_printed_order(
            pots.select(
                "hand",
                "line_no",
                "player",
                amount=money(pl.col("amount"), pl.col("money_scale")),
                pot_index=pl.col("side").cast(pl.Int8, strict=False).fill_null(0),
                half=pl.col("half").str.to_lowercase(),
                board_index=pl.lit(0, dtype=pl.Int8),
            )
        )

    def _actions(
        self,
        lines: pl.DataFrame,
        seats: pl.DataFrame,
        collections: pl.DataFrame,
        hands: pl.DataFrame,
    ) -> pl.DataFrame:
        acts = self._action_fields(lines).with_columns(
            kind=pl.col("verb").replace_strict(VERB_KIND, default=None),
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        # "posts small & big blind (x)": the big blind part is live, the rest dead (as
        # PokerStars' "posts small & big blinds"); no corpus hand shows it.
        both = acts.filter(pl.col("kind") == "both").join(
            hands.select("hand", "big_blind"), on="hand", how="left"
        )
        live_part = pl.min_horizontal("amount", "big_blind")
        dead = both.with_columns(
            kind=pl.lit("post_dead"), amount=pl.col("amount") - live_part, sub=pl.lit(0)
        ).filter(pl.col("amount") > 0)
        live = both.with_columns(kind=pl.lit("post_bb"), amount=live_part, sub=pl.lit(1))
        single = acts.filter(pl.col("kind") != "both").with_columns(sub=pl.lit(0))
        # Summary cards are shown hands; a player still in at a showdown without them mucked.
        shown = (
            self._shown(lines)
            .filter(pl.col("cards").is_not_null())
            .select("hand", "player", "line_no", kind=pl.lit("show"))
        )
        folded = acts.filter(pl.col("kind") == "fold").select("hand", "player").unique()
        in_at_end = (
            seats.filter(~pl.col("sitting_out"))
            .select("hand", "player", "seat")
            .join(folded, on=["hand", "player"], how="anti")
        )
        showdown = (
            in_at_end.group_by("hand").agg(remaining=pl.len()).filter(pl.col("remaining") > 1)
        )
        mucked = (
            in_at_end.join(showdown, on="hand", how="semi")
            .join(shown, on=["hand", "player"], how="anti")
            .join(collections.select("hand", "player").unique(), on=["hand", "player"], how="anti")
            .join(
                lines.filter(pl.col("kind") == KIND_RESULT_SEAT).select(
                    "hand",
                    "line_no",
                    seat=pl.col("line")
                    .str.extract(r"^Seat (\d+):", 1)
                    .cast(pl.Int16, strict=False),
                ),
                on=["hand", "seat"],
                how="left",
            )
            .select("hand", "player", "line_no", kind=pl.lit("muck"))
        )
        finals = pl.concat([shown, mucked]).with_columns(
            street=pl.lit(3, dtype=pl.Int8),
            amount=pl.lit(None, dtype=pl.Int64),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
            sub=pl.lit(0),
        )
        columns = [
            "hand",
            "line_no",
            "sub",
            "street",
            "player",
            "kind",
            "amount",
            "to",
            "is_all_in",
        ]
        frame = (
            pl.concat(
                [
                    single.select(columns),
                    dead.select(columns),
                    live.select(columns),
                    finals.select(columns),
                ],
                how="vertical_relaxed",
            )
            .with_columns(to=pl.when(pl.col("kind") == "raise").then(pl.col("to")))
        )
        return street_amounts(ordered_actions(frame, "street"))

    def _showdowns(self, lines: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
        shown = self._shown(lines).filter(pl.col("cards").is_not_null())
        return showdown_rows(shown, cards_list(pl.col("cards"), separator=", "), high_desc="desc")

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        board = pl.col("board")
        codes = pl.col("street_codes").fill_null(pl.lit([], dtype=pl.List(pl.Int8)))
        reason = first_problem(
            (
                pl.col("game").is_null() | pl.col("table_name").is_null(),
                "table line missing or unreadable",
            ),
            (pl.col("summary_line").is_null(), "truncated hand: no summary"),
            (pl.col("end_line").is_null(), "truncated hand: no end of hand line"),
            (~pl.col("start_readable").fill_null(False), "unreadable start time"),
            (pl.col("limit_type").is_null(), "unknown betting limit"),
            (pl.col("big_blind").is_null(), "unreadable stakes"),
            (pl.col("rake").is_null(), "missing or unreadable rake"),
            (pl.col("side_pots").is_null(), "no pot line"),
            (
                pl.col("side_pots").list.drop_nulls().list.len() < pl.col("side_pots").list.len(),
                "unreadable pot amount",
            ),
            (
                pl.col("pot_names")
                != pl.int_ranges(pl.col("pot_names").list.len()).cast(pl.List(pl.String)),
                "pots out of order",
            ),
            (
                codes != pl.int_ranges(1, codes.list.len() + 1).cast(pl.List(pl.Int8)),
                "streets missing or out of order",
            ),
            (board.list.drop_nulls().list.len() < board.list.len(), "unreadable board card"),
            (
                board.list.len()
                != pl.when(codes.list.len() == 0).then(0).otherwise(codes.list.len() + 2),
                "wrong number of board cards",
            ),
            (pl.col("button_seat").is_null(), "no button seat"),
        )
        return hands.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    def _result_problems(
        self, lines: pl.DataFrame, seats: pl.DataFrame, collections: pl.DataFrame
    ) -> pl.DataFrame:
        """Per pot, the winners' amounts plus the rake they leave add up to the pot; per seat,
        the summary's final stack is the starting stack plus the printed net."""
        pots = (
            collections.group_by("hand", "pot_index")
            .agg(paid=pl.col("amount").sum(), unreadable=pl.col("amount").is_null().any())
            .join(
                self.fields(lines, KIND_POT, POT, "hand", "line_no", "money_scale")
                .select(
                    "hand",
                    pot_index=pl.col("side").cast(pl.Int8, strict=False).fill_null(0),
                    pot=money(pl.col("pot"), pl.col("money_scale")),
                ),
                on=["hand", "pot_index"],
                how="left",
            )
            .group_by("hand")
            .agg(
                kept=(pl.col("pot") - pl.col("paid")).sum(),
                negative=(pl.col("pot") < pl.col("paid")).any(),
                unreadable=pl.col("unreadable").any() | pl.col("pot").is_null().any(),
            )
        )
        rake = (
            lines.filter(pl.col("kind") == KIND_RAKE)
            .group_by("hand")
            .agg(
                rake=money(
                    pl.col("line").first().str.strip_prefix("Rake taken: "),
                    pl.col("money_scale").first(),
                )
            )
        )
        pot_reason = (
            pots.join(rake, on="hand", how="left")
            .filter(
                pl.col("unreadable")
                | pl.col("negative")
                | (pl.col("kept") != pl.col("rake").fill_null(-1))
            )
            .select(
                "hand",
                reason=pl.lit("pot lines do not add up: winners leave ")
                + pl.col("kept").cast(pl.String).fill_null("(unreadable)")
                + pl.lit(", rake taken ")
                + pl.col("rake").cast(pl.String).fill_null("(unreadable)"),
            )
        )
        results = self._shown(lines).select(
            "hand",
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            final=money(pl.col("stack"), pl.col("money_scale")),
            net=pl.col("net"),
            money_scale="money_scale",
        )
        sign = pl.when(pl.col("net").str.starts_with("-")).then(-1).otherwise(1)
        net = sign * money(pl.col("net").str.strip_chars_start("+-"), pl.col("money_scale"))
        stacks = (
            results.join(
                seats.select("hand", "seat", "stack_start"),
                on=["hand", "seat"],
                how="full",
                coalesce=True,
            )
            .with_columns(net=pl.when(pl.col("net").is_null()).then(0).otherwise(net))
            .filter(
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
        return pl.concat([pot_reason, stacks])


class OnGameParser(AnchoredParser):
    """Parser for OnGame text hand histories."""

    site: ClassVar[str] = SITE
    # Labelled halves, one line per pot; pots printed gross of the printed rake; uncalled bets
    # returned silently.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_half",
        rake_printed=True,
        uncalled_printed=False,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = _Block
