"""BlockParts: what a PartyPoker-family site decoded, and `assembled`.

The Party family (PartyPoker, 888/Pacific, Everleaf) and Full Tilt print hands the same way at
the table level, so their parsers share the pieces here: street sections of a block's lines,
amount and card decoding, the first line of a kind per hand, seat rows and card sightings from a
site's patterns, real mucks among the "does not show" lines, the return nobody prints for a
folded largest bet, the history-line checks and hand starts of the formats that open with a
``#Game No`` line, and `assembled`, which turns a site's `BlockParts` into `HandTables`:
the street totals, hole cards and all-ins these sites leave to the rows, for
`parsers.engine.assembly.finish`. Every line form, money format and constant of a site stays in
its module and comes in as a parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import polars as pl
import pyarrow as pa

from parsers import byte_kernels
from parsers.columns import cards_list, money_by_expressions, money_with_fast_path
from parsers.engine.assembly import HandTables
from parsers.engine.betting import ordered_actions, settle_all_in_kinds, street_amounts
from parsers.engine.checks import board_checks, first_problem
from parsers.engine.file_batches import FileBatchParser
from parsers.engine.hole_cards import attach_hole_cards
from parsers.engine.kernels import running_sums
from parsers.engine.line_forms import kind_fields
from parsers.engine.lines import forward_fill, in_printed_order, line_frame
from pipeline.profiles import SiteProfile

__all__ = [
    "EMPTY_CARDS",
    "LIVE_KINDS",
    "BlockParts",
    "BlockPartsParser",
    "amount_value",
    "anchor_starts",
    "assembled",
    "card_codes",
    "card_sightings",
    "deal_board",
    "declined_shows",
    "first_per_hand",
    "folded_excess_returns",
    "hand_problems",
    "seat_rows",
    "sections",
    "street_totals",
    "unknown_lines",
]

# The kinds that put live chips in on a street (an ``all_in`` of unknown kind among them).
LIVE_KINDS = ("post_sb", "post_bb", "call", "bet", "raise", "all_in")
EMPTY_CARDS = pl.lit([], dtype=pl.List(pl.UInt8))


def sections(frame: pl.DataFrame, codes: pl.Series, reset_value: int) -> pl.Series:
    """Street of every line: the code of the latest marker line of its hand (``codes`` holds a
    code on marker lines and null elsewhere); ``reset_value`` before the first marker."""
    return pl.Series("section", forward_fill(frame, codes, reset_value), dtype=pl.Int8)


def amount_value(text: pl.Expr, scale: pl.Expr | int) -> pl.Expr:
    """``$ 0.48 USD``, ``$1,049``, ``640 chips``, ``1,459.13`` → minor units (null if unreadable)."""
    return money_with_fast_path(text, scale, _spaced_amount_value, chips_suffix=True)


def _spaced_amount_value(text: pl.Expr, scale: pl.Expr) -> pl.Expr:
    """`amount_value` in string expressions: the reference of the compiled reading."""
    cleaned = (
        text.str.strip_chars()
        .str.replace(r"^([$€£]) +", "${1}")
        .str.replace(r" +(?:chips|Chips)$", "")
    )
    return money_by_expressions(cleaned, scale)


def card_codes(text: pl.Expr) -> pl.Expr:
    """``[ 8c, 2d, 2s, 4h ]``, ``[  7d Ah 6s 2h ]``, ``3c 9h As Qs`` → card codes (null if empty).

    Read in compiled code (`byte_kernels.card_tokens_of_lines`: 20,000 texts 20 -> 1.5 ms);
    a batch with a line outside ASCII is read by the expressions, `card_codes_by_expressions`.
    """
    return text.map_batches(_card_codes_of_batch, return_dtype=_CARD_LIST, is_elementwise=True)


_CARD_LIST = pl.List(pl.UInt8)


def _card_codes_of_batch(texts: pl.Series) -> pl.Series:
    texts = texts.cast(pl.String)
    data, offsets = byte_kernels.series_bytes(texts)
    list_offsets, codes, code_valid, verdict = byte_kernels.card_tokens_of_lines(data, offsets)
    is_null = texts.is_null().to_numpy()
    if (verdict[~is_null] == byte_kernels.CARDS_REFUSED).any():
        return pl.select(card_codes_by_expressions(pl.lit(texts))).to_series().alias(texts.name)
    lists = pa.LargeListArray.from_arrays(
        pa.array(list_offsets),
        pa.array(codes, mask=~code_valid),
        mask=pa.array(is_null | (verdict != byte_kernels.CARDS_READ)),
    )
    return pl.Series(texts.name, lists, dtype=_CARD_LIST)


def card_codes_by_expressions(text: pl.Expr) -> pl.Expr:
    """`card_codes` in string expressions: the reference of the compiled reading."""
    normal = (
        text.str.replace_all(r"[\[\],]", " ")
        .str.replace_all(r"(?:^|\s)10([cdhs])", " T${1}")
        .str.strip_chars()
        .str.replace_all(r"\s+", " ")
    )
    return pl.when(normal.fill_null("") != "").then(cards_list(normal))


@dataclass
class BlockParts:
    """What a site parser extracted from one block, before the shared assembly.

    Every frame is keyed by ``hand`` (the hand's number within the block) and, where rows come
    from lines, ``line_no`` (their order). Money is already in minor units.
    """

    frame: pl.DataFrame  # every line: line_no, line, offset, hand, is_start
    headers: pl.DataFrame  # hand, hand_id, header_ok, game, is_o8 (one row per hand start)
    hands: pl.DataFrame  # candidate hands: hand + canonical ``hands`` columns (site excepted)
    seats: pl.DataFrame  # hand, seat, player, stack_start, sitting_out
    actions: pl.DataFrame  # hand, line_no, sub, street, player, kind, amount, to, is_all_in
    collections: pl.DataFrame  # hand, line_no, player, amount, pot_index, half, board_index
    showdowns: pl.DataFrame  # hand, line_no, player, cards, high_desc, low_desc
    sightings: pl.DataFrame  # hand, line_no, player, cards (codes), dealt (hero's own cards)
    problems: list[pl.DataFrame] = field(default_factory=list)  # hand, reason
    # Lines no form of the site recognised (hand, line_no, line, offset): notes or quarantine.
    unknown_lines: pl.DataFrame | None = None


def street_totals(actions: pl.DataFrame) -> pl.DataFrame:
    """to_amount and chips added from the site's increments or raise-to amounts; an ``all_in``
    of unknown kind becomes a bet, call or raise from what it does to the street's high bet."""
    frame = street_amounts(
        actions,
        printed_total=(actions["kind"] == "raise") & actions["to"].is_not_null(),
        live_kinds=LIVE_KINDS,
    )
    if not (frame["kind"] == "all_in").any():
        return frame
    all_in = pl.col("kind") == "all_in"
    return settle_all_in_kinds(
        frame.with_columns(is_all_in=pl.col("is_all_in") | all_in), all_in
    )


def _mark_all_ins(actions: pl.DataFrame, seats: pl.DataFrame) -> pl.DataFrame:
    """An action that puts the player's last chip in is all-in, printed so or not (these sites
    never mark an all-in blind post, and some mark no all-in at all)."""
    money_in = pl.col("kind").is_in(["post_sb", "post_bb", "post_dead", "ante", "call", "bet", "raise"])
    signed = (
        pl.when(money_in)
        .then(pl.col("amount").fill_null(0))
        .when(pl.col("kind") == "uncalled_return")
        .then(-pl.col("amount").fill_null(0))
        .otherwise(0)
    )
    stacks = (
        seats.select("hand", "player", "stack_start")
        .unique(["hand", "player"], keep="first")
        .with_row_index("seated")
    )
    keyed = actions.join(stacks, on=["hand", "player"], how="left", maintain_order="left")
    # Each player's running chips in, in (hand, seq) order, in one compiled pass: a sort by
    # player and back took 13 ms of a 2,000-hand Pacific block, this 7.5 ms with the join.
    order = np.lexsort((keyed["seq"].to_numpy(), keyed["hand"].to_numpy()))
    put_in = running_sums(
        keyed["seated"].fill_null(-1).cast(pl.Int64).to_numpy(),
        keyed.select(signed.cast(pl.Int64)).to_series().to_numpy(),
        order,
        stacks.height,
    )
    return keyed.with_columns(
        is_all_in=pl.col("is_all_in")
        | (money_in & (pl.col("stack_start") > 0) & (pl.Series(put_in) == pl.col("stack_start")))
    ).drop("seated", "stack_start")


class BlockPartsParser(FileBatchParser):
    """The parser interface of a PartyPoker-family site.

    A site's subclass names ``site``, ``profile``, ``sniff_pattern`` (searched in a file's
    first lines), ``hand_start`` (the pattern of a hand's first line; a site whose hands open
    with a ``#Game No`` or history line overrides `hand_starts` with `anchor_starts`) and
    ``read_parts``, its extraction of a block's line frame into `BlockParts`; `assembled` and
    `finish` do the rest (`FileBatchParser`: one file or a batch).
    """

    site: ClassVar[str]
    profile: ClassVar[SiteProfile]

    def hand_tables(
        self, lines: pl.Series, offsets: np.ndarray, starts: np.ndarray, source_file: str
    ) -> HandTables:
        """The site's extraction of a block of whole hands, assembled."""
        parts = self.read_parts(line_frame(lines, offsets, starts))
        return assembled(self.site, source_file, parts)

    @staticmethod
    def read_parts(frame: pl.DataFrame) -> BlockParts:
        """The site's extraction of a block's lines (`line_frame` layout)."""
        raise NotImplementedError


def assembled(site: str, source_file: str, parts: BlockParts) -> HandTables:
    """The `HandTables` of a site's extractions (see :class:`BlockParts`): the street totals,
    hole cards and all-ins these sites leave to the rows, added."""
    keep = parts.headers.filter(pl.col("header_ok") & pl.col("is_o8")).select("hand")
    hands = parts.hands.join(keep, on="hand", how="semi")
    if "board2" not in hands.columns:
        hands = hands.with_columns(board2=pl.lit(None, dtype=pl.List(pl.UInt8)))
    hands = hands.with_columns(board=pl.col("board").fill_null(EMPTY_CARDS))
    actions = street_totals(
        ordered_actions(parts.actions.join(keep, on="hand", how="semi"), "street")
    )
    collections = in_printed_order(parts.collections.join(keep, on="hand", how="semi"))
    showdowns = parts.showdowns.join(keep, on="hand", how="semi").sort("hand", "line_no")
    heroes = parts.sightings.filter(pl.col("dealt")).select("hand", "player")
    seats = attach_hole_cards(
        parts.seats.join(keep, on="hand", how="semi"), parts.sightings, heroes
    )
    actions = _mark_all_ins(actions, seats)
    return HandTables(
        site=site,
        source_file=source_file,
        frame=parts.frame,
        headers=parts.headers,
        hands=hands,
        seats=seats,
        actions=actions,
        collections=collections,
        showdowns=showdowns,
        reasons=parts.problems,
        unknown_lines=(
            parts.unknown_lines.select("hand", "line_no", "line", "offset")
            if parts.unknown_lines is not None
            else None
        ),
    )


def declined_shows(
    noshows: pl.DataFrame, winners: pl.DataFrame, showers: pl.DataFrame
) -> pl.DataFrame:
    """``P does not show`` / ``P mucks`` lines (hand, line_no, section, player) that are real mucks.

    Sites print the same words for a player who gives up at a showdown and for the winner of an
    uncontested pot who keeps the cards hidden. Only the first is a muck (the audit reads a muck
    as giving up the pot): a player who was paid, or who faced nobody showing, did not give up.
    """
    shown_by = showers.select("hand", shower="player").unique()
    contested = (
        noshows.join(shown_by, on="hand", how="inner")
        .filter(pl.col("shower") != pl.col("player"))
        .select("hand", "line_no")
        .unique()
    )
    return (
        noshows.join(winners.select("hand", "player").unique(), on=["hand", "player"], how="anti")
        .join(contested, on=["hand", "line_no"], how="semi")
        .select(
            "hand",
            "line_no",
            sub=pl.lit(0),
            street="section",
            player="player",
            kind=pl.lit("muck"),
            amount=pl.lit(None, dtype=pl.Int64),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
        )
    )


def unknown_lines(lines: pl.DataFrame) -> pl.DataFrame:
    """The lines no pattern of the site recognised (`BlockParts.unknown_lines`)."""
    return lines.filter(pl.col("kind") == "unknown")


def deal_board(lines: pl.DataFrame, deal: str) -> pl.DataFrame:
    """Per hand, the board: the cards of its flop, turn and river deal lines (kind ``deal``,
    the cards in the second group of ``deal``), in the order they were dealt."""
    return (
        lines.filter((pl.col("kind") == "deal") & pl.col("section").is_between(1, 3))
        .select("hand", "line_no", cards=card_codes(pl.col("line").str.extract(deal, 2)))
        .sort("hand", "line_no")
        .group_by("hand", maintain_order=True)
        .agg(board=pl.col("cards").list.explode(keep_nulls=False, empty_as_null=False))
    )


def first_per_hand(frame: pl.DataFrame, kind: str, pattern: str) -> pl.DataFrame:
    """Fields of the first line of ``kind`` in each hand, extracted by ``pattern``."""
    return (
        frame.filter(pl.col("kind") == kind)
        .unique("hand", keep="first", maintain_order=True)
        .select("hand", pl.col("line").str.extract_groups(pattern).alias("fields"))
        .unnest("fields")
    )


def folded_excess_returns(actions: pl.DataFrame) -> pl.DataFrame:
    """``uncalled_return`` rows for the unmatched bet of a player who folded with the largest
    contribution of the hand (a small blind folding to a big blind all-in for less).

    For sites that never print a return (the chips of a winning bettor are inside what they
    win), this is the one case where the chips go back to a player who wins nothing: nobody
    still in the hand could win them. What goes back is the part of the player's last street
    that nobody matched — antes and dead blinds are never returned — and never more than the
    player's lead over the next largest contribution. ``actions`` has ``hand, line_no, street,
    player, kind, amount`` (amounts are the chips each action adds); the rows returned have
    those columns plus ``sub``, ``to``, ``is_all_in``.
    """
    money_in = pl.col("kind").is_in([*LIVE_KINDS, "post_dead", "ante"])
    live = pl.col("kind").is_in(list(LIVE_KINDS))
    per_player = actions.group_by("hand", "player").agg(
        put_in=pl.col("amount").filter(money_in).sum(),
        folded=(pl.col("kind") == "fold").any(),
        line_no=pl.col("line_no").max(),
        street=pl.col("street").filter(live).max(),
    )
    ranked = per_player.with_columns(
        largest=pl.col("put_in").max().over("hand"),
        largest_count=(pl.col("put_in") == pl.col("put_in").max()).sum().over("hand"),
        second=pl.col("put_in")
        .filter(pl.col("put_in") < pl.col("put_in").max())
        .max()
        .over("hand")
        .fill_null(0),
    ).filter(
        pl.col("folded") & (pl.col("put_in") == pl.col("largest")) & (pl.col("largest_count") == 1)
    )
    if ranked.height == 0:
        return ranked.select(
            "hand", "line_no", sub=pl.lit(1), street="street", player="player",
            kind=pl.lit("uncalled_return"), amount=pl.col("put_in"),
            to=pl.lit(None, dtype=pl.Int64), is_all_in=pl.lit(False),
        )  # fmt: skip
    # Each player's live chips on each street of those hands.
    streets = (
        actions.join(ranked.select("hand"), on="hand", how="semi")
        .filter(live)
        .group_by("hand", "street", "player")
        .agg(street_in=pl.col("amount").sum())
    )
    own = streets.join(
        ranked.select("hand", "street", "player"), on=["hand", "street", "player"], how="semi"
    )
    others = (
        streets.join(ranked.select("hand", "street", folder="player"), on=["hand", "street"])
        .filter(pl.col("player") != pl.col("folder"))
        .group_by("hand")
        .agg(matched=pl.col("street_in").max())
    )
    return (
        ranked.join(own.select("hand", "street_in"), on="hand", how="left")
        .join(others, on="hand", how="left")
        .select(
            "hand",
            "line_no",
            sub=pl.lit(1),
            street="street",
            player="player",
            kind=pl.lit("uncalled_return"),
            amount=pl.min_horizontal(
                pl.col("put_in") - pl.col("second"),
                pl.col("street_in").fill_null(0) - pl.col("matched").fill_null(0),
            ),
            to=pl.lit(None, dtype=pl.Int64),
            is_all_in=pl.lit(False),
        )
        .filter(pl.col("amount") > 0)
    )


def seat_rows(
    lines: pl.DataFrame,
    scale_of: pl.DataFrame,
    pattern: str,
    sitting_out: pl.Expr | None = None,
) -> pl.DataFrame:
    """Seat lines decoded with ``pattern`` (groups seat, player, stack) into seat rows.

    ``sitting_out`` says, over the decoded fields, which seats sit out (Full Tilt: a seat line
    with flags); by default none does.
    """
    return (
        kind_fields(lines, "seat", pattern, "hand")
        .join(scale_of, on="hand", how="left")
        .select(
            "hand",
            "player",
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=amount_value(pl.col("stack"), pl.col("money_scale")),
            sitting_out=pl.lit(False) if sitting_out is None else sitting_out,
        )
    )


def card_sightings(lines: pl.DataFrame, shows: pl.DataFrame, pattern: str) -> pl.DataFrame:
    """Every place a player's hole cards appear: the hero's deal (``pattern``) and the shows."""
    dealt = (
        kind_fields(lines, "dealt", pattern, "hand", "line_no")
        .select("hand", "line_no", "player", cards=card_codes(pl.col("cards")), dealt=pl.lit(True))
    )
    return pl.concat(
        [dealt, shows.select("hand", "line_no", "player", "cards", dealt=pl.lit(False))]
    )


def hand_problems(
    lines: pl.DataFrame, hands: pl.DataFrame, closing_kind: str, closing_reason: str
) -> pl.DataFrame:
    """Truncation and header checks shared by the Cassava-style formats (888, Everleaf).

    A hand must have its history line, a deal and its closing line (``closing_kind``), and
    readable button, table, time, stakes, limit and board.
    """
    board = pl.col("board").fill_null([])
    structure = lines.group_by("hand").agg(
        has_history=(pl.col("kind") == "history").any(),
        has_deal=(pl.col("kind") == "deal").any(),
        has_closing=(pl.col("kind") == closing_kind).any(),
    )
    reason = first_problem(
        (~pl.col("has_history").fill_null(False), "truncated hand: no hand history line"),
        (~pl.col("has_deal").fill_null(False), "truncated hand: no cards dealt"),
        (~pl.col("has_closing").fill_null(False), closing_reason),
        (pl.col("button_seat").is_null(), "no button seat"),
        (pl.col("table_name").is_null(), "table line missing"),
        (pl.col("started_at").is_null(), "unreadable start time"),
        (pl.col("big_blind").is_null() | pl.col("small_blind").is_null(), "unreadable stakes"),
        (pl.col("limit_type").is_null(), "unknown betting limit"),
        *board_checks(board),
    )
    return (
        hands.join(structure, on="hand", how="left")
        .select("hand", reason=reason)
        .filter(pl.col("reason").is_not_null())
    )


def anchor_starts(lines: pl.Series, anchor: str) -> np.ndarray:
    """Hand starts from ``anchor``, whose two groups hold the game number of a ``#Game No : N``
    line (first group) or of a history line (second group). ``#Game No`` always opens a hand; a
    history line opens one unless it follows the ``#Game No`` line of the same game, so a hand
    exported twice in a row still counts twice."""
    numbers = lines.str.extract_groups(anchor).struct.unnest()
    first, second = numbers.columns
    frame = numbers.select(
        number=pl.coalesce(first, second),
        is_game_no=pl.col(first).is_not_null(),
        is_history=pl.col(second).is_not_null(),
    ).with_columns(
        previous_number=pl.col("number").forward_fill().shift(1),
        previous_game_no=pl.when(pl.col("number").is_not_null())
        .then(pl.col("is_game_no"))
        .forward_fill()
        .shift(1),
    )
    starts = frame.select(
        pl.col("is_game_no")
        | (
            pl.col("is_history")
            & ~(
                pl.col("previous_game_no").fill_null(False)
                & (pl.col("previous_number") == pl.col("number")).fill_null(False)
            )
        )
    ).to_series()
    return starts.fill_null(False).to_numpy()
