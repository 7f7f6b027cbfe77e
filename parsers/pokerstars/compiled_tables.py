"""The canonical tables of the hands the compiled reader read, built as Arrow columns."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.base import table_from_frame
from parsers.pokerstars import compiled_reader as compiled
from parsers.pokerstars.block_parser import read_headers, stake_columns
from parsers.pokerstars.compiled_header import header_fields, table_fields
from parsers.games import OMAHA_HI_LO
from parsers.pokerstars.forms import SITE
from parsers.pokerstars.tables import StoredTables
from pipeline.positions import LABEL_NAMES, position_codes
from pipeline.schema import ACTIONS, COLLECTIONS, NOTES, REJECTS, SEATS, SHOWDOWNS

KIND_NAMES = pa.array(
    [compiled.KIND_OF_VERB.get(code, "") for code in range(len(compiled.VERBS))]
    + ["uncalled_return"]
)
POSITION_NAMES = pa.array(LABEL_NAMES)


def _verb_mask(verbs: list[int]) -> np.ndarray:
    """A lookup of ``verbs`` indexed by verb code + 1 (codes run from -1, no verb, to
    VERB_UNCALLED): a table is ~5× cheaper than `np.isin` over a block's lines."""
    mask = np.zeros(compiled.VERB_UNCALLED + 2, dtype=bool)
    mask[np.asarray(verbs) + 1] = True
    return mask


ACTION_ROW_VERBS = _verb_mask(list(compiled.KIND_OF_VERB))
AMOUNTLESS_VERBS = _verb_mask(
    [compiled.VERB_FOLD, compiled.VERB_CHECK, compiled.VERB_SHOW, compiled.VERB_MUCK]
)


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


def compiled_tables(
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
    game is done once its header reads. The rest go to the block parser, and so does every
    hand of a game hilo reads other than four-card Omaha Hi/Lo (the reader reads four hole
    cards and no exposed board card).
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
        ),
        header_fields(read.data, read.offsets, lines, rows),
    )
    # Another game's hand needs nothing but its header: counted as skipped here.
    other_game = (
        all_headers.select(pl.col("header_ok") & pl.col("game_code").is_null())
        .to_series()
        .to_numpy()
    )
    skipped = all_headers.filter(pl.Series(other_game)).select("hand", "game")
    read_whole = read.accepted[opened]
    headers = all_headers.filter(pl.Series(read_whole))
    segments = opened[read_whole]
    table = (
        table_fields(read.data, read.offsets, lines, read.table_line[segments])
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
        & (pl.col("game_code") == OMAHA_HI_LO.code)
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

    position = position_codes(
        seat_hand,
        read.number[seat_rows],
        sitting_out,
        hands["button_seat"].to_numpy()[hand_row[seat_hand]],
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
            | ((kind == compiled.LINE_ACTION) & ACTION_ROW_VERBS[verb + 1])
        )
    )
    action_hand = read.segment[action_rows]
    action_verb = verb[action_rows]
    verb_index = np.where(action_verb == compiled.VERB_UNCALLED, len(compiled.VERBS), action_verb)
    without_amount = AMOUNTLESS_VERBS[action_verb + 1]
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
