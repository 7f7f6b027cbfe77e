"""PartyPoker hands in the 2023 layout (``0.05/0.10 Omaha Hi/Lo Game Table (PL) - …``): their
line forms and their extraction into `BlockParts` (see `modern_parts` for what they print)."""

from __future__ import annotations

import polars as pl

from parsers.columns import holds_a_null, local_time_to_utc
from parsers.engine.betting import ordered_actions
from parsers.engine.assembly import showdown_rows
from parsers.engine.block_parts import (
    EMPTY_CARDS,
    LIVE_KINDS,
    BlockParts,
    amount_value,
    card_codes,
    deal_board,
    first_per_hand,
    folded_excess_returns,
    sections,
    street_totals,
    unknown_lines,
)
from parsers.engine.checks import first_problem
from parsers.engine.line_forms import LineForm, kind_fields, kinds_of
from parsers.partypoker.common import (
    HISTORY_LINE,
    PARTY_DEALT,
    PARTY_PLAYERS,
    PARTY_VERBS,
    posted_blinds,
)

__all__ = ["modern_hand_numbers", "modern_parts"]

O8_MODERN_GAMES = ("Omaha Hi/Lo", "Omaha Hi-Lo")
# The line after the history line names a "Game Table" only in the 2023 layout.
_MODERN_SHAPE = r"\bGame Table\b"
_AMOUNT = r"[$€£]?\d[\d,]*(?:\.\d+)?"
# "0.05/0.10 Omaha Hi/Lo Game Table (PL) - Sun Feb 19 13:45:49 EST 2023"; tournaments
# "30/60 Tourney Texas Holdem Game Table (NL) (SNG JackPot Tournament #404130489)
# (Buyin $4.6 + $0.4) - Wed Jan 08 11:09:55 EST 2025" (other exports of the same layout).
MODERN_HEADER = (
    r"^(?P<stakes>[$€£]?[\d.,]+/[$€£]?[\d.,]+) (?:Tourney )?(?P<game>.+?) Game Table"
    r" \((?P<limit>FL|PL|NL)\)"
    r"(?: \((?P<tournament_kind>[^()]+?) Tournament #(?P<tournament_id>\d+)\))?"
    r"(?: \(Buyin (?P<buy_in>[^()]+)\))?"
    r" +- +[A-Z][a-z]{2} (?P<month>[A-Z][a-z]{2}) (?P<day>\d{1,2}) (?P<time>\d{1,2}:\d{2}:\d{2})"
    r" (?P<zone>[A-Z]+) (?P<year>\d{4})$"
)
# The game named by a header, understood or not: another game is skipped, not rejected.
_MODERN_GAME = r"^[$€£]?[\d.,]+/[$€£]?[\d.,]+ (?:Tourney )?(.+?) Game Table\b"
MODERN_TABLE = (
    r"^Table (?P<table_name>.+?) +\((?:Real|Play) Money\)"
    r" -- Seat (?P<button_seat>\d+) is the button$"
)
MODERN_SEAT = rf"^Seat (?P<seat>\d+): (?P<player>.+) \((?P<stack>{_AMOUNT})\)$"
MODERN_DEAL = (
    r"^\*\* Dealing (?P<street>down cards|Flop|Turn|River) \*\*(?: : +\[(?P<cards>[^\]]*)\])?$"
)
# Amounts in parentheses ("calls (0.30)") or bare ("calls 8070", "raises 0.35 to 0.40").
MODERN_ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind \+ dead|posts big blind"
    r"|posts ante|calls|bets|raises|checks|folds)"
    rf"(?: \((?P<amount>{_AMOUNT})\)| (?P<bare>{_AMOUNT})(?: to (?P<to>{_AMOUNT}))?)?$"
)
MODERN_ALL_IN = r"^(?P<player>.+?) is all-In\.?$"
# "Creating Main Pot with $ 38.50 with Player2, Hero" (printed when a player is all-in).
MODERN_POT_CREATED = (
    r"^Creating (?P<pot>Main Pot|Side Pot \d+) with +(?P<amount>[$€£]? ?\d[\d,]*(?:\.\d+)?)"
    r" with (?P<players>.+)$"
)
MODERN_SUMMARY = r"^\*\* Summary \*\*$"
MODERN_POTS = (
    rf"^Main Pot: {_AMOUNT}(?: Side Pot \d+: {_AMOUNT})*(?: Rake: (?P<rake>{_AMOUNT}))?$"
)
_MODERN_POT_PART = rf"(?:Main|Side) Pot(?: \d+)?: {_AMOUNT}"
MODERN_BOARD = r"^Board: \[(?P<cards>[^\]]*)\]$"
# "Player1 balance $14.91, bet $0.97, collected $2.23, net +$1.26[ Ad, 5c, 4s, Th ]
# [ a pair of aces -- Ad,As,Kc,Th,8h ]"; "P balance $4.59, lost $0.40 (folded)"; "P balance
# $21.97, didn't bet (folded)"; "P balance 153140, sits out". A cash-out ("P Cashed out balance
# …") is not read: the site paid it, not the pot, and the hand is quarantined.
MODERN_RESULT = (
    rf"^(?P<player>.+?) balance (?P<balance>{_AMOUNT}), (?:"
    r"(?P<sits>sits out)"
    r"|(?P<no_bet>didn't bet) \(folded\)"
    rf"|lost (?P<lost>{_AMOUNT})(?P<lost_folded> \(folded\))?"
    rf"|bet (?P<bet>{_AMOUNT}), collected (?P<collected>{_AMOUNT}), net (?P<net>[+-]?{_AMOUNT})"
    r")(?: ?\[(?P<cards>[^\]]*)\](?: \[ ?(?P<desc>[^\]]*?) ?\])?)?$"
)
_MODERN_STREETS = {"down cards": 0, "Flop": 1, "Turn": 2, "River": 3}
_CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP"}
# Lines that belong before the summary, and lines of the summary.
_BODY_KINDS = ("table", "players", "seat", "deal", "dealt", "all_in", "action", "pot_created")
_SUMMARY_KINDS = ("pots", "board", "result")
# Lines a hand prints once.
_SINGLE_KINDS = ("table", "players", "summary", "pots", "board")


