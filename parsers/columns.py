"""Vectorised field decoders shared by the site parsers: money, cards, local times.

Each helper is a polars expression builder, so a parser decodes a whole column of lines at once
instead of one Python object per card or amount.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import polars as pl
import pyarrow as pa

from parsers import byte_kernels

_SYMBOLS = "$€£₹"
# A printed amount: optional symbol, digits with optional thousands separators and decimals,
# optional euro suffix or ISO code. Separators group 3 digits (2 for Indian lakhs: 1,00,000),
# so a damaged "1,2,3" is refused rather than read as 123.
_AMOUNT = r"^[$€£₹]?(?:\d{1,3}(?:,\d{2,3})+|\d+)(?:\.\d+)?€?(?: [A-Z]{3})?$"

__all__ = [
    "CARD_CODES",
    "MAX_MINOR_UNITS",
    "RANKS",
    "SUITS",
    "TIME_ZONES",
    "card_code",
    "cards_list",
    "format_card",
    "holds_a_null",
    "local_time_to_utc",
    "money",
]

# Amounts of this many minor units or more ($100 trillion) are damage, not money: a hand's sums
# of them would still fit in int64.
MAX_MINOR_UNITS = 10**16
RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_CODES: dict[str, int] = {
    rank + suit: rank_index * 4 + suit_index
    for rank_index, rank in enumerate(RANKS)
    for suit_index, suit in enumerate(SUITS)
}

# Zone abbreviations printed by sites, mapped to IANA zones (DST handled by the zone database).
TIME_ZONES: dict[str, str] = {
    "ET": "America/New_York",
    "EST": "America/New_York",
    "EDT": "America/New_York",
    "CT": "America/Chicago",
    "MT": "America/Denver",
    "PT": "America/Los_Angeles",
    "AT": "America/Halifax",
    "AKT": "America/Anchorage",
    "HT": "Pacific/Honolulu",
    "BRT": "America/Sao_Paulo",
    "ART": "America/Argentina/Buenos_Aires",
    "PST": "America/Los_Angeles",
    "PDT": "America/Los_Angeles",
    "MST": "America/Denver",
    "MDT": "America/Denver",
    "CST": "America/Chicago",
    "CDT": "America/Chicago",
    "AST": "America/Halifax",
    "ADT": "America/Halifax",
    "AKST": "America/Anchorage",
    "AKDT": "America/Anchorage",
    "HST": "Pacific/Honolulu",
    "NT": "America/St_Johns",
    "UTC": "UTC",
    "GMT": "UTC",
    "WET": "Europe/Lisbon",
    "WEST": "Europe/Lisbon",
    "BST": "Europe/London",
    "CET": "Europe/Paris",
    "CEST": "Europe/Paris",
    "EET": "Europe/Helsinki",
    "EEST": "Europe/Helsinki",
    "MSK": "Europe/Moscow",
    "MSD": "Europe/Moscow",
    "GST": "Asia/Dubai",
    "SGT": "Asia/Singapore",
    "HKT": "Asia/Hong_Kong",
    "KST": "Asia/Seoul",
    "IST": "Asia/Kolkata",
    "CCT": "Asia/Shanghai",
    "JST": "Asia/Tokyo",
    "AWST": "Australia/Perth",
    "ACST": "Australia/Adelaide",
    "ACDT": "Australia/Adelaide",
    "AEST": "Australia/Sydney",
    "AEDT": "Australia/Sydney",
    "NZT": "Pacific/Auckland",
    "NZST": "Pacific/Auckland",
    "NZDT": "Pacific/Auckland",
}


def card_code(token: str) -> int:
    """Code of a two-character card token.

    >>> card_code("2c"), card_code("As"), card_code("Td")
    (0, 51, 33)
    """
    return CARD_CODES[token]


def format_card(code: int) -> str:
    """Two-character token of a card code.

    >>> format_card(51)
    'As'
    """
    return RANKS[code // 4] + SUITS[code % 4]


def cards_list(text: pl.Expr, separator: str = " ") -> pl.Expr:
    """``"Ah Kd 2c"`` → ``[50, 45, 0]`` (list of uint8); an unreadable token becomes null."""
    return text.str.split(separator).list.eval(
        pl.element().replace_strict(CARD_CODES, default=None, return_dtype=pl.UInt8)
    )


def money(text: pl.Expr, scale: pl.Expr | int) -> pl.Expr:
    """Printed amount → int64 minor units; null when it is not a plain non-negative amount.

    ``scale`` is 100 for amounts in currency units with cents and 1 for chips. Currency symbols,
    codes and thousands separators are dropped; more decimals than the scale allows, or a value
    of ``MAX_MINOR_UNITS`` or more, gives null, so the hand can be quarantined rather than
    rounded or summed past int64.
    """
    return money_with_fast_path(text, scale, money_by_expressions)


def money_with_fast_path(
    text: pl.Expr,
    scale: pl.Expr | int,
    reference: Callable[[pl.Expr, pl.Expr], pl.Expr],
    chips_suffix: bool = False,
) -> pl.Expr:
    """``reference(text, scale)``, read in compiled code where `byte_kernels.money_of_lines`
    reads the text (plain amounts: nearly every one a site prints); the texts it refuses are
    left to ``reference``, which must give what the kernel gives on every text it reads.

    Polars' string expressions make a pass per step over every amount of a block: 24,000
    amounts took 8 ms (`money`) and 23 ms (`amount_value`), read so 2 ms.
    """
    scale_expr = (pl.lit(scale) if isinstance(scale, int) else scale).cast(pl.Int64)

    def read(fields: pl.Series) -> pl.Series:
        texts = fields.struct.field(fields.struct.fields[0]).cast(pl.String)
        scales = fields.struct.field(_SCALE_FIELD)
        data, offsets = byte_kernels.series_bytes(texts)
        cents, has_cents = byte_kernels.money_of_lines(data, offsets, chips_suffix)
        in_cents = (scales == 100).fill_null(False).to_numpy()
        values = np.where(in_cents, cents, cents // 100)
        valid = (cents >= 0) & (in_cents | ~has_cents)
        retry = np.flatnonzero((cents < 0) & texts.is_not_null().to_numpy())
        if retry.size:
            refused = pl.DataFrame({"text": texts.gather(retry), "scale": scales.gather(retry)})
            slow = refused.select(reference(pl.col("text"), pl.col("scale"))).to_series()
            values[retry] = slow.fill_null(0).to_numpy()
            valid[retry] = slow.is_not_null().to_numpy()
        return pl.Series(texts.name, pa.array(values, mask=~valid), dtype=pl.Int64)

    return pl.struct(text, scale_expr.alias(_SCALE_FIELD)).map_batches(
        read, return_dtype=pl.Int64, is_elementwise=True
    )


_SCALE_FIELD = "__money_scale"


def money_by_expressions(text: pl.Expr, scale: pl.Expr | int) -> pl.Expr:
    """`money` in polars string expressions: the reference the compiled reading must match."""
    scale_expr = (pl.lit(scale) if isinstance(scale, int) else scale).cast(pl.Int64)
    well_formed = text.str.contains(_AMOUNT)
    digits = (
        text.str.strip_chars_start(_SYMBOLS)
        .str.strip_chars_end(_SYMBOLS + " ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        .str.replace_all(",", "", literal=True)
    )
    # Polars' decimal cast rounds extra digits away silently: refuse them first.
    too_precise = (
        pl.when(scale_expr == 100)
        .then(digits.str.contains(r"\.\d{2}\d*[1-9]"))
        .otherwise(digits.str.contains(r"\.\d*[1-9]"))
    )
    cents = digits.cast(pl.Decimal(18, 2), strict=False).to_physical().cast(pl.Int64)
    value = pl.when(scale_expr == 100).then(cents).otherwise(cents // 100)
    return pl.when(well_formed & ~too_precise & (value < MAX_MINOR_UNITS)).then(value)


def local_time_to_utc(
    date_time: pl.Expr,
    zone: pl.Expr,
    fmt: str = "%Y/%m/%d %H:%M:%S",
    zones: Iterable[str | None] | None = None,
) -> pl.Expr:
    """Local wall-clock text plus a printed zone abbreviation → UTC timestamp (null if unknown).

    ``zones`` limits the conversion to the abbreviations that occur (each costs a pass).
    """
    naive = date_time.str.strptime(pl.Datetime("us"), fmt, strict=False)
    result: pl.Expr = pl.lit(None, dtype=pl.Datetime("us", "UTC"))
    wanted = TIME_ZONES if zones is None else {z: TIME_ZONES[z] for z in zones if z in TIME_ZONES}
    for abbreviation, iana in wanted.items():
        converted = naive.dt.replace_time_zone(
            iana, ambiguous="earliest", non_existent="null"
        ).dt.convert_time_zone("UTC")
        result = pl.when(zone == abbreviation).then(converted).otherwise(result)
    return result


def holds_a_null(cards: pl.Expr) -> pl.Expr:
    """Whether a list holds a null element, such as an unreadable card (null for a null list).
    Counting the nulls is ~30× cheaper than dropping them and comparing lengths."""
    return cards.list.count_matches(None) > 0


# Game names of other games, read from a header no site pattern matched: such a hand is
# counted as skipped (another game), not quarantined. Omaha variants with more cards come
# first, as they contain the name of Omaha.
_OTHER_GAME = (
    r"(?i)(5[ -]?Card Omaha|Five Card Omaha|6[ -]?Card Omaha|Six Card Omaha|Courchevel|Big O\b"
    r"|Hold'?em|Razz|Stud|Badugi|Triple Draw|Single Draw|5 Card Draw|Five Card Draw|2-7|Lowball"
    r"|Deuce|Omaha(?:\s+(?:Hi|High))?(?:\s+(?:Pot Limit|No Limit|Limit|Fixed Limit|\(|PL|NL|FL|$)))"
)
# The Hi/Lo games hilo reads (`parsers.games`), in any number of cards: Omaha Hi/Lo, 5- and
# 6-card Omaha Hi/Lo, Courchevel Hi/Lo, Big O (five-card Omaha Hi/Lo by name).
_HI_LO = r"(?i)(?:Omaha|Courchevel)\s*(?:Hi[/ -]?Lo|H/L|8|Hi/Lo|Hi-Lo|Eight)|Big O\b"


def other_game_name(header: pl.Expr) -> pl.Expr:
    """The name of another game in a header line, or null (no game named, or one of the Hi/Lo
    games hilo reads: a header naming one that its site's pattern did not read is damaged).

    >>> frame = pl.DataFrame({"line": ["Game #1: Hold'em No Limit (huh?)",
    ...     "Game #2: Omaha Hi/Lo ??", "#3 5 Card Omaha Hi/Lo", "Game #4: Omaha Pot Limit",
    ...     "#5 5 Card Omaha Pot Limit", "#6 Courchevel Hi/Lo", "#7 Courchevel Pot Limit",
    ...     "#8: Pot Limit Big O - 1/2"]})
    >>> frame.select(other_game_name(pl.col("line")))["line"].to_list()
    ["Hold'em", None, None, 'Omaha Pot Limit', '5 Card Omaha', None, 'Courchevel', None]
    """
    other = header.str.extract(_OTHER_GAME, 1)
    return (
        pl.when(~header.str.contains(_HI_LO))
        .then(other.str.strip_chars())
        .otherwise(pl.lit(None, dtype=pl.String))
    )
