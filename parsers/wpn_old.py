"""Winning Poker Network hand histories, old format (``Game started at:`` / ``Game ID: …``).

What the old WPN client printed, and so what this parser records:

- ``Game started at: 2016/8/2 11:16:59`` (unpadded, no zone: read as UTC, ``time_zone`` null)
  then ``Game ID: 727152195 20/40 (PRR) Urayuli (Omaha HiLow)``: the hand number, two stakes,
  the table name as printed (``(PRR) Urayuli``, ``(PRR) Pamola (Short)``) and the game. Only
  ``Omaha HiLow`` is parsed; other games are counted as skipped. Files are often UTF-16LE.
- A tournament table is named ``<tournament>, Table <n>`` (``$200 GTD PLO8 R/A, Table 5``; fpdb
  reads the tournament's name the same way): its hands are tournament hands, in chips, with the
  tournament's name as ``tournament_id`` (no number is printed). Any other table is a USD cash
  table, or play money when its name starts ``PM ``.
- The betting limit is not printed. When the big blind posted equals the first stake the
  stakes are the fixed-limit bets (``20/40`` with blinds 10/20: fixed limit, as the site's own
  client reads them); otherwise the table is read as pot limit (no limit cannot be told apart).
- Every amount is the chips the action adds (``calls (60)`` from the small blind,
  ``raises (80)``, ``allin (402.40)``); ``allin`` is recorded as a call, bet or raise depending on
  the bet it faces. ``Player P allin`` without an amount (``is disconnected and ALL IN.``) adds
  nothing: a call of 0, all-in.
- Hole cards: four ``received card: [10h]`` lines for the hero (rank ``10`` is a ten); players who
  show are listed only in the summary (``*Player P shows: Flush, 7 high [4h 4s Ks 6h]. …``), which
  is also where their show action comes from.
- Payouts are one total per player: ``Collects: 238.50`` (main and side pots, both halves,
  summed): one collection row per player with a null pot and half.
- ``Pot: 477. Rake 2.76. JP fee 0.24``: the pot is net of rake and jackpot fee. As for the
  current WPN format, ``hands.rake`` holds rake + JP fee: both leave the pot in the site's own
  arithmetic (480 committed = 477 + 2.76 + 0.24). A tournament hand prints the pot alone
  (``Pot: 10958``): its rake is null, as nothing was printed (a tournament's fee comes from the
  buy-in). A cash hand without a readable rake is quarantined.
- The summary's ``Bets:`` per player is the site's own account of what each player put in; a
  hand whose actions disagree with it is quarantined (the ``no.flop`` corpus file: a player
  who folds is returned an uncalled bet and collects the pot).
"""

from __future__ import annotations

from typing import ClassVar

import polars as pl

from parsers.columns import money
from parsers.engine.line_forms import LineForm
from parsers.engine.line_kinds import (
    FIRST_SITE_KIND,
    FLOP,
    RIVER,
    SUMMARY,
    TURN,
    Required,
    TextFormat,
    TextFormatParser,
    bracket_cards,
    first_lines,
    head_has_lines,
    sightings,
    utc_time,
)
from pipeline.profiles import SiteProfile

__all__ = ["WpnOldParser"]

SITE = "wpn_old"
O8_GAME = "Omaha HiLow"