def modern_hand_numbers(frame: pl.DataFrame) -> pl.DataFrame:
    """Hands (``hand``) whose history line is followed by a 2023-layout header."""
    return (
        frame.filter(pl.col("hand") >= 0)
        .with_columns(  # the next line of the hand: its lines are consecutive rows
            next_line=pl.when(pl.col("hand").shift(-1) == pl.col("hand")).then(
                pl.col("line").shift(-1)
            )
        )
        .filter(
            pl.col("line").str.contains(HISTORY_LINE)
            & pl.col("next_line").fill_null("").str.contains(_MODERN_SHAPE)
        )
        .select("hand")
        .unique()
    )


def _first_reason(frame: pl.DataFrame, reason: pl.Expr) -> pl.DataFrame:
    """One (hand, reason) per hand: the first row's (rows in line order)."""
    return (
        frame.select("hand", reason=reason)
        .filter(pl.col("reason").is_not_null())
        .unique("hand", keep="first", maintain_order=True)
    )


def modern_parts(frame: pl.DataFrame) -> BlockParts:
    """Hands in the 2023 layout (``***** Hand History For Game 1676832422659jxi26omnah *****``).

    - Header ``0.05/0.10 Omaha Hi/Lo Game Table (PL) - Sun Feb 19 13:45:49 EST 2023``: the
      stakes are the blinds at pot and no limit (presumably the bets at fixed limit, as in the
      older layouts: the blinds then come from the posts); no currency is printed, so a cash
      hand's currency is the symbol of its seat amounts (``Seat 1: Player6 ($4.99)``), and a
      hand without one is quarantined. Another game (``Omaha Hi``, ``Texas Holdem``) is skipped.
    - ``Table Fremont 14 (Real Money) -- Seat 1 is the button`` holds table and button.
    - Action amounts carry no currency: ``calls (0.30)`` and ``bets (0.57)`` add what they say;
      ``raises 0.35 to 0.40`` is read by its street total (0.40): the first number is the chips
      added in some real exports and the raise over the bet faced in others, so it is never
      used (the summary balances check every player's chips). ``P is all-In.`` marks the
      player's action before it.
    - The body prints no payout. The summary does: ``Main Pot: $2.23 Rake: $0.11`` (the pot is
      net of the rake: $2.34 was put in; ``Side Pot n: $x`` parts may follow the main pot), the
      board again, and one line per seated player with the balance after the hand and what the
      player put in and collected, the shown cards and the high hand's description. A
      ``collected`` amount is the player's total over pots and halves (no pot or half named),
      and it includes a bet nobody called, as the older layouts' ``wins``: it is stored as the
      player's one collection (``pot_index`` and ``half`` null).
    - ``hands.total_pot`` holds the sum of the printed pots (``Main Pot`` plus any ``Side Pot
      n``) as printed: net of the rake, and without the unmatched bets that ``collected``
      includes; ``hands.side_pots`` the printed pots when there is more than one; ``hands.rake``
      the printed rake (null when the site prints none, as in tournaments).
    - Every summary line is checked against the actions: chips put in (less a silent return)
      = start stack − balance + collected, and ``bet``/``lost``/``didn't bet``/``net`` agree;
      a ``Creating Main Pot with …`` line must name the summary's amount; the summary board
      must be the board dealt; the five cards of a description must be the player's or the
      board's. A hand whose text contradicts itself is quarantined.
    - ``P balance 153140, sits out``: the seat was not dealt in (``sitting_out``).
    """
    lines = _classified_lines(frame)
    parsed = _header_fields(lines)
    scale_of = parsed.select("hand", "money_scale")
    seat_fields = kind_fields(lines, "seat", MODERN_SEAT, "hand").join(
        scale_of, on="hand", how="left"
    )
    stacks = seat_fields.select(
        "hand", "player", stack_start=amount_value(pl.col("stack"), pl.col("money_scale"))
    ).unique(["hand", "player"], keep="first")
    acts, action_problems = _body_actions(lines, scale_of)
    hands = _hand_rows(parsed, lines, acts, stacks, _seat_currency(seat_fields), scale_of)
    results, unreadable_results = _summary_results(lines, scale_of)
    collections, showdowns, summary_actions = _summary_rows(results)
    actions, put_in = _with_chips_put_in(
        pl.concat([_with_dead_blinds(acts, hands), summary_actions], how="vertical_relaxed")
    )
    return BlockParts(
        frame=frame,
        headers=parsed.select("hand", "hand_id", "header_ok", "game", "is_o8"),
        hands=hands.drop("summary_board", "bad_pots"),
        seats=_seat_rows(seat_fields, results),
        actions=actions,
        collections=collections,
        showdowns=showdowns,
        sightings=_sightings(lines, results),
        problems=[
            _structure_problems(hands, lines, collections),
            *action_problems,
            unreadable_results,
            *_summary_line_problems(results, stacks, put_in, seat_fields),
            _pot_problems(lines, scale_of, stacks),
            _placement_problems(lines),
            _description_problems(results, hands),
        ],
        unknown_lines=unknown_lines(lines),
    )


