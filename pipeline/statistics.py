"""Every player statistic, declared once.

A statistic is a ratio (or a sum) of *counts*; a count is an aggregate over the rows of
``fct_hand_players`` (one row per hand and player: chance and done flags, put-in, collected,
...). From these declarations come, and only from them:

- the count columns of ``sql/fct_player_counts.sql`` (its ``-- @counts`` line),
- the statistic columns of ``sql/rpt_player_stats.sql`` (its ``-- @statistics`` line),
- the columns ``hilo stats`` prints (`STAT_COLUMNS`, `TABLE_COLUMNS`),
- the report's labels and number formats (`LABELS`, `PLAIN_NUMBERS`),
- the statistics tables of ``docs/stats.md`` (``python -m pipeline.statistics docs/stats.md``
  writes them; a test compares).

A count a statistic introduces is declared with the first statistic that uses it; later
statistics name it in their SQL. Counts are exact integers (``::bigint``) except the two
big-blind sums, which are floats.
"""

from __future__ import annotations

import re
import sys
import textwrap
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "COUNTS",
    "Count",
    "Format",
    "LABELS",
    "PLAIN_NUMBERS",
    "STATISTICS",
    "STAT_COLUMNS",
    "Statistic",
    "TABLE_COLUMNS",
    "counts_sql",
    "docs_table",
    "expand_markers",
    "statistics_sql",
]


@dataclass(frozen=True)
class Count:
    """A column of ``fct_player_counts``: an aggregate over ``fct_hand_players`` rows."""

    name: str
    sql: str
    label: str = ""  # where the report shows the count itself


def flagged(name: str, flag: str, label: str = "") -> Count:
    """The number of hands where the boolean SQL expression ``flag`` is true."""
    return Count(name, f"count_if({flag})::bigint", label)


def summed(name: str, column: str) -> Count:
    """The exact integer sum of a per-hand count."""
    return Count(name, f"sum({column})::bigint")


class Format(Enum):
    """How the report prints a value: a ratio as a percentage, a number, or money."""

    RATIO = "ratio"
    NUMBER = "number"
    MONEY = "money"


@dataclass(frozen=True)
class Statistic:
    """One output column of ``rpt_player_stats`` and ``hilo stats``.

    ``sql`` computes it from counts (its own and earlier statistics'); ``done``, ``chance``
    and ``notes`` are its definition as the docs print it (``chance`` empty for a sum);
    ``hilo`` puts it in the Hi/Lo table of the docs, whose denominator is the player's
    showdowns the audit paid.
    """

    name: str
    label: str
    sql: str
    counts: tuple[Count, ...]
    done: str
    chance: str = ""
    notes: str = ""
    format: Format = Format.RATIO
    in_table: bool = False
    hilo: bool = False


def ratio(
    name: str,
    label: str,
    done: Count,
    chance: Count | str,
    definition: tuple[str, str],
    notes: str = "",
    **options: bool,
) -> Statistic:
    """A statistic of the usual form: done ÷ chances, null without a chance.

    ``chance`` is a new count or the name of one declared by an earlier statistic.
    """
    counts = (done,) if isinstance(chance, str) else (done, chance)
    denominator = chance if isinstance(chance, str) else chance.name
    return Statistic(
        name,
        label,
        f"{done.name} / nullif({denominator}, 0)",
        counts,
        definition[0],
        definition[1],
        notes,
        **options,  # type: ignore[arg-type]
    )


def hilo_share(
    name: str,
    label: str,
    done: Count,
    definition: str,
    showdowns: Count | str = "hilo_showdowns",
    in_table: bool = False,
) -> Statistic:
    """A Hi/Lo result per showdown the audit paid (``hilo_showdowns``)."""
    return ratio(name, label, done, showdowns, (definition, ""), hilo=True, in_table=in_table)


def _money(total: str) -> str:
    """A minor-unit total as a decimal in currency units (cents for a money scale of 100)."""
    return textwrap.dedent(f"""\
        case
            when money_scale = 100
                then cast(cast({total}
                    as decimal(18, 0)) * 0.01 as decimal(18, 2))
            else cast({total} as decimal(18, 2))
        end""")


