"""PartyPoker hands in the layouts before 2023 (``#Game No : N``, ``$20/$40 USD FL Omaha
Hi-Lo``): their line forms and their extraction into `BlockParts` (see the package for what
they print)."""

from __future__ import annotations

import polars as pl

from parsers.columns import holds_a_null, local_time_to_utc
from parsers.engine.assembly import showdown_rows
from parsers.engine.block_parts import (
    BlockParts,
    amount_value,
    card_codes,
    card_sightings,
    deal_board,
    declined_shows,
    first_per_hand,
    folded_excess_returns,
    seat_rows,
    sections,
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

__all__ = ["legacy_parts"]

PARTY_GAME = "Omaha Hi-Lo"
GAME_NUMBER = r"^#Game No : (?P<number>\d+)$"

PARTY_HEADER = (
    r"^(?:"
    # cash: "$20/$40 USD FL Omaha Hi-Lo" (bets) or "$200 USD PL Omaha Hi-Lo" (buy-in label)
    r"(?P<stakes>[$€£]?[\d.,]+(?:/[$€£]?[\d.,]+)?) (?P<code>[A-Z]{3}) "
    r"(?:(?P<climit>FL|PL|NL) )?(?P<cgame>.+?)"
    r"|"
    # tournament: "PL Omaha Hi-Lo $22 USD Buy-in Trny: 1 Level: 2  Blinds(20/40)"
    r"(?:(?P<tlimit>FL|PL|NL) )?(?P<tgame>.+?) (?P<buy_in>[$€£]?[\d.,]+(?: [A-Z]{3})?) Buy-in"
    r"(?: \+ [^ ]+ Entry Fee)? Trny: ?(?P<tournament_id>\d+) Level: ?(?P<level>\d+)"
    r" +(?:Blinds|Stakes)(?:-Antes)?\((?P<tsb>[\d,.]+) ?/(?P<tbb>[\d,.]+)(?: ?- ?(?P<tante>[\d,.]+))?\)"
    r")"
    r" - \w+, (?P<month>\w+) (?P<day>\d{1,2}), (?P<time>\d{1,2}:\d{2}:\d{2}) (?P<zone>[A-Z]+)"
    r" (?P<year>\d{4})$"
)
PARTY_TABLE = r"^Table (?P<table_name>.+?) \((?:Real|Play) Money\)$"
PARTY_BUTTON = r"^Seat (?P<button_seat>\d+) is the button$"

PARTY_SEAT = r"^Seat (?P<seat>\d+): (?P<player>.+) \( (?P<stack>[^)]*?) \)$"
PARTY_DEAL = r"^\*\* Dealing (?P<street>down cards|Flop|Turn|River) \*\*(?: \[(?P<cards>[^\]]*)\])?$"

PARTY_ACTION = (
    r"^(?P<player>.+?) (?P<verb>posts small blind|posts big blind \+ dead|posts big blind"
    r"|posts ante(?: of)?|calls|bets|raises|is all-In|checks|folds)"
    r"(?: +\[(?P<amount>[^\]]*)\])?(?: to (?P<to>[^ .]+))?\.?$"
)
PARTY_SHOW = (
    r"^(?P<player>.+?) (?P<verb>shows|doesn't show) \[(?P<cards>[^\]]*)\] ?(?P<desc>.*?)\.?$"
)
PARTY_NO_SHOW = r"^(?P<player>.+?) does not show cards\.?$"
PARTY_SHOW_LOW = r"^(?P<player>.+?) shows ?(?P<low>[\dAKQJT,]+) +for low\.?$"
PARTY_WIN = (
    r"^(?P<player>.+?) wins (?:(?P<lo>Lo) \()?(?P<amount>[$€£]?[\d.,]+(?: [A-Z]{3}| chips)?)\)?"
    r"(?: from the (?P<pot>main pot|side pot(?: ?#?(?P<side>\d+))?))?(?: with (?P<desc>.*?))?\.?$"
)
PARTY_INFO = (
    r"^(?:Game #\d+ starts\.|Trny: ?\d+ Level: ?\d+|(?:Blinds|Stakes)(?:-Antes)?\(.*\)"
    r"|.+ (?:has left the table|has joined the table|is sitting out|sits out|is back"
    r"|will be using (?:his|her) time bank.*|has been disconnected.*|is disconnected.*"
    r"|has reconnected|finished in \d+ place.*|is connected|has timed out)\.?"
    r"|There is no Small Blind in this hand.*"
    r")$"
)
# Player chat ("Player6: u r getting boring with ur min raises"); Party actions have no colon.
PARTY_CHAT = r"^[^:\[\]]+: "

_MONTHS = "%Y %B %d %H:%M:%S"


def legacy_parts(frame: pl.DataFrame) -> BlockParts:
    """Hands in the layouts before 2023 (``#Game No : N``, ``$20/$40 USD FL Omaha Hi-Lo``)."""
    body = frame.filter(pl.col("hand") >= 0)
    forms = (
        LineForm("blank", pattern=r"^\s*$"),
        LineForm("anchor", pattern=GAME_NUMBER),
        LineForm("history", pattern=HISTORY_LINE),
        LineForm("header", pattern=PARTY_HEADER),
        LineForm("table", pattern=PARTY_TABLE),
        LineForm("button", pattern=PARTY_BUTTON),
        LineForm("players", pattern=PARTY_PLAYERS),
        LineForm("seat", pattern=PARTY_SEAT),
        LineForm("deal", pattern=PARTY_DEAL),
        LineForm("dealt", pattern=PARTY_DEALT),
        LineForm("chat", pattern=PARTY_CHAT),
        LineForm("action", pattern=PARTY_ACTION),
        LineForm("show", pattern=PARTY_SHOW),
        LineForm("show_low", pattern=PARTY_SHOW_LOW),
        LineForm("noshow", pattern=PARTY_NO_SHOW),
        LineForm("win", pattern=PARTY_WIN),
        LineForm("info", pattern=PARTY_INFO),
    )
    lines = body.with_columns(kind=kinds_of(body, forms, "unknown"))
    street_names = {"down cards": 0, "Flop": 1, "Turn": 2, "River": 3}
    deal = lines["line"].str.extract(PARTY_DEAL, 1)
    lines = lines.with_columns(
        section=sections(
            lines, deal.replace_strict(street_names, default=None, return_dtype=pl.Int8), 0
        )
    )

    # -- headers: the line after the history line -------------------------------------------
    history_at = lines.filter(pl.col("kind") == "history").unique("hand", keep="first")
    header_lines = (
        lines.join(history_at.select("hand", history=pl.col("line_no")), on="hand", how="inner")
        .filter(pl.col("line_no") == pl.col("history") + 1)
        .select("hand", "line")
    )
    numbers = lines.filter(pl.col("is_start")).select(
        "hand",
        hand_id=pl.coalesce(
            pl.col("line").str.extract(GAME_NUMBER, 1), pl.col("line").str.extract(HISTORY_LINE, 1)
        ),
    )
    parsed = (
        numbers.join(header_lines, on="hand", how="left")
        .with_columns(pl.col("line").str.extract_groups(PARTY_HEADER).alias("h"))
        .unnest("h")
    )
    game = pl.coalesce("cgame", "tgame")
    is_tournament = pl.col("tournament_id").is_not_null()
    currency = (
        pl.when(is_tournament)
        .then(pl.lit("CHIPS"))
        .otherwise(pl.col("code"))
    )
    parsed = parsed.with_columns(
        header_ok=pl.col("hand_id").is_not_null() & game.is_not_null(),
        game=game.fill_null(pl.col("line").fill_null("").str.slice(0, 80)),
        is_o8=game == PARTY_GAME,
        currency=currency,
        money_scale=pl.when(is_tournament).then(1).otherwise(100),
        limit_type=pl.coalesce("climit", "tlimit").fill_null("FL"),
    ).with_columns(is_o8=pl.col("is_o8").fill_null(False))
    headers = parsed.select("hand", "hand_id", "header_ok", "game", "is_o8")

    scale_of = parsed.select("hand", "money_scale")
    scale = pl.col("money_scale")

    # -- actions --------------------------------------------------------------------------------
    acts = (
        kind_fields(lines, "action", PARTY_ACTION, "hand", "line_no", "section")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            kind=pl.col("verb").replace_strict(PARTY_VERBS, default=None),
            amount=amount_value(pl.col("amount"), scale),
            to=amount_value(pl.col("to"), scale),
            is_all_in=pl.lit(False),
            sub=pl.lit(0),
        )
    )
    # A blind posted all-in for less (the player's whole stack after the ante) says nothing
    # about the table's blind; Party does not mark it, so the stack tells.
    seats = seat_rows(lines, scale_of, PARTY_SEAT)
    stacks = seats.select("hand", "player", "stack_start")
    antes_paid = (
        acts.filter(pl.col("kind") == "ante").group_by("hand", "player").agg(ante_paid=pl.col("amount").sum())
    )
    full = (
        pl.col("amount") + pl.col("ante_paid").fill_null(0) < pl.col("stack_start")
    ).fill_null(True)
    posted = posted_blinds(
        acts.join(stacks, on=["hand", "player"], how="left").join(
            antes_paid, on=["hand", "player"], how="left"
        ),
        full,
    )
    stakes = pl.col("stakes").str.split("/")
    first_stake = amount_value(stakes.list.get(0, null_on_oob=True), scale)
    second_stake = amount_value(stakes.list.get(1, null_on_oob=True), scale)
    is_fixed = pl.col("limit_type") == "FL"
    hands = (
        parsed.join(posted, on="hand", how="left")
        .join(first_per_hand(lines, "table", PARTY_TABLE), on="hand", how="left")
        .join(first_per_hand(lines, "button", PARTY_BUTTON), on="hand", how="left")
        .join(first_per_hand(lines, "players", PARTY_PLAYERS), on="hand", how="left")
        .join(deal_board(lines, PARTY_DEAL), on="hand", how="left")
        .with_columns(
            small_bet=pl.when(is_fixed & ~is_tournament & second_stake.is_not_null()).then(
                first_stake
            ),
            big_bet=pl.when(is_fixed & ~is_tournament).then(second_stake),
            small_blind=pl.coalesce(amount_value(pl.col("tsb"), 1), pl.col("posted_sb")),
            # Without a full big blind post: the fixed-limit small bet, or the pot- and
            # no-limit buy-in label, which is 100 big blinds ("$200 USD PL" at $1/$2).
            big_blind=pl.coalesce(
                amount_value(pl.col("tbb"), 1),
                pl.col("posted_bb"),
                pl.when(is_fixed).then(first_stake).otherwise(first_stake // 100),
                pl.col("short_bb"),
            ),
            ante=pl.coalesce(amount_value(pl.col("tante"), 1), pl.col("posted_ante")),
            max_seats=pl.col("max_seats").cast(pl.Int16, strict=False),
            button_seat=pl.col("button_seat").cast(pl.Int16, strict=False),
            started_at=local_time_to_utc(
                pl.concat_str("year", "month", "day", "time", separator=" "),
                pl.col("zone"),
                fmt=_MONTHS,
                zones=parsed["zone"].drop_nulls().unique().to_list(),
            ),
            time_zone=pl.col("zone"),
            level=pl.col("level"),
            buy_in=pl.col("buy_in"),
            total_pot=pl.lit(None, dtype=pl.Int64),
            rake=pl.lit(None, dtype=pl.Int64),
            source_offset=pl.lit(None, dtype=pl.Int64),
        )
    )
    offsets = lines.filter(pl.col("is_start")).select("hand", source_offset="offset")
    hands = hands.drop("source_offset").join(offsets, on="hand", how="left")
    # Fixed-limit tournaments: the blinds are the small bet's halves (the header gives blinds).
    hands = hands.with_columns(
        small_bet=pl.when(is_fixed & is_tournament).then(pl.col("big_blind")).otherwise("small_bet"),
        big_bet=pl.when(is_fixed & is_tournament).then(pl.col("big_blind") * 2).otherwise("big_bet"),
    )

    big_blind = hands.select("hand", "big_blind")
    both = acts.filter(pl.col("kind") == "post_both").join(big_blind, on="hand", how="left")
    actions = pl.concat(
        [
            acts.filter(pl.col("kind") != "post_both"),
            both.with_columns(kind=pl.lit("post_dead"), amount=pl.col("amount") - pl.col("big_blind"))
            .drop("big_blind"),
            both.with_columns(kind=pl.lit("post_bb"), amount=pl.col("big_blind"), sub=pl.lit(1))
            .drop("big_blind"),
        ],
        how="vertical_relaxed",
    )

    shows = (
        kind_fields(lines, "show", PARTY_SHOW, "hand", "line_no", "section")
        .with_columns(cards=card_codes(pl.col("cards")))
    )
    actions = pl.concat(
        [
            actions.select(
                "hand", "line_no", "sub", street="section", player="player", kind="kind",
                amount="amount", to="to", is_all_in="is_all_in",
            ),
            shows.select(
                "hand", "line_no", sub=pl.lit(0), street="section", player="player",
                kind=pl.when(pl.col("verb") == "shows").then(pl.lit("show")).otherwise(pl.lit("muck")),
                amount=pl.lit(None, dtype=pl.Int64), to=pl.lit(None, dtype=pl.Int64),
                is_all_in=pl.lit(False),
            ),
        ],
        how="vertical_relaxed",
    )

    lows = (
        kind_fields(lines, "show_low", PARTY_SHOW_LOW, "hand")
        .unique(["hand", "player"], keep="first")
    )
    shown = (
        shows.filter(pl.col("verb") == "shows")
        .join(lows, on=["hand", "player"], how="left")
    )
    showdowns = showdown_rows(
        shown, high_desc=pl.when(pl.col("desc") != "").then(pl.col("desc")), low_desc="low"
    )

    wins = (
        kind_fields(lines, "win", PARTY_WIN, "hand", "line_no")
        .join(scale_of, on="hand", how="left")
        .with_columns(
            pot_index=pl.when(pl.col("pot") == "main pot")
            .then(0)
            .when(pl.col("pot").is_not_null())
            .then(pl.col("side").cast(pl.Int8, strict=False).fill_null(1))
            .cast(pl.Int8),
        )
    )
    noshows = (
        lines.filter(pl.col("kind") == "noshow")
        .select("hand", "line_no", "section", player=pl.col("line").str.extract(PARTY_NO_SHOW, 1))
    )
    actions = pl.concat(
        [actions, declined_shows(noshows, wins, shows.filter(pl.col("verb") == "shows"))],
        how="vertical_relaxed",
    )
    # Party prints no return: a bettor's unmatched chips are inside what they win, except when
    # the bettor folded (nobody left can win them, so they go back).
    returns = folded_excess_returns(actions)
    actions = pl.concat([actions, returns.select(actions.columns)], how="vertical_relaxed")
    has_low = wins.group_by("hand", "pot_index").agg(has_low=pl.col("lo").is_not_null().any())
    collections = wins.join(has_low, on=["hand", "pot_index"], how="left", nulls_equal=True).select(
        "hand",
        "line_no",
        "player",
        amount=amount_value(pl.col("amount"), pl.col("money_scale")),
        pot_index="pot_index",
        half=pl.when(pl.col("lo").is_not_null())
        .then(pl.lit("low"))
        .when(pl.col("has_low"))
        .then(pl.lit("high")),
        board_index=pl.lit(0, dtype=pl.Int8),
    )

    sightings = card_sightings(lines, shows, PARTY_DEALT)

    structure = lines.group_by("hand").agg(
        has_deal=(pl.col("kind") == "deal").any(),
        has_win=(pl.col("kind") == "win").any(),
        has_history=(pl.col("kind") == "history").any(),
    )
    checks = hands.join(structure, on="hand", how="left").select(
        "hand",
        reason=first_problem(
            (~pl.col("has_history").fill_null(False), "truncated hand: no hand history line"),
            (~pl.col("has_deal").fill_null(False), "truncated hand: no cards dealt"),
            (~pl.col("has_win").fill_null(False), "truncated hand: no payout line"),
            (pl.col("button_seat").is_null(), "no button seat"),
            (pl.col("started_at").is_null(), "unreadable start time"),
            (pl.col("big_blind").is_null(), "unreadable stakes"),
            (
                holds_a_null(pl.col("board")),
                "unreadable board card",
            ),
            (pl.col("board").list.len() > 5, "more than five board cards"),
        ),
    ).filter(pl.col("reason").is_not_null())

    return BlockParts(
        frame=frame,
        headers=headers,
        hands=hands,
        seats=seats,
        actions=actions,
        collections=collections,
        showdowns=showdowns,
        sightings=sightings,
        problems=[checks],
        unknown_lines=unknown_lines(lines),
    )
