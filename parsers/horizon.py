"""Horizon Poker network hand histories (``Hand#5322021915000045 - $ Perth (9-Max) 21915 -- …``),
Omaha Hi/Lo.

Horizon's client prints Cake's hand layout: the same header (``-- $0.02/$0.04 PL OmahaHiLo --
2018/10/30 - 21:34:39``), dealer, seat, action, ``***SHOW DOWN***`` and ``wins high pot`` lines.
Cake's decoding reads them (`parsers.cake`); this module holds what is Horizon's own:

- The header's title is ``<table> (<n>-Max) <table number>``: that is how a Horizon file is
  told from a Cake one. The title is the table name as printed; the seat count is not taken
  from it (a "9-Max" table of the corpus seats players in seats 1 to 10).
- ``RONALD_11: mucks [Ah,Jh,9d,2d] (TwoPair) .``, printed after the payouts for a player who
  mucked (``RONALD 11: mucks`` earlier in the hand): the mucked cards, and the site's rank of
  them. The name is written with its spaces as underscores; it is read as the seated player
  whose name it spells. The cards are the player's hole cards; the line adds no second muck to
  a player who mucked already, and a name that spells no seated player's quarantines the hand.
- A chat line (``prizzy711  chats: nh``) and ``Player left the table`` carry nothing the tables
  need: they are notes. A hand the recording player left before its end stops there, without
  a showdown section or a winner (the Perth file's last hand): it is quarantined as truncated.
- A hand with side pots prints one ``***SHOW DOWN***`` section per pot, the last side pot
  first (``Multiple.Pots`` corpus hand: the sections pay 0.97+0.97, 0.14+0.14, 1.68+1.68 and
  0.43+0.43 of pots of 2.08, 0.30, 3.60 and 0.92 in that order). The pots are not numbered, so
  as at Cake the payouts keep a null ``pot_index``.

What the site prints about money, and so its `SiteProfile`:

- Payouts are labelled halves (``wins high pot $0.68`` / ``wins low pot $0.67``, the odd cent
  to the high half), one line per half and pot.
- Neither a total pot nor the rake is printed, and the payouts are net of rake: the
  ``Multiple.Pots`` hand puts in $6.90 and pays out $6.44. Every pot gives a share of the rake
  in proportion to its size ($0.14 of $2.08, $0.02 of $0.30, $0.24 of $3.60, $0.06 of $0.92;
  the corpus's other hand with side pots, 5322021915000068: $0.14 of $2.04, $0.32 of $4.90),
  not the main pot first. Both hands fit shares rounded to the nearest cent, and as well a rake
  worked out on the running total of the pots, main pot first. Every hand of the corpus that saw
  a flop keeps 1/15 of the pot rounded down (27 of 27, $0.01 to $0.46, at $0.02/$0.04 on one
  day: too little to state a schedule); a hand that ends before the flop keeps nothing
  (5322021915000065: $0.18 in, $0.18 won).
- Uncalled bets are returned by an explicit line, ``returns uncalled bet $0.36``, as at Cake.
"""

from __future__ import annotations

import re
from typing import ClassVar

import polars as pl

from parsers.cake import (
    HAND_START,
    KIND_SEAT,
    KIND_UNKNOWN,
    LINE_FORMS,
    SEAT,
    CakeBlock,
    CakeParser,
)
from parsers.engine.anchored import Block
from parsers.engine.line_forms import LineForm, kind_fields
from pipeline.profiles import SiteProfile

__all__ = ["SITE", "HorizonParser"]

SITE = "horizon"
_HAND_START_LINE = re.compile(
    r"^\ufeff?Hand#[0-9A-Z]+ - .+ \(\d+-Max\) \d+ -- .+ -- \d{4}/\d{2}/\d{2} - ", re.MULTILINE
)
MUCKED_CARDS = r"^(?P<player>.+?): (?P<verb>mucks) \[(?P<cards>[^\]]*)\] \((?P<desc>[^)]*)\) \.$"
KIND_MUCKED_CARDS = KIND_UNKNOWN + 1  # Cake's kinds come first


class HorizonBlock(CakeBlock):
    """Cake's decoding, with Horizon's line of mucked cards."""

    line_forms: ClassVar[tuple[LineForm, ...]] = (
        LineForm(KIND_MUCKED_CARDS, pattern=MUCKED_CARDS),
        *LINE_FORMS,
    )

    def _action_fields(self, lines: pl.DataFrame) -> pl.DataFrame:
        mucked = kind_fields(
            lines, KIND_MUCKED_CARDS, MUCKED_CARDS, "hand", "line_no", "section", "money_scale"
        ).with_columns(amount=pl.lit(None, dtype=pl.String))
        mucked = self.decoded_actions(_as_seated(mucked, lines))
        return pl.concat([super()._action_fields(lines), mucked], how="diagonal_relaxed")

    def _actions(self, acts: pl.DataFrame, collections: pl.DataFrame) -> pl.DataFrame:
        # The line of mucked cards shows the cards of a muck already recorded.
        mucks = acts.filter(pl.col("kind") == "muck")
        repeated = mucks.join(mucks, on=["hand", "player"], suffix="_earlier").filter(
            pl.col("line_no_earlier") < pl.col("line_no")
        )
        again = repeated.select("hand", "line_no").unique()
        return super()._actions(acts.join(again, on=["hand", "line_no"], how="anti"), collections)


def _as_seated(mucked: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
    """``mucked`` with each name that is no seated player's replaced by the one seated name
    it spells with spaces as underscores (kept as printed when none or several do)."""
    seated = kind_fields(lines, KIND_SEAT, SEAT, "hand")
    spelled = (
        seated.select("hand", "player", printed=pl.col("player").str.replace_all(" ", "_"))
        .filter(pl.col("printed") != pl.col("player"))
        .filter(pl.len().over("hand", "printed") == 1)
        .select("hand", "printed", seated_player="player")
    )
    is_seated = seated.select("hand", "player").unique().with_columns(_seated=pl.lit(True))
    return (
        mucked.join(is_seated, on=["hand", "player"], how="left")
        .join(spelled, left_on=["hand", "player"], right_on=["hand", "printed"], how="left")
        .with_columns(
            player=pl.when(pl.col("_seated").is_null() & pl.col("seated_player").is_not_null())
            .then(pl.col("seated_player"))
            .otherwise(pl.col("player"))
        )
        .drop("_seated", "seated_player")
    )


class HorizonParser(CakeParser):
    """Parser for Horizon Poker network text hand histories."""

    site: ClassVar[str] = SITE
    # Labelled halves, pots not numbered; no total pot and no rake printed, payouts net of a
    # rake every pot gives its share of (the audit infers it); uncalled bets returned by an
    # explicit line. No fixed-limit hand has been seen: the default raise cap.
    profile: ClassVar[SiteProfile] = SiteProfile(
        site=SITE,
        halves_labelled=True,
        payout_lines="per_half",
        rake_printed=False,
        uncalled_printed=True,
        rake_from="each-pot",
    )

    hand_start: ClassVar[str] = HAND_START
    sniff_pattern: ClassVar[re.Pattern[str]] = _HAND_START_LINE
    block: ClassVar[type[Block]] = HorizonBlock
