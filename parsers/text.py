"""Bytes to normalised lines, keeping the byte offset of every line in the original file.

Hand histories arrive as UTF-8 (with or without BOM), UTF-16 LE/BE with BOM, or legacy cp1252,
with CRLF or LF endings. Offsets are computed from the raw bytes (newline positions), never from
the decoded text, so a quarantined hand can always be found again in the original file.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from parsers.byte_kernels import split_lines

__all__ = [
    "DecodedLines",
    "decode_lines",
    "decode_text",
    "detect_encoding",
    "GARBLED_UTF8_BOM",
    "UnreadableFile",
]

# A UTF-8 BOM once decoded as cp1252 and written again as UTF-8 ("ï»¿", bytes C3 AF C2 BB C2
# BF): some exported files open with it, alone or after a real BOM. It marks UTF-8 text as a
# BOM does, and is no text of the file.
GARBLED_UTF8_BOM = codecs.BOM_UTF8.decode("cp1252").encode("utf-8")
_UTF8_BOMS = (codecs.BOM_UTF8, GARBLED_UTF8_BOM)
_UTF16_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_VALID_MULTIBYTE_UTF8 = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")


class UnreadableFile(ValueError):
    """The whole file cannot be read as text (binary data, unknown encoding)."""


@dataclass(frozen=True)
class DecodedLines:
    """Lines of a text block without terminators, trailing blanks or non-breaking spaces."""

    lines: pl.Series  # Utf8
    offsets: np.ndarray  # int64 byte offset of each line start in the original file
    encoding: str


def detect_encoding(head: bytes) -> tuple[str, int]:
    """Return ``(codec, bom_length)`` for a file that starts with ``head``.

    >>> detect_encoding(b"\\xef\\xbb\\xbfPokerStars")
    ('utf-8', 3)
    >>> detect_encoding(b"\\xff\\xfeP\\x00")
    ('utf-16-le', 2)
    >>> detect_encoding(b"PokerStars Hand")
    ('utf-8', 0)
    >>> detect_encoding(b"\\xef\\xbb\\xbf\\xc3\\xaf\\xc2\\xbb\\xc2\\xbfHand#")
    ('utf-8', 9)
    """
    utf8_bom = _utf8_bom_length(head)
    if utf8_bom:
        return "utf-8", utf8_bom
    for bom, codec in _UTF16_BOMS:
        if head.startswith(bom):
            return codec, len(bom)
    # UTF-16 without BOM: every other byte of ASCII text is NUL.
    sample = head[:512]
    if len(sample) >= 8:
        if sample[1::2].count(0) > 0.9 * len(sample[1::2]) and sample[0::2].count(0) == 0:
            return "utf-16-le", 0
        if sample[0::2].count(0) > 0.9 * len(sample[0::2]) and sample[1::2].count(0) == 0:
            return "utf-16-be", 0
    return "utf-8", 0


def _utf8_bom_length(head: bytes) -> int:
    """The length of the run of UTF-8 BOMs, real or garbled, that ``head`` opens with."""
    length = 0
    while True:
        bom = next((bom for bom in _UTF8_BOMS if head.startswith(bom, length)), None)
        if bom is None:
            return length
        length += len(bom)


def _codec_of_invalid_utf8(data: bytes) -> str:
    """UTF-8 when text that is not valid UTF-8 is still mostly UTF-8, else cp1252."""
    valid = sum(len(m) for m in _VALID_MULTIBYTE_UTF8.findall(data))
    high = len(_HIGH_BYTE.findall(data))
    # A few stray bytes in a UTF-8 file should not turn every accented name into mojibake.
    return "utf-8" if valid >= high / 2 else "cp1252"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _split_utf8(raw: np.ndarray, base_offset: int) -> DecodedLines:
    """Valid UTF-8: lines cut in compiled code, straight into an Arrow string column."""
    line_starts, offsets, content = split_lines(raw)
    array = pa.LargeStringArray.from_buffers(
        len(line_starts), pa.py_buffer(offsets), pa.py_buffer(content)
    )
    return DecodedLines(
        lines=pl.Series("line", array, dtype=pl.String),
        offsets=line_starts + base_offset,
        encoding="utf-8",
    )


def decode_lines(
    data: bytes, base_offset: int = 0, encoding: str | None = None
) -> DecodedLines:
    """Decode a block of a hand-history file into normalised lines.

    Parameters
    ----------
    data:
        The bytes; the block must start at a line start (after any BOM) and, for UTF-16,
        at an even position.
    base_offset:
        Byte offset of ``data[0]`` in the original file.
    encoding:
        The codec, when known from an earlier block; detected (BOM first) when ``None``.
    """
    detected = encoding is None
    bom = 0
    if encoding is None:
        encoding, bom = detect_encoding(data[:4096])
    body = data[bom:]
    valid_utf8 = encoding == "utf-8" and _is_utf8(body)
    if detected and encoding == "utf-8" and not valid_utf8:
        encoding = _codec_of_invalid_utf8(body)
    if encoding.startswith("utf-16"):
        if len(body) % 2:
            body = body[:-1]  # an odd trailing byte cannot be a character
        units = np.frombuffer(body, dtype="<u2" if encoding == "utf-16-le" else ">u2")
        ends = (np.flatnonzero(units == 0x0A) + 1) * 2
        text = body.decode(encoding, errors="replace")
    else:
        raw = np.frombuffer(body, dtype=np.uint8)
        if valid_utf8:
            return _split_utf8(raw, bom + base_offset)
        ends = np.flatnonzero(raw == 0x0A) + 1
        text = body.decode(encoding, errors="replace")
    starts = np.concatenate(([0], ends)).astype(np.int64) + bom + base_offset
    # Carriage returns and no-break spaces are dropped on the whole text at once: it is far
    # cheaper than per line, and the offsets above already come from the raw bytes.
    text = text.replace("\r", "")
    if "\u00a0" in text:
        text = text.replace("\u00a0", " ")
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
        starts = starts[:-1]
    if len(pieces) != len(starts):
        raise UnreadableFile(f"line structure not recognised for encoding {encoding}")
    lines = pl.Series("line", pieces, dtype=pl.String).str.strip_chars_end(" \t")
    return DecodedLines(lines=lines, offsets=starts, encoding=encoding)


def decode_text(data: bytes) -> str:
    """The lines `decode_lines` gives for ``data``, joined by newlines (a file's head, to sniff).

    Valid UTF-8 is normalised with string methods, as the line cutter does byte by byte
    (tests/parsers/test_pokerstars_compiled.py holds the two to the same result): a column of
    lines costs more than the sniff that reads it.
    """
    encoding, bom = detect_encoding(data[:4096])
    try:
        text = data[bom:].decode("utf-8") if encoding == "utf-8" else None
    except UnicodeDecodeError:
        text = None
    if text is None:
        return "\n".join(decode_lines(data).lines.to_list())
    pieces = text.replace("\r", "").replace("\u00a0", " ").split("\n")
    if pieces[-1] == "":
        pieces.pop()
    return "\n".join(piece.rstrip(" \t") for piece in pieces)