HAND_START = r"^Game started at: "
STARTED = r"^Game started at: (?P<date>\d{4}/\d{1,2}/\d{1,2}) (?P<time>\d{1,2}:\d{1,2}:\d{1,2})$"
GAME_ID = (
    r"^Game ID: (?P<hand_id>\d+) (?P<first>[\d.,]+)/(?P<second>[\d.,]+) "
    r"(?P<table_name>.+) \((?P<game>[^()]+)\)(?: (?P<max_seats>\d+)-max)?$"
)
BUTTON = r"^Seat (?P<button_seat>\d+) is the button$"
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>[^)]*)\)\.$"
DEALT = r"^Player (?P<player>.+?) received (?:a card\.|card: \[(?P<card>[^\]]*)\])$"
ACTION = (
    r"^Player (?P<player>.+?) (?P<verb>has small blind|has big blind|posts ante|ante|posts"
    r"|calls|bets|raises|caps|cap|allin|checks|folds|mucks cards)(?: \((?P<amount>[^)]*)\))?$"
)
SITTING_OUT = r"^Player (?P<player>.+?) sitting out$"
UNCALLED = r"^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<player>.+)$"
NUMBER = r"\d[\d,]*(?:\.\d+)?"
POT = (
    rf"^Pot: (?P<total>{NUMBER})"
    rf"(?:\. Rake (?P<rake>{NUMBER})(?:\. JP fee (?P<jp_fee>{NUMBER}))?)?$"
)
TOURNAMENT_TABLE = r"^(?P<tournament>.+), Table \d+$"
SUMMARY_PLAYER = (
    r"^(?P<winner>\*)?Player (?P<player>.+?) (?:does not show cards|mucks \(does not show cards\)"
    r"|shows: (?P<desc>.*?) \[(?P<cards>[^\]]*)\](?: Low hand \((?P<low>[^)]*?) ?\))?)"
    rf"\. ?Bets: (?P<bets>{NUMBER})\. Collects: (?P<collects>{NUMBER})\. (?:Wins|Loses): {NUMBER}\.$"
)
MARKER = (
    r"^(?:\*\*\* |------ )(?P<name>FLOP|TURN|RIVER|Summary)(?: \*\*\*:| ------)"
    r"(?: (?P<cards>\[.*))?$"
)
INFORMATIONAL = (
    r"^(?:Board: \[.*\]|Game ended at: .+"
    r"|Player .+ (?:is timed out\.|is disconnected and ALL IN\.|is disconnected\.|is connected\."
    r"|has returned\.|sits out|leaves the table\.?|joins the table.*|wait BB))$"
)

(
    KIND_GAME_ID,
    KIND_BUTTON,
    KIND_SEAT,
    KIND_DEALT,
    KIND_SITTING_OUT,
    KIND_UNCALLED,
    KIND_ACTION,
    KIND_POT,
    KIND_SUMMARY_PLAYER,
    KIND_END,
) = range(FIRST_SITE_KIND, FIRST_SITE_KIND + 10)

VERB_KIND = {
    "has small blind": "post_sb",
    "has big blind": "post_bb",
    "posts ante": "ante",
    "ante": "ante",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "caps": "raise",
    "cap": "raise",
    "allin": "call",  # resolved after the street totals
    "checks": "check",
    "folds": "fold",
    "mucks cards": "muck",
}
MONEY_IN = ["post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise"]