STATISTICS: tuple[Statistic, ...] = (
    Statistic(
        "vpip",
        "VPIP",
        "vpip_hands / nullif(hands - walks, 0)",
        (flagged("walks", "is_walk"), flagged("vpip_hands", "is_vpip")),
        "put chips in voluntarily preflop: a call, bet or raise (completing the SB counts)",
        "hands − walks; a **walk** is a hand with no preflop decision (folded round to the big"
        " blind, or all in from a post)",
        "The BB checking his option is not VPIP; calling a raise from a blind is. Folded blinds"
        " stay in the denominator (PT4, classic fpdb; fpdb-3 drops them).",
        in_table=True,
    ),
    ratio(
        "pfr",
        "PFR",
        flagged("pfr_hands", "is_pfr"),
        flagged("pfr_chances", "pfr_chance"),
        (
            "raised preflop",
            "two or more preflop decisions, or one where a raise was possible: chips left above"
            " the amount to call and, in fixed limit, the betting not capped (4 bets with 3 or"
            " more players dealt; no cap heads-up)",
        ),
        "PT4 / fpdb `street0Aggr` over `street0AggrChance`. An all-in-for-less single call, or a"
        " single call of a capped pot, has no chance.",
        in_table=True,
    ),
    ratio(
        "three_bet",
        "3-Bet",
        flagged("three_bets", "made_three_bet"),
        flagged("three_bet_chances", "faced_two_bet"),
        (
            "made the 3-bet (the second raise)",
            "faced exactly one raise (a decision after the open and up to the 3-bet; not the"
            " opener's own)",
        ),
        "PT4.",
        in_table=True,
    ),
    ratio(
        "fold_to_three_bet",
        "Fold to 3-Bet",
        flagged("three_bet_folds", "folded_to_three_bet"),
        flagged("fold_to_three_bet_chances", "faced_three_bet"),
        (
            "folded to the 3-bet",
            "faced exactly two raises (any player: the opener, a cold caller, a blind)",
        ),
        "PT4 default. `fold_to_three_bet_opener` is the fpdb variant (the opener only).",
    ),
    ratio(
        "fold_to_three_bet_opener",
        "Fold to 3-Bet (opener)",
        flagged("opener_three_bet_folds", "is_opener and folded_to_three_bet"),
        flagged("opener_fold_to_three_bet_chances", "is_opener and faced_three_bet"),
        ("folded to the 3-bet", "the opener (the 2-bet's maker) faced exactly two raises"),
        "fpdb.",
    ),
    ratio(
        "four_bet",
        "4-Bet",
        flagged("four_bets", "made_four_bet"),
        flagged("four_bet_chances", "faced_three_bet_or_more"),
        (
            "raised facing two or more raises (4-bet or more)",
            "faced two or more raises, cold included",
        ),
        "PT4; fpdb counts the opener only and cold 4-bets apart.",
    ),
    ratio(
        "steal",
        "Steal",
        flagged("steals", "made_steal"),
        flagged("steal_chances", "steal_chance"),
        (
            "open-raised",
            "CO, BTN or SB with every earlier player folded (no limper) at the first decision",
        ),
        "A limper kills the chance; completing from the SB is not a steal. Heads-up every"
        " button (SB) hand is a chance.",
    ),
    ratio(
        "fold_to_steal",
        "Fold to Steal",
        flagged("steal_folds", "folded_to_steal"),
        flagged("fold_to_steal_chances", "fold_to_steal_chance"),
        (
            "folded",
            "SB or BB whose first decision faces a steal (an open from CO, BTN or SB with"
            " nobody in before) and nobody else has called or raised",
        ),
        "BB against an SB steal counts; a blind facing a steal and a caller has no chance.",
    ),
    ratio(
        "limp",
        "Limp",
        flagged("limps", "made_limp"),
        flagged("limp_chances", "limp_chance"),
        (
            "called at the first decision",
            "first decision in an unraised pot with chips to call (not the BB checking his"
            " option)",
        ),
        "fpdb-3 computes (vpip − pfr) / vpip chances, which counts cold calls. An open raise"
        " uses the chance without limping.",
    ),
    ratio(
        "cold_call",
        "Cold call",
        flagged("cold_calls", "made_cold_call"),
        flagged("cold_call_chances", "faced_two_bet_cold"),
        (
            "called the 2-bet",
            "faced the 2-bet at the first decision with no chips in (no blind, no limp)",
        ),
        "From a secondary source (a PT4 report export), not a tracker's documentation. Calling"
        " a 3-bet cold is not counted here.",
    ),
    Statistic(
        "af",
        "AF",
        "(postflop_bets + postflop_raises) / nullif(postflop_calls, 0)",
        (
            summed("postflop_bets", "postflop_bets"),
            summed("postflop_raises", "postflop_raises"),
            summed("postflop_calls", "postflop_calls"),
            summed("postflop_folds", "postflop_folds"),
        ),
        "postflop bets + raises",
        "postflop calls",
        "PT4/HM; null with no call. fpdb counts streets with aggression instead.",
        format=Format.NUMBER,
        in_table=True,
    ),
    Statistic(
        "afq",
        "AFq",
        textwrap.dedent("""\
            (postflop_bets + postflop_raises)
            / nullif(
                postflop_bets + postflop_raises + postflop_calls + postflop_folds, 0
            )"""),
        (),
        "postflop bets + raises",
        "postflop bets + raises + calls + folds",
        "PT4 (a player folds at most once); HM's \"Agg %\" uses checks, not folds.",
        format=Format.NUMBER,
    ),
    ratio(
        "flop_cbet",
        "C-bet flop",
        flagged("flop_cbets", "made_flop_cbet"),
        flagged("flop_cbet_chances", "flop_cbet_chance"),
        (
            "bet the flop",
            "the last preflop raiser, with a flop decision and no bet in front of it",
        ),
        "A donk bet (someone else bets first) kills the chance; a preflop all-in aggressor has"
        " no flop decision, so no chance. PT4 (a chain); fpdb-3 counts the preflop aggressor on"
        " every street and ignores donk bets, classic fpdb the last bettor of the previous"
        " street.",
    ),
    ratio(
        "turn_cbet",
        "C-bet turn",
        flagged("turn_cbets", "made_turn_cbet"),
        flagged("turn_cbet_chances", "turn_cbet_chance"),
        (
            "bet the turn",
            "made the flop c-bet, with a turn decision and no bet in front",
        ),
        "The chain. A raise of the flop c-bet does not remove the chance.",
    ),
    ratio(
        "fold_to_flop_cbet",
        "Fold to flop c-bet",
        flagged("flop_cbet_folds", "folded_to_flop_cbet"),
        flagged("fold_to_flop_cbet_chances", "fold_to_flop_cbet_chance"),
        (
            "folded to it",
            "the flop's first bet was a c-bet and the player faced it with no raise between (a"
            " decision facing exactly that one bet)",
        ),
    ),
    ratio(
        "fold_to_turn_cbet",
        "Fold to turn c-bet",
        flagged("turn_cbet_folds", "folded_to_turn_cbet"),
        flagged("fold_to_turn_cbet_chances", "fold_to_turn_cbet_chance"),
        ("as above on the turn", "the turn's first bet was the chain's turn c-bet"),
    ),
    ratio(
        "flop_check_raise",
        "Check-raise flop",
        flagged("flop_check_raises", "made_flop_check_raise"),
        flagged("flop_check_raise_chances", "flop_check_raise_chance"),
        ("raised after checking the flop", "checked the flop, then faced a bet"),
    ),
    ratio(
        "check_raise",
        "Check-raise",
        summed("check_raises", "check_raises"),
        summed("check_raise_chances", "check_raise_chances"),
        (
            "check-raises, all postflop streets",
            "streets where the player checked, then faced a bet",
        ),
        "One chance per street.",
    ),
    ratio(
        "wtsd",
        "WTSD",
        flagged("showdowns", "went_to_showdown", "Went to showdown"),
        flagged("flops_seen", "saw_flop"),
        (
            "went to showdown",
            "saw the flop (in the hand when the flop came, preflop all-ins included)",
        ),
        in_table=True,
    ),
    ratio(
        "wsd",
        "W$SD",
        flagged("showdowns_won", "won_at_showdown"),
        "showdowns",
        ("won any money at the showdown", "went to showdown"),
        "Any share counts, a quarter even at a net loss: higher in O8 than in hold'em. fpdb"
        " `wonAtSD` is the same.",
        in_table=True,
    ),
    ratio(
        "wwsf",
        "W$WSF",
        flagged("flops_won", "saw_flop and collected > 0"),
        "flops_seen",
        ("collected any money", "saw the flop"),
    ),
    Statistic(
        "won_without_showdown",
        "Won without showdown",
        "won_without_showdown_hands / hands",
        (flagged("won_without_showdown_hands", "won_without_showdown"),),
        "collected without a showdown",
        "hands",
    ),
    Statistic(
        "saw_flop",
        "Saw flop",
        "flops_seen / hands",
        (),
        "saw the flop (in the hand when the flop came)",
        "hands",
        "PT4's \"Saw Flop\"; walks count in the hands.",
    ),
    Statistic(
        "net_won",
        "Net won",
        _money("net_won_minor"),
        (Count("net_won_minor", "cast(sum(net_won) as bigint)", "Net won"),),
        "Σ (collected − chips put in)",
        "",
        "After rake; uncalled bets returned are not put in. Exact integer sum in the minor unit"
        " (`net_won_minor`), shown in currency units.",
        format=Format.MONEY,
        in_table=True,
    ),
    Statistic(
        "bb_per_100",
        "bb/100",
        "100 * net_won_big_blinds / hands",
        (Count("net_won_big_blinds", "sum(net_won / big_blind)"),),
        "100 × Σ (net won ÷ that hand's big blind)",
        "hands",
        "Per-hand conversion, so mixed stakes add up; PT4 divides by the big blind in every"
        " game, so at a $2/$4 limit game ($1/$2 blinds) this is small bets per 100.",
        format=Format.NUMBER,
        in_table=True,
    ),
    Statistic(
        "big_bets_per_100",
        "Big bets/100",
        "100 * net_won_big_bets / hands",
        (Count("net_won_big_bets", "sum(net_won / big_bet)"),),
        "100 × Σ (net won ÷ that hand's big bet)",
        "hands",
        "The limit convention (fpdb `BBper100`); pot and no limit use 2 × big blind as the big"
        " bet.",
        format=Format.NUMBER,
    ),
    Statistic(
        "rake_paid",
        "Rake paid",
        _money("round(rake_paid_micros / 1000000)"),
        (summed("rake_paid_micros", "rake_paid_micros"),),
        "the player's share of the rake",
        "",
        "See below.",
        format=Format.MONEY,
    ),
    hilo_share(
        "scoop_pct",
        "Scoop (of showdowns)",
        flagged("scoops", "is_scoop"),
        "was the sole collector of the main pot: both halves alone, or the whole pot alone",
        flagged("hilo_showdowns", "is_hilo_showdown"),
        in_table=True,
    ),
    hilo_share(
        "high_only_pct",
        "High only",
        flagged("high_only_wins", "is_high_only"),
        "the pot was halved (a low qualified) and the player collected (a share of) the high"
        " half only",
    ),
    hilo_share(
        "low_only_pct",
        "Low only",
        flagged("low_only_wins", "is_low_only"),
        "the pot was halved and the player collected (a share of) the low half only",
    ),
    hilo_share(
        "quartered_pct",
        "Quartered",
        flagged("quartered", "is_quartered"),
        "collected one half only, shared with exactly one other winner: a quarter of the pot"
        " (half of a half is \"quartered\")",
    ),
    hilo_share(
        "three_quartered_pct",
        "Three-quartered",
        flagged("three_quartered", "is_three_quartered"),
        "collected both halves but not alone (e.g. the high alone and half of the low: ¾)",
    ),
    hilo_share(
        "chopped_pct",
        "Chopped (no low)",
        flagged("chopped", "is_chopped"),
        "shared the whole pot with one or more players (no low, or identical hands both ways)",
    ),
    hilo_share(
        "won_high_pct",
        "Won high (any share)",
        flagged("high_wins", "won_high"),
        "collected from the high half, any share (a whole pot counts as the high)",
    ),
    hilo_share(
        "won_low_pct",
        "Won low (any share)",
        flagged("low_wins", "won_low"),
        "collected from the low half, any share",
    ),
    Statistic(
        "pot_share_at_showdown",
        "Pot share at showdown",
        "showdown_main_pots_collected / nullif(showdown_main_pots, 0)",
        (
            Count(
                "showdown_main_pots_collected",
                "cast(sum(main_pot_collected) filter (where is_hilo_showdown) as bigint)",
            ),
            Count(
                "showdown_main_pots",
                "cast(sum(main_pot_amount) filter (where is_hilo_showdown) as bigint)",
            ),
        ),
        "Σ main pot collected ÷ Σ main pots contested at showdowns (the \"generalised"
        " quarter\")",
        hilo=True,
    ),
)


