"""Hostile-input fuzzing of the site parsers: seeds, mutators and the invariants every parse keeps.

Used by ``tests/test_fuzz.py`` (short seeded runs and hypothesis properties) and
``bench/bench_fuzz.py`` (a million mutated hands per parser). Product code never imports it.

Seeds are real hands: every hand-history file of the shared corpus (``MANIFEST.tsv``) is sniffed by
the registry and cut into hands at the claiming parser's hand starts, so a parser registered later
(XML, PHH, ...) is seeded from its corpus folder without a change here; PokerStars also gets hands
from generated archives (`pipeline.generate.generate`). A mutated block is many mutated hands
joined together (the parsers are vectorised, so one hand per call would measure call overhead),
sometimes re-encoded as a whole (UTF-16, cp1252, mojibake).

`check_result` is the contract: no exception, ``hands_found == parsed + skipped + rejected``,
every hand start the parser recognised accounted to a hand, every reject with a reason and its raw
text, and tables that conform to `pipeline.schema` (types, no null keys, money within bounds,
card codes 0..51, boards of at most 5 cards, 4 hole cards, no card dealt twice).
"""

from __future__ import annotations

import csv
import itertools
import random
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl

import parsers
from parsers.base import ParseResult, SiteParser
from parsers.games import GAMES, hole_card_count
from parsers.text import UnreadableFile, decode_lines
from pipeline.ingest.sources import BLOCK_BYTES
from pipeline.schema import ACTION_KINDS, HAND_TABLES, REJECTS
from tests.shared_data import CORPUS

__all__ = [
    "HARMLESS_LINES",
    "MAX_MONEY",
    "MUTATORS",
    "Finding",
    "FuzzRun",
    "Seeds",
    "check_result",
    "fuzz_parser",
    "load_seeds",
    "memory_now",
    "mutate_hand",
    "mutated_block",
    "parse_checked",
    "peak_memory",
    "reencode",
    "reset_peak_memory",
    "shrink",
]

# Largest amount a parsed table may hold: a printed amount with more than 16 integer digits does
# not fit the parsers' Decimal(18, 2) decoding and must be quarantined, never wrapped or rounded.
MAX_MONEY = 10**16
MAX_SEATS = 10  # players at one Omaha table

# Tokens that replace a printed amount: negative, huge, not numbers, scientific, signed zero.
ABSURD_AMOUNTS = (
    "-5",
    "$-0",
    "-$3.00",
    "1000000000000000000000000000000",
    "$1000000000000000000000000000000.00",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999.99",
    "NaN",
    "$NaN",
    "inf",
    "1e5",
    "$1e5",
    "0x10",
    "1,2,3",
    "1.2.3",
    "0.001",
    "$0.999",
    "",
    "½",
    "٣",
    "$ ",
)
UNKNOWN_CARDS = ("Xx", "1s", "Zz", "10h", "??", "A♠", "Ax", "0c", "", "AsKs", "[", "]", "X")
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
NUMBER = re.compile(r"[$€£]?\d[\d,]*(?:\.\d+)?")
SEAT_LINE = re.compile(r"^(\s*Seat\s*#?)(\d+)(.*)$", re.IGNORECASE)
# A player object of a one-line JSON hand (IGT), known by its seat number.
JSON_PLAYER = re.compile(r'\{[^{}]*"seat"\s*:\s*"?\d+[^{}]*\}')


@dataclass
class Seeds:
    """Unmutated hands per parser site, and where they came from."""

    hands: dict[str, list[str]] = field(default_factory=dict)  # site -> hand texts
    sources: dict[str, list[str]] = field(default_factory=dict)  # site -> seed files
    notes: list[str] = field(default_factory=list)  # seeds that could not be made, and why

    starts: dict[str, int] = field(default_factory=dict)  # site -> hand starts in its seeds

    def add(self, site: str, source: str, hands: Sequence[str], starts: int) -> None:
        if hands:
            self.hands.setdefault(site, []).extend(hands)
            self.sources.setdefault(site, []).append(source)
            self.starts[site] = self.starts.get(site, 0) + starts

    def hands_per_seed(self, site: str) -> float:
        """Hands in one seed on average: more than 1 where seeds are whole files (Merge)."""
        return max(1.0, self.starts.get(site, 0) / len(self.hands[site]))

    def foreign(self, site: str) -> list[str]:
        """Hands of every other site (to splice into this site's hands)."""
        return [hand for other, hands in self.hands.items() if other != site for hand in hands]


