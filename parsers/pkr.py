"""PKR hand histories (``Table #N - name`` / ``Starting Hand #N`` / ``Game Type: OMAHA HI/LO``).

What PKR prints, and so what this parser records:

- A multi-line header: ``Table #39429846 - Montego Bay`` (the hand's first line; the table name
  is kept as ``39429846 - Montego Bay``), ``Starting Hand #…``, ``Start time of hand: 26 Aug 2011
  11:24:50`` (no zone: read as UTC, ``time_zone`` null), ``Game Type: OMAHA HI/LO`` (other games
  are counted as skipped), ``Limit Type: POT LIMIT``, ``Table Type: RING``, ``Money Type: REAL
  MONEY`` and ``Blinds are now $2 / $4``.
- ``Button is at seat 5`` is the button before it moves; ``Moving Button to seat 6`` is this
  hand's button, used when printed.
- Cards are written ``[9 d][5 d]``; tens as ``T``.
- Calls, bets and raises print the player's street total: ``Hero raises to $12``, and
  ``Player0 calls $12`` from the $4 big blind adds $8 (``Pot sizes: $24``). Posts print what
  they add: ``posts small blind ($2)``, ``posts $2`` (a live big blind), ``posts $1 dead``.
- ``Returning $0.18 to Player1 uncalled`` is an ``uncalled_return``.
- Payouts are labelled per half: ``wins $x with high hand: …``, ``ties, and wins $x with high
  hand: …``, ``ties $x with low hand: …``; a pot without a split is ``wins $x with: …`` and an
  uncontested one ``wins $x`` (half null). Side pots are named (``wins $0.38 from side pot #2``,
  ``ties side pot #1, and wins …``) while the main pot never is: in a hand that names a side pot
  the unnamed lines are the main pot (pot 0); otherwise no pot is named and ``pot_index`` is null.
- ``Taking Rake of $1 from pot 1`` (one line per raked pot) gives the rake, summed; a hand
  without such a line has a null rake. ``Pot sizes: $140`` after the last street is the gross
  pot; with side pots the last street prints one ``Pot sizes`` line per pot, and the total pot is
  their sum (``side_pots`` keeps them).
- Showdown descriptions are separate lines: ``Hero has Straight, 5 high`` and ``Hero has low
  hand: A2345`` (``has no qualifying low hand``: no low).
- Players chat (``Player1: :)``) and emote (``Player3 claps.``): a line that starts with a seated
  player's name and is none of the action forms is informational.
- The closing ``Seat N: P - $x`` lines are the stacks after the hand (not stored).
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
    KIND_INFO,
    KIND_UNKNOWN,
    PREFLOP,
    RIVER,
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

__all__ = ["PkrParser"]

SITE = "pkr"
O8_GAME = "OMAHA HI/LO"

HAND_START = r"^Table #\d+ - "
TABLE = r"^Table #(?P<table_name>\d+ - .*)$"
HEADER_FIELDS = {
    "hand_id": r"^Starting Hand #(?P<hand_id>\d+)$",
    "start": r"^Start time of hand: (?P<start>\d{1,2} [A-Z][a-z]{2} \d{4} \d{1,2}:\d{2}:\d{2})$",
    "game": r"^Game Type: (?P<game>.+)$",
    "limit": r"^Limit Type: (?P<limit>.+)$",
    "table_type": r"^Table Type: (?P<table_type>.+)$",
    "money_type": r"^Money Type: (?P<money_type>.+)$",
    "blinds": r"^Blinds are now (?P<symbol>[$€£]?)(?P<first>[\d.,]+) / [$€£]?(?P<second>[\d.,]+)$",
    "button_before": r"^Button is at seat (?P<button_before>\d+)$",
    "button_moved": r"^Moving Button to seat (?P<button_moved>\d+)$",
}
SETUP_LINE = (
    r"^(?:Starting Hand #|Start time of hand: |Last Hand #|Game Type: |Limit Type: |Table Type: "
    r"|Money Type: |Blinds are now |Button is at seat |Moving Button to seat |Shuffling Deck$)"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) - (?P<stack>[^ ]+)(?P<flags>(?: \([^)]*\))*)$"
DEALT = r"^Dealing (?P<cards>\[.*\]) to (?P<player>.+)$"
ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind|posts|folds|checks|calls|bets"
    r"|raises to|shows|mucks)(?: \(?(?P<amount>[$€£]?\d[\d,.]*)\)?)?(?P<dead> dead)?"
    r"(?: (?P<cards>\[.*\]))?(?P<all_in> \(all-in\))?$"
)
UNCALLED = r"^Returning (?P<amount>\S+) to (?P<player>.+) uncalled$"
POT_SIZES = r"^Pot sizes: (?P<amount>\S+)$"
RAKE = r"^Taking Rake of (?P<amount>\S+) from pot (?P<pot>\d+)$"
NOTE = (
    r"^.+ (?:has become disconnected.*|has disconnected and has been granted.*|has reconnected.*"
    r"|will be dealt in after the button|has timed out.*|doesn't show|is sitting out"
    r"|has left the table|has joined the table.*)$"
)
DESCRIPTION = r"^(?P<player>.+?) has (?:low hand: (?P<low>.*)|(?P<no_low>no qualifying low hand)|(?P<high>.+))$"
WINS = (
    r"^(?P<player>.+?) (?:ties(?: (?P<tie_pot>side pot #\d+|main pot))?, and )?wins "
    r"(?P<amount>[$€£]?\d[\d,.]*)(?P<rest>(?:,| ).*)?$"
)
TIES = r"^(?P<player>.+?) ties (?P<amount>[$€£]?\d[\d,.]*) with (?P<half>high|low) hand: .*$"
END = r"^End of Hand #\d+$"
MARKER = r"^Dealing (?P<name>Cards|Flop|Turn|River)(?: (?P<cards>\[.*\]))?$"
INFORMATIONAL = (
    r"^(?:Seat \d+: .+ - .+"
    r"|.+ brings [\d,.]+ to table \d+"  # tournaments: a player moved in from another table
    r"|Last Hand .+)$"
)
CHAT_PREFIX = 512  # characters of an unrecognised line compared with the players' names
ACTION_WORDS = (
    r"^(?:posts|folds|checks|calls|bets|raises|shows|mucks|wins|ties|has|doesn't|Returning)\b"
)

(
    KIND_TABLE,
    KIND_SETUP,
    KIND_SEAT,
    KIND_DEALT,
    KIND_UNCALLED,
    KIND_POT_SIZES,
    KIND_RAKE,
    KIND_END,
    KIND_WINS,
    KIND_TIES,
    KIND_NOTE,
    KIND_ACTION,
    KIND_DESCRIPTION,
) = range(FIRST_SITE_KIND, FIRST_SITE_KIND + 13)

VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts": "post_bb",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises to": "raise",
    "shows": "show",
    "mucks": "muck",
}
TO_AMOUNT_VERBS = ("calls", "bets", "raises to")


class PkrFormat(TextFormat):
    site: ClassVar[str] = SITE
    hand_start: ClassVar[str] = HAND_START
    marker: ClassVar[str] = MARKER
    sections: ClassVar[dict[str, tuple[int, int]]] = {
        "Cards": (PREFLOP, 0),
        "Flop": (FLOP, 0),
        "Turn": (TURN, 0),
        "River": (RIVER, 0),
    }
    line_kinds: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_TABLE, pattern=TABLE, where="setup"),
        LineForm(KIND_SETUP, pattern=SETUP_LINE, where="setup"),
        LineForm(KIND_SEAT, pattern=SEAT, where="setup"),
        LineForm(KIND_DEALT, pattern=DEALT, where="dealt"),
        LineForm(KIND_UNCALLED, pattern=UNCALLED),
        LineForm(KIND_POT_SIZES, pattern=POT_SIZES),
        LineForm(KIND_RAKE, pattern=RAKE),
        LineForm(KIND_END, pattern=END),
        LineForm(KIND_TIES, pattern=TIES, where="dealt"),
        LineForm(KIND_WINS, pattern=WINS, where="dealt"),
        LineForm(KIND_NOTE, pattern=NOTE),
        LineForm(KIND_ACTION, pattern=ACTION),
        LineForm(KIND_DESCRIPTION, pattern=DESCRIPTION, where="dealt"),
    )
    informational: ClassVar[str] = INFORMATIONAL
    required_lines: ClassVar[tuple[Required, ...]] = (
        Required(pl.col("kind") == KIND_END, "truncated hand: no end of hand line"),
        Required(pl.col("marker") == "Cards", "truncated hand: no dealing"),
    )

    def classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        """As usual, then chat and emotes of seated players become informational."""
        classified = (
            super()
            .classify(lines)
            .with_columns(
                kind=pl.when(pl.col("kind") == KIND_NOTE)
                .then(KIND_INFO)
                .otherwise(pl.col("kind"))
                .cast(pl.Int16)
            )
        )
        unknown = classified.filter(pl.col("kind") == KIND_UNKNOWN)
        if unknown.height == 0:
            return classified
        # Only the first characters tell chat from play: compare those, so a damaged line of
        # megabytes is not copied once per seated player by the join (fuzzing: 1.5 GiB peak).
        players = (
            self.fields(classified, KIND_SEAT, SEAT)
            .select("hand", "player")
            .filter(pl.col("player").str.len_chars() < CHAT_PREFIX // 2)
        )
        candidates = unknown.select(
            "hand", "line_no", line=pl.col("line").str.slice(0, CHAT_PREFIX)
        ).join(players, on="hand", how="inner")
        rest = pl.col("line").str.slice(pl.col("player").str.len_chars())
        talk = (
            candidates.filter(
                pl.col("line").str.starts_with(pl.col("player"))
                & rest.str.contains(r"^(?::| )")
                & ~rest.str.strip_chars_start(": ").str.contains(ACTION_WORDS)
            )
            .select("line_no")
            .unique()
        )
        return classified.with_columns(
            kind=pl.when(pl.col("line_no").is_in(talk["line_no"].implode()))
            .then(KIND_INFO)
            .otherwise(pl.col("kind"))
            .cast(pl.Int16)
        )

    def headers(self, body: pl.DataFrame) -> pl.DataFrame:
        parsed = body.filter(pl.col("is_start")).select(
            "hand", "offset", "line", table_name=pl.col("line").str.extract(TABLE, 1)
        )
        for name, pattern in HEADER_FIELDS.items():
            parsed = parsed.join(first_lines(body, pattern, name), on="hand", how="left")
        is_tournament = pl.col("table_type").fill_null("RING") != "RING"
        currency = (
            pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .when(pl.col("money_type") == "PLAY MONEY")
            .then(pl.lit("PLAY"))
            .otherwise(pl.col("symbol").replace_strict(CURRENCY_SYMBOLS, default=None))
        )
        return parsed.with_columns(
            header_ok=pl.col("hand_id").is_not_null() & pl.col("game").is_not_null(),
            game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
            is_o8=pl.col("game") == O8_GAME,
            limit_type=pl.col("limit").replace_strict(
                {"POT LIMIT": "PL", "NO LIMIT": "NL", "LIMIT": "FL", "FIXED LIMIT": "FL"},
                default=None,
            ),
            currency=currency,
            money_scale=pl.when(is_tournament).then(1).otherwise(100).cast(pl.Int32),
            started_at=utc_time(
                pl.col("start"), pl.lit(None, dtype=pl.String), "%d %b %Y %H:%M:%S", []
            ),
            button_seat=pl.coalesce("button_moved", "button_before").cast(pl.Int16, strict=False),
        )

    def actions(self, lines: pl.DataFrame) -> pl.DataFrame:
        acts = self.fields(lines, KIND_ACTION, ACTION)
        verb = pl.col("verb")
        amount = self.money("amount")
        played = acts.select(
            "hand",
            "line_no",
            "section",
            "player",
            sub=pl.lit(0),
            kind=pl.when(pl.col("dead").is_not_null())
            .then(pl.lit("post_dead"))
            .otherwise(verb.replace_strict(VERB_KIND)),
            amount=pl.when(~verb.is_in(list(TO_AMOUNT_VERBS))).then(amount),
            to=pl.when(verb.is_in(list(TO_AMOUNT_VERBS))).then(amount),
            is_all_in=pl.col("all_in").is_not_null(),
        )
        uncalled = self.uncalled_returns(lines, KIND_UNCALLED, UNCALLED)
        return pl.concat([played, uncalled], how="vertical_relaxed")

    def hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, actions: pl.DataFrame
    ) -> pl.DataFrame:
        sizes = (
            self.fields(lines, KIND_POT_SIZES, POT_SIZES)
            .with_columns(pot=self.money("amount"), bad=self.money("amount").is_null())
            .sort("hand", "line_no")
            # The last run of consecutive "Pot sizes" lines: one line per pot at the end.
            .with_columns(
                run=(pl.col("line_no").diff().over("hand").fill_null(0) != 1).cum_sum().over("hand")
            )
            .filter(pl.col("run") == pl.col("run").max().over("hand"))
            .group_by("hand")
            .agg(
                total_pot=pl.col("pot").sum(),
                side_pots=pl.col("pot"),
                bad_sizes=pl.col("bad").any(),
            )
        )
        rakes = (
            self.fields(lines, KIND_RAKE, RAKE)
            .with_columns(value=self.money("amount"))
            .group_by("hand")
            .agg(rake=pl.col("value").sum(), bad_rake=pl.col("value").is_null().any())
        )
        scale = pl.col("money_scale")
        checks = (
            (
                pl.col("total_pot").is_null() | pl.col("bad_sizes").fill_null(True),
                "missing or unreadable pot sizes",
            ),
            (pl.col("bad_rake").fill_null(False), "unreadable rake"),
            # A cash table's currency is read from the blinds' symbol ("Blinds are now $2 / $4").
            (
                pl.col("currency").is_null(),
                "unknown currency: no currency symbol on the blinds line",
            ),
        )
        return self.hand_table(
            headers,
            lines,
            actions,
            (sizes, rakes),
            checks,
            small_blind=money(pl.col("first"), scale),
            big_blind=money(pl.col("second"), scale),
            ante=pl.col("posted_ante"),
            side_pots=pl.when(pl.col("side_pots").list.len() > 1).then(pl.col("side_pots")),
        )

    def seats(self, lines: pl.DataFrame) -> pl.DataFrame:
        return self.seat_rows(lines, KIND_SEAT, SEAT, sitting_out="away from table")

    def collections(self, lines: pl.DataFrame) -> pl.DataFrame:
        wins = self.fields(lines, KIND_WINS, WINS)
        rest = pl.col("rest").fill_null("")
        named = pl.coalesce(
            rest.str.extract(r" from (side pot #\d+|main pot)", 1), pl.col("tie_pot")
        )
        wins = wins.select(
            "hand",
            "line_no",
            "player",
            "board_index",
            "money_scale",
            "amount",
            pot=named,
            half=rest.str.extract(r" with (high|low) hand:", 1),
        )
        ties = (
            self.fields(lines, KIND_TIES, TIES)
            .select(
                "hand",
                "line_no",
                "player",
                "board_index",
                "money_scale",
                "amount",
                "half",
                pot=pl.lit(None, dtype=pl.String),
            )
            .select(wins.columns)
        )
        found = pl.concat([wins, ties]).with_columns(
            side=pl.col("pot").str.extract(r"#(\d+)", 1).cast(pl.Int8, strict=False)
        )
        names_side = found.group_by("hand").agg(names_side=pl.col("side").is_not_null().any())
        return found.join(names_side, on="hand", how="left").select(
            "hand",
            "line_no",
            "player",
            "board_index",
            "half",
            amount=self.money("amount"),
            pot_index=pl.when(pl.col("side").is_not_null())
            .then(pl.col("side"))
            .when(pl.col("names_side") | (pl.col("pot") == "main pot"))
            .then(pl.lit(0))
            .cast(pl.Int8),
        )

    def _descriptions(self, lines: pl.DataFrame) -> pl.DataFrame:
        return (
            self.fields(lines, KIND_DESCRIPTION, DESCRIPTION)
            .group_by("hand", "player")
            .agg(
                high_desc=pl.col("high").drop_nulls().first(),
                low_desc=pl.col("low").drop_nulls().first(),
            )
        )

    def showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        shows = self.fields(lines, KIND_ACTION, ACTION).filter(pl.col("verb") == "shows")
        return shows.select(
            "hand", "line_no", "player", "board_index", cards_text=bracket_cards(pl.col("cards"))
        ).join(self._descriptions(lines), on=["hand", "player"], how="left")

    def known_cards(self, lines: pl.DataFrame) -> pl.DataFrame:
        cards = bracket_cards(pl.col("cards"))
        return pl.concat(
            [
                sightings(self.fields(lines, KIND_DEALT, DEALT), dealt=True, cards=cards),
                sightings(self.fields(lines, KIND_ACTION, ACTION), dealt=False, cards=cards),
            ]
        )


class PkrParser(TextFormatParser):
    """Parser for PKR text hand histories."""

    site: ClassVar[str] = SITE
    text_format = PkrFormat
    # Labelled halves; the printed pot sizes are gross of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE, halves_labelled=True, total_pot_is_gross=True, raise_cap=4
    )

    def sniff(self, head: str) -> bool:
        """``Table #N - name`` followed by ``Starting Hand #N``."""
        return head_has_lines(head, "Table #", "Starting Hand #")
