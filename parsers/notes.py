"""Lines a parser does not know: kept in ``notes`` when harmless, the hand quarantined otherwise.

A hand is quarantined only when it cannot be accounted for. An unfamiliar line that carries
neither money nor cards (a chat form, a connection notice, a site banner, ``Betting is capped``)
cannot change what the tables say the hand was, so the hand is kept and the line stored as it
was printed. An unfamiliar line that may hold an amount or a card could be a payment, a bet or a
shown hand the parser failed to read: keeping the hand would silently change its money, so it
is quarantined with the line in the reason.

"Carries money or cards" is judged conservatively, on the line's text alone:

- a card token standing on its own (``Qs``, ``10h``, ``9 d``, a suit symbol);
- an amount: a currency sign or ISO code next to a number, a number with a decimal part or
  thousands separators, or any other free-standing number, unless it is one of the harmless
  numbers hands print in free text (seconds, table, seat, level and hand numbers, clock times,
  dates, ordinal places);
- a word of betting and payment lines (folds, calls, raises, posts, wins, collected, pot, ...):
  such a line may be a damaged action or payment;
- control or replacement characters (damaged bytes could have been anything);
- the shape of a data line the engine failed to read (each engine passes those as damaged).

Digits inside a word (``Player0``, ``APTEM-89``, ``UTG+1``) are part of a name, not an amount.
"""

from __future__ import annotations

import re

import polars as pl

from parsers.columns import other_game_name

__all__ = [
    "NOTE_KIND_UNRECOGNISED",
    "carries_money_or_cards",
    "line_shape",
    "note_rows",
    "triage_unknown_lines",
    "with_other_games",
]

NOTE_KIND_UNRECOGNISED = "unrecognised"

_CARD = r"(?:^|[^\w])(?:10|[2-9TJQKAtjqka])\s?[cdhs](?:$|[^\w])|[♠♥♦♣]"
_CURRENCY = r"[$€£₹¥]\s?[0-9]|[0-9]\s?[$€£₹¥]|\b(?:USD|EUR|GBP|CAD|INR|SEK|DKK|NOK)\b"
_SEPARATED_NUMBER = r"[0-9][.,][0-9]"
# Numbers free text prints that are not amounts; removed before looking for a bare number.
_HARMLESS_NUMBERS = (
    r"(?i)(?:"
    r"\b[0-9]+\s*(?:seconds?|secs?|minutes?|mins?|hours?|s)\b"
    r"|\b(?:table|seat|level|hand|game|round|tournament|place|position|time\s?bank)\s*(?:#|no\.?)?\s*[0-9]+\b"
    r"|#[0-9]+"
    r"|\b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?\b"
    r"|\b[0-9]{4}[/.-][0-9]{1,2}[/.-][0-9]{1,2}\b"
    r"|\b[0-9]{1,2}[/.-][0-9]{1,2}[/.-][0-9]{2,4}\b"
    r"|\b[0-9]+(?:st|nd|rd|th)\b"
    r"|\b(?:GMT|UTC)[+-][0-9]{1,2}(?::?[0-9]{2})?\b"
    r")"
)
# A number standing on its own: not glued to letters, digits, '-', '+' or '_' (names).
_BARE_NUMBER = r"(?:^|[^\w+\-])[0-9]+(?:$|[^\w+\-])"
# Control characters and replacement characters: damaged bytes, which may have been anything.
_DAMAGED_BYTES = "[\x00-\x08\x0b-\x1f\x7f\ufffd]"
# The vocabulary of betting and payment lines: an unknown line using it may be a damaged one.
_BETTING_WORDS = (
    r"(?i)\b(?:folds?|folded|checks?|checked|calls?|called|bets?|raises?|raised|posts?|posted"
    r"|collects?|collected|wins?|won|shows?|showed|mucks?|mucked|all-?in|antes?|blinds?"
    r"|pot|rake|dealt)\b"
)
_MONEY_OR_CARDS = (
    f"(?:{_CARD})|(?:{_CURRENCY})|(?:{_SEPARATED_NUMBER})|{_DAMAGED_BYTES}|(?:{_BETTING_WORDS})"
)


def carries_money_or_cards(line: pl.Expr) -> pl.Expr:
    """Whether a line's text may hold an amount or a card (see the module docstring).

    >>> frame = pl.DataFrame({"line": [
    ...     "Betting is capped", "X has 15 seconds left to act", "Player0 has returned",
    ...     "X brings 1,020 to table 45061966", "X wins 300", "X: shows [Qs]",
    ...     "UTG+1 [ME] : Table leave user", "Hand #4 at table 12, 20:15:01", "X foldz",
    ...     "X folds (timed out)",
    ... ]})
    >>> frame.select(carries_money_or_cards(pl.col("line")))["line"].to_list()
    [False, False, False, True, True, True, False, False, False, True]
    """
    harmless_removed = line.str.replace_all(_HARMLESS_NUMBERS, " ")
    return (
        line.str.contains(_MONEY_OR_CARDS)
        | harmless_removed.str.contains(_BARE_NUMBER)
    ).fill_null(True)


