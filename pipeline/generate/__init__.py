"""``hilo generate``: simulated Omaha Hi/Lo hand histories in one site's text, with ground truth.

The requested hands are cut into *jobs* (one table each, planned up front from the seed so the
output does not depend on how many processes run them). A job plays table sessions
(`pipeline.generate.simulate`) until its hands are used up — a cash table for the whole job unless
the hero goes broke, tournaments one after another — and writes each session as one file with the
site's writer (`pipeline.generate.sites`: PokerStars, GGPoker, Full Tilt, PartyPoker, Winamax). Ground truth goes to ``OUT/truth/*.parquet``
(`pipeline.generate.truth`); a share of hands can be deliberately mis-recorded
(`pipeline.generate.faults`, ``docs/faults.md``). Cash hands are raked by a schedule file
(`pipeline.rake_schedules`, ``docs/rake.md``; ``generated`` unless told otherwise), the same file
``hilo audit --rake-schedule`` checks against. Same seed, same bytes. Where an archive's
hand ids, tournament ids and times start is drawn from its seed (`archive_origin`), so archives
of different seeds can share one dataset.

Layout of ``OUT``::

    OUT/pokerstars/HH20110401 Gaby I - $0.01-$0.02 - USD Omaha Hi-Lo Pot Limit.txt ...
        (or OUT/ggpoker/, OUT/fulltilt/, OUT/partypoker/, OUT/winamax/ with --site)
    OUT/truth/truth_payouts.parquet  truth_hands.parquet  truth_faults.parquet
              truth_players.parquet
"""

from __future__ import annotations

import dataclasses
import gc
import os
import random
import shutil
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import repeat
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pyarrow as pa

from parsers.games import GAMES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pipeline.generate.simulate import HandRecord, Session, SessionPlan
    from pipeline.generate.truth import TruthColumns
    from pipeline.rake_schedules import RakeSchedule

__all__ = [
    "LIMIT_CHOICES",
    "ArchiveOrigin",
    "GenerateSummary",
    "Job",
    "archive_origin",
    "generate",
    "generate_command",
    "plan_jobs",
    "run_job",
]

LIMIT_CHOICES = ("FL", "PL", "NL", "mix")
# Weights of the limits when mixing: Omaha Hi/Lo is mostly played fixed and pot limit.
MIX_WEIGHTS = {"FL": 0.4, "PL": 0.4, "NL": 0.2}
# Archives of different seeds can share one dataset: where an archive starts is drawn from its
# seed (`ArchiveOrigin`). Hand ids: an archive's first job starts at a base anywhere from 12 to
# 18 digits, job i at base + i × HAND_IDS_PER_JOB, so the jobs of one archive never share an id
# and two archives almost never overlap (two archives of a million hands each span ~10^10 ids:
# they overlap with a chance of ~10^-8). PokerStars prints hand numbers as plain decimals;
# every id stays far below 2^63.
HAND_ID_FLOOR = 10**11
HAND_ID_CEILING = 10**18
# Ids advance 200 to 3,000 per hand and per session: a job of MAX_JOB_HANDS hands uses at most
# 3.6 million of them.
HAND_IDS_PER_JOB = 10_000_000
HAND_ID_STEP = 3000
# Tournament ids the same way (job i: SESSIONS_PER_JOB ids from base + i × SESSIONS_PER_JOB),
# and the start of the archive's sessions within EPOCH_SPREAD_MINUTES: the same table names at
# different times are different tables to the audit's button check.
TOURNAMENT_ID_FLOOR = 10**8
TOURNAMENT_ID_CEILING = 10**12
SESSIONS_PER_JOB = 1000
EPOCH = datetime(2011, 4, 1, 9, 0, 0)  # ET; every session stays inside 2011's summer time
EPOCH_SPREAD_MINUTES = 150 * 24 * 60
MAX_JOB_HANDS = 1200  # ~1.5 MB of text: files stay a few MB at most
assert MAX_JOB_HANDS * HAND_ID_STEP < HAND_IDS_PER_JOB
PARALLEL_MINIMUM_HANDS = 4000