def _seat_currency(seat_fields: pl.DataFrame) -> pl.DataFrame:
    """Per hand, the currency of the one symbol its seat amounts carry (null if several, or a
    bare amount: the 2023 layout prints no currency elsewhere)."""
    symbols = seat_fields.group_by("hand").agg(
        symbols=pl.col("stack").str.extract(r"^([$€£])", 1).drop_nulls().unique(),
        bare=pl.col("stack").str.contains(r"^\d").any(),
    )
    return symbols.select(
        "hand",
        symbol_currency=pl.when((pl.col("symbols").list.len() == 1) & ~pl.col("bare")).then(
            pl.col("symbols")
            .list.first()
            .replace_strict(_CURRENCIES, default=None, return_dtype=pl.String)
        ),
    )


def _body_actions(
    lines: pl.DataFrame, scale_of: pl.DataFrame
) -> tuple[pl.DataFrame, list[pl.DataFrame]]:
    """The action lines with their amounts and all-in marks, and the problems of their text
    and of the ``P is all-In.`` lines."""
    scale = pl.col("money_scale")
    acts = (
        kind_fields(lines, "action", MODERN_ACTION, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            kind=pl.col("verb").replace_strict(PARTY_VERBS, default=None),
            amount_text=pl.coalesce("amount", "bare"),
        )
        .with_columns(
            amount=amount_value(pl.col("amount_text"), scale),
            to=amount_value(pl.col("to"), scale),
            is_all_in=pl.lit(False),
            sub=pl.lit(0),
        )
    )
    action_problems = _first_reason(
        acts.sort("hand", "line_no"),
        pl.when(pl.col("kind").is_in(["fold", "check"]) & pl.col("amount_text").is_not_null())
        .then(pl.lit("an amount on a fold or check: ") + pl.col("player"))
        .when((pl.col("kind") != "raise") & pl.col("to").is_not_null())
        .then(pl.lit("a street total on an action that is not a raise: ") + pl.col("player"))
        .when(pl.col("to").is_null() & pl.col("bare").is_not_null() & (pl.col("kind") == "raise"))
        .then(pl.lit("a raise without its street total: ") + pl.col("player"))
        .when(pl.col("amount_text").is_not_null() & pl.col("amount").is_null())
        .then(pl.lit("unreadable amount: ") + pl.col("player")),
    )
    # "P is all-In." marks the player's last action before it.
    markers = (
        lines.filter(pl.col("kind") == "all_in")
        .select("hand", "line_no", player=pl.col("line").str.extract(MODERN_ALL_IN, 1))
        .sort("line_no")
    )
    marked = markers.join_asof(
        acts.filter(pl.col("kind").is_in(list(LIVE_KINDS)))
        .select("hand", "player", pl.col("line_no").alias("action_line"))
        .sort("action_line"),
        left_on="line_no",
        right_on="action_line",
        by=["hand", "player"],
        strategy="backward",
        check_sortedness=False,  # sorted by line number, so within each group too
    )
    all_in_problems = _first_reason(
        marked.sort("hand", "line_no"),
        pl.when(pl.col("action_line").is_null()).then(
            pl.lit("all-in line without a bet before it: ") + pl.col("player")
        ),
    )
    all_in_lines = marked.filter(pl.col("action_line").is_not_null()).select(
        "hand", line_no="action_line", marked=pl.lit(True)
    ).unique()
    acts = (
        acts.join(all_in_lines, on=["hand", "line_no"], how="left")
        .with_columns(is_all_in=pl.col("marked").fill_null(False))
        .drop("marked")
    )
    return acts, [action_problems, all_in_problems]


