"""The columns of the audit's outputs (``DATASET/audit/<output>/site=…/part-….parquet``).

Kept apart from `pipeline.audit` so that the readers of those files (statistics, the report,
`read_table`) do not load the audit's compiled kernels just to know their columns.
"""

from __future__ import annotations

import polars as pl

__all__ = [
    "ALLIN_EQUITY_SCHEMA",
    "DISCREPANCY_SCHEMA",
    "FINDING_KINDS",
    "FINDING_SCHEMA",
    "HAND_PARTS_KEY",
    "PAYOUT_SCHEMA",
    "SEVERITIES",
    "SEVERITY",
]

# Parquet metadata of an audit output: JSON list of the hands parts it covers (or null).
HAND_PARTS_KEY = b"hilo.hand_parts"

FINDING_KINDS = (
    "payout",
    "missing_winner",
    "unexpected_winner",
    "odd_chip",
    "rake",
    "chip_conservation",
    "bet_size",
    "raise_cap",
    "pot_limit",
    "blinds",
    "action_order",
    "button",
    "hand_description",
    "payout_lines",
    "uncalled_unprinted",
    "unevaluable",
)
# What a finding costs a person to act on: ``money`` (money per player per pot differs from the
# rules'), ``rules`` (the game was not played by its rules), ``wording`` (the text says it
# differently, the money is the same), ``info`` (the audit could not judge: not an error).
SEVERITIES = ("money", "rules", "wording", "info")
SEVERITY: dict[str, str] = {
    "payout": "money",
    "missing_winner": "money",
    "unexpected_winner": "money",
    "odd_chip": "money",
    "rake": "money",
    "chip_conservation": "money",
    "bet_size": "rules",
    "raise_cap": "rules",
    "pot_limit": "rules",
    "blinds": "rules",
    "action_order": "rules",
    "button": "rules",
    "hand_description": "wording",
    "payout_lines": "wording",
    "uncalled_unprinted": "wording",
    "unevaluable": "info",
}

# The columns each check produces; `with_severity` adds the severity of every kind.
FINDING_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "player": pl.String,
    "kind": pl.String,
    "expected": pl.Int64,
    "recorded": pl.Int64,
    "detail": pl.String,
}

PAYOUT_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "pot_index": pl.Int8,
    "board_index": pl.Int8,
    "half": pl.String,
    "player": pl.String,
    "amount": pl.Int64,
}
DISCREPANCY_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "player": pl.String,
    "kind": pl.String,
    "severity": pl.String,
    "expected": pl.Int64,
    "recorded": pl.Int64,
    "detail": pl.String,
}
ALLIN_EQUITY_SCHEMA = {
    "site": pl.String,
    "hand_id": pl.String,
    "player": pl.String,
    "street": pl.Int8,
    "pot_index": pl.Int8,
    "contenders": pl.Int8,
    "pot_amount": pl.Int64,
    "equity": pl.Float64,
    "expected_amount": pl.Float64,
    "actual_amount": pl.Int64,
    "exact": pl.Boolean,
    "standard_error": pl.Float64,  # of expected_amount; 0 when exact
    "runouts": pl.Int64,  # boards enumerated or sampled (the same for every row of the hand)
    # Variance over the run-outs of the player's total payout from the hand's pots (the same
    # on each of the player's rows of the hand): what all-in luck's z-score divides by.
    "spot_variance": pl.Float64,
}