@dataclass(frozen=True, slots=True)
class Job:
    """One table's share of the output: a seed, a number of hands and the kind of game."""

    index: int
    seed: int
    hands: int
    limit_type: str
    is_tournament: bool
    fault_rate: float
    site: str = "pokerstars"
    game: str = "O8"  # `parsers.games` code
    rig: str | None = None  # an unfair deal (`pipeline.generate.dealing.parse_rig`)
    uniform_deal: bool = False  # plain shuffles only (no deals biased toward split pots)
    first_hand_id: int = HAND_ID_FLOOR  # the job's range: HAND_IDS_PER_JOB ids from here
    first_tournament_id: int = TOURNAMENT_ID_FLOOR  # SESSIONS_PER_JOB ids from here
    started_at: datetime = EPOCH  # the first session's first hand
    # What cash hands are raked by: None for the shipped ``generated`` schedule.
    rake_schedule: RakeSchedule | None = None
    # The faults that may be injected: None for the site's default kinds.
    fault_kinds: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ArchiveOrigin:
    """Where the archive made with a seed starts: drawn from the seed alone (`archive_origin`)."""

    first_hand_id: int
    first_tournament_id: int
    start_minutes: int  # after EPOCH, modulo EPOCH_SPREAD_MINUTES


@dataclass(frozen=True, slots=True)
class JobResult:
    """What a job wrote and the truth rows of its hands."""

    files: tuple[str, ...]
    text_bytes: int
    hands: int
    faults: int
    truth: dict[str, pa.Table] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GenerateSummary:
    """The outcome of a `generate` run."""

    out: Path
    hands: int
    files: int
    faults: int
    text_bytes: int
    seconds: float

    def line(self) -> str:
        """One line for the terminal."""
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        return (
            f"generated {self.hands} hands in {self.files} files ({self.faults} faulted,"
            f" {self.text_bytes / 1e6:.1f} MB of text) in {self.seconds:.1f} s"
            f" ({rate:,.0f} hands/s) → {self.out}"
        )


