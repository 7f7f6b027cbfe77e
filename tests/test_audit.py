"""The audit on real hands (no findings) and on real hands edited to carry one known fault."""

from __future__ import annotations

import glob
from pathlib import Path

import polars as pl

from parsers import parse_bytes
from pipeline.audit import PAYOUT_KINDS, audit_tables
from tests.shared_data import CORPUS, needs_corpus

TABLES = ("hands", "seats", "actions", "collections", "showdowns")
# Synthetic unit-test hand whose HI/LO texts are not valid Omaha (MANIFEST says so).
INVALID_FIXTURE = "1111111111"


def audit_texts(*texts: str | bytes) -> pl.DataFrame:
    """The audit's findings on the hands of ``texts``; a hand whose number an earlier text
    holds (the same hand exported twice, a fixture reusing a real hand's number) is audited
    once, the first, as ingest stores one copy."""
    parts: dict[str, list[pl.DataFrame]] = {name: [] for name in TABLES}
    seen = pl.DataFrame(schema={"site": pl.String, "hand_id": pl.String})
    for number, text in enumerate(texts):
        data = text.encode() if isinstance(text, str) else text
        result = parse_bytes(data, f"input-{number}.txt")
        assert result is not None and result.rejected == 0
        tables = {name: pl.from_arrow(result.tables[name]) for name in TABLES}
        tables = {
            name: frame.join(seen, on=["site", "hand_id"], how="anti")  # type: ignore[union-attr]
            for name, frame in tables.items()
        }
        seen = pl.concat([seen, tables["hands"].select("site", "hand_id")])  # type: ignore[union-attr]
        for name in TABLES:
            parts[name].append(tables[name])  # type: ignore[arg-type]
    tables = {name: pl.concat(frames) for name, frames in parts.items()}
    return audit_tables(**tables).discrepancies  # type: ignore[arg-type]


def stars_files() -> list[str]:
    return sorted(
        glob.glob(str(CORPUS / "Stars" / "**" / "*.txt"), recursive=True)
        + glob.glob(str(CORPUS / "other" / "Stars-*.txt"))
    )


@needs_corpus
def test_real_pokerstars_hands_have_no_findings() -> None:
    findings = audit_texts(*(Path(path).read_bytes() for path in stars_files()))
    unexplained = findings.filter(pl.col("hand_id") != INVALID_FIXTURE)
    assert unexplained.height == 0, unexplained
    fixture = findings.filter(pl.col("hand_id") == INVALID_FIXTURE)
    assert fixture["kind"].to_list() == ["hand_description"]


def corpus_hand(relative: str, hand_id: str) -> str:
    text = (CORPUS / relative).read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    start = text.index(f"PokerStars Game #{hand_id}:")
    end = text.find("PokerStars Game #", start + 1)
    return text[start : end if end > 0 else len(text)]


def single(findings: pl.DataFrame) -> dict[str, object]:
    assert findings.height >= 1, "expected a finding"
    return findings.row(0, named=True)


CASH = "Stars/cash/PLO8-6max-USD-0.01-0.02-200911.txt"
TOURNAMENT = "Stars/tour/NLO8-USD-STT-201109.Knockout.sample.txt"


@needs_corpus
def test_odd_chip_to_the_wrong_tied_low_player() -> None:
    # #35875034981: the tied low 19 is 10 to UnderMeSensi (first clockwise from the button) and 9
    # to supermeXXX. Swapping the two keeps every total right but the odd cent.
    hand = corpus_hand(CASH, "35875034981")
    faulted = (
        hand.replace("UnderMeSensi collected $0.10", "UnderMeSensi collected $0.09")
        .replace("supermeXXX collected $0.09", "supermeXXX collected $0.10")
    )
    assert audit_texts(hand).height == 0
    findings = audit_texts(faulted)
    assert set(findings["kind"]) == {"odd_chip"}
    row = findings.filter(pl.col("player") == "UnderMeSensi").row(0, named=True)
    assert (row["expected"], row["recorded"]) == (10, 9)


@needs_corpus
def test_side_pot_paid_to_a_player_not_in_it() -> None:
    # #68173693354: side pot-2 (1626) is APTEM-89's (vs Lord Minge). Pay it to Hero instead,
    # who is all-in for the main pot only.
    hand = corpus_hand(TOURNAMENT, "68173693354")
    faulted = hand.replace(
        "APTEM-89 collected 813 from side pot-2 \nAPTEM-89 collected 813 from side pot-2",
        "Hero collected 813 from side pot-2 \nHero collected 813 from side pot-2",
    ).replace("and won (1825)", "and won (199)").replace("and won (4170)", "and won (5796)")
    findings = audit_texts(faulted)
    kinds = dict(zip(findings["player"], findings["kind"], strict=True))
    assert kinds == {"APTEM-89": "missing_winner", "Hero": "unexpected_winner"}
    assert "side pot 2" in single(findings)["detail"]


