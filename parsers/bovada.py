"""Bovada / Ignition / Bodog hand histories (``Bovada Hand #…``), Omaha Hi/Lo.

What Bovada prints, and so what this parser records:

- Players are anonymous position labels (``Dealer``, ``Small Blind``, ``UTG+1``), new in every
  hand; the recording player carries ``[ME]`` (``Dealer  [ME] : …`` in actions, ``Dealer [ME]``
  on the seat line). ``seats.player`` is the label without the marker; ``is_hero`` the marker.
- Every line of play is ``label : verb``. A few event lines have no actor because the player
  has no position yet or there is none: ``Table enter user``, ``Table deposit $25``,
  ``Seat sit down``, ``Seat re-join``, and ``Set dealer/Bring in spot`` when the button is dead
  (no ``Dealer`` seated). They carry nothing the tables need and are accepted as such.
- Cash headers print no stakes: the blinds are the posted ``Small Blind``/``Big blind``
  amounts. Tournament headers print the level's blinds and no betting limit
  (``hands.limit_type`` is then null).
- ``Raises $0.65 to $0.75``: the second figure is the street total (the first is the chips
  added); ``Bets``, ``Calls`` and ``All-in $x`` give the chips added. ``All-in $x`` is recorded
  as a bet, call or raise by what it does to the street's highest total. ``Posts chip $x`` is a
  live post (a big blind when it is the big blind, else a small one).
- ``Return uncalled portion of bet $x`` is an explicit ``uncalled_return``.
- Payouts: ``Hand result $x`` (the main pot) and ``Hand result-Side pot $x`` per player, halves
  summed, after rake; one collection row each with ``pot_index`` 0 / 1 and ``half`` null. The
  summary's ``HI $x … LO $y`` per player is checked against them, not stored twice.
- ``Total Pot($x)`` is gross of rake; the rake is not printed (``hands.rake`` null).
- ``Showdown [five cards (+ low five)] (Two pair)`` shows the best hands, not the hole cards,
  which come from ``Card dealt to a spot`` (all players) and ``Mucks``/``Does not show``.
- No time zone is printed: times are stored as UTC as printed (``hands.time_zone`` null).
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.columns import cards_list, money
from parsers.engine.anchored import AnchoredParser, Block
from parsers.engine.assembly import HandTables, showdown_rows, unknown_lines
from parsers.engine.betting import ordered_actions, settle_all_in_kinds, street_amounts
from parsers.engine.checks import first_problem
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.line_forms import LineForm, classify, kind_fields
from parsers.engine.lines import forward_fill, in_printed_order
from pipeline.positions import POSITION_LABELS
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "BovadaParser"]

SITE = "bovada"
GAME = "OMAHA HiLo"
BRAND = r"(?:Bovada|Ignition|Bodog(?:\.eu| UK| Canada|88)?)"
HAND_START = rf"^{BRAND} Hand #"
_HAND_START_LINE = re.compile(rf"^\ufeff?{BRAND} Hand #[A-Z]?\d+", re.MULTILINE)

HEADER = (
    rf"^{BRAND} Hand #(?P<hand_id>[A-Z]?\d+):?\s+"
    r"(?:Zone Poker ID#\d+ |ID#\d+ )?"
    r"(?:TBL#(?P<table>\S+)\s+)?"
    r"(?P<rest>.+?) - (?P<date>\d{4}-\d{2}-\d{2}) (?P<time>\d{1,2}:\d{2}:\d{2})$"
)
GAME_TEXT = (
    r"^(?P<game>.+?)\s+(?:"
    r"Tournament #(?P<tournament_id>\d+) TBL#(?P<tournament_table>\S+?),\s*(?P<speed>[^-]*?)\s*-"
    r"\s*Level (?P<level>\w+) \((?P<level_sb>[$\d,.]+)/(?P<level_bb>[$\d,.]+)\)"
    r"|(?:1 on 1 )?(?P<limit>No Limit|Pot Limit|Fixed Limit))$"
)
SEAT = r"^Seat (?P<seat>\d+): (?P<label>.+?)(?P<me> \[ME\])? \((?P<stack>[^ )]+) in chips\)$"
# Cash summaries print "Seat+4: Dealer HI $6.59 ... LO $6.59"; tournament summaries print
# "Seat 1: UTG+4 Folded on the POCKET CARDS" and "HI 450" / "LOW 30".
SUMMARY_SEAT = r"^Seat[+ ](?P<seat>\d+): "
MARKER = r"^\*\*\* (?P<name>HOLE CARDS|FLOP|TURN|RIVER|SUMMARY) \*\*\*(?P<cards>.*)$"
TOTAL = r"^Total Pot\((?P<total>[^)]*)\)$"
BOARD = r"^Board \[(?P<cards>[^\]]*)\]$"
# Event lines printed without an actor (see the module docstring).
ACTORLESS = (
    r"^(?:Table enter user|Table leave user|Table deposit \$?[\d,.]+|Seat sit down|Seat stand"
    r"|Seat re-join|Seat sit out|Set dealer/Bring in spot)$"
)
SECTIONS = {"HOLE CARDS": 0, "FLOP": 1, "TURN": 2, "RIVER": 3, "SUMMARY": 5}

# Verb → what it means; longer verbs first so a verb never matches as another's prefix.
VERBS: dict[str, str] = {
    "Set dealer/Bring in spot": "button",
    "Set dealer": "button",
    "Ante/Small Blind": "post_sb",
    # Tournaments: the small blind's post and every other player's ante share one verb.
    "Ante/Small blind": "ante_or_sb",
    "Small Blind": "post_sb",
    "Small blind": "post_sb",
    "Big blind/Bring in": "post_bb",
    "Big blind": "post_bb",
    "Big Blind": "post_bb",
    "Posts dead chip": "dead_chip",
    "Posts chip": "chip",
    "Ante chip": "ante",
    "Card dealt to a spot": "dealt",
    "All-in(raise-timeout)": "raise",
    "All-in(raise)": "raise",
    "All-in": "all_in",
    "Folds": "fold",
    "Fold": "fold",
    "Checks": "check",
    "Check": "check",
    "Calls": "call",
    "Call": "call",
    "Bets": "bet",
    "Raises": "raise",
    "Return uncalled portion of bet": "uncalled_return",
    "Showdown": "show",
    "Mucks": "muck",
    "Does not show": "no_show",
    "Hand result-Side pot": "result_side",
    "Hand Result-Side pot": "result_side",
    "Hand result": "result",
    "Hand Result": "result",
    "Seat sit out": "info",
    "Seat sit down": "info",
    "Seat stand": "info",
    "Seat re-join": "info",
    "Sit out": "info",
    "Re-join": "info",
    "Table leave user": "info",
    "Table enter user": "info",
    "Table deposit": "info",
}
_AMOUNT = r"\$?\d[\d,]*(?:\.\d+)?"
ACTION = (
    "^(?P<verb>"
    + "|".join(re.escape(verb) for verb in sorted(VERBS, key=len, reverse=True))
    + r")(?: ?\((?P<note>[^)]*)\))?"
    + rf"(?: (?P<first>{_AMOUNT}))?(?: to (?P<to>{_AMOUNT}))?"
    + r"(?: \[(?P<cards>[^\]]*)\])?(?: \((?P<desc>[^)]*)\))?$"
)

(
    KIND_HEADER,
    KIND_BLANK,
    KIND_MARKER,
    KIND_SEAT,
    KIND_ACTOR,
    KIND_TOTAL,
    KIND_BOARD,
    KIND_SUMMARY_SEAT,
    KIND_INFO,
    KIND_UNKNOWN,
) = range(10)
INFO = (KIND_INFO, ACTORLESS)
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_SEAT, pattern=SEAT),
    LineForm(KIND_SUMMARY_SEAT, starts="Seat+"),
    LineForm(KIND_SUMMARY_SEAT, starts="Seat ", where="summary"),
    LineForm(KIND_TOTAL, starts="Total Pot("),
    LineForm(KIND_BOARD, starts="Board ["),
    LineForm(KIND_ACTOR, contains=" : "),
)

BETTING = ("post_sb", "post_bb", "post_dead", "ante", "fold", "check", "call", "bet", "raise")


class _Block(Block):
    """One parse of a block of lines: the site's own decoding, handed to `finish`."""

    def tables(self) -> HandTables:
        headers = self._headers()
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        lines = self._classify(self.candidate_lines(candidates, "money_scale"))
        acts = self._actor_lines(lines)
        hands = self._hands(candidates, lines, acts)
        seats = self._seats(lines, acts)
        actions = self._actions(acts, hands)
        collections = self._collections(acts)
        showdowns = self._showdowns(acts, seats)
        return self.assemble(
            lines,
            headers=headers,
            hands=hands,
            seats=seats,
            actions=actions,
            collections=collections,
            showdowns=showdowns,
            positions_printed=True,
            # Unknown lines, and "label : verb" lines whose verb is not Bovada's (damaged).
            unknown_lines=unknown_lines(
                lines.join(acts.select("line_no", "verb"), on="line_no", how="left"),
                (pl.col("kind") == KIND_UNKNOWN)
                | ((pl.col("kind") == KIND_ACTOR) & pl.col("verb").is_null()),
                damaged=pl.col("kind") == KIND_ACTOR,
            ),
            reasons=[
                self._hand_problems(hands, lines),
                self._summary_problems(lines, collections, acts),
            ],
        )

    # -- header and lines --------------------------------------------------------------------

    def _headers(self) -> pl.DataFrame:
        first = self.frame.filter(pl.col("is_start"))
        parsed = (
            first.select("hand", "offset", pl.col("line").str.extract_groups(HEADER).alias("h"))
            .unnest("h")
            .with_columns(pl.col("rest").str.extract_groups(GAME_TEXT).alias("g"))
            .unnest("g")
        )
        is_tournament = pl.col("tournament_id").is_not_null()
        game = pl.coalesce("game", "rest")
        scale = pl.when(is_tournament).then(1).otherwise(100)
        return parsed.with_columns(
            game=game,
            is_o8=game == GAME,
            header_ok=pl.col("hand_id").is_not_null()
            & (
                pl.col("game").is_not_null()
                | ~pl.coalesce("rest", pl.lit("")).str.starts_with(GAME)
            ),
            tournament_id=pl.col("tournament_id"),
            table_name=pl.coalesce("tournament_table", "table"),
            limit_type=pl.col("limit").replace_strict(
                {"No Limit": "NL", "Pot Limit": "PL", "Fixed Limit": "FL"}, default=None
            ),
            currency=pl.when(is_tournament).then(pl.lit("CHIPS")).otherwise(pl.lit("USD")),
            money_scale=scale,
            level_sb=money(pl.col("level_sb"), scale),
            level_bb=money(pl.col("level_bb"), scale),
            started_at=pl.concat_str("date", pl.lit(" "), "time")
            .str.strptime(pl.Datetime("us"), "%Y-%m-%d %H:%M:%S", strict=False)
            .dt.replace_time_zone("UTC"),
        )

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Section and kind of every line of the candidate hands."""
        names = lines["line"].str.extract(MARKER, 1)
        section = forward_fill(lines, names.replace_strict(SECTIONS, default=None))
        markers = {"marker": names.is_not_null().to_numpy()}
        classified = classify(lines, section, LINE_FORMS, KIND_UNKNOWN, markers, INFO)
        return classified.with_columns(marker=names)

    def _actor_lines(self, lines: pl.DataFrame) -> pl.DataFrame:
        """``label : verb …`` lines with the label, the hero marker and the decoded verb."""
        actor_lines = lines.filter(pl.col("kind") == KIND_ACTOR)
        parts = actor_lines["line"].str.splitn(" : ", 2)
        label = parts.struct.field("field_0")
        fields = actor_lines.select(
            "hand",
            "line_no",
            "section",
            "money_scale",
            player=label.str.replace(r"\s*\[ME\]$", "").str.strip_chars(),
            is_hero=label.str.contains(r"\[ME\]$"),
            a=parts.struct.field("field_1").str.extract_groups(ACTION),
        ).unnest("a")
        scale = pl.col("money_scale")
        meaning = pl.col("verb").replace_strict(VERBS, default=None)
        return fields.with_columns(
            meaning=pl.when(meaning == "ante_or_sb")
            .then(pl.when(pl.col("player") == "Small Blind").then(pl.lit("post_sb")).otherwise(pl.lit("ante")))
            .otherwise(meaning),
            amount=money(pl.col("first"), scale),
            to=money(pl.col("to"), scale),
            is_all_in=pl.col("verb").str.starts_with("All-in"),
            street=pl.col("section").clip(0, 3),
        )

    # -- tables ------------------------------------------------------------------------------

    def _hands(
        self, headers: pl.DataFrame, lines: pl.DataFrame, acts: pl.DataFrame
    ) -> pl.DataFrame:
        totals = (
            lines.filter(pl.col("kind") == KIND_TOTAL)
            .group_by("hand")
            .agg(total_text=pl.col("line").first().str.extract(TOTAL, 1), totals=pl.len())
        )
        boards = (
            lines.filter(pl.col("kind") == KIND_BOARD)
            .group_by("hand")
            .agg(board_text=pl.col("line").first().str.extract(BOARD, 1), boards=pl.len())
        )
        # The cards of the last street dealt, for the check against the summary's Board line.
        streets = (
            lines.filter(pl.col("marker").is_in(["FLOP", "TURN", "RIVER"]))
            .group_by("hand")
            .agg(street_text=pl.col("line").last().str.extract(MARKER, 2))
        )
        meaning = pl.col("meaning")
        posts = acts.group_by("hand").agg(
            posted_sb=pl.col("amount").filter(meaning == "post_sb").max(),
            posted_bb=pl.col("amount").filter(meaning == "post_bb").max(),
            posted_ante=pl.col("amount").filter(meaning == "ante").max(),
            button_text=pl.col("cards").filter(meaning == "button").first(),
        )
        normalise = pl.col("street_text").str.replace_all(r"[\[\]]", " ").str.strip_chars()
        return (
            headers.join(totals, on="hand", how="left")
            .join(boards, on="hand", how="left")
            .join(streets, on="hand", how="left")
            .join(posts, on="hand", how="left")
            .with_columns(
                board=cards_list(
                    pl.col("board_text").str.strip_chars().str.replace_all(r"\s+", " ")
                ).fill_null(pl.lit([], dtype=pl.List(pl.UInt8))),
                street_board=cards_list(normalise.str.replace_all(r"\s+", " ")),
                small_blind=pl.coalesce("level_sb", "posted_sb"),
                big_blind=pl.coalesce("level_bb", "posted_bb"),
                ante=pl.col("posted_ante"),
                button_seat=pl.col("button_text").cast(pl.Int16, strict=False),
                total_pot=money(pl.col("total_text"), pl.col("money_scale")),
                rake=pl.lit(None, dtype=pl.Int64),
                time_zone=pl.lit(None, dtype=pl.String),
                game=pl.lit("O8"),
                source_offset=pl.col("offset"),
            )
        )

    def _seats(self, lines: pl.DataFrame, acts: pl.DataFrame) -> pl.DataFrame:
        seats = (
            lines.filter((pl.col("kind") == KIND_SEAT) & (pl.col("section") < 0))
            .select("hand", "money_scale", pl.col("line").str.extract_groups(SEAT).alias("s"))
            .unnest("s")
            .select(
                "hand",
                seat=pl.col("seat").cast(pl.Int16, strict=False),
                player=pl.col("label").str.strip_chars(),
                stack_start=money(pl.col("stack"), pl.col("money_scale")),
                seat_hero=pl.col("me").is_not_null(),
            )
        )
        meaning = pl.col("meaning")
        sightings = acts.filter(
            meaning.is_in(["dealt", "muck", "no_show"]) & pl.col("cards").is_not_null()
        ).select(
            "hand",
            "line_no",
            "player",
            cards=cards_list(pl.col("cards").str.strip_chars().str.replace_all(r"\s+", " ")),
            dealt=meaning == "dealt",
        )
        dealt = acts.filter(meaning == "dealt").select("hand", "player").unique()
        heroes = pl.concat(
            [
                acts.filter(pl.col("is_hero")).select("hand", "player"),
                seats.filter(pl.col("seat_hero")).select("hand", "player"),
            ]
        )
        # A seated player with no cards dealt was sitting out.
        seats = seats.join(
            dealt.with_columns(was_dealt=pl.lit(True)), on=["hand", "player"], how="left"
        ).with_columns(sitting_out=pl.col("was_dealt").is_null())
        seats = attach_hole_cards(seats, sightings, heroes).drop("seat_hero", "was_dealt")
        return _label_positions(seats)

    def _actions(self, acts: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
        meaning = pl.col("meaning")
        plays = acts.filter(
            meaning.is_in(
                [*BETTING, "chip", "dead_chip", "all_in", "uncalled_return", "show", "muck"]
            )
        ).join(hands.select("hand", "big_blind"), on="hand", how="left")
        bb = pl.col("big_blind")
        # "Posts dead chip $x": the big blind part is live, the rest dead (as PokerStars'
        # "posts small & big blinds"); nothing in the corpus shows it, so it is kept literal.
        dead_chip = plays.filter(meaning == "dead_chip")
        dead = dead_chip.with_columns(
            kind=pl.lit("post_dead"),
            amount=pl.when(pl.col("amount") > bb)
            .then(pl.col("amount") - bb)
            .otherwise(pl.col("amount")),
            sub=pl.lit(0),
        )
        live = dead_chip.filter(pl.col("amount") > bb).with_columns(
            kind=pl.lit("post_bb"), amount=bb, sub=pl.lit(1)
        )
        single = plays.filter(meaning != "dead_chip").with_columns(
            kind=pl.when(meaning == "chip")
            .then(
                pl.when(pl.col("amount") >= bb).then(pl.lit("post_bb")).otherwise(pl.lit("post_sb"))
            )
            .when(meaning == "all_in")
            .then(pl.lit("call"))  # provisional; settled from the street totals below
            .otherwise(meaning),
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
            "meaning",
        ]
        frame = (
            pl.concat(
                [single.select(columns), dead.select(columns), live.select(columns)],
                how="vertical_relaxed",
            )
            .with_columns(to=pl.when(pl.col("kind").is_in(["raise"])).then(pl.col("to")))
        )
        return settle_all_in_kinds(
            street_amounts(ordered_actions(frame, "street")), pl.col("meaning") == "all_in"
        )

    @staticmethod
    def _collections(acts: pl.DataFrame) -> pl.DataFrame:
        results = acts.filter(pl.col("meaning").is_in(["result", "result_side"]))
        return in_printed_order(
            results.select(
                "hand",
                "line_no",
                "player",
                "amount",
                pot_index=pl.when(pl.col("meaning") == "result")
                .then(0)
                .otherwise(1)
                .cast(pl.Int8),
                half=pl.lit(None, dtype=pl.String),
                board_index=pl.lit(0, dtype=pl.Int8),
            )
        )

    @staticmethod
    def _showdowns(acts: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
        shown = acts.filter(pl.col("meaning") == "show").drop("cards")
        return showdown_rows(
            shown.join(
                seats.select("hand", "player", cards="hole_cards"),
                on=["hand", "player"],
                how="left",
            ),
            high_desc="desc",
        )

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        summary = lines.group_by("hand").agg(
            has_summary=(pl.col("marker") == "SUMMARY").any(),
            has_hole=(pl.col("marker") == "HOLE CARDS").any(),
        )
        board = pl.col("board")
        street_board = pl.col("street_board").fill_null(pl.lit([], dtype=pl.List(pl.UInt8)))
        reason = first_problem(
            (~pl.col("has_summary").fill_null(False), "truncated hand: no summary"),
            (~pl.col("has_hole").fill_null(False), "truncated hand: no hole cards section"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (
                pl.col("total_pot").is_null() | (pl.col("totals").fill_null(0) != 1),
                "missing, repeated or unreadable Total Pot",
            ),
            (pl.col("boards").fill_null(0) > 1, "Board line repeated"),
            (board.list.drop_nulls().list.len() < board.list.len(), "unreadable board card"),
            (board.list.len() > 5, "more than five board cards"),
            (board != street_board, "summary Board differs from the cards dealt on the streets"),
            (pl.col("big_blind").is_null(), "no big blind posted or printed"),
        )
        return (
            hands.join(summary, on="hand", how="left")
            .select("hand", reason=reason)
            .filter(pl.col("reason").is_not_null())
        )

    @staticmethod
    def _summary_problems(
        lines: pl.DataFrame, collections: pl.DataFrame, acts: pl.DataFrame
    ) -> pl.DataFrame:
        """The summary's HI/LO amounts must add up, per seat, to the ``Hand result`` lines."""
        summary = lines.filter(pl.col("kind") == KIND_SUMMARY_SEAT).select(
            "hand",
            "money_scale",
            seat=pl.col("line").str.extract(SUMMARY_SEAT, 1).cast(pl.Int16, strict=False),
            high=pl.col("line").str.extract(r" HI (\$?[\d,.]+)", 1),
            low=pl.col("line").str.extract(r" LOW? (\$?[\d,.]+)", 1),
        )
        summary = summary.with_columns(
            summary_won=money(pl.col("high"), pl.col("money_scale")).fill_null(0)
            + money(pl.col("low"), pl.col("money_scale")).fill_null(0),
            unreadable=(
                (
                    pl.col("high").is_not_null()
                    & money(pl.col("high"), pl.col("money_scale")).is_null()
                )
                | (
                    pl.col("low").is_not_null()
                    & money(pl.col("low"), pl.col("money_scale")).is_null()
                )
            ),
        )
        seat_of = (
            kind_fields(lines, KIND_SEAT, SEAT, "hand")
            .select(
                "hand",
                seat=pl.col("seat").cast(pl.Int16, strict=False),
                player=pl.col("label").str.strip_chars(),
            )
        )
        paid = (
            collections.join(seat_of, on=["hand", "player"], how="left")
            .group_by("hand", "seat")
            .agg(paid=pl.col("amount").sum())
        )
        per_seat = summary.group_by("hand", "seat").agg(
            summary_won=pl.col("summary_won").sum(), unreadable=pl.col("unreadable").any()
        )
        both = per_seat.join(paid, on=["hand", "seat"], how="full", coalesce=True)
        wrong = both.filter(
            pl.col("unreadable").fill_null(False)
            | (pl.col("summary_won").fill_null(0) != pl.col("paid").fill_null(0))
        )
        return (
            wrong.sort("hand", "seat")
            .unique("hand", keep="first", maintain_order=True)
            .select(
                "hand",
                reason=pl.lit("summary HI/LO of seat ")
                # Null when the seat number or the payee's label could not be read.
                + pl.col("seat").cast(pl.String).fill_null("(unreadable)")
                + pl.lit(" (")
                + pl.col("summary_won").fill_null(0).cast(pl.String)
                + pl.lit(") differs from its Hand result lines (")
                + pl.col("paid").fill_null(0).cast(pl.String)
                + pl.lit(")"),
            )
        )