def plan_jobs(
    hands: int,
    seed: int,
    limit: str,
    tournament_share: float,
    fault_rate: float,
    site: str = "pokerstars",
    game: str = "O8",
) -> list[Job]:
    """Cut ``hands`` into jobs, deterministically from ``seed``.

    Jobs are shorter for small runs so that a few hundred hands still cover several tables.
    The first jobs go through every allowed (limit, cash/tournament) combination in a shuffled
    order, so even a small sample has each kind; later ones are drawn at random. Each job gets
    its own range of hand and tournament ids after the seed's bases, and a start time
    (`archive_origin`).
    """
    master = random.Random(seed)
    longest = min(max(hands // 6, 40), MAX_JOB_HANDS)
    shortest = max(20, longest // 3)
    limits = _limits(limit)
    kinds = [False] if tournament_share <= 0 else [True] if tournament_share >= 1 else [False, True]
    combos = [(limit_type, is_tournament) for limit_type in limits for is_tournament in kinds]
    master.shuffle(combos)
    jobs: list[Job] = []
    remaining = hands
    while remaining > 0:
        size = min(remaining, master.randint(shortest, longest))
        if len(jobs) < len(combos):
            limit_type, is_tournament = combos[len(jobs)]
        else:
            limit_type = master.choices(limits, [MIX_WEIGHTS.get(name, 1.0) for name in limits])[0]
            is_tournament = master.random() < tournament_share
        jobs.append(
            Job(
                len(jobs),
                master.getrandbits(63),
                size,
                limit_type,
                is_tournament,
                fault_rate,
                site,
                game,
            )
        )
        remaining -= size
    origin = archive_origin(seed)
    last = origin.first_hand_id + len(jobs) * HAND_IDS_PER_JOB
    assert last < 2**63, "hand ids beyond int64"
    return [
        dataclasses.replace(
            job,
            first_hand_id=origin.first_hand_id + job.index * HAND_IDS_PER_JOB,
            first_tournament_id=origin.first_tournament_id + job.index * SESSIONS_PER_JOB,
            started_at=EPOCH
            + timedelta(
                minutes=(origin.start_minutes + job.index * 7919) % EPOCH_SPREAD_MINUTES
            ),
        )
        for job in jobs
    ]


def archive_origin(seed: int) -> ArchiveOrigin:
    """The first hand id, first tournament id and start time of the archive made with
    ``seed``, drawn from the seed alone (with a generator of their own: the rest of the plan
    does not depend on them), uniformly in their ranges.

    >>> archive_origin(1) == archive_origin(1) != archive_origin(2)
    True
    """
    rng = random.Random(f"hilo generate: archive origin of seed {seed}")
    return ArchiveOrigin(
        first_hand_id=rng.randrange(HAND_ID_FLOOR, HAND_ID_CEILING),
        first_tournament_id=rng.randrange(TOURNAMENT_ID_FLOOR, TOURNAMENT_ID_CEILING),
        start_minutes=rng.randrange(EPOCH_SPREAD_MINUTES),
    )


def _limits(limit: str) -> tuple[str, ...]:
    """``FL``, ``PL``, ``NL``, a comma-separated list of them, or ``mix`` (all three).

    >>> _limits("mix"), _limits("FL,PL")
    (('FL', 'PL', 'NL'), ('FL', 'PL'))
    """
    if limit == "mix":
        return tuple(MIX_WEIGHTS)
    return tuple(dict.fromkeys(part.strip() for part in limit.split(",")))


def _player_names() -> list[str]:
    from pipeline.generate.stakes import NAME_PARTS

    first, second = NAME_PARTS
    return [stem + suffix for stem in first for suffix in second]


def _session_plan(
    job: Job, number: int, hands: int, first_hand_id: int, started_at: datetime, rng: random.Random
) -> SessionPlan:
    from pipeline.generate.simulate import SessionPlan, TableInfo
    from pipeline.generate.sites import SITES
    from pipeline.generate.stakes import (
        CASH_STAKES,
        TABLE_STEMS,
        TOURNAMENT_BUY_INS,
        CashRake,
        roman,
    )
    from pipeline.rake_schedules import load_schedule

    site = SITES[job.site]
    game = GAMES[job.game]
    fault_kinds = site.fault_kinds if job.fault_kinds is None else job.fault_kinds
    if job.is_tournament:
        max_seats = min(rng.choice((2, 6, 6, 9, 9, 10, 10)), game.max_players)
        tournament_id = job.first_tournament_id + number
        table = TableInfo(
            name=f"{tournament_id} 1",
            max_seats=max_seats,
            limit_type=job.limit_type,
            is_tournament=True,
            game=game,
            tournament_id=tournament_id,
            buy_in=rng.choice(TOURNAMENT_BUY_INS),
            split_unit=site.split_unit,
        )
        return SessionPlan(
            table=table,
            hands=hands,
            first_hand_id=first_hand_id,
            started_at=started_at,
            stakes=None,
            has_antes=job.limit_type != "FL" and rng.random() < 0.6,
            hands_per_level=rng.randint(5, 9) if max_seats == 2 else rng.randint(8, 13),
            seats_filled=max_seats,
            starting_stack=rng.choice((1500, 1500, 3000)),
            fault_rate=job.fault_rate,
            fault_kinds=fault_kinds,
        )
    max_seats = min(rng.choice((2, 6, 6, 6, 8, 9, 9, 10)), game.max_players)
    stakes = rng.choice(CASH_STAKES[job.limit_type])
    unique = job.index * SESSIONS_PER_JOB + number
    name = f"{TABLE_STEMS[unique % len(TABLE_STEMS)]} {roman(unique // len(TABLE_STEMS) + 1)}"
    table = TableInfo(
        name=name,
        max_seats=max_seats,
        limit_type=job.limit_type,
        is_tournament=False,
        game=game,
        rake=CashRake(
            job.rake_schedule or load_schedule("generated"),
            site.name,
            site.currency,
            job.limit_type,
            stakes.big_blind,
        ),
        split_unit=site.split_unit,
        heads_up_uncapped=site.heads_up_uncapped,
    )
    return SessionPlan(
        table=table,
        hands=hands,
        first_hand_id=first_hand_id,
        started_at=started_at,
        stakes=stakes,
        seats_filled=rng.randint(max(2, max_seats - 3), max_seats),
        fault_rate=job.fault_rate,
        fault_kinds=fault_kinds,
    )


def run_job(job: Job, text_folder: str) -> JobResult:
    """Play a job's sessions, write one text file per session, return the truth rows."""
    # Generation allocates millions of small acyclic objects (reference counting frees them);
    # the cyclic collector would rescan the growing heap again and again: a third of the time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_job(job, text_folder)
    finally:
        if collecting:
            gc.enable()


def _run_job(job: Job, text_folder: str) -> JobResult:
    import numpy as np

    from pipeline.generate.betting import UniformBuffer
    from pipeline.generate.dealing import Dealer, parse_rig
    from pipeline.generate.simulate import Session
    from pipeline.generate.sites import SITES
    from pipeline.generate.truth import TruthColumns

    rng = random.Random(job.seed)
    cards = np.random.default_rng(rng.getrandbits(63))
    dealer = Dealer(
        cards,
        GAMES[job.game].hole_cards,
        None if job.rig is None else parse_rig(job.rig),
        job.uniform_deal,
    )
    uniforms = UniformBuffer(np.random.default_rng(rng.getrandbits(63)))
    names = _player_names()
    site = SITES[job.site]
    writer = site.module()
    truth = TruthColumns(site=site.name, hand_id_text=writer.hand_id_text, currency=site.currency)
    remaining = job.hands
    started_at = job.started_at
    files: list[str] = []
    text_bytes = 0
    faults = 0
    number = 0
    # Ids increase through the job's sessions, inside the job's range (`HAND_IDS_PER_JOB`).
    hand_id = job.first_hand_id
    while remaining > 0 and number < SESSIONS_PER_JOB:
        plan = _session_plan(job, number, remaining, hand_id, started_at, rng)
        session = Session(plan, rng.getrandbits(63), names, dealer, uniforms)
        number += 1
        played = _write_session(session, text_folder, truth, writer)
        if played is None:
            continue
        files.append(played.file)
        text_bytes += played.text_bytes
        faults += played.faults
        remaining -= played.hands
        started_at = played.last.started_at + timedelta(minutes=rng.randint(5, 90))
        hand_id = played.last.hand_id + rng.randint(200, HAND_ID_STEP)
    # Never past the job's range: the next job's ids start there.
    assert hand_id < job.first_hand_id + HAND_IDS_PER_JOB, (job.index, hand_id)
    return JobResult(tuple(files), text_bytes, job.hands - remaining, faults, truth.tables())


@dataclass(frozen=True, slots=True)
class _Played:
    """What `_write_session` wrote."""

    file: str
    hands: int
    faults: int
    text_bytes: int
    last: HandRecord


def _write_session(
    session: Session, text_folder: str, truth: TruthColumns, writer: ModuleType
) -> _Played | None:
    """Play a session, write its file with the site's ``writer`` module
    (`pipeline.generate.sites`) and add its truth rows; None if no hand was played.

    Each hand is rendered and recorded as soon as it is played, then dropped: a session's
    hands are never all held at once.
    """
    file_name = writer.file_name
    text = writer.SessionText()
    name = ""
    hands = 0
    faults = 0
    last: HandRecord | None = None
    for hand in session.hands():
        if last is None:
            name = file_name(hand)
            truth.start_session(hand, name)
        text.add(hand)
        truth.add_hand(hand)
        hands += 1
        faults += hand.fault is not None
        last = hand
    if last is None:
        return None
    data = text.data()
    with open(os.path.join(text_folder, name), "wb") as handle:
        handle.write(data)
    return _Played(name, hands, faults, len(data), last)


def _warm_up(site: str) -> None:
    """Load the evaluator tables, the description texts, the compiled kernels and Arrow's
    compute functions once."""
    import numpy as np

    from pipeline.generate import pokerstars_text  # noqa: F401  (builds the description tables)
    from pipeline.generate.sites import SITES

    SITES[site].module()
    from pipeline.generate.betting import UniformBuffer
    from pipeline.generate.dealing import deal_batch
    from pipeline.generate.simulate import play_betting
    from pipeline.generate.stakes import CASH_STAKES
    from pipeline.generate.truth import TruthColumns

    rng = np.random.default_rng(0)
    deal_batch(rng, 2, 2)
    play_betting(
        CASH_STAKES["PL"][0], [100, 100], [0.5, 0.5], [0.5, 0.5], [1, 2], [0, 0],
        [False, False], True, [False, False], UniformBuffer(rng),
    )  # fmt: skip
    TruthColumns().tables()


def _replace_folder(staged: Path, final: Path) -> None:
    """Put ``staged`` in place of ``final`` (an earlier run's output is removed)."""
    if final.exists():
        old = final.with_name(final.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        final.rename(old)
        staged.rename(final)
        shutil.rmtree(old)
    else:
        staged.rename(final)


def generate(
    hands: int,
    seed: int,
    out: str | os.PathLike[str],
    *,
    site: str = "pokerstars",
    game: str = "O8",
    limit: str = "mix",
    tournament_share: float = 0.3,
    fault_rate: float = 0.0,
    workers: int | None = None,
    rake_schedule: str | os.PathLike[str] | RakeSchedule = "generated",
    fault_kinds: Sequence[str] | None = None,
    rig: str | None = None,
    uniform_deal: bool = False,
) -> GenerateSummary:
    """Simulate ``hands`` hands and write their text and ground truth under ``out``.

    Parameters
    ----------
    hands
        Number of hands (≥ 1).
    seed
        Same seed, same bytes (whatever ``workers`` is).
    out
        Output folder; its ``pokerstars/`` and ``truth/`` subfolders are replaced.
    site
        The text format: ``pokerstars``, ``ggpoker``, ``fulltilt``, ``partypoker`` or
        ``winamax`` (`pipeline.generate.sites`). A site whose tournaments cannot be audited
        (Winamax) gets cash tables only.
    game
        The game dealt (`parsers.games`): ``O8`` (Omaha Hi/Lo), ``O8-5card`` (Big O),
        ``O8-6card`` or ``Courchevel-HL``, each at the sites that deal it (`SiteText.games`).
    limit
        ``FL``, ``PL``, ``NL``, a comma-separated list (``FL,PL``) or ``mix`` (all three).
    tournament_share
        Share of tables that are tournaments (0..1).
    fault_rate
        Share of hands with a deliberately wrong record (0..1).
    workers
        Processes; default: one per core for large runs, one for small ones.
    rake_schedule
        What cash hands are raked by: a shipped schedule's name (``generated``, the default:
        ``pipeline/rake/generated.toml``; ``auto``), a schedule file (``docs/rake.md``) or a
        loaded `RakeSchedule`. Each cash hand takes the first rule matching the site written,
        ``cash``, its limit, the site's currency, its big blind, its UTC day and the players
        dealt in; no rule, no rake. Tournaments are never raked.
    fault_kinds
        The fault codes that may be injected (``docs/faults.md``); default: the site's kinds
        (every kind its text can show, `pipeline.generate.sites`, but the optional ones such as
        ``rake_under_schedule``, which are only injected when named here).
    rig
        Deal unfairly (``board-rank:A:0.05``: each Ace dealt to the board swapped for another
        card with probability 0.05; also ``board-suit``, ``hole-rank``, ``hole-suit``), to
        measure what ``hilo fairness`` detects. None: a fair deal. A rig implies
        ``uniform_deal``.
    uniform_deal
        Deal every hand from a plain shuffle. By default a share of the deals is biased
        toward split pots (low boards, shared lows, identical hands) to exercise the audit:
        fair, but not what the deal tests expect of a shuffled deck.

    Returns
    -------
    GenerateSummary

    Raises
    ------
    ValueError
        An argument out of range, an unknown fault kind or one the site cannot show;
        `pipeline.rake_schedules.ScheduleError` (a ValueError) for a schedule that cannot be
        read, naming the file and the rule.
    """
    import pyarrow.parquet as pq

    from pipeline.generate.dealing import parse_rig
    from pipeline.generate.sites import fault_kinds_for, site_text
    from pipeline.generate.stakes import check_schedule
    from pipeline.rake_schedules import RakeSchedule, load_schedule

    if not site_text(site).tournaments:
        tournament_share = 0.0
    if rig is not None:
        parse_rig(rig)  # a bad rig fails before any work
    if game not in site_text(site).games:
        dealt = ", ".join(site_text(site).games)
        raise ValueError(f"{site} does not deal {game!r} (it deals {dealt})")
    if limit != "mix" and not set(_limits(limit)) <= set(MIX_WEIGHTS):
        raise ValueError(
            f"unknown limit {limit!r} (FL, PL, NL, a comma-separated list of them, or mix)"
        )
    if game in GAMES and limit == "mix":
        limit = ",".join(GAMES[game].limits)
    elif game in GAMES and not set(_limits(limit)) <= set(GAMES[game].limits):
        dealt = ", ".join(GAMES[game].limits)
        raise ValueError(f"{GAMES[game].title} is dealt {dealt} only, not {limit}")
    if hands < 1:
        raise ValueError("--hands must be at least 1")
    if not 0.0 <= tournament_share <= 1.0:
        raise ValueError("--tournament-share must be between 0 and 1")
    if not 0.0 <= fault_rate <= 1.0:
        raise ValueError("--fault-rate must be between 0 and 1")
    kinds = None if fault_kinds is None else fault_kinds_for(site, fault_kinds)
    schedule = (
        rake_schedule if isinstance(rake_schedule, RakeSchedule) else load_schedule(rake_schedule)
    )
    check_schedule(schedule, site)
    started = time.perf_counter()
    out_path = Path(out)
    out_path.mkdir(parents=True, exist_ok=True)
    staged_text = out_path / f".{site}.partial"
    staged_truth = out_path / ".truth.partial"
    for folder in (staged_text, staged_truth):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir()
    jobs = [
        dataclasses.replace(
            job,
            rake_schedule=schedule,
            fault_kinds=kinds,
            rig=rig,
            uniform_deal=uniform_deal or rig is not None,
        )
        for job in plan_jobs(hands, seed, limit, tournament_share, fault_rate, site, game)
    ]
    if workers is None:
        workers = os.cpu_count() or 1 if hands >= PARALLEL_MINIMUM_HANDS else 1
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        results = [run_job(job, str(staged_text)) for job in jobs]
    else:
        # Forked workers inherit the loaded tables and compiled kernels instead of each
        # loading them again.
        _warm_up(site)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(run_job, jobs, repeat(str(staged_text))))

    def write_truth(name: str) -> None:
        table = pa.concat_tables([result.truth[name] for result in results])
        pq.write_table(table, staged_truth / f"{name}.parquet", compression="zstd")

    # The files are independent and Arrow writes them without holding the GIL: threads
    # overlap them (after the processes, this is the part that runs alone).
    with ThreadPoolExecutor(len(results[0].truth)) as threads:
        list(threads.map(write_truth, results[0].truth))
    _replace_folder(staged_text, out_path / site)
    _replace_folder(staged_truth, out_path / "truth")
    return GenerateSummary(
        out=out_path,
        hands=sum(result.hands for result in results),
        files=sum(len(result.files) for result in results),
        faults=sum(result.faults for result in results),
        text_bytes=sum(result.text_bytes for result in results),
        seconds=time.perf_counter() - started,
    )


def generate_command(
    hands: int,
    seed: int,
    out: str | os.PathLike[str],
    site: str,
    limit: str,
    tournament_share: float,
    fault_rate: float,
    rake_schedule: str | os.PathLike[str] = "generated",
    fault_kinds: str | None = None,
    game: str = "O8",
    rig: str | None = None,
    uniform_deal: bool = False,
) -> GenerateSummary:
    """What ``hilo generate`` runs (see `generate`); the CLI prints ``summary.line()``.

    ``fault_kinds`` is a comma-separated list of fault codes (None: the site's default kinds).
    """
    kinds = None
    if fault_kinds is not None:
        kinds = [part.strip() for part in fault_kinds.split(",") if part.strip()]
    return generate(
        hands,
        seed,
        out,
        site=site,
        game=game,
        rig=rig,
        uniform_deal=uniform_deal,
        limit=limit,
        tournament_share=tournament_share,
        fault_rate=fault_rate,
        rake_schedule=rake_schedule,
        fault_kinds=kinds,
    )