@dataclass
class Finding:
    """One broken invariant: which parser, what broke, and the input that broke it."""

    site: str
    problem: str
    data: bytes

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        digest = abs(hash(self.data)) % 10**10
        path = folder / f"{self.site}-{digest}.txt"
        path.write_bytes(self.data)
        path.with_suffix(".why").write_text(self.problem + "\n")
        return path


def parser_by_site(site: str) -> SiteParser:
    return next(parser for parser in parsers.PARSERS if parser.site == site)


def split_hands(parser: SiteParser, data: bytes) -> list[str]:
    """A file's hands as texts, cut at the parser's hand starts (text before the first dropped)."""
    decoded = decode_lines(data)
    lines = decoded.lines.to_list()
    starts = np.flatnonzero(parser.hand_starts(decoded.lines)).tolist()
    if not starts:
        return ["\n".join(lines)] if lines else []
    bounds = [*starts, len(lines)]
    return ["\n".join(lines[a:b]).strip("\n") for a, b in itertools.pairwise(bounds)]


def _claim(data: bytes) -> SiteParser | None:
    try:
        decoded = decode_lines(data)
    except UnreadableFile:
        return None
    return parsers.detect("\n".join(decoded.lines.head(20).to_list()))


def _parsed(parser: SiteParser, data: bytes) -> int:
    decoded = decode_lines(data)
    return parser.parse(decoded.lines, decoded.offsets, "seed").parsed


def _seed_hands(parser: SiteParser, data: bytes) -> tuple[list[str], int]:
    """The file's hands, or the whole file as one seed when its hands do not parse on their
    own (a Merge game needs the file's ``<description>`` before it); and the hand count."""
    hands = split_hands(parser, data)
    if parser.site == "phh":
        # A .phh file's hand is top-level TOML: put after another it makes one bad document of
        # repeated keys. In a file of many hands (.phhs) each is a table of its own.
        hands = [
            hand if hand.startswith("[") else f"[{number:05d}]\n{hand}"
            for number, hand in enumerate(hands)
        ]
    # A file whose first hands are another game (a PokerNow session opens with hold'em) is
    # judged by its first hand that is Omaha Hi/Lo.
    alone = any(_parsed(parser, hand.encode("utf-8")) for hand in hands)
    if len(hands) > 1 and not alone and _parsed(parser, data):
        return [decode_lines(data).lines.str.join("\n").item()], len(hands)
    return hands, len(hands)


def _add_test_documents(seeds: Seeds) -> None:
    """Seeds for parsers no corpus file is claimed by (formats without a real export, such as
    iPoker or IGT): the hand-written documents held as text constants by their tests."""
    import importlib
    import pkgutil

    import tests.parsers

    missing = {parser.site for parser in parsers.PARSERS} - set(seeds.hands)
    for info in pkgutil.iter_modules(tests.parsers.__path__):
        if not missing or not info.name.startswith("test_"):
            continue
        module = importlib.import_module(f"tests.parsers.{info.name}")
        for name, value in vars(module).items():
            if not isinstance(value, str) or len(value) < 200:
                continue
            # A template for numbered hands (GGPoker's tests) made into one hand.
            data = value.replace("{number}", "1").encode("utf-8")
            parser = _claim(data)
            if parser is not None and parser.site in missing:
                source = f"tests/parsers/{info.name}.py:{name}"
                seeds.add(parser.site, source, *_seed_hands(parser, data))
        missing -= set(seeds.hands)


@cache
def _claimed_seeds(corpus: Path) -> Seeds:
    """The corpus files' and the test documents' seeds, read once per process (cutting the
    corpus into seed hands parses many hands one by one: about a minute)."""
    seeds = Seeds()
    manifest = corpus / "MANIFEST.tsv"
    if manifest.exists():
        with manifest.open(newline="") as handle:
            rows = [row for row in csv.DictReader(handle, delimiter="\t")]
        for row in rows:
            if not row["role"].startswith("hand_history"):
                continue
            data = (corpus / row["path"]).read_bytes()
            parser = _claim(data)
            if parser is not None:
                seeds.add(parser.site, row["path"], *_seed_hands(parser, data))
    _add_test_documents(seeds)
    return seeds