def triage_unknown_lines(
    unknown: pl.DataFrame, damaged: pl.Expr | None = None, seats: pl.DataFrame | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Split a block's unknown lines into quarantine reasons and notes.

    ``unknown`` has ``hand``, ``line_no``, ``line`` and ``offset`` (one row per line no form of
    the engine recognised); ``damaged`` marks the rows that have the shape of a data line the
    engine failed to read; ``seats`` (``hand``, ``player``), where given, are the names seated in
    each hand: they are blanked before a line is judged, so a notice naming a player whose name
    holds a number (``Big Slick 99 is using the time bank``) is not taken for an amount.
    Returns ``(reasons, notes)``: one reason per hand whose first unreadable line is quoted,
    and the harmless lines of the other hands (every column of ``unknown``).
    """
    judged = pl.col("line")
    if seats is not None and unknown.height:
        unknown = unknown.with_columns(_judged=_without_names(unknown, seats))
        judged = pl.col("_judged")
    suspect = carries_money_or_cards(judged)
    if damaged is not None:
        suspect = suspect | damaged
    marked = unknown.with_columns(_suspect=suspect)
    if "_judged" in marked.columns:
        marked = marked.drop("_judged")
    reasons = (
        marked.filter(pl.col("_suspect"))
        .group_by("hand", maintain_order=True)
        .agg(pl.col("line").first())
        .select(
            "hand",
            reason=pl.lit("unrecognised line: ")
            + pl.col("line").str.slice(0, 120),
        )
    )
    notes = marked.join(reasons, on="hand", how="anti").drop("_suspect")
    return reasons, notes


def _without_names(unknown: pl.DataFrame, seats: pl.DataFrame) -> pl.Series:
    """Each unknown line with the names seated in its hand blanked (longest first, whole names
    only: bounded by neither a letter nor a digit). A name of a single character, or without a
    letter, is left: blanking it could hide a card or an amount."""
    names = (
        seats.select("hand", "player")
        .filter((pl.col("player").str.len_chars() >= 2) & pl.col("player").str.contains(r"[^\W\d_]"))
        .unique()
        .group_by("hand")
        .agg(pl.col("player"))
    )
    by_hand = dict(names.iter_rows())
    lines = unknown["line"].to_list()
    blanked = []
    for hand, line in zip(unknown["hand"].to_list(), lines, strict=True):
        for name in sorted(by_hand.get(hand, ()), key=len, reverse=True):
            if line is not None and name in line:
                line = re.sub(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", " ", line)
        blanked.append(line)
    return pl.Series("_judged", blanked, dtype=pl.String)


def note_rows(
    notes: pl.DataFrame, frame: pl.DataFrame, hands: pl.DataFrame, site: str
) -> pl.DataFrame:
    """Canonical ``notes`` rows of the stored hands.

    ``notes`` comes from `triage_unknown_lines`; ``frame`` is the block's lines (``hand``,
    ``line_no``, ``is_start``), which give each hand's first line; ``hands`` has ``hand``,
    ``hand_id`` and ``source_file`` of the hands that are stored (others' notes are dropped: a
    quarantined hand keeps its whole text in ``rejects``). A ``note_kind`` column, where
    ``notes`` has one, names a line the site knows and keeps as a note (null: unrecognised).
    """
    first_lines = frame.filter(pl.col("is_start")).select("hand", first_line_no="line_no")
    kind = pl.lit(NOTE_KIND_UNRECOGNISED)
    if "note_kind" in notes.columns:
        kind = pl.col("note_kind").fill_null(kind)
    return (
        notes.join(hands.select("hand", "hand_id", "source_file"), on="hand", how="inner")
        .join(first_lines, on="hand", how="left")
        .sort("hand", "line_no")
        .select(
            "hand",
            site=pl.lit(site, dtype=pl.String),
            hand_id=pl.col("hand_id"),
            source_file=pl.col("source_file"),
            source_offset=pl.col("offset").cast(pl.Int64),
            line_number=(pl.col("line_no").cast(pl.Int64) - pl.col("first_line_no") + 1).cast(
                pl.Int32
            ),
            text=pl.col("line"),
            kind=kind,
        )
    )


_SHAPE_NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")


def line_shape(text: str, players: tuple[str, ...] = ()) -> str:
    """A note's text with digits and player names blanked, to count lines of one form together.

    >>> line_shape("Anna has 15 seconds left", ("Anna",))
    '<player> has <n> seconds left'
    """
    for player in sorted(players, key=len, reverse=True):
        if player:
            text = text.replace(player, "<player>")
    return _SHAPE_NUMBER.sub("<n>", text.strip())


def with_other_games(headers: pl.DataFrame, frame: pl.DataFrame) -> pl.DataFrame:
    """Headers no site pattern understood that still name another game become that game's.

    ``headers`` has ``hand``, ``header_ok``, ``is_o8`` and ``game``; ``frame`` the block's lines
    (``hand``, ``is_start``, ``line``). Such a hand is counted as skipped, never rejected.
    """
    if headers.height and headers["header_ok"].all():
        # Nothing to rename (every structured hand's header is read): skip matching the other
        # games' names against each hand's first line, a whole hand's text for XML and JSON.
        return headers
    header_lines = frame.filter(pl.col("is_start")).select("hand", _header_line="line")
    other = other_game_name(pl.col("_header_line"))
    named = ~pl.col("header_ok") & other.is_not_null()
    return (
        headers.join(header_lines, on="hand", how="left")
        .with_columns(
            game=pl.when(named).then(other).otherwise(pl.col("game")),
            is_o8=pl.when(named).then(False).otherwise(pl.col("is_o8")),
            header_ok=pl.col("header_ok") | named,
        )
        .drop("_header_line")
    )