@needs_corpus
def test_high_half_paid_to_the_second_best_hand() -> None:
    # #35875034981: supermeXXX's trips beat UnderMeSensi's pair for the 20-cent high half.
    hand = corpus_hand(CASH, "35875034981")
    faulted = (
        hand.replace("supermeXXX collected $0.20 from pot", "UnderMeSensi collected $0.20 from pot")
    )
    findings = audit_texts(faulted)
    assert set(findings["kind"]) <= set(PAYOUT_KINDS)
    by_player = {row["player"]: row for row in findings.iter_rows(named=True)}
    assert (by_player["supermeXXX"]["expected"], by_player["supermeXXX"]["recorded"]) == (29, 9)
    assert (by_player["UnderMeSensi"]["expected"], by_player["UnderMeSensi"]["recorded"]) == (
        10,
        30,
    )


@needs_corpus
def test_scoop_with_a_qualifying_low_printed_as_one_line() -> None:
    # #35875159084: Hero scoops with a low: PokerStars prints 233 + 232. One 465 line is the
    # same money to the same player in other lines: wording, not a money finding.
    hand = corpus_hand(CASH, "35875159084")
    faulted = hand.replace(
        "Hero collected $2.33 from pot\nHero collected $2.32 from pot",
        "Hero collected $4.65 from pot",
    )
    assert "Hero collected $4.65" in faulted
    finding = single(audit_texts(faulted))
    assert (finding["kind"], finding["severity"]) == ("payout_lines", "wording")
    assert "expected 232 + 233, recorded 465" in finding["detail"]


@needs_corpus
def test_rake_on_a_hand_without_a_flop_and_broken_conservation() -> None:
    # #35875026976 ends preflop: raking it breaks no flop, no drop.
    hand = corpus_hand(CASH, "35875026976")
    faulted = hand.replace("collected $0.05 from pot", "collected $0.04 from pot").replace(
        "Total pot $0.05 | Rake $0", "Total pot $0.05 | Rake $0.01"
    ).replace("collected ($0.05)", "collected ($0.04)")
    findings = audit_texts(faulted)
    assert "rake" in set(findings["kind"])
    # Paying out less than went in, with the rake line untouched, breaks conservation.
    leaking = hand.replace("collected $0.05 from pot", "collected $0.04 from pot")
    kinds = set(audit_texts(leaking)["kind"])
    assert "chip_conservation" in kinds


@needs_corpus
def test_wrong_hand_description() -> None:
    hand = corpus_hand(CASH, "35875034981")
    faulted = hand.replace("(HI: a pair of Sevens; LO: 6,5,4,2,A)", "(HI: a flush, Ace high; LO: 6,5,4,2,A)")
    finding = single(audit_texts(faulted))
    assert finding["kind"] == "hand_description" and finding["player"] == "UnderMeSensi"
    assert "cards make 'a pair of Sevens'" in finding["detail"]


@needs_corpus
def test_button_that_does_not_move() -> None:
    first = corpus_hand(CASH, "35875026976")  # button seat 4
    second = corpus_hand(CASH, "35875034981")  # button seat 5, 14 s later
    assert audit_texts(first, second).height == 0
    stuck = second.replace("Seat #5 is the button", "Seat #3 is the button")
    finding = single(audit_texts(first, stuck).filter(pl.col("kind") == "button"))
    assert (finding["expected"], finding["recorded"]) == (5, 3)


@needs_corpus
def test_unshown_cards_in_a_contested_pot_are_not_guessed() -> None:
    hand = corpus_hand(CASH, "35875034981")
    hidden = hand.replace("UnderMeSensi: shows [7c 6s 7h As] (HI: a pair of Sevens; LO: 6,5,4,2,A)\n", "")
    hidden = hidden.replace("showed [7c 6s 7h As] and won ($0.10) with HI: a pair of Sevens; LO: 6,5,4,2,A", "collected ($0.10)")
    finding = single(audit_texts(hidden))
    assert finding["kind"] == "unevaluable"