class BovadaParser(AnchoredParser):
    """Parser for Bovada / Ignition / Bodog text hand histories."""

    site: ClassVar[str] = SITE
    # One "Hand result" per player and pot (halves summed); no rake printed, Total Pot gross;
    # uncalled bets returned by an explicit line.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        raise_cap=4,
        payout_lines="per_pot",
        rake_printed=False,
        uncalled_printed=True,
        # Side pots carry their share of the rake (20 corpus hands: each pot's payout is its
        # size less a proportional rake, to the nearest cent).
        rake_from="each-pot",
        # A tied low's odd cent goes to the high winner: hands 2902256725 (low 4.81 shared:
        # 2.40 + 2.40, high 4.82) and 2902266598 (0.47: 0.23 + 0.23, high 0.49).
        low_spare_to_high=True,
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = _Block


def _label_positions(seats: pl.DataFrame) -> pl.DataFrame:
    """Canonical positions from the printed labels, which are the positions themselves.

    The labels run clockwise Small Blind, Big Blind, UTG, UTG+1, …, Dealer; heads-up the
    Dealer posts the small blind and there is no Small Blind label. The label order, not the
    seat numbers, decides (the tournament sample numbers its seats 16 … 89 in no table order).
    With no Dealer dealt (a dead button) the players take every position but the button.
    """
    label = pl.col("player")
    clockwise = (
        pl.when(label == "Small Blind")
        .then(0)
        .when(label == "Big Blind")
        .then(1)
        .when(label == "UTG")
        .then(2)
        .when(label.str.contains(r"^UTG\+\d+$"))
        .then(2 + label.str.extract(r"^UTG\+(\d+)$", 1).cast(pl.Int32, strict=False))
        .when(label == "Dealer")
        .then(100)
    )
    dealt = (
        seats.filter(~pl.col("sitting_out"))
        .with_columns(clockwise=clockwise)
        .filter(pl.col("clockwise").is_not_null())
        .with_columns(
            order=pl.col("clockwise").rank("ordinal").over("hand").cast(pl.UInt32) - 1,
            has_dealer=(pl.col("player") == "Dealer").any().over("hand"),
        )
        # A dead button is an empty seat: the players hold every position but the button's.
        .with_columns(
            players=(pl.len().over("hand") + (~pl.col("has_dealer")).cast(pl.UInt32)).cast(
                pl.UInt32
            )
        )
        .join(POSITION_LABELS, on=["players", "order"], how="left")
    )
    return seats.join(dealt.select("hand", "player", "position"), on=["hand", "player"], how="left")