def load_seeds(corpus: Path = CORPUS, generated_hands: int = 200) -> Seeds:
    """Seed hands for every registered parser: the corpus files it claims (else the documents of
    its tests), plus generated PokerStars archives. A new `Seeds` each call, free to change."""
    claimed = _claimed_seeds(corpus)
    seeds = Seeds(
        hands={site: list(hands) for site, hands in claimed.hands.items()},
        sources={site: list(sources) for site, sources in claimed.sources.items()},
        notes=list(claimed.notes),
        starts=dict(claimed.starts),
    )
    if generated_hands:
        from pipeline.generate import generate

        with tempfile.TemporaryDirectory(prefix="hilo-fuzz-") as folder:
            try:
                generate(generated_hands, 11, folder, limit="mix", tournament_share=0.3, workers=1)
            except Exception as error:  # noqa: BLE001 - the corpus seeds still stand
                seeds.notes.append(f"generated seeds unavailable: {type(error).__name__}: {error}")
                return seeds
            stars = parser_by_site("pokerstars")
            for path in sorted(Path(folder, "pokerstars").glob("*.txt")):
                hands = split_hands(stars, path.read_bytes())
                seeds.add("pokerstars", f"generated/{path.name}", hands, len(hands))
    return seeds


# --------------------------------------------------------------------------------------------
# Mutators: each takes a hand's text and a random generator and returns the hostile text.


def _lines(text: str) -> list[str]:
    return text.split("\n")