@needs_corpus
def test_fail_on_thresholds_and_the_summary_by_severity(tmp_path: Path) -> None:
    """A wording finding fails ``--fail-on any`` (and its alias) but not the default
    ``--fail-on money``; a money finding fails every threshold and shows the money affected."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    hand = corpus_hand(CASH, "35875159084")
    lines = hand.replace(
        "Hero collected $2.33 from pot\nHero collected $2.32 from pot",
        "Hero collected $4.65 from pot",
    )
    money = hand.replace("Hero collected $2.32 from pot", "Hero collected $2.30 from pot")
    codes = {}
    for name, text in (("lines", lines), ("money", money)):
        source = tmp_path / f"{name}.txt"
        source.write_text(text)
        dataset = tmp_path / name
        assert CliRunner().invoke(app, ["ingest", str(source), "--out", str(dataset)]).exit_code == 0
        runs = {
            option: CliRunner().invoke(app, ["audit", str(dataset), *option])
            for option in ((), ("--fail-on", "rules"), ("--fail-on", "any"), ("--fail-on-findings",))
        }
        codes[name] = [run.exit_code for run in runs.values()]
        output = runs[()].stdout
        if name == "lines":
            assert "\nwording                    1\n  payout_lines             1" in output
        else:
            assert "\nmoney" in output and "money affected 0.02 USD" in output
    assert codes == {"lines": [0, 0, 1, 1], "money": [1, 1, 1, 1]}
    bad = CliRunner().invoke(app, ["audit", str(tmp_path / "money"), "--fail-on", "everything"])
    assert bad.exit_code == 2 and "unknown --fail-on" in bad.output


def _kicker_hand(gamma_note: str, beta_note: str) -> str:
    from tests.parsers.test_real_forms import HOME_GAME

    return (
        HOME_GAME.replace("[2c 3d 4h]", "[Kd 9s 9h]")
        .replace("[2c 3d 4h] [Kd]", "[Kd 9s 9h] [3d]")
        .replace("[2c 3d 4h Kd] [9s]", "[Kd 9s 9h 3d] [2c]")
        .replace("Board [2c 3d 4h Kd 9s]", "Board [Kd 9s 9h 3d 2c]")
        .replace("[Kc 9c Qh Jh] (HI: two pair, Kings and Nines)", f"[Kc Ac 7h 8h] (HI: {gamma_note})")
        .replace("[Kc 9c Qh Jh]", "[Kc Ac 7h 8h]")
        .replace("beta: shows [Qs]", f"beta: shows [Ks Qc Jd Td] (HI: {beta_note})")
        .replace("showed [Qs]", "showed [Ks Qc Jd Td]")
    )


def test_lower_kicker_note_is_accepted_and_a_contradicting_one_is_not() -> None:
    # Both make two pair, kings and nines; gamma's ace kicker beats beta's queen (shown second).
    right = _kicker_hand(
        "two pair, Kings and Nines", "two pair, Kings and Nines - lower kicker"
    )
    assert audit_texts(right).filter(pl.col("kind") != "button").height == 0
    named = _kicker_hand(
        "two pair, Kings and Nines - Ace kicker", "two pair, Kings and Nines - lower kicker"
    )
    assert audit_texts(named).height == 0
    # gamma's hand is the higher one: "lower kicker" on it contradicts the cards.
    wrong = _kicker_hand(
        "two pair, Kings and Nines - lower kicker", "two pair, Kings and Nines"
    )
    finding = single(audit_texts(wrong))
    assert (finding["kind"], finding["player"], finding["severity"]) == (
        "hand_description",
        "gamma",
        "wording",
    )


def test_an_unmatched_bet_returned_without_a_line_is_wording_not_money() -> None:
    from tests.parsers.test_real_forms import HOME_GAME

    river = HOME_GAME[HOME_GAME.index("*** RIVER ***") : HOME_GAME.index("*** SUMMARY ***")]
    silent = (
        HOME_GAME.replace(
            river,
            "*** RIVER *** [2c 3d 4h Kd] [9s]\nbeta: checks\ngamma: bets 60\nbeta: folds\n"
            "gamma collected 660 from pot\n",
        )
        .replace("Total pot 780", "Total pot 660")
        .replace("Seat 2: beta (small blind) showed [Qs] and lost", "Seat 2: beta (small blind) folded on the River")
        .replace("showed [Kc 9c Qh Jh] and won (780)", "collected (660)")
    )
    findings = audit_texts(silent)
    assert findings.select("kind", "player", "severity", "expected", "recorded").rows() == [
        ("uncalled_unprinted", "gamma", "wording", 60, 0)
    ]
    printed = silent.replace(
        "beta: folds\n", "beta: folds\nUncalled bet (60) returned to gamma\n"
    )
    assert audit_texts(printed).height == 0


@needs_corpus
def test_a_line_that_pays_nothing_is_no_payment() -> None:
    """PokerNow prints "collected 0.00 from pot" when everyone folds to a lone big blind: a
    recorded line of 0 to a player the rules pay nothing is no unexpected winner."""
    result = parse_bytes(corpus_hand(CASH, "35875034981").encode(), "zero.txt")
    assert result is not None
    tables = {name: pl.from_arrow(result.tables[name]) for name in TABLES}
    collections = tables["collections"]
    paid = set(collections["player"])
    loser = next(p for p in tables["seats"]["player"] if p not in paid)
    zero = collections.head(1).with_columns(player=pl.lit(loser), amount=pl.lit(0, dtype=pl.Int64))
    tables["collections"] = pl.concat([collections, zero])
    assert audit_tables(**tables).discrepancies.height == 0  # type: ignore[arg-type]
    one = zero.with_columns(amount=pl.lit(1, dtype=pl.Int64))
    tables["collections"] = pl.concat([collections, one])
    kinds = set(audit_tables(**tables).discrepancies["kind"])  # type: ignore[arg-type]
    assert "unexpected_winner" in kinds