def _declared_counts() -> tuple[Count, ...]:
    declared: dict[str, Count] = {}
    for statistic in STATISTICS:
        for count in statistic.counts:
            if count.name in declared:
                raise ValueError(f"count {count.name!r} is declared twice")
            declared[count.name] = count
    return tuple(declared.values())


COUNTS = _declared_counts()
# ``hilo stats`` columns without ``--counts`` (``group_value`` is renamed after ``--by``).
STAT_COLUMNS = ("player", "site", "currency", "group_value", "hands") + tuple(
    statistic.name for statistic in STATISTICS
)
# The statistics the text table of ``hilo stats`` prints after the hands.
TABLE_COLUMNS = tuple(statistic.name for statistic in STATISTICS if statistic.in_table)
LABELS = {
    "hands": "Hands",
    **{statistic.name: statistic.label for statistic in STATISTICS},
    **{count.name: count.label for count in COUNTS if count.label},
}
PLAIN_NUMBERS = frozenset(s.name for s in STATISTICS if s.format is Format.NUMBER)
MONEY = frozenset(s.name for s in STATISTICS if s.format is Format.MONEY)

# -- the generated SQL -----------------------------------------------------------------------------

_INDENT = " " * 8
_LINE = 80  # the models' line limit
_MARKER = re.compile(r"^[ ]*-- @(counts|statistics)$", re.MULTILINE)