def truncate(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    return text[: rng.randrange(len(text) + 1)]


def flip_bytes(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    data = bytearray(text.encode("utf-8", errors="surrogateescape"))
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return data.decode("utf-8", errors="surrogateescape")


def insert_junk_bytes(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    at = rng.randrange(len(text) + 1)
    return text[:at] + junk.decode("utf-8", errors="surrogateescape") + text[at:]


def nul_bytes(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + "\x00" * rng.choice((1, 2, 7, 300)) + text[at:]


def delete_lines(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    lines = _lines(text)
    for _ in range(rng.randint(1, 3)):
        if lines:
            del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_lines(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    return "\n".join(lines[: at + 1] + [lines[at]] * rng.randint(1, 4) + lines[at + 1 :])


def swap_lines(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    lines = _lines(text)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return "\n".join(lines)


def repeat_header(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:at] + [lines[0]] * rng.randint(1, 3) + lines[at:])


def splice_foreign(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    if not foreign:
        return text
    other = _lines(rng.choice(foreign))
    lines = _lines(text)
    a = rng.randrange(len(other))
    piece = other[a : a + rng.randint(1, len(other))]
    at = rng.randrange(len(lines) + 1)
    return "\n".join(lines[:at] + piece + lines[at:])


def huge_line(text: str, rng: random.Random, foreign: Sequence[str], size: int = 0) -> str:
    """A line of ``size`` characters (default 1..64 KiB): a giant name, amount or junk."""
    size = size or rng.randint(1 << 10, 1 << 16)
    lines = _lines(text)
    at = rng.randrange(len(lines))
    kind = rng.randrange(3)
    if kind == 0:  # a giant player name in a real line
        lines[at] = lines[at].replace(" ", " " + "N" * size + " ", 1)
    elif kind == 1:  # a giant amount
        lines[at] = NUMBER.sub(lambda _: "9" * size, lines[at], count=1)
    else:
        lines.insert(at, rng.choice("x9[( ") * size)
    return "\n".join(lines)


def _random_match(pattern: re.Pattern[str], text: str, rng: random.Random) -> re.Match[str] | None:
    """A match of ``pattern`` at or after a random position (wrapping round to the start)."""
    at = rng.randrange(len(text) + 1)
    return pattern.search(text, at) or pattern.search(text)


def absurd_amount(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    for _ in range(rng.randint(1, 3)):
        match = _random_match(NUMBER, text, rng)
        if match is None:
            break
        text = text[: match.start()] + rng.choice(ABSURD_AMOUNTS) + text[match.end() :]
    return text


_DIGIT = re.compile(r"\d")


def change_digits(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    for _ in range(rng.randint(1, 4)):
        match = _random_match(_DIGIT, text, rng)
        if match is None:
            break
        text = text[: match.start()] + str(rng.randrange(10)) + text[match.end() :]
    return text


def _seat_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if SEAT_LINE.match(line)]


def many_players(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    """200 more seat lines (new seat numbers above the hand's, new names) after the last seat
    line of the first block of them, so the hand is otherwise intact."""
    lines = _lines(text)
    seats = [i for i in _seat_lines(lines) if re.match(r"\s*Seat\s*#?\d+\s*[:(-]", lines[i])]
    if not seats and len(lines) == 1:
        return _many_json_players(text)
    if not seats:
        at = min(1, len(lines) - 1)
        clones = [lines[at].replace(" ", f" p{n}x", 1) for n in range(1, 201)]
        return "\n".join(lines[: at + 1] + clones + lines[at + 1 :])
    last = seats[0]
    while last + 1 in seats:
        last += 1
    template = SEAT_LINE.match(lines[seats[0]])
    assert template is not None
    # At most 6 digits: an earlier mutation may have made a seat number thousands of digits long.
    numbers = [int(SEAT_LINE.match(lines[i])[2][:6]) for i in range(seats[0], last + 1)]  # type: ignore[index]
    first_number = max(numbers) + 1
    rest = template[3]
    marker = ": " if ": " in rest else " - " if " - " in rest else " "
    clones = [
        f"{template[1]}{number}{rest.replace(marker, f'{marker}p{number}x', 1)}"
        for number in range(first_number, first_number + 200)
    ]
    return "\n".join(lines[: last + 1] + clones + lines[last + 1 :])


def _many_json_players(text: str) -> str:
    """`many_players` of a hand printed on one line: 200 more player objects beside the first.
    (Cloning the line, as for a multi-line hand, would make 200 more hands instead.)"""
    player = JSON_PLAYER.search(text)
    if player is None:
        return text
    clones = [
        re.sub(r'("seat"\s*:\s*"?)\d+', rf"\g<1>{number}", player[0], count=1).replace(
            '"name":"', f'"name":"p{number}x', 1
        )
        for number in range(100, 300)
    ]
    return text[: player.end()] + "".join("," + clone for clone in clones) + text[player.end() :]


def duplicate_seat(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    lines = _lines(text)
    seats = _seat_lines(lines)
    if len(seats) < 2:
        return duplicate_lines(text, rng, foreign)
    a, b = rng.sample(seats, 2)
    if rng.random() < 0.5:  # the same seat twice, verbatim
        lines.insert(a, lines[a])
    else:  # two players on one seat number
        match_a, match_b = SEAT_LINE.match(lines[a]), SEAT_LINE.match(lines[b])
        assert match_a and match_b
        if match_a[2] == match_b[2]:  # one seat's setup and summary lines: copy one instead
            lines.insert(a, lines[a])
        else:
            lines[b] = f"{match_b[1]}{match_a[2]}{match_b[3]}"
    return "\n".join(lines)


def duplicate_card(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    matches = list(CARD.finditer(text))
    if len(matches) < 2:
        return text
    source, target = rng.sample(matches, 2)
    return text[: target.start()] + source.group() + text[target.end() :]


def unknown_card(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    matches = list(CARD.finditer(text))
    if not matches:
        return text
    target = rng.choice(matches)
    return text[: target.start()] + rng.choice(UNKNOWN_CARDS) + text[target.end() :]


# Bounded, so a megabyte of "[" from another mutation cannot make the search quadratic.
_BRACKETED = re.compile(r"\[([^\]\[\n]{0,80})\]")


def extra_cards(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    """A bracketed card list with one card more (or fewer) than printed."""
    matches = list(_BRACKETED.finditer(text))
    if not matches:
        return text
    target = rng.choice(matches)
    inner = target[1] + " 2c" if rng.random() < 0.5 else target[1].rsplit(" ", 1)[0]
    return text[: target.start()] + "[" + inner + "]" + text[target.end() :]


Mutator = Callable[[str, random.Random, Sequence[str]], str]
# Free lines a real site might add to a hand (notices, banners, chat-like events) that carry no
# money and no card: a parser keeps its hand and stores the line in `notes`.
HARMLESS_LINES = (
    "The connection to the server was interrupted",
    "Somebody has 15 seconds left to act",
    "Welcome to the table, good luck everyone",
    "Tournament break in 5 minutes",
    "Somebody is using the time bank",
    "Happy hour is active at this table",
    "Somebody has requested a cash out offer",
    "Cards are being shuffled",
    "Table 12 will close soon",
)


def insert_note_line(text: str, rng: random.Random, foreign: Sequence[str]) -> str:
    """A free line without money or cards somewhere after the hand's first line."""
    lines = _lines(text)
    lines.insert(rng.randint(1, max(1, len(lines))), rng.choice(HARMLESS_LINES))
    return "\n".join(lines)


MUTATORS: dict[str, Mutator] = {
    "truncate": truncate,
    "flip_bytes": flip_bytes,
    "insert_junk_bytes": insert_junk_bytes,
    "nul_bytes": nul_bytes,
    "delete_lines": delete_lines,
    "duplicate_lines": duplicate_lines,
    "swap_lines": swap_lines,
    "repeat_header": repeat_header,
    "splice_foreign": splice_foreign,
    "huge_line": huge_line,
    "absurd_amount": absurd_amount,
    "change_digits": change_digits,
    "many_players": many_players,
    "duplicate_seat": duplicate_seat,
    "duplicate_card": duplicate_card,
    "unknown_card": unknown_card,
    "extra_cards": extra_cards,
    "insert_note_line": insert_note_line,
}
_NAMES = tuple(MUTATORS)


def mutate_hand(
    text: str, rng: random.Random, foreign: Sequence[str], names: Sequence[str] = _NAMES
) -> tuple[str, list[str]]:
    """One to three random mutations (among ``names``) of a hand; one hand in ten is left intact."""
    if rng.random() < 0.1 or not text:
        return text, []
    names = [rng.choice(names) for _ in range(rng.randint(1, 3))]
    for name in names:
        text = MUTATORS[name](text, rng, foreign) if text else text
    return text, names


def reencode(text: str, rng: random.Random) -> bytes:
    """The block's text as a file would hold it: usually UTF-8, sometimes another encoding,
    a BOM, CRLF endings or mojibake (UTF-8 bytes read as cp1252 and written again)."""
    choice = rng.random()
    if choice < 0.15:
        text = text.replace("\n", "\r\n")
    if choice < 0.70:
        return text.encode("utf-8", errors="surrogateescape")
    if choice < 0.75:
        return b"\xef\xbb\xbf" + text.encode("utf-8", errors="surrogateescape")
    if choice < 0.80:
        return b"\xff\xfe" + text.encode("utf-16-le", errors="replace")
    if choice < 0.84:
        return text.encode("utf-16-be", errors="replace")  # no BOM: sniffed from the NULs
    if choice < 0.88:
        return text.encode("utf-16-le", errors="replace")[:-1]  # odd length
    if choice < 0.95:
        return text.encode("cp1252", errors="replace")
    mojibake = text.encode("utf-8", errors="replace").decode("cp1252", errors="replace")
    return mojibake.encode("utf-8", errors="replace")


_HAND_NUMBER = re.compile(r"\d{5,}")


def _renumbered(hand: str, number: int) -> str:
    """The hand with the first long number of its first three lines (the hand id on most
    sites) made unique."""
    lines = hand.split("\n", 3)
    for index, line in enumerate(lines[:3]):
        renumbered = _HAND_NUMBER.sub(lambda match: f"{match.group()}{number:07d}", line, count=1)
        if renumbered != line:
            lines[index] = renumbered
            break
    return "\n".join(lines)


def mutated_block(
    hands: Sequence[str],
    foreign: Sequence[str],
    rng: random.Random,
    count: int,
    huge_line_bytes: int = 0,
    mutators: Sequence[str] = _NAMES,
) -> tuple[bytes, int]:
    """``count`` mutated hands as one file's bytes, and how many mutations were applied.

    The first hand is intact so the registry still sniffs the block as the seed's site;
    ``huge_line_bytes`` > 0 puts one line of that size into one hand; ``mutators`` names the
    mutations to draw from (default: all of `MUTATORS`).
    """
    pieces, mutations = mutated_hands(hands, foreign, rng, count, mutators)
    return as_block(pieces, foreign, rng, huge_line_bytes), mutations


def mutated_hands(
    hands: Sequence[str],
    foreign: Sequence[str],
    rng: random.Random,
    count: int,
    mutators: Sequence[str] = _NAMES,
    max_chars: int | None = None,
) -> tuple[list[str], int]:
    """The hands of `mutated_block` and how many mutations were applied; ``max_chars`` ends
    them at the first hand that brings their text to that much, as ingest reads a file in
    blocks of `pipeline.ingest.BLOCK_BYTES`."""
    pieces = [hands[0]]
    mutations = 0
    size = len(hands[0])
    for number in range(1, count):
        if max_chars is not None and size >= max_chars:
            break
        text, names = mutate_hand(_renumbered(rng.choice(hands), number), rng, foreign, mutators)
        pieces.append(text)
        size += len(text)
        mutations += len(names)
    return pieces, mutations


def as_block(
    pieces: list[str], foreign: Sequence[str], rng: random.Random, huge_line_bytes: int = 0
) -> bytes:
    """Mutated hands as one file's bytes, one of them given a line of ``huge_line_bytes``."""
    if huge_line_bytes:
        at = rng.randrange(1, len(pieces)) if len(pieces) > 1 else 0
        pieces[at] = huge_line(pieces[at], rng, foreign, size=huge_line_bytes)
    separator = rng.choice(("\n\n", "\n\n\n", "\n"))
    return reencode(separator.join(pieces) + "\n", rng)


# --------------------------------------------------------------------------------------------
# The invariants


_KEYS: dict[str, tuple[str, ...]] = {
    "hands": ("site", "hand_id", "game", "currency"),  # limit_type: null on Bovada tournaments
    "seats": ("site", "hand_id", "seat", "player", "stack_start", "is_hero", "sitting_out"),
    "actions": ("site", "hand_id", "seq", "street", "player", "kind"),
    "collections": ("site", "hand_id", "seq", "player", "amount"),
    "showdowns": ("site", "hand_id", "player"),
}
_MONEY: dict[str, tuple[str, ...]] = {
    "hands": ("small_blind", "big_blind", "small_bet", "big_bet", "ante", "total_pot", "rake"),
    "seats": ("stack_start",),
    "actions": ("amount", "to_amount"),
    "collections": ("amount",),
}


def check_result(
    parser: SiteParser,
    lines: pl.Series,
    result: ParseResult,
    source_file: str,
    size: int,
    offsets: np.ndarray | None = None,
) -> list[str]:
    """Every broken invariant of one parse (empty when the parse is sound).

    With the lines' byte ``offsets``, every hand row and every reject (but the one for text
    before the first hand) must sit at a distinct hand start: each recognised hand is accounted
    to itself, not merged into a neighbour.
    """
    problems: list[str] = []
    if result.hands_found != result.parsed + result.skipped + result.rejected:
        problems.append("accounting: found != parsed + skipped + rejected")
    start_mask = parser.hand_starts(lines)
    starts = int(np.count_nonzero(start_mask))
    if not starts <= result.hands_found <= starts + 1:  # + 1: text before the first hand
        problems.append(f"hand starts {starts} but hands_found {result.hands_found}")
    if offsets is not None and not problems:
        problems += _check_offsets(result, offsets[start_mask], lines.filter(start_mask))
    if sum(result.skipped_games.values()) != result.skipped:
        problems.append("skipped_games does not add up to skipped")
    tables = result.tables
    for name, schema in {**HAND_TABLES, "rejects": REJECTS}.items():
        table = tables.get(name)
        if table is None:
            problems.append(f"table {name} missing")
            continue
        if not table.schema.equals(schema):
            problems.append(f"table {name}: schema differs from pipeline.schema")
    if problems:
        return problems
    rejects = tables["rejects"]
    if rejects.num_rows != result.rejected:
        problems.append(f"rejected {result.rejected} but {rejects.num_rows} reject rows")
    hands = tables["hands"]
    if hands.num_rows != result.parsed:
        problems.append(f"parsed {result.parsed} but {hands.num_rows} hand rows")
    problems += _check_rejects(pl.from_arrow(rejects), source_file, size)  # type: ignore[arg-type]
    frames = {name: pl.from_arrow(tables[name]) for name in HAND_TABLES}
    problems += _check_tables(frames, parser.site)  # type: ignore[arg-type]
    return problems


def _check_offsets(
    result: ParseResult, start_offsets: np.ndarray, start_lines: pl.Series
) -> list[str]:
    hands = result.tables["hands"].column("source_offset").to_pylist()
    rejects = result.tables["rejects"]
    starts = dict(zip(start_offsets.tolist(), start_lines.to_list(), strict=True))
    rejected = sorted(
        zip(
            rejects.column("source_offset").to_pylist(),
            rejects.column("raw_text").to_pylist(),
            strict=True,
        )
    )
    problems = []
    if result.hands_found == len(starts) + 1:
        # Text before the first hand is one more reject, at or before the first hand start
        # (on the same line when an XML game opens after junk).
        if not rejected or (len(starts) and rejected[0][0] > min(starts)):
            problems.append("text before the first hand counted but not rejected")
        rejected = rejected[1:]
    placed = hands + [offset for offset, _ in rejected]
    if any(offset not in starts for offset in placed):
        problems.append("a hand or reject row not at a hand start")
    if len(set(placed)) != len(placed):
        problems.append("two hand or reject rows at one hand start")
    if any(
        offset in starts
        and raw is not None
        # XML games can open mid-line ("</game><game ...>"): the raw text starts inside it.
        and raw.split("\n", 1)[0].strip() not in starts[offset]
        for offset, raw in rejected
    ):
        problems.append("a reject's raw text is not the hand at its offset")
    return problems


def _check_rejects(rejects: pl.DataFrame, source_file: str, size: int) -> list[str]:
    problems = []
    if rejects.filter(pl.col("reason").fill_null("").str.strip_chars() == "").height:
        problems.append("reject without a reason")
    if rejects["raw_text"].null_count():
        problems.append("reject without its raw text")
    if (rejects["source_file"] != source_file).any():
        problems.append("reject with another source_file")
    offsets = rejects["source_offset"]
    if offsets.null_count() or ((offsets < 0) | (offsets > size)).any():
        problems.append("reject offset missing or outside the file")
    return problems


def _check_tables(frames: dict[str, pl.DataFrame], site: str) -> list[str]:
    problems = []
    hands = frames["hands"]
    for name, keys in _KEYS.items():
        frame = frames[name]
        for key in keys:
            if frame[key].null_count():
                problems.append(f"{name}.{key} has nulls")
        if frame.height and (frame["site"] != site).any():
            problems.append(f"{name}.site is not {site}")
        if name != "hands" and frame.join(hands, on="hand_id", how="anti").height:
            problems.append(f"{name} rows of a hand that is not in hands")
        for column in _MONEY.get(name, ()):
            values = frame[column].drop_nulls()
            if values.len() and (values.min() < 0 or values.max() > MAX_MONEY):  # type: ignore[operator]
                problems.append(f"{name}.{column} outside 0..{MAX_MONEY}")
    if hands["source_offset"].null_count():
        problems.append("hands.source_offset has nulls")
    actions = frames["actions"]
    if (~actions["kind"].is_in(list(ACTION_KINDS))).any():
        problems.append("actions.kind outside ACTION_KINDS")
    if actions.height and ((actions["street"] < 0) | (actions["street"] > 3)).any():
        problems.append("actions.street outside 0..3")
    for column in ("board", "board2"):
        board = hands[column].drop_nulls()
        if (board.list.len() > 5).any():
            problems.append(f"hands.{column} longer than 5 cards")
        problems += _check_cards(board, f"hands.{column}")
    seats = frames["seats"]
    # Only hands whose id is unique in the block can be told apart in the seats table.
    unique_ids = hands.filter(pl.col("hand_id").is_unique()).select("hand_id")
    seated = seats.join(unique_ids, on="hand_id", how="semi").group_by("hand_id").len()
    if seated.height and seated["len"].max() > MAX_SEATS:  # type: ignore[operator]
        problems.append(f"a parsed hand with more than {MAX_SEATS} seats")
    if (~hands["game"].is_in(list(GAMES))).any():
        problems.append("hands.game not a parsers.games code")
    holes = seats["hole_cards"].drop_nulls()
    # Each seat holds its hand's game's count (a repeated hand id: any of its games' counts).
    dealt = (
        seats.filter(pl.col("hole_cards").is_not_null())
        .join(hands.select("hand_id", "game"), on="hand_id", how="left")
        .group_by("hand_id", "player", "hole_cards")
        .agg(counts=hole_card_count(pl.col("game")))
        .filter(~pl.col("hole_cards").list.len().cast(pl.Int8).is_in(pl.col("counts")))
    )
    if dealt.height:
        problems.append("seats.hole_cards not the game's count of cards")
    problems += _check_cards(holes, "seats.hole_cards")
    problems += _check_cards(frames["showdowns"]["cards"].drop_nulls(), "showdowns.cards")
    problems += _check_dealt_twice(frames)
    return problems


def _check_cards(cards: pl.Series, name: str) -> list[str]:
    flat = cards.explode()
    if flat.null_count():
        return [f"{name} holds a null card"]
    if flat.len() and flat.max() > 51:  # type: ignore[operator]
        return [f"{name} holds a card code above 51"]
    return []


def _check_dealt_twice(frames: dict[str, pl.DataFrame]) -> list[str]:
    """No card on the first board and in hole cards twice within one hand."""
    # Only hands whose id is unique in the block can be told apart in the seats table.
    hands = frames["hands"].filter(pl.col("hand_id").is_unique())
    board = hands.select("hand_id", card=pl.col("board")).explode("card")
    holes = (
        frames["seats"]
        .join(hands.select("hand_id"), on="hand_id", how="semi")
        .select("hand_id", card=pl.col("hole_cards"))
        .explode("card")
    )
    cards = pl.concat([board, holes]).drop_nulls()
    if cards.group_by("hand_id", "card").len().filter(pl.col("len") > 1).height:
        return ["a card dealt twice in one hand"]
    return []


# --------------------------------------------------------------------------------------------
# Running


def parse_checked(parser: SiteParser, data: bytes, source_file: str = "fuzz.txt") -> list[str]:
    """Decode and parse ``data`` the way `parsers.parse_bytes` does (sniffing too), with the
    seed's parser; return the broken invariants (an escaped exception is one)."""
    try:
        decoded = decode_lines(data)
    except UnreadableFile:
        return []  # a clear, documented refusal of the whole file
    except Exception as error:  # noqa: BLE001 - any other escape is the finding
        return [f"decode raised {type(error).__name__}: {error}"]
    try:
        parsers.detect("\n".join(decoded.lines.head(20).to_list()))
        result = parser.parse(decoded.lines, decoded.offsets, source_file)
    except Exception as error:  # noqa: BLE001
        return [f"parse raised {type(error).__name__}: {str(error)[:300]}"]
    try:
        problems = check_result(
            parser, decoded.lines, result, source_file, len(data), decoded.offsets
        )
    except Exception as error:  # noqa: BLE001
        return [f"invariant check raised {type(error).__name__}: {str(error)[:300]}"]
    reference = getattr(parser, "parse_by_block_parser", None)
    if reference is not None and not problems:
        problems += differences(result, reference(decoded.lines, decoded.offsets, source_file))
    return problems


def differences(result: ParseResult, reference: ParseResult) -> list[str]:
    """How a parse differs from its reference parse (tables and counts), empty when equal."""
    problems = [
        f"{name} differs from the block parser"
        for name, table in reference.tables.items()
        if not result.tables[name].equals(table)
    ]
    for count in ("hands_found", "parsed", "skipped", "rejected", "skipped_games"):
        if getattr(result, count) != getattr(reference, count):
            problems.append(f"{count} differs from the block parser")
    return problems


@dataclass
class FuzzRun:
    """Totals of fuzzing one parser."""

    site: str
    blocks: int = 0
    hands: int = 0
    mutations: int = 0
    bytes: int = 0
    parse_seconds: float = 0.0  # decoding, parsing and checking, without making the input
    findings: list[Finding] = field(default_factory=list)


def fuzz_parser(
    site: str,
    seeds: Seeds,
    hands: int,
    seed: int = 0,
    block_hands: int = 500,
    huge_line_every: int = 0,
    huge_line_bytes: int = 4 << 20,
    max_findings: int = 50,
    on_block: Callable[[FuzzRun], None] | None = None,
) -> FuzzRun:
    """Parse ``hands`` mutated hands of ``site`` in blocks of ``block_hands``; collect findings.

    Every ``huge_line_every``-th block (0: never) carries one line of ``huge_line_bytes``.
    """
    parser = parser_by_site(site)
    rng = random.Random(seed)
    own, foreign = seeds.hands[site], seeds.foreign(site)
    run = FuzzRun(site)
    # Whole-file seeds hold several hands each: count hands, not seeds.
    per_seed = seeds.hands_per_seed(site)
    while run.hands < hands:
        count = max(1, round(min(block_hands, hands - run.hands) / per_seed))
        huge = huge_line_bytes if huge_line_every and run.blocks % huge_line_every == 1 else 0
        # A block as ingest reads one: about BLOCK_BYTES of text at most (a huge line aside);
        # mutated hands of some formats (a JSON hand with thousands of players) are long.
        pieces, mutations = mutated_hands(own, foreign, rng, count, max_chars=BLOCK_BYTES)
        count = len(pieces)
        data = as_block(pieces, foreign, rng, huge)
        started = time.perf_counter()
        problems = parse_checked(parser, data)
        run.parse_seconds += time.perf_counter() - started
        if problems and len(run.findings) < max_findings:
            run.findings.append(Finding(site, "; ".join(problems), data))
        run.blocks += 1
        run.hands += round(count * per_seed)
        run.mutations += mutations
        run.bytes += len(data)
        if on_block is not None:
            on_block(run)
    return run


def shrink(parser: SiteParser, data: bytes, problem_prefix: str) -> bytes:
    """The smallest run of whole hands (by the parser's hand starts) that still breaks an
    invariant starting with ``problem_prefix`` — so a finding can be read and turned into a test."""
    try:
        decoded = decode_lines(data)
    except Exception:  # noqa: BLE001
        return data
    text = decoded.lines.to_list()
    starts = [*np.flatnonzero(parser.hand_starts(decoded.lines)).tolist(), len(text)]
    if not starts or starts[0] != 0:
        starts = [0, *starts]

    def breaks(a: int, b: int) -> bool:
        piece = "\n".join(text[starts[a] : starts[b]]).encode("utf-8", errors="surrogateescape")
        return any(p.startswith(problem_prefix) for p in parse_checked(parser, piece))

    for index in range(len(starts) - 1):
        if breaks(index, index + 1):
            return "\n".join(text[starts[index] : starts[index + 1]]).encode(
                "utf-8", errors="surrogateescape"
            )
    return data


# --------------------------------------------------------------------------------------------
# Memory (Linux /proc)


def _status_bytes(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name):
            return int(line.split()[1]) * 1024
    return 0


def memory_now() -> int:
    """This process's resident memory in bytes."""
    return _status_bytes("VmRSS:")


def peak_memory() -> int:
    """This process's peak resident memory in bytes since the last `reset_peak_memory`."""
    return _status_bytes("VmHWM:")


def reset_peak_memory() -> bool:
    """Reset the peak to the current resident memory; False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True
