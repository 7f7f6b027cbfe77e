"""The ``hilo`` command line: thin commands over library functions.

Heavy modules (polars, pyarrow, the parsers) are imported inside the commands, so ``hilo --help``
stays instant. Exit status is non-zero only for fatal errors (bad arguments, an unwritable
output folder); rejected hands and unreadable files are reported, not fatal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from pipeline.ingest import IngestSummary

__all__ = ["app", "main"]

DEFAULT_SAMPLE = Path("data/sample/pokerstars")
DEFAULT_RUN_OUT = Path("hilo-out")
EXIT_FATAL = 2
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
        help="Dask scheduler address (tcp://host:8786); default: local processes.",
    ),
]
RakeSchedule = Annotated[
    str,
    typer.Option(
        "--rake-schedule",
        help="Rake rules to check against: auto (real sites, by era and stake) or generated "
        "(archives made by hilo generate).",
    ),
]
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
    fail_on_findings: Annotated[
        bool,
        typer.Option(
            "--fail-on-findings", help="Exit with status 1 when anything is found (for jobs)."
        ),
    ] = False,
    rake_schedule: RakeSchedule = "auto",
) -> None:
    """Recompute every pot and payout and check the rules; write DATASET/audit/."""
    if not (dataset / "files").is_dir():
        _fail(f"not a hilo dataset (no files manifest): {dataset}")
    findings = _run_audit(dataset, rake_schedule)
    if fail_on_findings and findings:
        raise typer.Exit(1)


def audit_stage(context: RunContext) -> None:
    """Stage 2 of ``run``: audit the dataset."""
    _run_audit(context.dataset, context.rake_schedule)


def _run_audit(dataset: Path, rake_schedule: str) -> int:
    from pipeline.audit import run_audit

    if rake_schedule not in ("auto", "generated"):
        _fail(f"unknown rake schedule {rake_schedule!r}: use auto or generated")
    summary = run_audit(dataset, rake_schedule)
    total = sum(summary.findings_by_kind.values())
    typer.echo(
        f"audited {summary.hands} hands · payouts {summary.payouts} · findings {total}"
        f" · unevaluable {summary.unevaluable}"
    )
    for kind, count in summary.findings_by_kind.items():
        examples = ", ".join(summary.examples.get(kind, []))
        typer.echo(f"  {kind:<18} {count:>7}   e.g. hands {examples}")
    typer.echo(f"audit: {summary.output}")
    return total


@app.command()
def generate(
    hands: Annotated[int, typer.Option("--hands", "-n", min=1, help="Hands to simulate.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")],
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same bytes.")] = 1,
    site: Annotated[str, typer.Option("--site", help="Text format to write.")] = "pokerstars",
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
) -> None:
    """Simulate Omaha Hi/Lo hand histories with ground truth (and optional injected faults)."""
    from pipeline.generate import generate_command

    try:
        summary = generate_command(hands, seed, out, site, limit, tournament_share, fault_rate)
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


def _report(summary: IngestSummary) -> None:
    """Print the one summary line, where the data went, and the files that failed."""
    typer.echo(summary.line())
    typer.echo(f"dataset: {summary.dataset}")
    if summary.already_ingested:
        typer.echo(f"already ingested: {summary.already_ingested} files (nothing added for them)")
    if summary.errors:
        typer.echo(
            f"{len(summary.errors)} files not ingested (see files.error, rejects):", err=True
        )
        for path, reason in summary.errors[:ERRORS_SHOWN]:
            typer.echo(f"  {path}: {reason}", err=True)
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


def main() -> None:
    """Entry point for ``python -m pipeline.cli``."""
    app()


if __name__ == "__main__":
    main()