def _select_column(sql: str, name: str) -> str:
    lines = f"{textwrap.indent(sql, _INDENT)} as {name},"
    if len(lines.splitlines()[-1]) <= _LINE:
        return lines
    return f"{textwrap.indent(sql, _INDENT)}\n{_INDENT}    as {name},"


def counts_sql() -> str:
    """The count columns of ``fct_player_counts``' select, one per declared count."""
    return "\n".join(_select_column(count.sql, count.name) for count in COUNTS)


def statistics_sql() -> str:
    """The statistic columns of ``rpt_player_stats``' final select."""
    return "\n".join(_select_column(s.sql, s.name) for s in STATISTICS)


def expand_markers(text: str) -> str:
    """A model's SQL with its ``-- @counts`` or ``-- @statistics`` line replaced by the columns."""
    generated = {"counts": counts_sql, "statistics": statistics_sql}
    return _MARKER.sub(lambda found: generated[found.group(1)](), text)


# -- the docs tables -------------------------------------------------------------------------------

# ``docs/stats.md`` holds each table between a begin marker naming it and the end marker.
DOCS_BEGIN = "<!-- generated from pipeline/statistics.py: {table} -->"
DOCS_END = "<!-- end of generated table -->"
DOCS_TABLES = ("statistics", "hilo")


