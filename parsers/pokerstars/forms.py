"""What PokerStars prints: the line forms both readers read, and the site's constants.

The block parser also reads text written in PokerStars' forms by another room's software (a
`Dialect`: its own site code, the word its headers open with, the games it names, the lines of
its own it prints); `STARS` is PokerStars' own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from parsers.engine.line_forms import LineForm

SITE = "pokerstars"
# The games read, by the name the header prints (`parsers.games` codes); any other is skipped.
GAME_NAMES = {
    "Omaha Hi/Lo": "O8",
    "5 Card Omaha Hi/Lo": "O8-5card",
    "6 Card Omaha Hi/Lo": "O8-6card",
    "Courchevel Hi/Lo": "Courchevel-HL",
}

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
# A street line's cards: ``*** FLOP *** [7h 5d 3s]``, ``*** FLOP *** [8s] [2c 9h]`` (Courchevel's
# exposed card apart), ``*** TURN *** [8s 2c 9h] [6s]``, ``*** PRE-FLOP *** [7h]`` (Courchevel).
STREET_CARDS = r"^\*\*\* [A-Z -]+? \*\*\* (?P<cards>\[[^\]]*\](?: \[[^\]]*\])*)$"

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

# Only literal tests run over every line; each kind's regular expression runs later on its own
# lines (a line it does not confirm becomes unknown).
LINE_FORMS = (
    LineForm(KIND_HEADER, where="start"),
    LineForm(KIND_BLANK, equals=""),
    LineForm(KIND_MARKER, where="marker"),
    LineForm(KIND_TABLE, starts="Table '"),
    LineForm(KIND_SEAT, starts="Seat ", where="setup"),
    LineForm(KIND_DEALT, starts="Dealt to "),
    LineForm(KIND_UNCALLED, starts="Uncalled bet ("),
    LineForm(KIND_TOTAL, starts="Total pot ", where="summary"),
    LineForm(KIND_BOARD, contains="Board [", where="summary"),
    LineForm(KIND_SUMMARY_MUCK, contains=" mucked [", where="summary"),
    LineForm(KIND_COLLECTED, contains=" collected ", where="body"),
    LineForm(KIND_ACTION, contains=": ", where="body"),
)
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


@dataclass(frozen=True)
class Dialect:
    """Text in PokerStars' forms as one room writes it: what the block parser needs to know.

    ``room`` is the word its hand headers open with (``PokerStars Hand #…``); ``game_names``
    the games it reads (`parsers.games` codes by printed name); ``informational`` its known
    lines that carry nothing the tables need; ``kept_lines`` lines of its own stored as notes of
    kind ``kept_kind`` whatever they hold (a converter's comment with numbers in it), never
    judged as unknown lines.
    """

    site: str
    room: str
    game_names: Mapping[str, str]
    informational: str = INFORMATIONAL
    kept_lines: str | None = None
    kept_kind: str | None = None

    @property
    def hand_start(self) -> str:
        """The pattern of a hand's first line."""
        return HAND_START.replace("^PokerStars ", f"^{re.escape(self.room)} ", 1)

    @property
    def header(self) -> str:
        """The pattern of a hand's header line (the groups of `HEADER`)."""
        return HEADER.replace("^PokerStars ", f"^{re.escape(self.room)} ", 1)


STARS = Dialect(site=SITE, room="PokerStars", game_names=GAME_NAMES)
