"""PokerStars hand histories (``PokerStars Hand #`` / ``Game #``), Omaha Hi/Lo in every form.

The parser works on a whole block of lines at once: every line is classified with cheap literal
tests, each line kind is decoded by its own regular expression over the column of those lines, and
the canonical tables are assembled with joins and window expressions. Hands of other games in the
same file (mixed games, 5 Card Omaha Hi/Lo, Courchevel Hi/Lo) are counted as skipped; a hand whose
text is damaged or inconsistent is quarantined with a reason, and the rest of the block goes on.

What PokerStars prints, and so what this parser records:

- Money is printed with a currency symbol for cash (``$0.31``) and as plain chips in tournaments
  and play money; stored as cents or chips (``hands.money_scale``).
- ``raises $0.05 to $0.07``: the second figure is the player's street total (``to_amount``), the
  first is the raise over the bet faced; ``calls`` and ``bets`` give the chips added.
- ``posts small & big blinds $0.03``: a missed small blind (dead) plus a live big blind.
- Halves are never labelled (``collections.half`` is null); one ``collected`` line per half and pot
  (side pots first), so ``pot_index`` is kept: ``pot`` / ``main pot`` → 0, ``side pot`` → 1,
  ``side pot-N`` → N.
- ``Total pot`` in the summary includes the rake (gross).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import polars as pl
import pyarrow as pa

from parsers import pokerstars_compiled as compiled
from parsers.base import ParseResult, table_from_frame
from parsers.columns import (
    cards_list,
    is_partial_show,
    local_time_to_utc,
    money,
)
from parsers.kernels import street_totals
from parsers.notes import note_rows, triage_unknown_lines, with_other_games
from pipeline.positions import assign_positions
from pipeline.profiles import SiteProfile
from pipeline.schema import ACTIONS, COLLECTIONS, NOTES, REJECTS, SEATS, SHOWDOWNS

__all__ = ["PokerStarsParser"]

SITE = "pokerstars"
# No Omaha table seats more players: a hand listing more is damaged (fuzzing spliced 200 seat
# lines and every text format parsed it), and parsers/kernels.py assumes a handful per street.
MAX_SEATS = 10
GAME = "Omaha Hi/Lo"

HAND_START = r"^PokerStars (?:Home Game |Zoom |Home Game Zoom )?(?:Hand|Game) #\d+: "

_HAND_START_LINE = re.compile(HAND_START.replace("^", "^\ufeff?", 1), re.MULTILINE)

HEADER = (
    r"^PokerStars (?P<prefix>[A-Za-z ]*?)(?:Hand|Game) #(?P<hand_id>\d+):\s+"
    r"(?:\{(?P<club>[^}]*)\}\s+)?"
    r"(?:Tournament #(?P<tournament_id>\d+),\s+(?P<buy_in>Freeroll|[^ ]+(?: [A-Z]{3})?)\s+(?P<tgame>"
    r"(?:[A-Za-z0-9'/ -]+? \()?(?:5 Card |Courchevel |)?"
    r"[A-Za-z0-9'/ -]+?(?:Limit|Pot Limit|No Limit)\)?)"
    r"|(?P<cgame>[^(]*?\(?[^(]*?\((?P<cstakes>[^)]*)\)))"
    r"(?: - Match Round [^,]*,)?"  # Home Game shootouts: "- Match Round I, Level III (30/60)"
    r"(?: -)? ?(?:Level (?P<level>\S+) \((?P<lstakes>[^)]*)\))?"
    r"(?: - Match.*?)?"
    r" - (?P<date>\d{4}/\d{1,2}/\d{1,2})(?: - | )(?P<time>\d{1,2}:\d{2}:\d{2}) \(?(?P<zone>[A-Z]+)\)?"
    r"(?: \[(?P<et_date>\d{4}/\d{1,2}/\d{1,2}) (?P<et_time>\d{1,2}:\d{2}:\d{2}) (?P<et_zone>[A-Z]+)\])?$"
)
# Within the game text: an optional mixed-game name, the game, the limit, cash stakes.
GAME_TEXT = (
    r"^(?:(?P<mixed>[A-Za-z0-9' -]+?) \()?"
    r"(?P<game>[A-Za-z0-9'/ -]+?) (?P<limit>Limit|Pot Limit|No Limit|Fixed Limit)"
    r"(?:,? \(?(?P<stakes>[^()]*?)\)?)?\)?$"
)
STAKES = (
    r"^(?P<symbol>[^0-9\s]*)(?P<first>[\d.,]+)/[^0-9\s]*(?P<second>[\d.,]+)"
    r"(?: (?P<code>[A-Z]{3}))?"
)
TABLE = (
    r"^Table '(?P<table_name>.*)'(?: (?P<max_seats>\d+)-max)?(?: \([^)]*\))*"
    r" Seat #(?P<button_seat>\d+) is the button$"
)
SEAT = (
    r"^Seat (?P<seat>\d+): (?P<player>.+?) \((?P<stack>[^ ,)]+) in chips"
    r"(?:, (?P<bounty>[^)]*?) bounty)?\)(?P<flags>.*)$"
)
ACTION = (
    r"^(?P<player>.+?): (?P<verb>posts small & big blinds|posts small blind|posts big blind"
    r"|posts the ante|folds|checks|calls|bets|raises|shows|mucks hand|doesn't show hand"
    r"|is sitting out|sits out|stands pat|discards)"
    r"(?: (?P<first>[^ \[]+))?(?: to (?P<to>\S+))?(?: \[(?P<cards>[^\]]*)\])?"
    r"(?P<all_in> and is all-in)?(?: and has reached the .* cap)?"
    r"(?: \((?P<desc>.*)\))?$"
)
DEALT = r"^Dealt to (?P<player>.+?)(?: \[(?P<cards>[^\]]*)\])?$"
UNCALLED = r"^Uncalled bet \((?P<amount>[^)]+)\) returned to (?P<player>.+)$"
COLLECTED = (
    r"^(?P<player>.+?) collected (?P<amount>\S+) from "
    r"(?P<pot>pot|main pot|side pot(?:-(?P<side>\d+))?)$"
)
TOTAL = (
    r"^Total pot (?P<total>\S+)(?P<pots>(?: Main pot \S+\.)?(?: Side pot(?:-\d+)? \S+\.)*)"
    r" \| Rake (?P<rake>\S+)"
)
BOARD = r"^(?P<which>FIRST |SECOND )?Board \[(?P<cards>[^\]]*)\]$"
SUMMARY_MUCK = r"^Seat \d+: (?P<player>.+?) (?:\([^)]*\) )*mucked \[(?P<cards>[^\]]*)\]$"
MARKER = r"^\*\*\* (?P<name>.+?) \*\*\*"

# Lines that carry no data the tables need but are known PokerStars text (anything else in a
# hand is reported as unrecognised and the hand is quarantined).
INFORMATIONAL = (
    r"^(?:.+ (?:is sitting out|has timed out|has timed out while disconnected|is disconnected"
    r"|is connected|has returned|leaves the table|will be allowed to play after the button"
    r"|was removed from the table for failing to post|sits out|is sitting out)"
    r"|.+ joins the table at seat #\d+"
    r"|.+ said, \".*\"?"
    r"|.+ wins the .+ bounty for eliminating .+"
    r"|.+ wins .+ for eliminating .+"
    r"|.+ finished the tournament(?: in \d+\w\w place)?(?: and received .+)?"
    r"|.+ wins the tournament(?: and receives .+)?"
    r"|.+ re-buys and receives .+|.+ takes the add-on and receives .+"
    r"|.+ cashed out the hand for .+"
    r"|No low hand qualified|Hand was run twice|Hand cancelled"
    r"|Betting is capped"  # after the fourth bet of a fixed-limit street
    r"|Seat \d+: .+"  # summary seat lines: redundant with the body, mucked cards read apart
    r"|with (?:HI|LO): .+"  # the 2005 summary wraps its seat line before the description
    r")$"
)

SECTIONS: dict[str, int] = {
    "HOLE CARDS": 0,
    "PRE-FLOP": 0,
    "FLOP": 1,
    "FIRST FLOP": 1,
    "SECOND FLOP": 1,
    "TURN": 2,
    "FIRST TURN": 2,
    "SECOND TURN": 2,
    "RIVER": 3,
    "FIRST RIVER": 3,
    "SECOND RIVER": 3,
    "SHOW DOWN": 4,
    "FIRST SHOW DOWN": 4,
    "SECOND SHOW DOWN": 4,
    "SUMMARY": 5,
}
(
    KIND_HEADER,
    KIND_BLANK,
    KIND_MARKER,
    KIND_TABLE,
    KIND_SEAT,
    KIND_DEALT,
    KIND_UNCALLED,
    KIND_TOTAL,
    KIND_BOARD,
    KIND_SUMMARY_MUCK,
    KIND_COLLECTED,
    KIND_ACTION,
    KIND_INFO,
    KIND_OTHER,
    KIND_UNKNOWN,
) = range(15)
SECOND_RUN_SECTIONS = ("SECOND FLOP", "SECOND TURN", "SECOND RIVER", "SECOND SHOW DOWN")
CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR", "C$": "CAD"}

VERB_KIND = {
    "posts small blind": "post_sb",
    "posts big blind": "post_bb",
    "posts small & big blinds": "post_bb",  # split into dead + live below
    "posts the ante": "ante",
    "folds": "fold",
    "checks": "check",
    "calls": "call",
    "bets": "bet",
    "raises": "raise",
    "shows": "show",
    "mucks hand": "muck",
}
# Kinds whose chips count toward the player's street total (dead money and antes do not).
# Verbs in the order they are tried (a longer verb before its own prefix).
ACTION_VERBS = (
    "posts small & big blinds",
    "posts small blind",
    "posts big blind",
    "posts the ante",
    "folds",
    "checks",
    "calls",
    "bets",
    "raises",
    "shows",
    "mucks hand",
    "doesn't show hand",
    "is sitting out",
    "sits out",
    "stands pat",
    "discards",
)
ACTION_VERB = "^(" + "|".join(re.escape(verb) for verb in ACTION_VERBS) + ")(?: |$)"
LIVE_KINDS = ("post_sb", "post_bb", "call", "bet", "raise")


class PokerStarsParser:
    """Parser for PokerStars text hand histories."""

    site: ClassVar[str] = SITE
    # Unlabelled lines per half per pot, pot named; total pot printed gross of rake.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=False,
        total_pot_is_gross=True,
        # A bet and three raises, not lifted heads-up: 445 real limit hands, 23 capped heads-up
        # streets (real-site-evidence.md, "Fixed-limit cap").
        raise_cap=4,
        heads_up_uncapped=False,
        description_style="pokerstars",
    )

    def sniff(self, head: str) -> bool:
        """A PokerStars hand header within the first lines (a BOM or stray text may precede)."""
        return _HAND_START_LINE.search(head) is not None

    def hand_starts(self, lines: pl.Series) -> np.ndarray:
        """Mask of hand header lines."""
        return lines.str.contains(HAND_START).fill_null(False).to_numpy()

    def parse(self, lines: pl.Series, offsets: np.ndarray, source_file: str) -> ParseResult:
        """Parse a block of whole hands into the canonical tables."""
        return self.parse_files(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_by_block_parser(
        self, lines: pl.Series, offsets: np.ndarray, source_file: str
    ) -> ParseResult:
        """The same parse without the compiled reader: the reference it is tested against."""
        return parse_with_block_parser(lines, offsets, np.zeros(1, dtype=np.int64), [source_file])[0]

    def parse_files(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        file_starts: np.ndarray,
        source_files: list[str],
    ) -> list[ParseResult]:
        """Parse several whole files in one pass; one result per file, in order.

        ``file_starts[i]`` is the first line of ``source_files[i]``. A parse has a fixed cost
        of a few hundred column operations, so an archive of many small files is parsed a
        batch of files at a time rather than file by file.
        """
        starts = lines.str.contains(HAND_START).fill_null(False).to_numpy()
        new_file = np.zeros(len(lines), dtype=bool)
        new_file[file_starts[file_starts < len(lines)]] = True
        new_file[:1] = True  # the block's first line opens a segment whatever it is
        file_of_line = np.zeros(len(lines), dtype=np.int32)
        file_of_line[file_starts[(file_starts > 0) & (file_starts < len(lines))]] = 1
        file_of_line = np.cumsum(file_of_line, dtype=np.int32)
        read = compiled.read_block(lines, starts, new_file)
        segment_file = file_of_line[read.first_line]
        parts = []
        done = np.zeros(len(read.accepted), dtype=bool)
        if starts.any():
            fast, done = _compiled_tables(read, starts, lines, offsets, segment_file, source_files)
            parts.append(fast)
        slow_segments = np.flatnonzero(~done).astype(np.int32)
        if len(slow_segments):
            rows = np.flatnonzero(~done[read.segment])
            files = np.unique(segment_file[slow_segments])
            local_starts = np.searchsorted(file_of_line[rows], files)
            block = _Block(
                lines.gather(rows),
                offsets[rows],
                [source_files[file] for file in files],
                local_starts.astype(np.int64),
            )
            if block.segments != len(slow_segments):
                raise AssertionError("the compiled reader and the block parser cut hands apart")
            parts.append(_stored(block.tables().renumbered(slow_segments)))
        return _results(_merged(parts), segment_file, source_files)


def parse_with_block_parser(
    lines: pl.Series, offsets: np.ndarray, file_starts: np.ndarray, source_files: list[str]
) -> list[ParseResult]:
    """Every hand through the block parser alone: the reference the compiled reader must equal."""
    block = _Block(lines, offsets, source_files, file_starts)
    return _results(_stored(block.tables()), block.segment_file, source_files)


def _forward_fill(
    size: int, resets: np.ndarray, reset_value: int, rows: np.ndarray, values: np.ndarray
) -> np.ndarray:
    """Each line takes the value of the latest marker row or reset row at or before it."""
    source = np.full(size, -1, dtype=np.int64)
    value_at = np.zeros(size, dtype=np.int64)
    reset_rows = np.flatnonzero(resets)
    source[reset_rows] = reset_rows
    value_at[reset_rows] = reset_value
    source[rows] = rows
    value_at[rows] = values
    latest = np.maximum.accumulate(source)
    filled = np.where(latest >= 0, value_at[np.maximum(latest, 0)], reset_value)
    return filled


def read_headers(first: pl.DataFrame) -> pl.DataFrame:
    """Fields of the hand header lines in ``first`` (``hand``, ``offset``, ``line``)."""
    header = pl.col("line").str.extract_groups(HEADER)
    parsed = first.select("hand", "offset", "line", header.alias("h")).unnest("h")
    game_text = pl.coalesce("tgame", "cgame")
    parsed = parsed.with_columns(
        game_text.str.extract_groups(GAME_TEXT).alias("g")
    ).unnest("g")
    stakes_text = pl.coalesce("stakes", "lstakes", "cstakes")
    parsed = parsed.with_columns(stakes_text.str.extract_groups(STAKES).alias("s")).unnest(
        "s"
    )
    is_tournament = pl.col("tournament_id").is_not_null()
    currency = (
        pl.when(is_tournament)
        .then(pl.lit("CHIPS"))
        .when(pl.col("code").is_not_null())
        .then(pl.col("code"))
        .when(pl.col("symbol").fill_null("") != "")
        .then(pl.col("symbol").replace_strict(CURRENCY_SYMBOLS, default="UNKNOWN"))
        .otherwise(pl.lit("PLAY"))
    )
    return parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null()
        & pl.col("game").is_not_null()
        & pl.col("first").is_not_null(),
        game=pl.col("game").fill_null(pl.col("line").str.slice(0, 80)),
        limit_type=pl.col("limit").replace_strict(
            {"Limit": "FL", "Fixed Limit": "FL", "Pot Limit": "PL", "No Limit": "NL"},
            default=None,
        ),
        currency=currency,
        money_scale=pl.when(currency.is_in(["CHIPS", "PLAY"])).then(1).otherwise(100),
        started_at=pl.coalesce(
            local_time_to_utc(
                pl.concat_str("et_date", pl.lit(" "), "et_time"),
                pl.col("et_zone"),
                zones=parsed["et_zone"].unique().to_list(),
            ),
            local_time_to_utc(
                pl.concat_str("date", pl.lit(" "), "time"),
                pl.col("zone"),
                zones=parsed["zone"].unique().to_list(),
            ),
        ),
        time_zone=pl.coalesce("et_zone", "zone"),
        mixed_game=pl.col("mixed").str.strip_chars(),
        buy_in=pl.col("buy_in").str.strip_chars(),
    )


def stake_columns() -> dict[str, pl.Expr]:
    """Blinds and bets from the header's stakes (``first``, ``second``) and the posted blinds.

    A fixed-limit header prints the bets; its blinds are what was posted.
    """
    is_fixed = pl.col("limit_type") == "FL"
    first_stake = money(pl.col("first"), pl.col("money_scale"))
    second_stake = money(pl.col("second"), pl.col("money_scale"))
    return {
        "small_bet": pl.when(is_fixed).then(first_stake),
        "big_bet": pl.when(is_fixed).then(second_stake),
        "small_blind": pl.when(is_fixed).then(pl.col("posted_sb")).otherwise(first_stake),
        "big_blind": pl.when(is_fixed)
        .then(pl.coalesce("posted_bb", first_stake))
        .otherwise(second_stake),
        "ante": pl.col("posted_ante"),
    }


class _Block:
    """The state of one parse: a frame of lines plus the per-hand verdicts built from it."""

    def __init__(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        source_files: list[str],
        file_starts: np.ndarray,
    ) -> None:
        self.source_files = pl.Series("source_file", source_files, dtype=pl.String)
        starts = lines.str.contains(HAND_START).fill_null(False)
        file_of_line = np.zeros(len(lines), dtype=np.int32)
        new_file = np.zeros(len(lines), dtype=bool)
        inner = file_starts[(file_starts > 0) & (file_starts < len(lines))]
        file_of_line[inner] = 1
        file_of_line = np.cumsum(file_of_line, dtype=np.int32)
        new_file[file_starts[file_starts < len(lines)]] = True
        # A hand never runs across files: every file start opens a new segment, which is a
        # hand when it begins with a header and a file's preamble otherwise.
        segment = np.cumsum(starts.to_numpy() | new_file, dtype=np.int32) - 1
        # Real files carry trailing spaces on any line; forms are matched without them, the
        # raw text keeps them.
        self.frame = pl.DataFrame(
            {
                "line": lines.str.strip_chars_end(" \t").alias("line"),
                "raw": lines.alias("raw"),
                "offset": pl.Series("offset", offsets, dtype=pl.Int64),
                "hand": pl.Series("hand", segment),
                "is_start": starts.alias("is_start"),
                "file": pl.Series("file", file_of_line),
            }
        ).with_row_index("line_no")
        self.segments = int(segment.max()) + 1 if len(segment) else 0
        segment_file = np.zeros(self.segments, dtype=np.int32)
        segment_file[segment] = file_of_line
        self.segment_file = segment_file

    # -- orchestration ---------------------------------------------------------------------

    def tables(self) -> BlockTables:
        """The block's stored hands, their rows and its rejects, keyed by segment (``hand``)."""
        opened_by_header = self.frame.filter(pl.col("is_start")).select("hand")
        preamble = self.frame.join(opened_by_header, on="hand", how="anti")
        body = self.frame.join(opened_by_header, on="hand", how="semi")
        preamble_rejects = self._preamble_rejects(preamble)

        headers = with_other_games(
            read_headers(body.filter(pl.col("is_start"))).with_columns(
                is_o8=pl.col("game") == GAME
            ),
            body,
        )
        skipped = headers.filter(pl.col("header_ok") & ~pl.col("is_o8"))
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        bad_headers = headers.filter(~pl.col("header_ok")).select(
            "hand", pl.lit("unrecognised hand header").alias("reason")
        )

        self.scales = np.ones(self.segments, dtype=np.int64)
        self.scales[candidates["hand"].to_numpy()] = candidates["money_scale"].to_numpy()
        lines = self._verify_kinds(
            self._classify(body.join(candidates.select("hand"), on="hand", how="semi"))
        )
        self.acts = self._action_lines(lines)
        hands = self._hands(candidates, lines)
        seats = self._seats(lines, hands)
        actions = self._actions(lines, hands)
        collections = self._collections(lines, hands)
        showdowns = self._showdowns()
        seats = self._hole_cards(seats, lines)

        unknown_reasons, notes = triage_unknown_lines(
            lines.filter(pl.col("kind") == KIND_UNKNOWN).select(
                "hand", "line_no", "line", "offset", "damaged"
            ),
            damaged=pl.col("damaged"),
        )
        reasons = pl.concat(
            [
                bad_headers,
                unknown_reasons,
                self._hand_problems(hands, lines),
                self._seat_problems(seats),
                self._actor_problems(actions, collections, seats),
                self._card_problems(hands, seats, showdowns),
            ],
            how="vertical_relaxed",
        ).unique(subset="hand", keep="first", maintain_order=True)

        good = candidates.select("hand").join(reasons, on="hand", how="anti")
        hands = hands.join(good, on="hand", how="semi")
        return BlockTables(
            hands=hands,
            seats=seats.join(good, on="hand", how="semi"),
            actions=actions.join(good, on="hand", how="semi"),
            collections=collections.join(good, on="hand", how="semi"),
            showdowns=showdowns.join(good, on="hand", how="semi"),
            notes=note_rows(notes, self.frame, hands, SITE),
            rejects=pl.concat(
                [preamble_rejects, self._hand_rejects(reasons, headers)], how="vertical_relaxed"
            ),
            found=headers["hand"].to_numpy(),
            skipped=skipped.select("hand", "game"),
        )

    # -- header and line classification ------------------------------------------------------

    def _classify(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Section (street), run and kind of every line of the candidate hands.

        Only literal prefix tests run over every line; the regular expressions run later on the
        few lines of each kind. Sections are forward-filled with numpy over the line order.
        """
        line = lines["line"]
        is_start = lines["is_start"].to_numpy()
        is_marker = line.str.starts_with("*** ").to_numpy()
        marker_rows = np.flatnonzero(is_marker)
        names = (
            line.gather(marker_rows).str.strip_prefix("*** ").str.split(" ***").list.first()
        )
        codes = names.replace_strict(SECTIONS, default=None, return_dtype=pl.Int8)
        runs = pl.Series(names.is_in(SECOND_RUN_SECTIONS)).cast(pl.Int8)
        known = codes.is_not_null().to_numpy()
        section = _forward_fill(
            len(line), is_start, -1, marker_rows[known], codes.to_numpy()[known]
        )
        # The second run's streets and showdown carry board_index 1; the summary is shared.
        not_summary = (names != "SUMMARY").to_numpy()
        board_index = _forward_fill(
            len(line),
            is_start,
            0,
            marker_rows[not_summary & known],
            runs.to_numpy()[not_summary & known],
        )
        in_summary = section == 5
        before_cards = section == -1
        starts_with = line.str.starts_with
        kinds = np.select(
            [
                is_start,
                (line == "").to_numpy(),
                is_marker,
                starts_with("Table '").to_numpy(),
                before_cards & starts_with("Seat ").to_numpy(),
                starts_with("Dealt to ").to_numpy(),
                starts_with("Uncalled bet (").to_numpy(),
                in_summary & starts_with("Total pot ").to_numpy(),
                in_summary & line.str.contains("Board [", literal=True).to_numpy(),
                in_summary & line.str.contains(" mucked [", literal=True).to_numpy(),
                ~in_summary & line.str.contains(" collected ", literal=True).to_numpy(),
                ~in_summary & line.str.contains(": ", literal=True).to_numpy(),
            ],
            [
                KIND_HEADER,
                KIND_BLANK,
                KIND_MARKER,
                KIND_TABLE,
                KIND_SEAT,
                KIND_DEALT,
                KIND_UNCALLED,
                KIND_TOTAL,
                KIND_BOARD,
                KIND_SUMMARY_MUCK,
                KIND_COLLECTED,
                KIND_ACTION,
            ],
            KIND_OTHER,
        ).astype(np.int8)
        return lines.with_columns(
            section=pl.Series(section, dtype=pl.Int8),
            board_index=pl.Series(board_index, dtype=pl.Int8),
            kind=pl.Series(kinds, dtype=pl.Int8),
            marker=pl.repeat(None, len(line), dtype=pl.String, eager=True).scatter(
                marker_rows, names
            ),
        )

    def _verify_kinds(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Lines whose cheap kind is not confirmed by their pattern become ``unknown``."""
        checks = {
            KIND_SEAT: SEAT,
            KIND_COLLECTED: COLLECTED,
            KIND_UNCALLED: UNCALLED,
            KIND_BOARD: BOARD,
            KIND_SUMMARY_MUCK: SUMMARY_MUCK,
            KIND_ACTION: ACTION,
            KIND_TOTAL: TOTAL,
            KIND_TABLE: TABLE,
        }
        kinds = lines["kind"].to_numpy().copy()
        line = lines["line"]
        for kind, pattern in checks.items():
            rows = np.flatnonzero(kinds == kind)
            if len(rows) == 0:
                continue
            matched = line.gather(rows).str.contains(pattern).to_numpy()
            kinds[rows[~matched]] = KIND_OTHER
        # A line shaped like a data line that its pattern does not confirm is damaged data.
        damaged = (kinds == KIND_OTHER) & (lines["kind"].to_numpy() != KIND_OTHER)
        other = np.flatnonzero(kinds == KIND_OTHER)
        if len(other):
            informational = line.gather(other).str.contains(INFORMATIONAL).to_numpy()
            kinds[other[informational]] = KIND_INFO
            kinds[other[~informational]] = KIND_UNKNOWN
        return lines.with_columns(
            kind=pl.Series(kinds, dtype=pl.Int8), damaged=pl.Series(damaged & (kinds == KIND_UNKNOWN))
        )

    def _action_lines(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Fields of every ``player: verb ...`` line, decoded once for all tables.

        The line is cut at its first ``": "`` and the verb read by prefix, which is several
        times faster than one capturing expression; the few lines whose player name itself
        contains ``": "`` fall back to the full expression.
        """
        actions = lines.filter(pl.col("kind") == KIND_ACTION).select(
            "hand", "line_no", "section", "board_index", "line"
        )
        parts = actions["line"].str.splitn(": ", 2)
        rest = parts.struct.field("field_1")
        verb = rest.str.extract(ACTION_VERB, 1)
        fast = actions.with_columns(
            player=parts.struct.field("field_0"), verb=verb, rest=rest
        )
        slow_rows = fast.filter(pl.col("verb").is_null())
        fast = fast.filter(pl.col("verb").is_not_null())
        fast = fast.with_columns(tokens=pl.col("rest").str.split(" "))
        tokens = pl.col("tokens")
        amount_token = {
            "calls": 1,
            "bets": 1,
            "raises": 1,
            "posts small blind": 3,
            "posts big blind": 3,
            "posts the ante": 3,
            "posts small & big blinds": 5,
        }
        token_index = pl.col("verb").replace_strict(amount_token, default=None, return_dtype=pl.Int64)
        first = tokens.list.get(token_index, null_on_oob=True)
        # Null-masking first lets the two expressions skip every line that is not a show.
        shown = pl.when(pl.col("verb") == "shows").then(pl.col("rest"))
        fast = fast.with_columns(
            first=first,
            to=pl.when(pl.col("verb") == "raises").then(tokens.list.get(3, null_on_oob=True)),
            all_in=pl.when(pl.col("rest").str.contains(" and is all-in", literal=True)).then(
                pl.lit(" and is all-in")
            ),
            shown=shown,
        ).with_columns(
            cards=pl.col("shown").str.extract(r"^shows \[([^\]]*)\]", 1),
            desc=pl.col("shown").str.extract(r"\((.*)\)$", 1),
        )
        columns = ["hand", "line_no", "section", "board_index", "player", "verb", "first", "to", "cards", "all_in", "desc"]
        fields = fast.select(columns)
        if slow_rows.height:
            slow = slow_rows.select(
                "hand", "line_no", "section", "board_index",
                pl.col("line").str.extract_groups(ACTION).alias("a"),
            ).unnest("a")
            fields = pl.concat([fields, slow.select(columns)]).sort("line_no")
        scale = pl.Series(self.scales).gather(fields["hand"].cast(pl.UInt32))
        return fields.with_columns(money_scale=scale).with_columns(
            amount=money(pl.col("first"), pl.col("money_scale")),
            to=money(pl.col("to"), pl.col("money_scale")),
        )

    # -- tables ------------------------------------------------------------------------------

    def _hands(self, headers: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        table = (
            lines.filter(pl.col("kind") == KIND_TABLE)
            .select("hand", pl.col("line").str.extract_groups(TABLE).alias("t"))
            .unnest("t")
            .unique("hand", keep="first")
        )
        totals = (
            lines.filter(pl.col("kind") == KIND_TOTAL)
            .select("hand", pl.col("line").str.extract_groups(TOTAL).alias("t"))
            .unnest("t")
            .unique("hand", keep="first")
        )
        boards = (
            lines.filter(pl.col("kind") == KIND_BOARD)
            .select("hand", pl.col("line").str.extract_groups(BOARD).alias("b"))
            .unnest("b")
            .with_columns(cards=cards_list(pl.col("cards")))
        )
        first_board = boards.filter(pl.col("which").fill_null("FIRST ") == "FIRST ").unique(
            "hand", keep="first"
        )
        second_board = boards.filter(pl.col("which") == "SECOND ").unique("hand", keep="first")
        # A hand that ended before the flop prints no Board line: its board is empty, not unknown.
        hands = (
            headers.join(table, on="hand", how="left")
            .join(totals, on="hand", how="left")
            .join(first_board.select("hand", board="cards"), on="hand", how="left")
            .join(second_board.select("hand", board2="cards"), on="hand", how="left")
        )
        scale = pl.col("money_scale")
        posts = self._posted()
        hands = hands.join(posts, on="hand", how="left")
        hands = hands.with_columns(
            site=pl.lit(SITE),
            **stake_columns(),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            board=pl.col("board").fill_null(pl.lit([], dtype=pl.List(pl.UInt8))),
            total_pot=money(pl.col("total"), scale),
            rake=money(pl.col("rake"), scale),
            source_file=self._source_file(),
            source_offset=pl.col("offset"),
        )
        return hands.join(self._side_pots(hands), on="hand", how="left")

    @staticmethod
    def _side_pots(hands: pl.DataFrame) -> pl.DataFrame:
        """``Main pot 4170. Side pot-1 399.`` → [4170, 399]; null when the summary has none."""
        pots = (
            pl.col("pots")
            .str.replace_all(r"(?:Main|Side) pot(?:-\d+)? ", "")
            .str.strip_chars()
            .str.split(". ")
        )
        return (
            hands.filter(pl.col("pots").fill_null("") != "")
            .select("hand", "money_scale", pots.alias("pot"))
            .explode("pot")
            .with_columns(pot=money(pl.col("pot").str.strip_chars_end("."), pl.col("money_scale")))
            .group_by("hand", maintain_order=True)
            .agg(side_pots=pl.col("pot"))
        )

    def _posted(self) -> pl.DataFrame:
        verb = pl.col("verb")
        # A blind posted all-in for less says nothing about the table's blind.
        full = pl.col("all_in").is_null()
        return self.acts.group_by("hand").agg(
            posted_sb=pl.coalesce(
                pl.col("amount").filter((verb == "posts small blind") & full).max(),
                pl.col("amount").filter(verb == "posts small blind").max(),
            ),
            posted_bb=pl.col("amount").filter((verb == "posts big blind") & full).max(),
            posted_ante=pl.col("amount").filter(verb == "posts the ante").max(),
        )

    def _actions(self, lines: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
        acts = self.acts.filter(pl.col("verb").is_in(list(VERB_KIND)))
        acts = acts.join(hands.select("hand", "big_blind"), on="hand", how="left")
        # "posts small & big blinds X": the big blind part is live, the rest is dead money.
        both = acts.filter(pl.col("verb") == "posts small & big blinds")
        dead = both.with_columns(
            kind=pl.lit("post_dead"),
            amount=pl.col("amount") - pl.col("big_blind"),
            sub=pl.lit(0),
        )
        live = both.with_columns(kind=pl.lit("post_bb"), amount=pl.col("big_blind"), sub=pl.lit(1))
        single = acts.filter(pl.col("verb") != "posts small & big blinds").with_columns(
            kind=pl.col("verb").replace_strict(VERB_KIND), sub=pl.lit(0)
        )
        uncalled = (
            lines.filter(pl.col("kind") == KIND_UNCALLED)
            .select(
                "hand",
                "line_no",
                "section",
                "board_index",
                pl.col("line").str.extract_groups(UNCALLED).alias("u"),
            )
            .unnest("u")
            .join(hands.select("hand", "money_scale"), on="hand", how="left")
            .with_columns(
                kind=pl.lit("uncalled_return"),
                amount=money(pl.col("amount"), pl.col("money_scale")),
                sub=pl.lit(0),
            )
        )
        columns = ["hand", "line_no", "sub", "section", "player", "kind", "amount", "to"]
        frame = pl.concat(
            [
                single.select(*columns, is_all_in=pl.col("all_in").is_not_null()),
                dead.select(*columns, is_all_in=pl.lit(False)),
                live.select(*columns, is_all_in=pl.lit(False)),
                uncalled.select(
                    *columns[:-1], to=pl.lit(None, dtype=pl.Int64), is_all_in=pl.lit(False)
                ),
            ],
            how="vertical_relaxed",
        ).sort("hand", "line_no", "sub")
        # Posts come before "*** HOLE CARDS ***" and showdown lines after the river: both are
        # clipped into the betting streets they belong to.
        frame = frame.with_columns(
            street=pl.col("section").clip(0, 3).cast(pl.Int8),
            seq=pl.int_range(pl.len()).over("hand").cast(pl.Int32),
        )
        return self._street_totals(frame)

    @staticmethod
    def _street_totals(frame: pl.DataFrame) -> pl.DataFrame:
        """to_amount, and the chips added by raises, from each player's running street total."""
        kind = frame["kind"]
        live = kind.is_in(list(LIVE_KINDS))
        in_flow = live | kind.is_in(["fold", "check"])
        to_amount, added = street_totals(
            frame["hand"].to_numpy(),
            frame["street"].to_numpy(),
            frame["player"].hash(seed=0).to_numpy().view(np.int64),
            live.to_numpy(),
            (kind == "raise").to_numpy(),
            in_flow.to_numpy(),
            frame["amount"].fill_null(0).to_numpy(),
            frame["to"].fill_null(0).to_numpy(),
        )
        return frame.with_columns(
            amount=pl.when(kind.is_in(["fold", "check", "show", "muck"]).not_())
            .then(pl.when(kind == "raise").then(pl.Series(added)).otherwise(pl.col("amount"))),
            to_amount=pl.when(in_flow).then(pl.Series(to_amount)),
            site=pl.lit(SITE),
        )

    def _collections(self, lines: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
        found = (
            lines.filter(pl.col("kind") == KIND_COLLECTED)
            .select(
                "hand",
                "line_no",
                "board_index",
                pl.col("line").str.extract_groups(COLLECTED).alias("c"),
            )
            .unnest("c")
            .join(hands.select("hand", "money_scale"), on="hand", how="left")
        )
        return found.with_columns(
            site=pl.lit(SITE),
            amount=money(pl.col("amount"), pl.col("money_scale")),
            pot_index=pl.when(pl.col("pot").is_in(["pot", "main pot"]))
            .then(0)
            .when(pl.col("pot") == "side pot")
            .then(1)
            .otherwise(pl.col("side").cast(pl.Int8, strict=False))
            .cast(pl.Int8),
            half=pl.lit(None, dtype=pl.String),
            seq=pl.int_range(pl.len()).over("hand").cast(pl.Int32),
        )

    def _showdowns(self) -> pl.DataFrame:
        shows = self.acts.filter(pl.col("verb") == "shows")
        desc = pl.col("desc")
        return shows.with_columns(
            site=pl.lit(SITE),
            cards=cards_list(pl.col("cards")),
            high_desc=desc.str.extract(r"(?:^|; )HI: (.*?)(?:; LO: |$)", 1),
            low_desc=desc.str.extract(r"(?:^|; )LO: (.*)$", 1),
        )

    def _seats(self, lines: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
        seats = (
            lines.filter(pl.col("kind") == KIND_SEAT)
            .select("hand", "line", pl.col("line").str.extract_groups(SEAT).alias("s"))
            .unnest("s")
            .join(hands.select("hand", "money_scale"), on="hand", how="left")
        )
        flags = pl.col("flags").fill_null("")
        return seats.with_columns(
            site=pl.lit(SITE),
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=money(pl.col("stack"), pl.col("money_scale")),
            sitting_out=flags.str.contains("is sitting out") | flags.str.contains("out of hand"),
        )

    def _hole_cards(self, seats: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        dealt = (
            lines.filter(pl.col("kind") == KIND_DEALT)
            .select("hand", "line_no", pl.col("line").str.extract_groups(DEALT).alias("d"))
            .unnest("d")
            .filter(pl.col("cards").is_not_null())
        )
        shown = self.acts.filter(pl.col("cards").is_not_null())
        mucked = (
            lines.filter(pl.col("kind") == KIND_SUMMARY_MUCK)
            .select(
                "hand", "line_no", pl.col("line").str.extract_groups(SUMMARY_MUCK).alias("m")
            )
            .unnest("m")
        )
        known = pl.concat(
            [
                dealt.select("hand", "line_no", "player", "cards", shown=pl.lit(False)),
                shown.select("hand", "line_no", "player", "cards", shown=pl.lit(True)),
                mucked.select("hand", "line_no", "player", "cards", shown=pl.lit(False)),
            ]
        ).sort("hand", "line_no")
        # The last sighting wins: a player's shown cards are the same as dealt ones; a mismatch
        # is caught by the duplicate and conflicting-card checks. A player who shows only some
        # of his cards (all-in, "shows [Qs]") keeps them in `showdowns`; his hole cards stay
        # unknown, so the audit calls his pot unevaluable instead of guessing.
        cards = (
            known.with_columns(hole_cards=cards_list(pl.col("cards")))
            .filter(~(pl.col("shown") & is_partial_show(pl.col("hole_cards"))))
            .group_by("hand", "player", maintain_order=True)
            .agg(
                pl.col("hole_cards").last(),
                pl.col("cards").n_unique().alias("card_versions"),
            )
        )
        heroes = dealt.select("hand", "player").unique().with_columns(is_hero=pl.lit(True))
        return (
            seats.join(cards, on=["hand", "player"], how="left")
            .join(heroes, on=["hand", "player"], how="left")
            .with_columns(
                is_hero=pl.col("is_hero").fill_null(False),
                card_versions=pl.col("card_versions").fill_null(0),
            )
        )

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        summary = lines.group_by("hand").agg(
            has_summary=(pl.col("marker") == "SUMMARY").any(),
            has_hole=(pl.col("marker").is_in(["HOLE CARDS"])).any(),
            tables=(pl.col("kind") == KIND_TABLE).sum(),
        )
        checks = hands.join(summary, on="hand", how="left")
        reason = (
            pl.when(~pl.col("has_summary").fill_null(False))
            .then(pl.lit("truncated hand: no summary"))
            .when(~pl.col("has_hole").fill_null(False))
            .then(pl.lit("truncated hand: no hole cards section"))
            .when(pl.col("tables") != 1)
            .then(pl.lit("table line missing or repeated"))
            .when(pl.col("button_seat").is_null())
            .then(pl.lit("no button seat"))
            .when(pl.col("started_at").is_null())
            .then(pl.lit("unreadable start time"))
            .when(pl.col("total_pot").is_null() | pl.col("rake").is_null())
            .then(pl.lit("missing or unreadable total pot / rake"))
            .when(pl.col("limit_type").is_null())
            .then(pl.lit("unknown betting limit"))
            .when(pl.col("big_blind").is_null())
            .then(pl.lit("unreadable stakes"))
            .when(pl.col("board").list.drop_nulls().list.len() < pl.col("board").list.len())
            .then(pl.lit("unreadable board card"))
            .when(pl.col("board").list.len() > 5)
            .then(pl.lit("more than five board cards"))
        )
        return checks.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    @staticmethod
    def _seat_problems(seats: pl.DataFrame) -> pl.DataFrame:
        per_hand = seats.group_by("hand").agg(
            seats=pl.len(),
            bad=(pl.col("seat").is_null() | pl.col("player").is_null()).sum(),
            bad_stack=pl.col("stack_start").is_null().sum(),
            distinct_seats=pl.col("seat").n_unique(),
            distinct_players=pl.col("player").n_unique(),
            bad_cards=(
                pl.col("hole_cards").is_not_null()
                & (
                    (pl.col("hole_cards").list.len() != 4)
                    | (pl.col("hole_cards").list.drop_nulls().list.len() < 4)
                )
            ).sum(),
            conflicting=(pl.col("card_versions") > 1).sum(),
        )
        reason = (
            pl.when(pl.col("seats") > MAX_SEATS)
            .then(pl.lit(f"more than {MAX_SEATS} seat lines"))
            .when(pl.col("bad") > 0)
            .then(pl.lit("unreadable seat line"))
            .when(pl.col("bad_stack") > 0)
            .then(pl.lit("unreadable stack"))
            .when(pl.col("distinct_seats") != pl.col("seats"))
            .then(pl.lit("duplicate seat number"))
            .when(pl.col("distinct_players") != pl.col("seats"))
            .then(pl.lit("duplicate player name"))
            .when(pl.col("bad_cards") > 0)
            .then(pl.lit("hole cards are not four readable cards"))
            .when(pl.col("conflicting") > 0)
            .then(pl.lit("a player is shown different hole cards"))
        )
        return per_hand.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

    @staticmethod
    def _actor_problems(
        actions: pl.DataFrame, collections: pl.DataFrame, seats: pl.DataFrame
    ) -> pl.DataFrame:
        seated = seats.select("hand", "player")
        actors = pl.concat(
            [
                actions.select("hand", "seq", "player", "amount", "kind"),
                collections.select(
                    "hand", (pl.col("seq") + 100_000).alias("seq"), "player", "amount",
                    pl.lit("collected").alias("kind"),
                ),
            ]
        )
        strangers = (
            actors.join(seated, on=["hand", "player"], how="anti")
            .sort("hand", "seq")
            .unique("hand", keep="first", maintain_order=True)
            # A name that could not be read is null: say so rather than give a null reason.
            .select(
                "hand",
                reason=pl.lit("player not seated: ")
                + pl.col("player").fill_null("(unreadable name)"),
            )
        )
        bad_amounts = (
            actors.filter(
                pl.col("kind").is_in(["fold", "check", "show", "muck"]).not_()
                & (pl.col("amount").is_null() | (pl.col("amount") < 0))
            )
            .sort("hand", "seq")
            .unique("hand", keep="first", maintain_order=True)
            .select("hand", reason=pl.lit("unreadable or negative amount (") + pl.col("kind") + ")")
        )
        return pl.concat([strangers, bad_amounts])

    @staticmethod
    def _card_problems(
        hands: pl.DataFrame, seats: pl.DataFrame, showdowns: pl.DataFrame
    ) -> pl.DataFrame:
        """Hands with a card dealt twice, or a shown hand holding a card that could not be read
        (``shows [1,2,3c 9h As Qs]``)."""
        hole = seats.select("hand", pl.col("hole_cards").alias("card")).explode("card")
        board = hands.select("hand", pl.col("board").alias("card")).explode("card")
        board2 = (
            hands.filter(pl.col("board2").is_not_null())
            .select(
                "hand",
                # The second run repeats the first run's flop (and turn): only new cards count.
                pl.col("board2").list.set_difference(pl.col("board")).alias("card"),
            )
            .explode("card")
        )
        cards = pl.concat([hole, board, board2]).drop_nulls("card")
        duplicated = (
            cards.group_by("hand", "card")
            .len()
            .filter(pl.col("len") > 1)
            .sort("hand", "card")
            .select("hand", reason=pl.lit("duplicate card code ") + pl.col("card").cast(pl.String))
        )
        unreadable = showdowns.filter(
            pl.col("cards").list.eval(pl.element().is_null()).list.any()
        ).select("hand", reason=pl.lit("unreadable shown card"))
        return pl.concat([duplicated, unreadable]).unique("hand", keep="first", maintain_order=True)

    # -- rejects -----------------------------------------------------------------------------

    def _hand_rejects(self, reasons: pl.DataFrame, headers: pl.DataFrame) -> pl.DataFrame:
        text = self.frame.join(reasons.select("hand"), on="hand", how="semi").group_by("hand").agg(
            raw_text=pl.col("raw").str.join("\n"), source_offset=pl.col("offset").first()
        )
        return (
            reasons.join(text, on="hand", how="left")
            .join(headers.select("hand", "hand_id"), on="hand", how="left")
            .select(
                "hand",
                source_file=self._source_file(),
                source_offset="source_offset",
                site=pl.lit(SITE),
                hand_id="hand_id",
                reason="reason",
                raw_text="raw_text",
            )
        )

    def _source_file(self) -> pl.Expr:
        """The source file of each row's segment (``hand``)."""
        segment_file = pl.lit(pl.Series("segment_file", self.segment_file))
        return pl.lit(self.source_files).gather(segment_file.gather(pl.col("hand")))

    def _preamble_rejects(self, preamble: pl.DataFrame) -> pl.DataFrame:
        """Text before a file's first hand header: one reject per file that has any."""
        return (
            preamble.group_by("hand", maintain_order=True)
            .agg(
                raw_text=pl.col("raw").str.join("\n"),
                source_offset=pl.col("offset").filter(pl.col("line").str.strip_chars() != "").first(),
                has_text=(pl.col("line").str.strip_chars() != "").any(),
            )
            .filter(pl.col("has_text"))
            .select(
                "hand",
                source_file=self._source_file(),
                source_offset="source_offset",
                site=pl.lit(SITE),
                hand_id=pl.lit(None, dtype=pl.String),
                reason=pl.lit("text before the first hand header"),
                raw_text="raw_text",
            )
        )


@dataclass
class BlockTables:
    """A block's stored hands and their rows (before positions), keyed by segment ``hand``."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    actions: pl.DataFrame
    collections: pl.DataFrame
    showdowns: pl.DataFrame
    notes: pl.DataFrame
    rejects: pl.DataFrame
    found: np.ndarray  # segments opened by a hand header
    skipped: pl.DataFrame  # hand, game: hands of other games

    def renumbered(self, segments: np.ndarray) -> BlockTables:
        """The same tables with segment ``k`` renamed ``segments[k]`` (an increasing map)."""

        def renumber(frame: pl.DataFrame) -> pl.DataFrame:
            hand = segments[frame["hand"].to_numpy()] if frame.height else np.zeros(0, np.int32)
            return frame.with_columns(hand=pl.Series("hand", hand, dtype=pl.Int32))

        return BlockTables(
            hands=renumber(self.hands),
            seats=renumber(self.seats),
            actions=renumber(self.actions),
            collections=renumber(self.collections),
            showdowns=renumber(self.showdowns),
            notes=renumber(self.notes),
            rejects=renumber(self.rejects),
            found=segments[self.found],
            skipped=renumber(self.skipped),
        )


@dataclass
class StoredTables:
    """Canonical Arrow tables of some of a block's segments, and the segment of every row."""

    tables: dict[str, pa.Table]
    segments: dict[str, np.ndarray]
    found: np.ndarray  # segments opened by a hand header
    skipped: pl.DataFrame  # hand, game: hands of other games


def _stored(tables: BlockTables) -> StoredTables:
    """The block parser's frames as canonical tables: positions, players dealt, hand ids."""
    hands = tables.hands
    seats = assign_positions(tables.seats, hands)
    hands = hands.join(
        seats.group_by("hand").agg(
            (~pl.col("sitting_out")).sum().cast(pl.Int16).alias("players_dealt")
        ),
        on="hand",
        how="left",
    )
    ids = hands.select("hand", "hand_id")
    seats, actions, collections, showdowns = (
        frame.join(ids, on="hand", how="left")
        for frame in (seats, tables.actions, tables.collections, tables.showdowns)
    )
    frames = {
        "hands": hands.sort("hand"),
        "seats": seats.sort("hand", "seat"),
        "actions": actions.sort("hand", "seq"),
        "collections": collections.sort("hand", "seq"),
        "showdowns": showdowns.sort("hand", "line_no"),
        "notes": tables.notes.sort("hand", maintain_order=True),
        "rejects": tables.rejects.sort("hand", maintain_order=True),
    }
    return StoredTables(
        tables={name: table_from_frame(frame, name) for name, frame in frames.items()},
        segments={name: frame["hand"].to_numpy() for name, frame in frames.items()},
        found=tables.found,
        skipped=tables.skipped,
    )


def _merged(parts: list[StoredTables]) -> StoredTables:
    """One set of tables, every table's rows in segment order (each part's order kept)."""
    if len(parts) == 1:
        return parts[0]
    tables: dict[str, pa.Table] = {}
    segments: dict[str, np.ndarray] = {}
    for name in parts[0].tables:
        rows = np.concatenate([part.segments[name] for part in parts])
        order = np.argsort(rows, kind="stable")
        tables[name] = pa.concat_tables([part.tables[name] for part in parts]).take(order)
        segments[name] = rows[order]
    return StoredTables(
        tables=tables,
        segments=segments,
        found=np.concatenate([part.found for part in parts]),
        skipped=pl.concat([part.skipped for part in parts]),
    )


def _results(
    stored: StoredTables, segment_file: np.ndarray, source_files: list[str]
) -> list[ParseResult]:
    """Split the block's tables and counts by source file.

    Every table is in segment order and segments follow the files' order, so each file's
    rows are one contiguous slice of each table, sliced without copying.
    """
    files = len(source_files)
    bounds_of = {
        name: np.searchsorted(segment_file[rows], np.arange(files + 1))
        for name, rows in stored.segments.items()
    }
    skipped = stored.skipped
    header_files = segment_file[stored.found]
    skipped_files = segment_file[skipped["hand"].to_numpy()]
    rejected_segments = stored.segments["rejects"]
    preamble_files = segment_file[rejected_segments[~np.isin(rejected_segments, stored.found)]]
    found = np.bincount(header_files, minlength=files) + np.bincount(
        preamble_files, minlength=files
    )
    skipped_counts = np.bincount(skipped_files, minlength=files)
    results = []
    for file in range(files):
        tables = {
            name: table.slice(bounds_of[name][file], bounds_of[name][file + 1] - bounds_of[name][file])
            for name, table in stored.tables.items()
        }
        games = (
            skipped.filter(pl.Series(skipped_files == file)).group_by("game").len()
            if skipped_counts[file]
            else skipped.clear().group_by("game").len()
        )
        results.append(
            ParseResult(
                tables=tables,
                hands_found=int(found[file]),
                parsed=tables["hands"].num_rows,
                skipped=int(skipped_counts[file]),
                rejected=tables["rejects"].num_rows,
                skipped_games={str(k): int(v) for k, v in games.sort("game").iter_rows()},
            )
        )
    return results


# -- the hands the compiled reader read --------------------------------------------------------


KIND_NAMES = pa.array(
    [compiled.KIND_OF_VERB.get(code, "") for code in range(len(compiled.VERBS))]
    + ["uncalled_return"]
)
POSITION_NAMES = pa.array(compiled.POSITION_LABELS)


def _arrow_table(schema: pa.Schema, **columns: pa.Array) -> pa.Table:
    """A table of ``schema`` from its columns (each cast to the schema's type)."""
    return pa.Table.from_arrays(
        [columns[field.name].cast(field.type) for field in schema], schema=schema
    )


def _minor_units(hundredths: np.ndarray, scale: np.ndarray) -> pa.Array:
    """Hundredths of a printed unit → minor units of the hand's scale; -1 → null."""
    values = np.ascontiguousarray(np.where(scale == 100, hundredths, hundredths // 100), np.int64)
    valid = hundredths >= 0
    validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.int64(), len(values), [validity, pa.py_buffer(values)])


def _card_lists(cards: np.ndarray, counts: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """Rows of card codes (the first ``counts[i]`` of ``cards[i]``) as list<uint8>."""
    counts = counts.astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int32)
    keep = np.arange(cards.shape[1])[None, :] < counts[:, None]
    values = pa.array(cards[keep], type=pa.uint8())
    mask = None if valid is None else pa.array(~valid)
    return pa.ListArray.from_arrays(pa.array(offsets), values, mask=mask)


def _seq_within(hand: np.ndarray) -> np.ndarray:
    """0, 1, 2 … within each run of equal ``hand`` values."""
    if len(hand) == 0:
        return np.zeros(0, dtype=np.int32)
    first = np.r_[True, hand[1:] != hand[:-1]]
    starts = np.flatnonzero(first)
    runs = np.diff(np.r_[starts, len(hand)])
    return (np.arange(len(hand)) - np.repeat(starts, runs)).astype(np.int32)


def _compiled_tables(
    read: compiled.CompiledBlock,
    opens_hand: np.ndarray,
    lines: pl.Series,
    offsets: np.ndarray,
    segment_file: np.ndarray,
    source_files: list[str],
) -> tuple[StoredTables, np.ndarray]:
    """The stored tables of the hands the compiled reader read, and the mask of the segments done.

    A segment the reader read is kept only if its header and table line read too, and give
    what the hand checks need (game, limit, start time, button, stakes); a hand of another
    game is done once its header reads. The rest go to the block parser.
    """
    opened = np.flatnonzero(opens_hand[read.first_line]).astype(np.int32)
    rows = read.first_line[opened]
    all_headers = read_headers(
        pl.DataFrame(
            {
                "hand": pl.Series(opened, dtype=pl.Int32),
                "offset": pl.Series(offsets[rows], dtype=pl.Int64),
                "line": lines.gather(rows),
            }
        )
    )
    # Another game's hand needs nothing but its header: counted as skipped here.
    other_game = (
        all_headers.select(pl.col("header_ok") & (pl.col("game") != GAME)).to_series().to_numpy()
    )
    skipped = all_headers.filter(pl.Series(other_game)).select("hand", "game")
    read_whole = read.accepted[opened]
    headers = all_headers.filter(pl.Series(read_whole))
    segments = opened[read_whole]
    table = (
        lines.gather(read.table_line[segments])
        .str.extract_groups(TABLE)
        .struct.unnest()
        .select(
            "table_name",
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
        )
    )
    scale = headers["money_scale"].to_numpy().astype(np.int64)

    def units(values: np.ndarray) -> pl.Series:
        return pl.Series(_minor_units(values[segments], scale))

    posted_sb = np.where(read.posted_sb_full >= 0, read.posted_sb_full, read.posted_sb_any)
    side_counts = read.side_pot_count[segments].astype(np.int64)
    side_pots = _minor_units(
        read.side_pots[segments][
            np.arange(read.side_pots.shape[1])[None, :] < side_counts[:, None]
        ],
        np.repeat(scale, np.maximum(side_counts, 0)),
    )
    side_offsets = np.concatenate(([0], np.cumsum(np.maximum(side_counts, 0)))).astype(np.int32)
    side_lists = pl.Series(
        pa.ListArray.from_arrays(pa.array(side_offsets), side_pots, mask=pa.array(side_counts < 0))
    )
    hands = pl.concat(
        [
            headers,
            table,
            pl.DataFrame(
                {
                    "posted_sb": pl.Series(_minor_units(posted_sb[segments], scale)),
                    "posted_bb": units(read.posted_bb_full),
                    "posted_ante": units(read.posted_ante),
                    "total_pot": units(read.total),
                    "rake": units(read.rake),
                    "board": pl.Series(
                        _card_lists(read.board[segments], read.board_count[segments])
                    ),
                    "side_pots": side_lists,
                    "fractional": read.fractional[segments],
                    "source_file": pl.Series(source_files, dtype=pl.String).gather(
                        segment_file[segments]
                    ),
                }
            ),
        ],
        how="horizontal",
    ).with_columns(
        site=pl.lit(SITE),
        **stake_columns(),
        board2=pl.lit(None, dtype=pl.List(pl.UInt8)),
        source_offset=pl.col("offset"),
    )
    readable = (
        pl.col("header_ok")
        & (pl.col("game") == GAME)
        & pl.col("table_name").is_not_null()
        & pl.col("limit_type").is_not_null()
        & pl.col("started_at").is_not_null()
        & pl.col("button_seat").is_not_null()
        & pl.col("big_blind").is_not_null()
        & ((pl.col("money_scale") == 100) | ~pl.col("fractional"))
    )
    keep = hands.select(readable.fill_null(False)).to_series().to_numpy()
    hands = hands.filter(pl.Series(keep))
    accepted = np.zeros(len(read.accepted), dtype=bool)
    accepted[segments[keep]] = True
    hand_scale = np.ones(len(read.accepted), dtype=np.int64)
    hand_scale[segments] = scale
    handled = accepted.copy()
    handled[skipped["hand"].to_numpy()] = True

    kept = segments[keep]
    hand_row = np.full(len(read.accepted), -1, dtype=np.int64)
    hand_row[kept] = np.arange(len(kept))
    kind = read.kind
    line_accepted = accepted[read.segment]

    seat_rows = np.flatnonzero((kind == compiled.LINE_SEAT) & line_accepted)
    seat_hand = read.segment[seat_rows]
    seat_rows = seat_rows[np.lexsort((read.number[seat_rows], seat_hand))]
    seat_hand = read.segment[seat_rows]
    sitting_out = read.flag[seat_rows]
    hands = hands.with_columns(
        players_dealt=pl.Series(
            np.bincount(hand_row[seat_hand], weights=~sitting_out, minlength=len(kept)),
            dtype=pl.Int16,
        )
    )
    hands_table = table_from_frame(hands, "hands")
    hand_ids = hands_table.column("hand_id").combine_chunks()

    def ids(rows_hand: np.ndarray) -> pa.Array:
        return hand_ids.take(pa.array(hand_row[rows_hand]))

    position = compiled.positions(
        seat_hand,
        read.number[seat_rows],
        sitting_out,
        hands["button_seat"].to_numpy()[hand_row[seat_hand]] if len(seat_rows) else np.zeros(0),
    )
    seats = _arrow_table(
        SEATS,
        site=pa.repeat(SITE, len(seat_rows)),
        hand_id=ids(seat_hand),
        seat=pa.array(read.number[seat_rows].astype(np.int16)),
        player=compiled.names(read, seat_rows),
        position=POSITION_NAMES.take(pa.array(position, mask=position < 0)),
        stack_start=_minor_units(read.amount[seat_rows], hand_scale[seat_hand]),
        hole_cards=_card_lists(
            read.cards[seat_rows], read.card_count[seat_rows], read.card_count[seat_rows] > 0
        ),
        is_hero=pa.array(read.hero[seat_rows]),
        sitting_out=pa.array(sitting_out),
        bounty=compiled.aux_texts(read, seat_rows),
    )

    verb = read.verb
    action_rows = np.flatnonzero(
        line_accepted
        & (
            (kind == compiled.LINE_UNCALLED)
            | ((kind == compiled.LINE_ACTION) & np.isin(verb, list(compiled.KIND_OF_VERB)))
        )
    )
    action_hand = read.segment[action_rows]
    action_verb = verb[action_rows]
    verb_index = np.where(action_verb == compiled.VERB_UNCALLED, len(compiled.VERBS), action_verb)
    without_amount = np.isin(
        action_verb,
        [compiled.VERB_FOLD, compiled.VERB_CHECK, compiled.VERB_SHOW, compiled.VERB_MUCK],
    )
    action_scale = hand_scale[action_hand]
    actions = _arrow_table(
        ACTIONS,
        site=pa.repeat(SITE, len(action_rows)),
        hand_id=ids(action_hand),
        seq=pa.array(_seq_within(action_hand)),
        street=pa.array(read.street[action_rows]),
        player=compiled.names(read, action_rows),
        kind=KIND_NAMES.take(pa.array(verb_index)),
        amount=_minor_units(np.where(without_amount, -1, read.amount[action_rows]), action_scale),
        to_amount=_minor_units(read.to_amount[action_rows], action_scale),
        is_all_in=pa.array(read.all_in[action_rows]),
    )

    collected_rows = np.flatnonzero((kind == compiled.LINE_COLLECTED) & line_accepted)
    collected_hand = read.segment[collected_rows]
    collections = _arrow_table(
        COLLECTIONS,
        site=pa.repeat(SITE, len(collected_rows)),
        hand_id=ids(collected_hand),
        seq=pa.array(_seq_within(collected_hand)),
        player=compiled.names(read, collected_rows),
        amount=_minor_units(read.amount[collected_rows], hand_scale[collected_hand]),
        pot_index=pa.array(read.number[collected_rows].astype(np.int8)),
        half=pa.nulls(len(collected_rows), pa.string()),
        board_index=pa.array(np.zeros(len(collected_rows), dtype=np.int8)),
    )

    show_rows = np.flatnonzero(
        line_accepted & (kind == compiled.LINE_ACTION) & (verb == compiled.VERB_SHOW)
    )
    show_hand = read.segment[show_rows]
    high, low = compiled.hand_descriptions(read, show_rows)
    showdowns = _arrow_table(
        SHOWDOWNS,
        site=pa.repeat(SITE, len(show_rows)),
        hand_id=ids(show_hand),
        player=compiled.names(read, show_rows),
        cards=_card_lists(read.cards[show_rows], read.card_count[show_rows]),
        high_desc=high,
        low_desc=low,
        board_index=pa.array(np.zeros(len(show_rows), dtype=np.int8)),
    )
    return (
        StoredTables(
            tables={
                "hands": hands_table,
                "seats": seats,
                "actions": actions,
                "collections": collections,
                "showdowns": showdowns,
                "notes": NOTES.empty_table(),
                "rejects": REJECTS.empty_table(),
            },
            segments={
                "hands": kept,
                "seats": seat_hand,
                "actions": action_hand,
                "collections": collected_hand,
                "showdowns": show_hand,
                "notes": np.zeros(0, dtype=np.int32),
                "rejects": np.zeros(0, dtype=np.int32),
            },
            found=np.union1d(kept, skipped["hand"].to_numpy()),
            skipped=skipped,
        ),
        handled,
    )