def docs_table(table: str) -> str:
    """The ``statistics`` or ``hilo`` table of ``docs/stats.md`` in Markdown."""

    def row(*cells: str) -> str:
        return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"

    if table == "hilo":
        lines = ["| Column | Label | Numerator: at a showdown, the player… |", "|---|---|---|"]
        lines += [row(f"`{s.name}`", s.label, s.done) for s in STATISTICS if s.hilo]
        return "\n".join(lines)
    lines = [
        "| Column | Label | Numerator (done) | Denominator (opportunity) | Notes, differences |",
        "|---|---|---|---|---|",
        row("`hands`", LABELS["hands"], "hands dealt in", "—", ""),
    ]
    lines += [
        row(f"`{s.name}`", s.label, s.done, s.chance or "—", s.notes)
        for s in STATISTICS
        if not s.hilo
    ]
    return "\n".join(lines).replace(" |  |", " | |")


def with_docs_tables(text: str) -> str:
    """``docs/stats.md``'s text with every generated table written anew."""
    for table in DOCS_TABLES:
        begin = DOCS_BEGIN.format(table=table)
        start = text.index(begin) + len(begin)
        end = text.index(DOCS_END, start)
        text = f"{text[:start]}\n{docs_table(table)}\n{text[end:]}"
    return text


if __name__ == "__main__":
    # ``python -m pipeline.statistics docs/stats.md`` writes the file's tables anew.
    from pathlib import Path

    for argument in sys.argv[1:]:
        path = Path(argument)
        path.write_text(with_docs_tables(path.read_text(encoding="utf-8")), encoding="utf-8")