class WpnOldFormat(TextFormat):
    site: ClassVar[str] = SITE
    hand_start: ClassVar[str] = HAND_START
    marker: ClassVar[str] = MARKER
    sections: ClassVar[dict[str, tuple[int, int]]] = {
        "FLOP": (FLOP, 0),
        "TURN": (TURN, 0),
        "RIVER": (RIVER, 0),
        "Summary": (SUMMARY, 0),
    }
    line_kinds: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_GAME_ID, starts="Game ID: ", where="setup"),
        LineForm(KIND_BUTTON, pattern=BUTTON, where="setup"),
        LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
        LineForm(KIND_DEALT, pattern=DEALT, where="body"),
        LineForm(KIND_SITTING_OUT, pattern=SITTING_OUT, where="body"),
        LineForm(KIND_UNCALLED, pattern=UNCALLED, where="body"),
        LineForm(KIND_ACTION, pattern=ACTION, where="body"),
        LineForm(KIND_POT, starts="Pot: ", where="summary"),
        LineForm(KIND_SUMMARY_PLAYER, pattern=r"^\*?Player .+Bets: .+ Collects: ", where="summary"),
        LineForm(KIND_END, starts="Game ended at: ", where="summary"),
    )
    informational: ClassVar[str] = INFORMATIONAL
    required_lines: ClassVar[tuple[Required, ...]] = (
        Required(pl.col("marker") == "Summary", "truncated hand: no summary"),
        Required(pl.col("kind") == KIND_END, "truncated hand: no summary"),
        Required(
            pl.col("kind") == KIND_GAME_ID, "Game ID line missing or repeated", exactly_one=True
        ),
    )

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        started = (
            body.filter(pl.col("is_start"))
            .select("hand", "offset", "line", pl.col("line").str.extract_groups(STARTED).alias("s"))
            .unnest("s")
        )
        parsed = started.join(first_lines(body, GAME_ID, "g"), on="hand", how="left").join(
            first_lines(body, r"^Player .+? has big blind \((?P<header_bb_text>[^)]*)\)$", "b"),
            on="hand",
            how="left",
        )
        play = pl.col("table_name").fill_null("").str.starts_with("PM ")
        tournament = pl.col("table_name").str.extract(TOURNAMENT_TABLE, 1)
        scale = pl.when(tournament.is_not_null()).then(1).otherwise(100).cast(pl.Int32)
        first = money(pl.col("first"), scale)
        fixed = money(pl.col("header_bb_text"), scale) == first
        headers = parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null() & pl.col("date").is_not_null(),
            game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
            is_o8=pl.col("game") == O8_GAME,
            limit_type=pl.when(fixed.fill_null(False)).then(pl.lit("FL")).otherwise(pl.lit("PL")),
            tournament_id=tournament,
            currency=pl.when(tournament.is_not_null())
            .then(pl.lit("CHIPS"))
            .when(play)
            .then(pl.lit("PLAY"))
            .otherwise(pl.lit("USD")),
            money_scale=scale,
            started_at=utc_time(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.lit(None, dtype=pl.String),
                "%Y/%m/%d %H:%M:%S",
                [],
            ),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
        )
        self._big_blinds = headers.select(
            "hand",
            header_big_blind=money(
                pl.when(pl.col("limit_type") == "FL")
                .then(pl.col("first"))
                .otherwise(pl.col("second")),
                scale,
            ),
        )
        return headers

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        acts = self.fields(lines, KIND_ACTION, ACTION).join(self._big_blinds, on="hand", how="left")
        amount = self.money("amount")
        verb = pl.col("verb")
        played = acts.select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.when(verb == "posts")
            .then(
                pl.when(amount == pl.col("header_big_blind"))
                .then(pl.lit("post_bb"))
                .otherwise(pl.lit("post_dead"))
            )
            .otherwise(verb.replace_strict(VERB_KIND)),
            # A disconnected "allin" without an amount adds nothing.
            amount=pl.when(verb == "allin").then(amount.fill_null(0)).otherwise(amount),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=verb == "allin",
            allin_verb=verb == "allin",
        )
        uncalled = self.uncalled_returns(lines, KIND_UNCALLED, UNCALLED).with_columns(
            allin_verb=pl.lit(False)
        )
        # Cards shown at showdown are printed in the summary only.
        shows = (
            self._summary(lines)
            .filter(pl.col("cards").is_not_null())
            .select(
                "hand",
                "line_no",
                "section",
                "player",
                sub=pl.lit(0),
                kind=pl.lit("show"),
                amount=pl.lit(None, dtype=pl.Int64),
                to=pl.lit(None, dtype=pl.Int64),
                is_all_in=pl.lit(False),
                allin_verb=pl.lit(False),
            )
        )
        return pl.concat([played, uncalled, shows], how="vertical_relaxed")

    def street_totals(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Totals as usual, then each ``allin`` becomes the call, bet or raise it was."""
        totals = super().street_totals(frame)
        in_flow = pl.col("to_amount").is_not_null()
        faced = (
            pl.when(in_flow)
            .then(pl.col("to_amount"))
            .otherwise(0)
            .cum_max()
            .shift(1, fill_value=0)
            .over("hand", "street")
        )
        resolved = (
            pl.when(~pl.col("allin_verb") | (pl.col("to_amount") <= pl.col("faced")))
            .then(pl.col("kind"))
            .when(pl.col("faced") == 0)
            .then(pl.lit("bet"))
            .otherwise(pl.lit("raise"))
        )
        return (
            totals.with_columns(faced=faced).with_columns(kind=resolved).drop("faced", "allin_verb")
        )

    def _summary(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.fields(lines, KIND_SUMMARY_PLAYER, SUMMARY_PLAYER)

    def hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, actions: pl.DataFrame
    ) -> pl.DataFrame:
        pots = (
            self.fields(lines, KIND_POT, POT)
            .unique("hand", keep="first")
            .select(
                "hand",
                total_pot=self.money("total"),
                printed_rake=self.money("rake"),
                jp_fee=self.money("jp_fee"),
            )
        )
        button = first_lines(lines, BUTTON, "b")
        counts = lines.group_by("hand").agg(
            summary_players=(pl.col("kind") == KIND_SUMMARY_PLAYER).sum(),
        )
        # A tournament prints no rake; a cash table always does.
        cash = pl.col("tournament_id").is_null()
        checks = (
            (
                pl.col("total_pot").is_null() | (cash & pl.col("printed_rake").is_null()),
                "missing or unreadable pot / rake",
            ),
        )
        return self.hand_table(
            headers.drop("max_seats"),
            lines,
            actions,
            (pots, button, counts),
            checks,
            **self.header_stakes(),
            ante=pl.col("posted_ante"),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            max_seats=pl.lit(None, dtype=pl.Int16),
            # Rake and jackpot fee both leave the pot (see the module docstring).
            rake=pl.col("printed_rake") + pl.col("jp_fee").fill_null(0),
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        dealt = self.fields(lines, KIND_DEALT, DEALT).select("hand", "player").unique()
        dealt_hands = dealt.select("hand").unique().with_columns(any_dealt=pl.lit(True))
        sitting = (
            self.fields(lines, KIND_SITTING_OUT, SITTING_OUT).select("hand", "player").unique()
        )
        return (
            self.fields(lines, KIND_SEAT, SEAT)
            .join(dealt.with_columns(was_dealt=pl.lit(True)), on=["hand", "player"], how="left")
            .join(sitting.with_columns(sat_out=pl.lit(True)), on=["hand", "player"], how="left")
            .join(dealt_hands, on="hand", how="left")
            .with_columns(
                seat=pl.col("seat").cast(pl.Int16, strict=False),
                stack_start=self.money("stack"),
                # Dealt in = sent cards (the hand prints a line per card for every player).
                sitting_out=pl.col("sat_out").fill_null(False)
                | (pl.col("any_dealt").fill_null(False) & pl.col("was_dealt").is_null()),
            )
        )

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        return (
            self._summary(lines)
            .with_columns(amount=self.money("collects"))
            .filter(pl.col("amount").is_null() | (pl.col("amount") > 0))
            .select(
                "hand",
                "line_no",
                "player",
                "amount",
                board_index=pl.lit(0, dtype=pl.Int8),
                pot_index=pl.lit(None, dtype=pl.Int8),
                half=pl.lit(None, dtype=pl.String),
            )
        )

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        return (
            self._summary(lines)
            .filter(pl.col("cards").is_not_null())
            .select(
                "hand",
                "line_no",
                "player",
                board_index=pl.lit(0, dtype=pl.Int8),
                cards_text=bracket_cards(pl.col("cards")),
                high_desc=pl.col("desc"),
                low_desc=pl.col("low"),
            )
        )

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        dealt = (
            self.fields(lines, KIND_DEALT, DEALT)
            .filter(pl.col("card").is_not_null())
            .group_by("hand", "player", maintain_order=True)
            .agg(pl.col("line_no").first(), pl.col("card").str.join(" "))
            .select(
                "hand",
                "line_no",
                "player",
                cards_text=bracket_cards(pl.col("card")),
                dealt=pl.lit(True),
            )
        )
        shown = sightings(self._summary(lines), dealt=False, cards=bracket_cards(pl.col("cards")))
        return pl.concat([dealt, shown])

    def extra_problems(self, tables: dict[str, pl.DataFrame], lines: pl.DataFrame) -> pl.DataFrame:
        """The summary's ``Bets:`` per player must be what the actions put in, net of returns."""
        actions = tables["actions"]
        kind = pl.col("kind")
        net = actions.group_by("hand", "player").agg(
            put_in=(
                pl.when(kind.is_in(MONEY_IN))
                .then(pl.col("amount"))
                .when(kind == "uncalled_return")
                .then(-pl.col("amount"))
                .otherwise(0)
            ).sum()
        )
        summary = self._summary(lines).select("hand", "player", bets=self.money("bets"))
        compared = summary.join(net, on=["hand", "player"], how="left").with_columns(
            put_in=pl.col("put_in").fill_null(0)
        )
        return (
            compared.filter(pl.col("bets").is_null() | (pl.col("bets") != pl.col("put_in")))
            .group_by("hand", maintain_order=True)
            .first()
            .select(
                "hand",
                reason=pl.lit("inconsistent hand: the summary's Bets of ")
                + pl.col("player").fill_null("an unreadable summary line")
                + " is "
                + pl.col("bets").cast(pl.String).fill_null("unreadable")
                + ", its actions put in "
                + pl.col("put_in").cast(pl.String)
                + " (minor units)",
            )
        )


class WpnOldParser(TextFormatParser):
    """Parser for the old Winning Poker Network text format."""

    site: ClassVar[str] = SITE
    text_format = WpnOldFormat
    # One total per player; printed pot net of rake and jackpot fee.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=False,
        raise_cap=4,
        payout_lines="per_player",
    )

    def sniff(self, head: str) -> bool:
        """``Game started at:`` followed by a ``Game ID:`` line."""
        return head_has_lines(head, "Game started at: ", "Game ID: ")