def _printed_pots(lines: pl.DataFrame, scale_of: pl.DataFrame) -> pl.DataFrame:
    """Per hand, the summary's pots (``printed_pots``), its ``rake`` and ``bad_pots``."""
    scale = pl.col("money_scale")
    return (
        lines.filter(pl.col("kind") == "pots")
        .unique("hand", keep="first", maintain_order=True)
        .join(scale_of, on="hand", how="left")
        .select(
            "hand",
            rake_text=pl.col("line").str.extract(MODERN_POTS, 1),
            pots=pl.col("line")
            .str.extract_all(_MODERN_POT_PART)
            .list.eval(pl.element().str.replace(r"^.*?: ", "")),
            money_scale="money_scale",
        )
        .explode("pots")
        .with_columns(pot=amount_value(pl.col("pots"), scale))
        .group_by("hand", maintain_order=True)
        .agg(
            printed_pots=pl.col("pot"),
            rake_text=pl.col("rake_text").first(),
            rake=amount_value(pl.col("rake_text").first(), pl.col("money_scale").first()),
            bad_pots=pl.col("pot").is_null().any(),
        )
        .with_columns(
            bad_pots=pl.col("bad_pots")
            | (pl.col("rake_text").is_not_null() & pl.col("rake").is_null())
        )
    )


def _hand_rows(
    parsed: pl.DataFrame,
    lines: pl.DataFrame,
    acts: pl.DataFrame,
    stacks: pl.DataFrame,
    currency_of: pl.DataFrame,
    scale_of: pl.DataFrame,
) -> pl.DataFrame:
    """One row per hand: stakes, blinds, table, boards, pots and time (plus the summary's
    board and ``bad_pots``, for the checks)."""
    scale = pl.col("money_scale")
    is_tournament = pl.col("tournament_id").is_not_null()
    full = (pl.col("amount") < pl.col("stack_start")).fill_null(True)
    posted = posted_blinds(acts.join(stacks, on=["hand", "player"], how="left"), full)
    stakes = pl.col("stakes").str.split("/")
    first_stake = amount_value(stakes.list.get(0, null_on_oob=True), scale)
    second_stake = amount_value(stakes.list.get(1, null_on_oob=True), scale)
    is_fixed = pl.col("limit") == "FL"
    summary_board = (
        lines.filter(pl.col("kind") == "board")
        .unique("hand", keep="first", maintain_order=True)
        .select(
            "hand",
            summary_board=card_codes(pl.col("line").str.extract(MODERN_BOARD, 1)).fill_null(
                EMPTY_CARDS
            ),
        )
    )
    return (
        parsed.join(posted, on="hand", how="left")
        .join(currency_of, on="hand", how="left")
        .join(first_per_hand(lines, "table", MODERN_TABLE), on="hand", how="left")
        .join(first_per_hand(lines, "players", PARTY_PLAYERS), on="hand", how="left")
        .join(deal_board(lines, MODERN_DEAL), on="hand", how="left")
        .join(summary_board, on="hand", how="left")
        .join(_printed_pots(lines, scale_of), on="hand", how="left")
        .join(
            lines.filter(pl.col("is_start")).select("hand", source_offset="offset"),
            on="hand",
            how="left",
        )
        .with_columns(
            # Pot and no limit: the stakes are the blinds. Fixed limit: the bets.
            small_bet=pl.when(is_fixed).then(first_stake),
            big_bet=pl.when(is_fixed).then(second_stake),
            small_blind=pl.when(is_fixed).then(pl.col("posted_sb")).otherwise(first_stake),
            big_blind=pl.when(is_fixed)
            .then(pl.coalesce(pl.col("posted_bb"), first_stake, pl.col("short_bb")))
            .otherwise(second_stake),
        )
        .select(
            "hand",
            "hand_id",
            "source_offset",
            "small_blind",
            "big_blind",
            "small_bet",
            "big_bet",
            "table_name",
            "summary_board",
            "bad_pots",
            tournament_id="tournament_id",
            limit_type="limit",
            currency=pl.when(is_tournament)
            .then(pl.lit("CHIPS"))
            .otherwise(pl.col("symbol_currency")),
            money_scale=pl.col("money_scale").cast(pl.Int32),
            ante=pl.col("posted_ante"),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            started_at=local_time_to_utc(
                pl.concat_str("year", "month", "day", "time", separator=" "),
                pl.col("zone"),
                fmt="%Y %b %d %H:%M:%S",
                zones=parsed["zone"].drop_nulls().unique().to_list(),
            ),
            time_zone="zone",
            level=pl.lit(None, dtype=pl.String),
            buy_in="buy_in",
            board=pl.col("board").fill_null(EMPTY_CARDS),
            # The printed pots as printed: see the docstring (net of rake and unmatched bets).
            total_pot=pl.col("printed_pots").list.sum(),
            rake="rake",
            side_pots=pl.when(pl.col("printed_pots").list.len() > 1).then(
                pl.col("printed_pots")
            ),
        )
    )


