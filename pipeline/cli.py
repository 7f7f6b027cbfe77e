"""The ``hilo`` command line: thin commands over library functions.

Heavy modules (polars, pyarrow, the parsers) are imported inside the commands, so ``hilo --help``
stays instant. Exit status is non-zero only for fatal errors (bad arguments, an unwritable
output folder); rejected hands and unreadable files are reported, not fatal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from pipeline.facts import RefreshSummary
    from pipeline.ingest import IngestSummary

__all__ = ["app", "main"]

DEFAULT_SAMPLE = Path("data/sample/pokerstars")
DEFAULT_RUN_OUT = Path("hilo-out")
EXIT_FATAL = 2
# Inputs above this start the workers' fork server before ingest is even imported; below it,
# a task or two, its start-up (and the wait for it to exit) would cost more than it saves.
EARLY_WORKERS_BYTES = 32 << 20
ERRORS_SHOWN = 10

app = typer.Typer(
    name="hilo",
    help="Parse, audit and analyse Omaha Hi/Lo hand histories.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

Workers = Annotated[
    int | None,
    typer.Option("--workers", "-w", min=1, help="Worker processes (default: all cores)."),
]
Scheduler = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        envvar="HILO_SCHEDULER",
        help="Dask scheduler address (tcp://host:8786); default: local processes.",
    ),
]
RakeSchedule = Annotated[
    str,
    typer.Option(
        "--rake-schedule",
        help="Rake rules to check against: auto (the schedules hilo knows, by site, era and"
        " stake), generated (archives made by hilo generate) or a schedule file (TOML,"
        " docs/rake.md).",
    ),
]
# The severities each --fail-on threshold exits on ("info", such as unevaluable pots, never).
FAIL_ON = {"money": ("money",), "rules": ("money", "rules"), "any": ("money", "rules", "wording")}
AliasesOption = Annotated[
    Path | None,
    typer.Option(
        "--aliases",
        envvar="HILO_ALIASES",
        help='Merge accounts into persons: a TOML file of person = ["site:name", ...].',
        show_default=False,
    ),
]
Since = Annotated[
    str | None, typer.Option("--since", help="First day, YYYY-MM-DD (UTC, included).")
]
Until = Annotated[
    str | None, typer.Option("--until", help="Last day, YYYY-MM-DD (UTC, included).")
]
Site = Annotated[str | None, typer.Option("--site", help="Only this site.")]
BlockMegabytes = Annotated[
    int | None,
    typer.Option("--block-mb", min=1, hidden=True, help="Bytes parsed at a time, in MiB."),
]
BatchMegabytes = Annotated[
    int | None,
    typer.Option("--batch-mb", min=1, hidden=True, help="Text per task, in MiB."),
]


@dataclass
class RunContext:
    """What every stage of ``hilo run`` gets: the inputs, the output folder and the engine."""

    inputs: list[Path]
    out: Path
    workers: int | None
    scheduler: str | None
    block_bytes: int | None  # None: the library's default
    batch_bytes: int | None
    rake_schedule: str = "auto"

    @property
    def dataset(self) -> Path:
        """Where the Parquet tables go."""
        return self.out / "dataset"


@app.command()
def ingest(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Files, folders (recursive), .zip and .gz archives.", show_default=False
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The dataset folder.")],
    workers: Workers = None,
    scheduler: Scheduler = None,
    block_mb: BlockMegabytes = None,
    batch_mb: BatchMegabytes = None,
) -> None:
    """Parse hand histories into the Parquet dataset at OUT (idempotent, crash-safe)."""
    summary = _run_ingest(
        paths, out, workers, scheduler, _mebibytes(block_mb), _mebibytes(batch_mb)
    )
    _report(summary)


@app.command()
def run(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Inputs (default: data/sample).", show_default=False),
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = DEFAULT_RUN_OUT,
    workers: Workers = None,
    scheduler: Scheduler = None,
    block_mb: BlockMegabytes = None,
    batch_mb: BatchMegabytes = None,
    rake_schedule: RakeSchedule = "auto",
) -> None:
    """Run the whole pipeline: ingest into OUT/dataset, audit it, then the later stages."""
    context = RunContext(
        inputs=list(paths) if paths else [DEFAULT_SAMPLE],
        out=out,
        workers=workers,
        scheduler=scheduler,
        block_bytes=_mebibytes(block_mb),
        batch_bytes=_mebibytes(batch_mb),
        rake_schedule=rake_schedule,
    )
    for stage in STAGES:
        stage(context)


def ingest_stage(context: RunContext) -> None:
    """Stage 1 of ``run``: ingest the inputs into ``OUT/dataset``."""
    summary = _run_ingest(
        context.inputs,
        context.dataset,
        context.workers,
        context.scheduler,
        context.block_bytes,
        context.batch_bytes,
    )
    _report(summary)


@app.command()
def audit(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    fail_on: Annotated[
        str,
        typer.Option(
            "--fail-on",
            help="Exit with status 1 when there are findings of this severity: money, rules"
            " (money or rules) or any (money, rules or wording).",
        ),
    ] = "money",
    fail_on_findings: Annotated[
        bool,
        typer.Option("--fail-on-findings", help="The same as --fail-on any."),
    ] = False,
    rake_schedule: RakeSchedule = "auto",
    workers: Workers = None,
    scheduler: Scheduler = None,
    equity: Annotated[
        bool,
        typer.Option(
            "--equity/--no-equity",
            help="Also compute every all-in spot's expected shares (allin_equity); exact"
            " preflop spots take most of the audit's time then.",
        ),
    ] = True,
) -> None:
    """Recompute every pot and payout and check the rules; write DATASET/audit/."""
    if not (dataset / "files").is_dir():
        _fail(f"not a hilo dataset (no files manifest): {dataset}")
    if fail_on not in FAIL_ON:
        _fail(f"unknown --fail-on {fail_on!r}: use money, rules or any")
    try:
        by_severity = _run_audit(dataset, rake_schedule, workers, scheduler, equity)
    except OSError as error:  # a full disk, say: the previous audit outputs stay
        _fail(f"cannot write the audit to {dataset}: {error.strerror or error}")
    threshold = "any" if fail_on_findings else fail_on
    if any(by_severity.get(severity, 0) for severity in FAIL_ON[threshold]):
        raise typer.Exit(1)


def audit_stage(context: RunContext) -> None:
    """Stage 2 of ``run``: audit the dataset."""
    _run_audit(context.dataset, context.rake_schedule, context.workers, context.scheduler)


def _run_audit(
    dataset: Path,
    rake_schedule: str,
    workers: int | None = None,
    scheduler: str | None = None,
    equity: bool = True,
) -> dict[str, int]:
    from pipeline.audit import run_audit
    from pipeline.executor import make_executor

    from pipeline.rake_schedules import ScheduleError, load_schedule

    try:
        load_schedule(rake_schedule)
    except ScheduleError as error:
        _fail(str(error))
    with make_executor(scheduler, workers) as executor:
        # Absolute: the tasks may run in another working directory (a Dask worker).
        summary = run_audit(dataset.absolute(), rake_schedule, executor=executor, equity=equity)
    from pipeline.audit_outputs import SEVERITIES, SEVERITY
    from pipeline.report import format_money

    total = sum(summary.findings_by_kind.values())
    by_severity = summary.findings_by_severity()
    typer.echo(
        f"audited {summary.hands} hands · payouts {summary.payouts} · findings {total}"
        f" · unevaluable {summary.unevaluable}"
    )
    for severity in SEVERITIES:
        kinds = {
            kind: count
            for kind, count in summary.findings_by_kind.items()
            if SEVERITY.get(kind, "rules") == severity
        }
        if not kinds:
            continue
        affected = ""
        if severity == "money" and summary.money_affected:
            affected = "   money affected " + ", ".join(
                format_money(amount, currency, scale)
                for (currency, scale), amount in summary.money_affected.items()
            )
        typer.echo(f"{severity:<20} {by_severity[severity]:>7}{affected}")
        for kind, count in kinds.items():
            examples = ", ".join(summary.examples.get(kind, []))
            typer.echo(f"  {kind:<18} {count:>7}   e.g. hands {examples}")
    typer.echo(f"audit: {summary.output}")
    return by_severity


@app.command()
def compact(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    target_rows: Annotated[
        int,
        typer.Option(
            "--target-rows", min=2, help="Rows of a merged group of parts, all tables together."
        ),
    ] = 8_000_000,
) -> None:
    """Merge many small part files into few large ones (atomic, idempotent)."""
    from pipeline.compact import compact as compact_dataset

    if not (dataset / "files").is_dir():
        _fail(f"not a hilo dataset (no files manifest): {dataset}")

    def say_waiting() -> None:
        typer.echo(f"waiting for another writer of {dataset} to finish...", err=True)

    try:
        summary = compact_dataset(dataset, target_rows=target_rows, on_wait=say_waiting)
    except OSError as error:
        _fail(f"cannot compact {dataset}: {error.strerror or error}")
    typer.echo(summary.line())
    typer.echo(f"dataset: {dataset}")


@app.command()
def generate(
    hands: Annotated[int, typer.Option("--hands", "-n", min=1, help="Hands to simulate.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")],
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same bytes.")] = 1,
    site: Annotated[
        str,
        typer.Option(
            "--site",
            help="Text format to write: pokerstars, ggpoker, fulltilt, partypoker or winamax"
            " (written to OUT/<site>/).",
        ),
    ] = "pokerstars",
    game: Annotated[
        str,
        typer.Option(
            "--game",
            help="O8 (Omaha Hi/Lo), O8-5card (Big O), O8-6card or Courchevel-HL; pokerstars"
            " deals all four, winamax O8 and O8-5card.",
        ),
    ] = "O8",
    rig: Annotated[
        str | None,
        typer.Option(
            "--rig",
            help="Deal unfairly, to measure hilo fairness: board-rank:A:0.05 (each Ace dealt to"
            " the board swapped away with probability 0.05), board-suit:h:F, hole-rank:R:F,"
            " hole-suit:S:F; allin:NAME:F (NAME is the hero at every table, and a run-out that"
            " does not give NAME the high is drawn again with probability F).",
        ),
    ] = None,
    uniform_deal: Annotated[
        bool,
        typer.Option(
            "--uniform-deal",
            help="Deal every hand from a plain shuffle (by default some deals are biased"
            " toward split pots, to exercise the audit); implied by --rig.",
        ),
    ] = False,
    limit: Annotated[
        str, typer.Option("--limit", help="FL, PL, NL, mix, or a comma list such as FL,PL.")
    ] = "mix",
    tournament_share: Annotated[
        float,
        typer.Option("--tournament-share", min=0.0, max=1.0, help="Share of tournament tables."),
    ] = 0.3,
    fault_rate: Annotated[
        float,
        typer.Option("--fault-rate", min=0.0, max=1.0, help="Share of hands mis-recorded."),
    ] = 0.0,
    rake_schedule: Annotated[
        str,
        typer.Option(
            "--rake-schedule",
            help="Rake rules cash hands are raked by: generated (pipeline/rake/generated.toml),"
            " auto, or a schedule file (TOML, docs/rake.md); audit with the same file.",
        ),
    ] = "generated",
    fault_kinds: Annotated[
        str | None,
        typer.Option(
            "--fault-kinds",
            help="Comma list of the fault codes to inject (docs/faults.md), such as"
            " rake_over_cap,rake_under_schedule; default: every kind the site can show but the"
            " optional rake_under_schedule.",
        ),
    ] = None,
) -> None:
    """Simulate Omaha Hi/Lo hand histories with ground truth (and optional injected faults)."""
    from pipeline.generate import generate_command

    try:
        summary = generate_command(
            hands,
            seed,
            out,
            site,
            limit,
            tournament_share,
            fault_rate,
            rake_schedule=rake_schedule,
            fault_kinds=fault_kinds,
            game=game,
            rig=rig,
            uniform_deal=uniform_deal,
        )
    except ValueError as error:
        _fail(str(error))
    typer.echo(summary.line())


# Stages of ``hilo run`` in order; stats and report append theirs here.
STAGES: list[Callable[[RunContext], None]] = [ingest_stage, audit_stage]


def _run_ingest(
    paths: Sequence[Path],
    out: Path,
    workers: int | None,
    scheduler: str | None,
    block_bytes: int | None,
    batch_bytes: int | None,
) -> IngestSummary:
    if scheduler is None and _may_need_workers(paths):
        from pipeline.executor import start_local_workers

        # The workers' fork server imports while this process does (about 1 s saved).
        start_local_workers(workers)
    from pipeline.ingest import BATCH_BYTES, BLOCK_BYTES, InputError, ingest

    def say_waiting() -> None:
        typer.echo(f"waiting for another ingest into {out} to finish...", err=True)

    try:
        with _progress_bar("ingest") as on_progress:
            return ingest(
                paths,
                out,
                workers=workers,
                scheduler=scheduler,
                block_bytes=block_bytes or BLOCK_BYTES,
                batch_bytes=batch_bytes or BATCH_BYTES,
                on_progress=on_progress,
                on_wait=say_waiting,
            )
    except InputError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"cannot write to {out}: {error.strerror or error}")


def _may_need_workers(paths: Sequence[Path]) -> bool:
    """Whether the inputs hold more than about two tasks' text (a guess: folders are walked
    only until that much is found; an archive counts by its size)."""
    found = 0
    for path in paths:
        for directory, _, names in os.walk(path) if path.is_dir() else [("", [], [str(path)])]:
            for name in names:
                try:
                    found += os.stat(os.path.join(directory, name)).st_size
                except OSError:
                    continue
                if found > EARLY_WORKERS_BYTES:
                    return True
    return False


def shown(text: str) -> str:
    """``text`` safe for a terminal: control and bidirectional formatting characters escaped.

    Player, table and file names come from untrusted files; printed raw, an escape sequence
    could rewrite the screen and a right-to-left mark reverse what follows it.

    >>> shown("a\\x1b[2Jb\\u202ec")
    'a\\\\x1b[2Jb\\\\u202ec'
    """
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


def _report(summary: IngestSummary) -> None:
    """Print the one summary line, where the data went, and the files that failed."""
    typer.echo(summary.line())
    typer.echo(f"dataset: {summary.dataset}")
    if summary.already_ingested:
        typer.echo(f"already ingested: {summary.already_ingested} files (nothing added for them)")
    if summary.notes:
        typer.echo(
            f"{summary.notes} unrecognised lines without money or cards kept in notes;"
            " most frequent shapes:",
            err=True,
        )
        for shape, lines in summary.frequent_note_shapes():
            typer.echo(f"  {lines:>8}  {shown(shape)}", err=True)
    if summary.errors:
        typer.echo(
            f"{len(summary.errors)} files not ingested (see files.error, rejects):", err=True
        )
        for path, reason in summary.errors[:ERRORS_SHOWN]:
            typer.echo(f"  {shown(path)}: {shown(reason)}", err=True)
        if len(summary.errors) > ERRORS_SHOWN:
            typer.echo(f"  ... and {len(summary.errors) - ERRORS_SHOWN} more", err=True)


@contextmanager
def _progress_bar(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a progress callback drawing a bar on a terminal, or None when not on one."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    with Progress(
        "[bold]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _mebibytes(value: int | None) -> int | None:
    return None if value is None else value << 20


def _fail(message: str) -> NoReturn:
    typer.echo(f"hilo: error: {message}", err=True)
    raise typer.Exit(EXIT_FATAL)


# -- stats and query ------------------------------------------------------------------------------

if TYPE_CHECKING:
    import polars as pl

STATS_FORMATS = ("table", "csv", "json", "parquet")
STAGE_TOP_PLAYERS = 10


@app.command()
def stats(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player", "-p", help="Only this player (repeat for several).", show_default=False
        ),
    ] = None,
    site: Site = None,
    game: Annotated[
        str | None,
        typer.Option("--game", help="Only this game: O8, O8-5card, O8-6card or Courchevel-HL."),
    ] = None,
    limit: Annotated[
        str | None, typer.Option("--limit", help="Only this limit: FL, PL or NL.")
    ] = None,
    stakes: Annotated[
        str | None,
        typer.Option("--stakes", help="Only these stakes, e.g. 0.01/0.02 (blinds; FL: bets)."),
    ] = None,
    since: Since = None,
    until: Until = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Also group by: position, stakes, month, site or game."),
    ] = None,
    min_hands: Annotated[
        int | None, typer.Option("--min-hands", min=0, help="Leave out rows with fewer hands.")
    ] = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="table, csv, json or parquet.")
    ] = "table",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write to this file (parquet needs it).")
    ] = None,
    counts: Annotated[
        bool, typer.Option("--counts", help="Add every numerator and denominator.")
    ] = False,
    aliases: AliasesOption = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
) -> None:
    """Player statistics (docs/stats.md): one row per player and currency, most hands first.

    Ratios are fractions 0..1; net_won and rake_paid are in the currency named in the row.
    The table format shows the main columns; csv, json and parquet carry all of them.
    """
    if output_format not in STATS_FORMATS:
        _fail(f"--format {output_format!r}: use one of {', '.join(STATS_FORMATS)}")
    if output_format == "parquet" and out is None:
        _fail("--format parquet needs --out FILE")
    _require_dataset(dataset)
    from pipeline.stats import compute_stats

    try:
        frame = compute_stats(
            dataset,
            players=player or None,
            site=site,
            game=game,
            limit=limit,
            stakes=stakes,
            since=since,
            until=until,
            by=by,
            min_hands=min_hands,
            counts=counts,
            aliases=aliases,
            scheduler=scheduler,
            workers=workers,
        )
    except (ValueError, OSError) as error:
        _fail(str(error))
    _write_frame(frame, output_format, out, table_columns=not counts)


@app.command()
def fairness(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player", "-p", help="Only hands of this hero or player (repeat).", show_default=False
        ),
    ] = None,
    site: Site = None,
    stakes: Annotated[
        str | None, typer.Option("--stakes", help="Only these blinds, e.g. 0.05/0.10.")
    ] = None,
    since: Since = None,
    until: Until = None,
    alpha: Annotated[
        float, typer.Option("--alpha", help="Flag a test whose adjusted p-value is at most this.")
    ] = 0.01,
    output_format: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """Is the deal random? Deal tests per site, year and game, and each player's all-in luck
    (docs/fairness.md). Run hilo audit first for the luck."""
    import datetime as dt
    import json

    from pipeline.fairness import fairness_report
    from pipeline.stats import parse_stakes

    if output_format not in ("table", "json"):
        _fail(f"--format {output_format!r}: use table or json")
    _require_dataset(dataset)
    try:
        report = fairness_report(
            dataset,
            site=site,
            since=None if since is None else dt.date.fromisoformat(since),
            until=None if until is None else dt.date.fromisoformat(until),
            stakes=None if stakes is None else parse_stakes(stakes),
            players=player or None,
            alpha=alpha,
        )
    except ValueError as error:
        _fail(str(error))
    players = [] if report.players is None else report.players.to_dicts()
    sites = [] if report.sites is None else report.sites.to_dicts()
    if output_format == "json":
        document = {
            "alpha": report.alpha,
            "tests": [test.row() for test in report.tests],
            "players": players,
            "sites": sites,
        }
        typer.echo(json.dumps(document, indent=2, default=str))
        return
    flagged = sum(test.flagged for test in report.tests)
    typer.echo(f"deal tests: {len(report.tests)} · flagged at alpha {alpha}: {flagged}")
    for test in report.tests:
        row = test.row()
        mark = "FLAGGED" if test.flagged else ""
        typer.echo(
            f"  {row['site']:<12} {row['period']:<8} {row['game']:<14} {row['name']:<28}"
            f" n={row['cards']:<9} p={row['p_value']:.4f} adjusted={row['p_adjusted']:.4f} {mark}"
        )
    lucky = sum(entry["flagged"] for entry in players)
    typer.echo(f"all-in luck: {len(players)} players · flagged at alpha {alpha}: {lucky}")
    # The flagged players first, then the most spots.
    for entry in sorted(players, key=lambda entry: not entry["flagged"])[:20]:
        z = "-" if entry["z"] is None else f"{entry['z']:+.2f}"
        adjusted = "" if entry["p_adjusted"] is None else f" adjusted={entry['p_adjusted']:.4f}"
        mark = " FLAGGED" if entry["flagged"] else ""
        typer.echo(
            f"  {entry['site']:<12} {entry['player']:<24} {entry['currency']:<6}"
            f" spots={entry['spots']:<5} luck={entry['luck']:+.2f} z={z}{adjusted}{mark}"
        )
    for entry in sites:
        typer.echo(
            f"  site {entry['site']}: {entry['players']} players' z: mean {entry['mean_z']:+.2f}"
            f" (p {entry['p_mean']:.3f}), spread p {entry['p_spread']:.3f}"
        )


@app.command()
def export(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.", show_default=False)],
    fmt: Annotated[str, typer.Option("--format", help="Output format: phh.")] = "phh",
    hands_per_file: Annotated[
        int, typer.Option("--hands-per-file", min=1, help="Hands per .phhs file.")
    ] = 10_000,
) -> None:
    """Write every hand of DATASET as PHH (.phhs files, one folder per site); see docs/phh.md."""
    from pipeline.export import EXPORT_FORMATS, export_dataset

    _require_dataset(dataset)
    if fmt not in EXPORT_FORMATS:
        _fail(f"unknown export format {fmt!r}: use {', '.join(EXPORT_FORMATS)}")
    try:
        summary = export_dataset(dataset, out, fmt, hands_per_file)
    except OSError as error:
        _fail(f"cannot write {out}: {error}")
    typer.echo(f"exported {summary.hands} hands · {len(summary.files)} files")
    for reason, count in sorted(summary.not_exported.items()):
        typer.echo(f"  not exported: {count} hands: {reason}")
    typer.echo(f"export: {out}")


@app.command()
def query(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    sql: Annotated[str, typer.Argument(help="The SQL to run.", show_default=False)],
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="table, csv, json or parquet.")
    ] = "table",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write to this file (parquet needs it).")
    ] = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
) -> None:
    """Run SQL on DATASET/hilo.duckdb (every table and model is a view there) and print it."""
    if output_format not in STATS_FORMATS:
        _fail(f"--format {output_format!r}: use one of {', '.join(STATS_FORMATS)}")
    if output_format == "parquet" and out is None:
        _fail("--format parquet needs --out FILE")
    _require_dataset(dataset)
    import duckdb
    import polars as pl

    from pipeline.stats import open_database

    connection = open_database(dataset, scheduler=scheduler, workers=workers)
    try:
        result = connection.sql(sql)
        if result is None:  # a statement with no result (create, set, ...)
            typer.echo("ok")
            return
        frame = pl.from_arrow(result.to_arrow_table())
    except duckdb.Error as error:
        _fail(f"query failed: {error}")
    finally:
        connection.close()
    assert isinstance(frame, pl.DataFrame)
    _write_frame(frame, output_format, out, table_columns=False)


def stats_stage(context: RunContext) -> None:
    """Stage of ``run`` after the audit: refresh OUT/dataset/hilo.duckdb, show the top players."""
    from pipeline.stats import DATABASE_NAME, compute_stats, open_database

    # Refresh the stored facts (on the run's engine) and DATASET/hilo.duckdb's views.
    scheduler, workers = getattr(context, "scheduler", None), getattr(context, "workers", None)
    open_database(context.dataset, scheduler=scheduler, workers=workers).close()
    frame = compute_stats(context.dataset).head(STAGE_TOP_PLAYERS)
    typer.echo(f"stats: top {frame.height} players by hands")
    _write_frame(frame, "table", None, table_columns=True)
    typer.echo(f"stats: {context.dataset / DATABASE_NAME} (hilo stats / hilo query for more)")


STAGES.append(stats_stage)


def _require_dataset(dataset: Path) -> None:
    if not (dataset / "files").is_dir():
        _fail(f"not a hilo dataset (no files manifest): {dataset}")


def _write_frame(
    frame: pl.DataFrame, output_format: str, out: Path | None, *, table_columns: bool
) -> None:
    """Print or write ``frame`` as a text table, CSV, JSON (rows) or Parquet."""
    try:
        if output_format == "parquet":
            assert out is not None
            frame.write_parquet(out)
            typer.echo(f"{frame.height} rows: {out}")
            return
        if output_format == "csv":
            text = frame.write_csv()
        elif output_format == "json":
            text = frame.write_json()
        else:
            from pipeline.stats import stats_table_columns

            shown = frame.select(stats_table_columns(frame)) if table_columns else frame
            text = _text_table(shown)
        if out is None:
            typer.echo(text.rstrip("\n"))
        else:
            out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            typer.echo(f"{frame.height} rows: {out}")
    except OSError as error:
        _fail(f"cannot write {out}: {error.strerror or error}")


def _text_table(frame: pl.DataFrame) -> str:
    """A plain aligned table: numbers right-aligned, fractions to 3 places, null as '-'."""

    def cells(name: str) -> list[str]:
        values = frame[name].to_list()
        if frame.schema[name].is_float():
            return [
                "-" if value is None else f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
                for value in values
            ]
        return ["-" if value is None else shown(str(value)) for value in values]

    columns = []
    for name in frame.columns:  # column by column: 45,000 players print in a fraction of a second
        texts = cells(name)
        width = max([len(name), *map(len, texts)])
        numeric = frame.schema[name].is_numeric()
        columns.append(
            [
                (text.rjust(width) if numeric else text.ljust(width))
                for text in (name, "-" * width, *texts)
            ]
        )
    body = ["  ".join(row).rstrip() for row in zip(*columns, strict=True)]
    body.append(f"({frame.height} rows)")
    return "\n".join(body) + "\n"


# -- report ---------------------------------------------------------------------------------------


@app.command()
def report(
    dataset: Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="The HTML file to write.")
    ] = Path("report.html"),
    player: Annotated[
        list[str] | None,
        typer.Option(
            "--player",
            "-p",
            help="Report on this player (repeat for several); default: the most hands.",
            show_default=False,
        ),
    ] = None,
    since: Since = None,
    until: Until = None,
    top: Annotated[
        int, typer.Option("--top", min=1, help="Players shown when no --player is given.")
    ] = 5,
    max_findings: Annotated[
        int, typer.Option("--max-findings", min=0, help="Rows of the findings table.")
    ] = 250,
    aliases: AliasesOption = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
) -> None:
    """Write one self-contained HTML report: overview, audit findings, player results.

    A player is an account (a screen name on one site), or a person of --aliases, as in
    hilo stats; --player takes a screen name, site:name or a person.
    """
    if not (dataset / "files").is_dir():
        _fail(f"not a hilo dataset (no files manifest): {dataset}")
    from pipeline.stats import refresh_stored_facts

    facts = refresh_stored_facts(dataset, scheduler=scheduler, workers=workers)
    _write_report(dataset, out, player or None, since, until, top, max_findings, facts, aliases)


def report_stage(context: RunContext) -> None:
    """Last stage of ``run``: write ``OUT/report.html``."""
    from pipeline.report import DEFAULT_TOP, MAX_FINDINGS, REPORT_NAME

    _write_report(
        context.dataset, context.out / REPORT_NAME, None, None, None, DEFAULT_TOP, MAX_FINDINGS
    )


def _write_report(
    dataset: Path,
    out: Path,
    players: list[str] | None,
    since: str | None,
    until: str | None,
    top: int,
    max_findings: int,
    facts: RefreshSummary | None = None,
    aliases: Path | None = None,
) -> None:
    import datetime as dt

    from pipeline.report import write_report

    for name, value in (("--since", since), ("--until", until)):
        if value is not None:
            try:
                dt.date.fromisoformat(value)
            except ValueError:
                _fail(f"{name} {value!r} is not a date (YYYY-MM-DD)")
    try:
        summary = write_report(
            dataset,
            out,
            players,
            since,
            until,
            top=top,
            max_findings=max_findings,
            facts=facts,
            aliases=aliases,
        )
    except OSError as error:
        _fail(f"cannot write the report to {out}: {error.strerror or error}")
    except ValueError as error:  # an aliases file that cannot be read as one
        _fail(str(error))
    typer.echo(
        f"report: {summary.hands} hands · {summary.players} players · {summary.findings} findings"
        f" · {summary.size / 1e6:.1f} MB in {summary.seconds:.1f} s"
    )
    typer.echo(f"report: {summary.path}")


STAGES.append(report_stage)


def main() -> None:
    """Entry point for ``python -m pipeline.cli``."""
    try:
        app()
    except SystemExit as exit_:
        if exit_.code in (0, None) and sys.argv[1:2] == ["ingest"]:
            # A finished ingest has closed, synced and committed everything it wrote and
            # holds no database: the interpreter's teardown (~0.15 s with polars and pyarrow
            # loaded) would only delay the prompt.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        raise


if __name__ == "__main__":
    main()
