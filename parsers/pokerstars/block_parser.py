"""The block parser: every PokerStars hand of a block read with column expressions.

Every line is classified with cheap literal tests, each line kind is decoded by its own regular
expression over the column of those lines, and the canonical tables are assembled with joins and
window expressions. It reads every form the site prints, and explains every hand it cannot
store (a reject with its reason, or a note for a harmless unknown line).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from parsers.base import ParseResult
from parsers.columns import cards_list, local_time_to_utc, money
from parsers.engine.betting import ordered_actions, street_amounts
from parsers.engine.checks import (
    actor_problems,
    board_checks,
    card_problems,
    first_problem,
    seat_problems,
)
from parsers.engine.hole_cards import attach_hole_cards, games_hole_cards, is_partial_show
from parsers.engine.line_forms import classify
from parsers.engine.lines import fill_from_rows, in_printed_order
from parsers.engine.stakes import blinds_and_bets
from parsers.games import exposed_count, game_codes
from parsers.notes import note_rows, triage_unknown_lines, with_other_games
from parsers.pokerstars.forms import (
    ACTION,
    ACTION_VERB,
    BOARD,
    COLLECTED,
    CURRENCY_SYMBOLS,
    DEALT,
    GAME_NAMES,
    GAME_TEXT,
    HEADER,
    KIND_ACTION,
    KIND_BOARD,
    KIND_COLLECTED,
    KIND_DEALT,
    KIND_INFO,
    KIND_OTHER,
    KIND_SEAT,
    KIND_SUMMARY_MUCK,
    KIND_TABLE,
    KIND_TOTAL,
    KIND_UNCALLED,
    KIND_UNKNOWN,
    LINE_FORMS,
    SEAT,
    SECOND_RUN_SECTIONS,
    SECTIONS,
    STAKES,
    STARS,
    STREET_CARDS,
    SUMMARY_MUCK,
    TABLE,
    TOTAL,
    UNCALLED,
    VERB_KIND,
    Dialect,
)
from parsers.pokerstars.tables import BlockTables, results_by_file, stored


def parse_with_block_parser(
    lines: pl.Series,
    offsets: np.ndarray,
    file_starts: np.ndarray,
    source_files: list[str],
    dialect: Dialect = STARS,
) -> list[ParseResult]:
    """Every hand through the block parser alone: the reference the compiled reader must equal
    (and the one reader of a room writing PokerStars' forms, ``dialect``)."""
    block = BlockParser(lines, offsets, source_files, file_starts, dialect)
    return results_by_file(stored(block.tables()), block.segment_file, source_files)


def header_groups(lines: pl.Series, header: str = HEADER) -> pl.DataFrame:
    """The groups of ``header`` (`HEADER`), then of GAME_TEXT and STAKES over the text they
    read, per line."""
    parsed = lines.to_frame("line").select(pl.col("line").str.extract_groups(header).alias("h"))
    parsed = parsed.unnest("h")
    game_text = pl.coalesce("tgame", "cgame")
    parsed = parsed.with_columns(game_text.str.extract_groups(GAME_TEXT).alias("g")).unnest("g")
    stakes_text = pl.coalesce("stakes", "lstakes", "cstakes")
    return parsed.with_columns(stakes_text.str.extract_groups(STAKES).alias("s")).unnest("s")


def read_headers(
    first: pl.DataFrame,
    groups: pl.DataFrame | None = None,
    game_names: dict[str, str] = GAME_NAMES,
) -> pl.DataFrame:
    """Fields of the hand header lines in ``first`` (``hand``, ``offset``, ``line``), with
    ``game_code``, the code of the game named (``game_names``: the names read; null for
    another game).

    ``groups`` are the lines' `header_groups` when another reader has them already (the
    compiled reader's, which this parser's own are the reference for).
    """
    if groups is None:
        groups = header_groups(first["line"])
    parsed = pl.concat([first.select("hand", "offset", "line"), groups], how="horizontal")
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
        game_code=game_codes(pl.col("game"), game_names),
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
    """Blinds, bets and ante from the header's stakes (``first``, ``second``) and the posts."""
    first_stake = money(pl.col("first"), pl.col("money_scale"))
    second_stake = money(pl.col("second"), pl.col("money_scale"))
    return {
        **blinds_and_bets(pl.col("limit_type") == "FL", first_stake, second_stake),
        "ante": pl.col("posted_ante"),
    }


def file_layout(file_starts: np.ndarray, lines: int) -> tuple[np.ndarray, np.ndarray]:
    """``(new_file, file_of_line)``: which lines open a file, and each line's file index."""
    new_file = np.zeros(lines, dtype=bool)
    new_file[file_starts[file_starts < lines]] = True
    file_of_line = np.zeros(lines, dtype=np.int32)
    file_of_line[file_starts[(file_starts > 0) & (file_starts < lines)]] = 1
    return new_file, np.cumsum(file_of_line, dtype=np.int32)


class BlockParser:
    """The state of one parse: a frame of lines plus the per-hand verdicts built from it."""

    def __init__(
        self,
        lines: pl.Series,
        offsets: np.ndarray,
        source_files: list[str],
        file_starts: np.ndarray,
        dialect: Dialect = STARS,
    ) -> None:
        self.dialect = dialect
        self.source_files = pl.Series("source_file", source_files, dtype=pl.String)
        starts = lines.str.contains(dialect.hand_start).fill_null(False)
        new_file, file_of_line = file_layout(file_starts, len(lines))
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
            read_headers(
                body.filter(pl.col("is_start")),
                header_groups(body.filter(pl.col("is_start"))["line"], self.dialect.header),
                self.dialect.game_names,
            ).with_columns(is_o8=pl.col("game_code").is_not_null()),
            body,
        )
        skipped = headers.filter(pl.col("header_ok") & ~pl.col("is_o8"))
        candidates = headers.filter(pl.col("header_ok") & pl.col("is_o8"))
        bad_headers = headers.filter(~pl.col("header_ok")).select(
            "hand", pl.lit("unrecognised hand header").alias("reason")
        )

        self.scales = np.ones(self.segments, dtype=np.int64)
        self.scales[candidates["hand"].to_numpy()] = candidates["money_scale"].to_numpy()
        self.games = candidates.select("hand", "game_code")
        lines = self._verify_kinds(
            self._classify(body.join(candidates.select("hand"), on="hand", how="semi"))
        )
        self.acts = self._action_lines(lines)
        hands = self._hands(candidates, lines)
        seats = self._seats(lines, hands)
        actions = self._actions(lines, hands)
        collections = in_printed_order(self._collections(lines, hands))
        showdowns = self._showdowns(lines)
        seats = self._hole_cards(seats, lines)

        unknown = lines.filter(pl.col("kind") == KIND_UNKNOWN).select(
            "hand", "line_no", "line", "offset", "damaged"
        )
        kept = unknown.clear()
        if self.dialect.kept_lines is not None:
            is_kept = pl.col("line").str.contains(self.dialect.kept_lines)
            kept, unknown = unknown.filter(is_kept), unknown.filter(~is_kept)
        unknown_reasons, notes = triage_unknown_lines(
            unknown, damaged=pl.col("damaged"), seats=seats
        )
        if kept.height:
            notes = pl.concat(
                [notes, kept.with_columns(note_kind=pl.lit(self.dialect.kept_kind))],
                how="diagonal_relaxed",
            ).sort("hand", "line_no")
        reasons = pl.concat(
            [
                bad_headers,
                unknown_reasons,
                self._hand_problems(hands, lines),
                seat_problems(seats),
                actor_problems(actions, collections, seats),
                card_problems(hands, seats, showdowns),
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
            notes=note_rows(notes, self.frame, hands, self.dialect.site),
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
        section = fill_from_rows(
            len(line), is_start, -1, marker_rows[known], codes.to_numpy()[known]
        )
        # The second run's streets and showdown carry board_index 1; the summary is shared.
        not_summary = (names != "SUMMARY").to_numpy()
        board_index = fill_from_rows(
            len(line),
            is_start,
            0,
            marker_rows[not_summary & known],
            runs.to_numpy()[not_summary & known],
        )
        classified = classify(lines, section, LINE_FORMS, KIND_OTHER, {"marker": is_marker})
        return classified.with_columns(
            board_index=pl.Series(board_index, dtype=pl.Int8),
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
            informational = line.gather(other).str.contains(self.dialect.informational).to_numpy()
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
        # A hand that ended before the flop prints no Board line: its board is empty, not unknown
        # (in Courchevel it is the exposed card, below).
        hands = (
            headers.join(table, on="hand", how="left")
            .join(totals, on="hand", how="left")
            .join(first_board.select("hand", board="cards"), on="hand", how="left")
            .join(second_board.select("hand", board2="cards"), on="hand", how="left")
            .join(self._street_cards(lines), on="hand", how="left")
        )
        scale = pl.col("money_scale")
        posts = self._posted()
        hands = hands.join(posts, on="hand", how="left")
        hands = hands.with_columns(
            site=pl.lit(self.dialect.site),
            **stake_columns(),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            # A game that deals a board card before the flop (Courchevel) has a board from the
            # start: where no Board line prints it (a hand that ended early), the street lines do.
            board=pl.when(
                pl.col("board").is_null() & (exposed_count(pl.col("game_code")) > 0)
            )
            .then(pl.col("street_board"))
            .otherwise(pl.col("board"))
            .fill_null(pl.lit([], dtype=pl.List(pl.UInt8))),
            total_pot=money(pl.col("total"), scale),
            rake=money(pl.col("rake"), scale),
            source_file=self._source_file(),
            source_offset=pl.col("offset"),
        )
        return hands.join(self._side_pots(hands), on="hand", how="left")

    @staticmethod
    def _street_cards(lines: pl.DataFrame) -> pl.DataFrame:
        """``exposed``: the cards of a hand's ``*** PRE-FLOP *** [7h]`` line (Courchevel's
        exposed card), and ``street_board``: the board its last street line of the first run
        shows (``*** FLOP *** [8s] [2c 9h]``: the cards of every bracket)."""
        streets = (
            lines.filter(pl.col("marker").is_in(["PRE-FLOP", "FLOP", "TURN", "RIVER"]))
            .select("hand", "marker", text=pl.col("line").str.extract(STREET_CARDS, 1))
            .filter(pl.col("text").is_not_null())
            .with_columns(
                cards=cards_list(
                    pl.col("text").str.replace_all(r"\]\s*\[", " ").str.strip_chars("[] ")
                )
            )
        )
        return streets.group_by("hand", maintain_order=True).agg(
            exposed=pl.col("cards").filter(pl.col("marker") == "PRE-FLOP").first(),
            street_board=pl.col("cards").last(),
        )

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
        )
        # Posts come before "*** HOLE CARDS ***" and showdown lines after the river: both are
        # clipped into the betting streets they belong to.
        frame = ordered_actions(frame, "section")
        return street_amounts(frame, printed_total=frame["kind"] == "raise").with_columns(
            site=pl.lit(self.dialect.site)
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
            site=pl.lit(self.dialect.site),
            amount=money(pl.col("amount"), pl.col("money_scale")),
            pot_index=pl.when(pl.col("pot").is_in(["pot", "main pot"]))
            .then(0)
            .when(pl.col("pot") == "side pot")
            .then(1)
            .otherwise(pl.col("side").cast(pl.Int8, strict=False))
            .cast(pl.Int8),
            half=pl.lit(None, dtype=pl.String),
        )

    def _showdowns(self, lines: pl.DataFrame) -> pl.DataFrame:
        """Shown hands, and the cards of a summary's ``mucked [Qs]`` that shows only some of a
        player's cards (a partial show, `hole_cards.is_partial_show`: they are known nowhere
        else, his hole cards stay unknown)."""
        shows = self.acts.filter(pl.col("verb") == "shows")
        desc = pl.col("desc")
        shown = shows.with_columns(
            site=pl.lit(self.dialect.site),
            cards=cards_list(pl.col("cards")),
            high_desc=desc.str.extract(r"(?:^|; )HI: (.*?)(?:; LO: |$)", 1),
            low_desc=desc.str.extract(r"(?:^|; )LO: (.*)$", 1),
        )
        mucked = (
            lines.filter(pl.col("kind") == KIND_SUMMARY_MUCK)
            .select("hand", "line_no", pl.col("line").str.extract_groups(SUMMARY_MUCK).alias("m"))
            .unnest("m")
            .with_columns(site=pl.lit(self.dialect.site), cards=cards_list(pl.col("cards")))
        )
        hole_cards = games_hole_cards(mucked["hand"], self.games)
        partly_mucked = mucked.filter(is_partial_show(mucked["cards"], hole_cards))
        if partly_mucked.height == 0:
            return shown
        return pl.concat([shown, partly_mucked], how="diagonal_relaxed").sort("hand", "line_no")

    def _seats(self, lines: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
        seats = (
            lines.filter(pl.col("kind") == KIND_SEAT)
            .select("hand", "line", pl.col("line").str.extract_groups(SEAT).alias("s"))
            .unnest("s")
            .join(hands.select("hand", "money_scale"), on="hand", how="left")
        )
        flags = pl.col("flags").fill_null("")
        return seats.with_columns(
            site=pl.lit(self.dialect.site),
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=money(pl.col("stack"), pl.col("money_scale")),
            sitting_out=flags.str.contains("is sitting out") | flags.str.contains("out of hand"),
        )

    def _hole_cards(self, seats: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        """The hero's deal, the shows and the summary's face-up mucks, as sightings of hole
        cards for `hole_cards.attach_hole_cards`."""
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
        sightings = pl.concat(
            [
                dealt.select("hand", "line_no", "player", "cards", dealt=pl.lit(True)),
                shown.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
                mucked.select("hand", "line_no", "player", "cards", dealt=pl.lit(False)),
            ]
        ).with_columns(cards=cards_list(pl.col("cards")))
        return attach_hole_cards(seats, sightings, dealt.select("hand", "player"), self.games)

    # -- checks ------------------------------------------------------------------------------

    @staticmethod
    def _hand_problems(hands: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
        summary = lines.group_by("hand").agg(
            has_summary=(pl.col("marker") == "SUMMARY").any(),
            has_hole=(pl.col("marker").is_in(["HOLE CARDS"])).any(),
            tables=(pl.col("kind") == KIND_TABLE).sum(),
        )
        checks = hands.join(summary, on="hand", how="left")
        # Courchevel's exposed card: printed once, and the board's first card.
        exposes = exposed_count(pl.col("game_code"))
        exposed = pl.col("exposed")
        reason = first_problem(
            (~pl.col("has_summary").fill_null(False), "truncated hand: no summary"),
            (~pl.col("has_hole").fill_null(False), "truncated hand: no hole cards section"),
            (pl.col("tables") != 1, "table line missing or repeated"),
            (pl.col("button_seat").is_null(), "no button seat"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (
                pl.col("total_pot").is_null() | pl.col("rake").is_null(),
                "missing or unreadable total pot / rake",
            ),
            (pl.col("limit_type").is_null(), "unknown betting limit"),
            (pl.col("big_blind").is_null(), "unreadable stakes"),
            *board_checks(pl.col("board")),
            (
                (exposes > 0)
                & (exposed.list.drop_nulls().list.len().fill_null(0) != exposes),
                "missing or unreadable exposed board card (*** PRE-FLOP *** [card])",
            ),
            (
                (exposes > 0) & (pl.col("board").list.first() != exposed.list.first()),
                "the exposed card is not the board's first card",
            ),
        )
        return checks.select("hand", reason=reason).filter(pl.col("reason").is_not_null())

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
                site=pl.lit(self.dialect.site),
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
                site=pl.lit(self.dialect.site),
                hand_id=pl.lit(None, dtype=pl.String),
                reason=pl.lit("text before the first hand header"),
                raw_text="raw_text",
            )
        )