def _with_dead_blinds(acts: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """The actions with each ``posts big blind + dead`` made a dead post and a big blind (its
    amount beyond the big blind is dead), ``section`` renamed ``street``."""
    big_blind = hands.select("hand", "big_blind")
    both = acts.filter(pl.col("kind") == "post_both").join(big_blind, on="hand", how="left")
    action_columns = [
        "hand", "line_no", "sub", "section", "player", "kind", "amount", "to", "is_all_in"
    ]  # fmt: skip
    return pl.concat(
        [
            acts.filter(pl.col("kind") != "post_both").select(action_columns),
            both.with_columns(
                kind=pl.lit("post_dead"), amount=pl.col("amount") - pl.col("big_blind")
            ).select(action_columns),
            both.with_columns(
                kind=pl.lit("post_bb"), amount=pl.col("big_blind"), sub=pl.lit(1)
            ).select(action_columns),
        ],
        how="vertical_relaxed",
    ).rename({"section": "street"})


def _summary_results(
    lines: pl.DataFrame, scale_of: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The summary's player lines with their amounts, cards and description, and the
    problems of unreadable amounts."""
    scale = pl.col("money_scale")
    results = (
        kind_fields(lines, "result", MODERN_RESULT, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            balance_value=amount_value(pl.col("balance"), scale),
            lost_value=amount_value(pl.col("lost"), scale),
            bet_value=amount_value(pl.col("bet"), scale),
            collected_value=amount_value(pl.col("collected"), scale),
            net_value=amount_value(pl.col("net").str.strip_chars_start("+-"), scale)
            * pl.when(pl.col("net").str.starts_with("-")).then(-1).otherwise(1),
            folded=pl.col("no_bet").is_not_null() | pl.col("lost_folded").is_not_null(),
            sits_out=pl.col("sits").is_not_null(),
            cards=card_codes(pl.col("cards")),
            high_desc=pl.coalesce(
                pl.col("desc").str.extract(r"^(.*?) -- ", 1), pl.col("desc")
            ).str.strip_chars(),
            best_five=card_codes(pl.col("desc").str.extract(r" -- (.*)$", 1)),
        )
    )
    unreadable_results = _first_reason(
        results,
        pl.when(
            pl.col("balance_value").is_null()
            | (pl.col("lost").is_not_null() & pl.col("lost_value").is_null())
            | (pl.col("bet").is_not_null() & pl.col("bet_value").is_null())
            | (pl.col("collected").is_not_null() & pl.col("collected_value").is_null())
            | (pl.col("net").is_not_null() & pl.col("net_value").is_null())
        ).then(pl.lit("unreadable summary amount: ") + pl.col("player")),
    )
    return results, unreadable_results


def _summary_rows(results: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """From the summary's player lines: the collections, the showdowns, and the ``show`` and
    ``muck`` actions."""
    collections = results.filter(pl.col("collected_value").fill_null(0) > 0).select(
        "hand",
        "line_no",
        "player",
        amount="collected_value",
        pot_index=pl.lit(None, dtype=pl.Int8),
        half=pl.lit(None, dtype=pl.String),
        board_index=pl.lit(0, dtype=pl.Int8),
    )
    shown = results.filter(pl.col("cards").is_not_null() & ~pl.col("folded"))
    showdowns = showdown_rows(
        shown, high_desc=pl.when(pl.col("high_desc") != "").then(pl.col("high_desc"))
    )
    shows = shown.select(
        "hand", "line_no", sub=pl.lit(0), street="section", player="player",
        kind=pl.lit("show"), amount=pl.lit(None, dtype=pl.Int64), to=pl.lit(None, dtype=pl.Int64),
        is_all_in=pl.lit(False),
    )  # fmt: skip
    # A player who reached the end without folding, lost and showed nothing, while another
    # showed, gave the pot up: a muck.
    showers = shown.select("hand", shower="player").unique()
    mucks = (
        results.filter(
            pl.col("lost").is_not_null() & ~pl.col("folded") & pl.col("cards").is_null()
        )
        .join(showers, on="hand", how="inner")
        .filter(pl.col("shower") != pl.col("player"))
        .unique(["hand", "line_no"])
        .select(
            "hand", "line_no", sub=pl.lit(0), street="section", player="player",
            kind=pl.lit("muck"), amount=pl.lit(None, dtype=pl.Int64),
            to=pl.lit(None, dtype=pl.Int64), is_all_in=pl.lit(False),
        )  # fmt: skip
    )
    return collections, showdowns, pl.concat([shows, mucks], how="vertical_relaxed")


def _with_chips_put_in(actions: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The actions with the silent returns of folded bettors added, and per hand and player
    the chips put in (``put_in``) and the actions counted (``acted``)."""
    # Chips each player put in: raises are read by their street totals; a folded bettor's
    # unmatched chips come back silently (the summary's "lost" shows they did).
    derived = street_totals(ordered_actions(actions, "street"))
    returns = folded_excess_returns(
        derived.select("hand", "line_no", "street", "player", "kind", "amount")
    )
    actions = pl.concat([actions, returns.select(actions.columns)], how="vertical_relaxed")
    money_in = pl.col("kind").is_in([*LIVE_KINDS, "post_dead", "ante"])
    put_in = (
        pl.concat(
            [
                derived.select("hand", "player", "kind", "amount"),
                returns.select("hand", "player", "kind", "amount"),
            ],
            how="vertical_relaxed",
        )
        .group_by("hand", "player")
        .agg(
            put_in=(
                pl.col("amount").filter(money_in).sum()
                - pl.col("amount").filter(pl.col("kind") == "uncalled_return").sum()
            ),
            acted=pl.len(),
        )
    )
    return actions, put_in


def _seat_rows(seat_fields: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
    """The seats, a player the summary says ``sits out`` marked sitting out."""
    return (
        seat_fields.select(
            "hand",
            "player",
            seat=pl.col("seat").cast(pl.Int16, strict=False),
            stack_start=amount_value(pl.col("stack"), pl.col("money_scale")),
        )
        .join(
            results.filter(pl.col("sits_out"))
            .select("hand", "player", sitting_out=pl.lit(True))
            .unique(["hand", "player"]),
            on=["hand", "player"],
            how="left",
        )
        .with_columns(sitting_out=pl.col("sitting_out").fill_null(False))
    )


def _sightings(lines: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
    """Hole cards seen: dealt to the hero, and shown or mucked face up in the summary."""
    return pl.concat(
        [
            kind_fields(lines, "dealt", PARTY_DEALT, "hand", "line_no").select(
                "hand", "line_no", "player", cards=card_codes(pl.col("cards")), dealt=pl.lit(True)
            ),
            results.filter(pl.col("cards").is_not_null()).select(
                "hand", "line_no", "player", "cards", dealt=pl.lit(False)
            ),
        ]
    )


def _summary_line_problems(
    results: pl.DataFrame, stacks: pl.DataFrame, put_in: pl.DataFrame, seat_fields: pl.DataFrame
) -> list[pl.DataFrame]:
    """Every seated player has one summary line, and its balance and amounts agree with the
    chips the actions put in."""
    checked = (
        results.join(stacks, on=["hand", "player"], how="left")
        .join(put_in, on=["hand", "player"], how="left")
        .with_columns(put_in=pl.col("put_in").fill_null(0), acted=pl.col("acted").fill_null(0))
    )
    collected = pl.col("collected_value").fill_null(0)
    balance_problems = _first_reason(
        checked.sort("hand", "line_no"),
        pl.when(pl.col("stack_start").is_null())
        .then(pl.lit("summary line of a player not seated: ") + pl.col("player"))
        .when(pl.col("sits_out") & (pl.col("acted") > 0))
        .then(pl.lit("a player sitting out acted: ") + pl.col("player"))
        .when(
            (pl.col("stack_start") - pl.col("put_in") + collected != pl.col("balance_value"))
            | (pl.col("lost").is_not_null() & (pl.col("lost_value") != pl.col("put_in")))
            | (pl.col("bet").is_not_null() & (pl.col("bet_value") != pl.col("put_in")))
            | (
                pl.col("net").is_not_null()
                & (pl.col("net_value") != collected - pl.col("bet_value"))
            )
            | ((pl.col("no_bet").is_not_null() | pl.col("sits_out")) & (pl.col("put_in") != 0))
        )
        .then(pl.lit("summary line differs from the actions: ") + pl.col("player")),
    )
    seated_results = (
        seat_fields.select("hand", "player", seat_line=pl.lit(True))
        .join(
            results.group_by("hand", "player").agg(result_lines=pl.len()),
            on=["hand", "player"],
            how="left",
        )
    )
    missing_results = _first_reason(
        seated_results,
        pl.when(pl.col("result_lines").is_null())
        .then(pl.lit("no summary line for a seated player: ") + pl.col("player"))
        .when(pl.col("result_lines") > 1)
        .then(pl.lit("more than one summary line for a player: ") + pl.col("player")),
    )
    return [missing_results, balance_problems]


def _description_problems(results: pl.DataFrame, hands: pl.DataFrame) -> pl.DataFrame:
    """The five cards of a description are the player's or the board's."""
    hole_and_board = (
        results.filter(pl.col("best_five").is_not_null())
        .join(hands.select("hand", "board"), on="hand", how="left")
        .with_columns(
            outside=pl.col("best_five")
            .list.set_difference(pl.concat_list(pl.col("cards").fill_null(EMPTY_CARDS), "board"))
            .list.len()
        )
    )
    return _first_reason(
        hole_and_board.sort("hand", "line_no"),
        pl.when(
            (pl.col("best_five").list.len() != 5)
            | (pl.col("best_five").list.n_unique() != 5)
            | (pl.col("outside") > 0)
        ).then(pl.lit("described cards are not the player's or the board's: ") + pl.col("player")),
    )


def _pot_problems(
    lines: pl.DataFrame, scale_of: pl.DataFrame, stacks: pl.DataFrame
) -> pl.DataFrame:
    """A ``Creating … Pot with`` line names seated players and the summary's amount."""
    scale = pl.col("money_scale")
    pot_parts = (
        lines.filter(pl.col("kind") == "pots")
        .select("hand", part=pl.col("line").str.extract_all(_MODERN_POT_PART))
        .explode("part")
        .join(scale_of, on="hand", how="left")
        .select(
            "hand",
            pot=pl.col("part").str.extract(r"^(.*?): ", 1),
            summary_amount=amount_value(pl.col("part").str.extract(r": (.*)$", 1), scale),
        )
    )
    created = (
        kind_fields(lines, "pot_created", MODERN_POT_CREATED, "hand", "line_no")
        .join(scale_of, on="hand", how="left")
        .with_columns(amount=amount_value(pl.col("amount").str.replace(" ", ""), scale))
    )
    created_players = (
        created.select("hand", "line_no", player=pl.col("players").str.split(", "))
        .explode("player")
        .join(
            stacks.select("hand", "player", seated=pl.lit(True)), on=["hand", "player"], how="left"
        )
        .filter(pl.col("seated").is_null())
        .select("hand", "line_no", stranger="player")
        .unique(["hand", "line_no"], keep="first")
    )
    return _first_reason(
        created.join(pot_parts, on=["hand", "pot"], how="left")
        .join(created_players, on=["hand", "line_no"], how="left")
        .sort("hand", "line_no"),
        pl.when(pl.col("stranger").is_not_null())
        .then(pl.lit("pot created for a player not seated: ") + pl.col("stranger"))
        .when(
            pl.col("amount").is_null()
            | (pl.col("amount") != pl.col("summary_amount")).fill_null(True)
        )
        .then(pl.lit("created pot differs from the summary's: ") + pl.col("pot")),
    )


def _placement_problems(lines: pl.DataFrame) -> pl.DataFrame:
    """The body's lines come before the summary, the summary's after it."""
    summary_at = (
        lines.filter(pl.col("kind") == "summary")
        .group_by("hand")
        .agg(summary_line=pl.col("line_no").min())
    )
    return _first_reason(
        lines.filter(pl.col("kind").is_in([*_BODY_KINDS, *_SUMMARY_KINDS]))
        .join(summary_at, on="hand", how="left")
        .sort("hand", "line_no"),
        pl.when(
            pl.col("kind").is_in(list(_BODY_KINDS))
            & (pl.col("line_no") > pl.col("summary_line")).fill_null(False)
        )
        .then(pl.lit("a line of the hand after its summary: ") + pl.col("line").str.slice(0, 80))
        .when(
            pl.col("kind").is_in(list(_SUMMARY_KINDS))
            & (pl.col("line_no") < pl.col("summary_line")).fill_null(True)
        )
        .then(pl.lit("a summary line before the summary: ") + pl.col("line").str.slice(0, 80)),
    )


def _structure_problems(
    hands: pl.DataFrame, lines: pl.DataFrame, collections: pl.DataFrame
) -> pl.DataFrame:
    """The hand's own checks: its parts are there once each and its fields read."""
    structure = lines.group_by("hand").agg(
        has_deal=((pl.col("kind") == "deal") & (pl.col("section") == 0)).any(),
        has_summary=(pl.col("kind") == "summary").any(),
        has_pots=(pl.col("kind") == "pots").any(),
        repeated=pl.col("kind")
        .filter(pl.col("kind").is_in(list(_SINGLE_KINDS)))
        .is_duplicated()
        .any(),
    )
    paid = collections.group_by("hand").agg(paid=pl.col("amount").sum())
    board = pl.col("board")
    return (
        hands.join(structure, on="hand", how="left")
        .join(paid, on="hand", how="left")
        .select(
            "hand",
            reason=first_problem(
                (~pl.col("has_deal").fill_null(False), "truncated hand: no cards dealt"),
                (~pl.col("has_summary").fill_null(False), "truncated hand: no summary"),
                (
                    ~pl.col("has_pots").fill_null(False),
                    "truncated hand: no pot line in the summary",
                ),
                (pl.col("paid").is_null(), "truncated hand: nobody collected in the summary"),
                (pl.col("repeated").fill_null(False), "a line printed once per hand is repeated"),
                (pl.col("button_seat").is_null(), "no button seat"),
                (pl.col("table_name").is_null(), "table line missing"),
                (pl.col("started_at").is_null(), "unreadable start time"),
                (
                    pl.col("big_blind").is_null() | pl.col("small_blind").is_null(),
                    "unreadable stakes",
                ),
                (
                    pl.col("currency").is_null(),
                    "unknown currency: no single currency symbol on the seat amounts",
                ),
                (pl.col("bad_pots").fill_null(True), "unreadable pot or rake amount"),
                (holds_a_null(board), "unreadable board card"),
                (board.list.len() > 5, "more than five board cards"),
                (
                    pl.col("summary_board").is_not_null()
                    & (pl.col("summary_board") != board).fill_null(True),
                    "summary board differs from the cards dealt",
                ),
            ),
        )
        .filter(pl.col("reason").is_not_null())
    )


def _classified_lines(frame: pl.DataFrame) -> pl.DataFrame:
    """The 2023-layout hands' lines with their ``kind`` (the line after the history line is
    the header; a cash-out is no result) and street ``section``."""
    body = frame.filter(pl.col("hand") >= 0)
    forms = (
        LineForm("blank", pattern=r"^\s*$"),
        LineForm("history", pattern=HISTORY_LINE),
        LineForm("table", pattern=MODERN_TABLE),
        LineForm("players", pattern=PARTY_PLAYERS),
        LineForm("seat", pattern=MODERN_SEAT),
        LineForm("deal", pattern=MODERN_DEAL),
        LineForm("dealt", pattern=PARTY_DEALT),
        LineForm("all_in", pattern=MODERN_ALL_IN),
        LineForm("action", pattern=MODERN_ACTION),
        LineForm("pot_created", pattern=MODERN_POT_CREATED),
        LineForm("summary", pattern=MODERN_SUMMARY),
        LineForm("pots", pattern=MODERN_POTS),
        LineForm("board", pattern=MODERN_BOARD),
        LineForm("result", pattern=MODERN_RESULT),
    )
    lines = body.with_columns(kind=kinds_of(body, forms, "unknown"))
    # The header is the line after the history line (whatever it looks like).
    history_at = (
        lines.filter(pl.col("kind") == "history")
        .group_by("hand")
        .agg(history_line=pl.col("line_no").first())
    )
    lines = (
        lines.join(history_at, on="hand", how="left")
        .sort("line_no")
        .with_columns(
            kind=pl.when(pl.col("line_no") == pl.col("history_line") + 1)
            .then(pl.lit("header"))
            .otherwise(pl.col("kind"))
        )
        .drop("history_line")
    )
    # A cash-out ("Player2 Cashed out balance $23.01, …") is money the site paid, not the pot.
    lines = lines.with_columns(
        kind=pl.when(
            (pl.col("kind") == "result") & pl.col("line").str.contains(" Cashed out balance ")
        )
        .then(pl.lit("unknown"))
        .otherwise(pl.col("kind"))
    )
    deal = lines["line"].str.extract(MODERN_DEAL, 1)
    lines = lines.with_columns(
        section=sections(
            lines, deal.replace_strict(_MODERN_STREETS, default=None, return_dtype=pl.Int8), 0
        )
    )
    return lines


def _header_fields(lines: pl.DataFrame) -> pl.DataFrame:
    """Per hand, its number (``hand_id``) and its header's groups, with ``header_ok``,
    ``game``, ``is_o8`` and ``money_scale`` (chips in tournaments)."""
    numbers = lines.filter(pl.col("is_start")).select(
        "hand", hand_id=pl.col("line").str.extract(HISTORY_LINE, 1)
    )
    header_lines = lines.filter(pl.col("kind") == "header").select("hand", "line")
    parsed = (
        numbers.join(header_lines, on="hand", how="left")
        .with_columns(pl.col("line").str.extract_groups(MODERN_HEADER).alias("h"))
        .unnest("h")
        .with_columns(named_game=pl.col("line").str.extract(_MODERN_GAME, 1))
    )
    game = pl.coalesce("game", "named_game")
    understood = pl.col("limit").is_not_null()
    is_o8 = game.is_in(list(O8_MODERN_GAMES)).fill_null(False)
    is_tournament = pl.col("tournament_id").is_not_null()
    parsed = parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null() & (understood | (game.is_not_null() & ~is_o8)),
        game=game.fill_null(pl.col("line").fill_null("").str.slice(0, 80)),
        is_o8=is_o8,
        money_scale=pl.when(is_tournament).then(1).otherwise(100),
    )
    return parsed
