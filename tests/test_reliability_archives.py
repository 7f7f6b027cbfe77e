"""Hostile inputs: archive bombs, zip-slip names, symbolic links, nested archives, unreadable paths.

Each hostile input must be refused (a ``files`` row with an ``error`` and a ``rejects`` row) or
skipped with a clear message, the good files beside it ingested, and nothing written anywhere
but the output folder (the whole temporary tree is snapshotted before and after).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pipeline import dataset
from pipeline.ingest import ingest
from pipeline.ingest import sources as ingest_sources
from tests.conftest import REPOSITORY
from tests.test_reliability_duplicates import corpus_hands, needs_source

pytestmark = needs_source
NOBODY = 65534


def snapshot(folder: Path, skip: Path | None = None) -> dict[str, str]:
    """Relative path -> what it is (file digest, link target, folder) for a whole tree."""
    seen: dict[str, str] = {}
    for directory, folders, names in os.walk(folder):
        if skip is not None and Path(directory) == skip:
            folders[:] = []
            continue
        for name in folders + names:
            path = Path(directory) / name
            relative = path.relative_to(folder).as_posix()
            if path == skip:
                continue
            if path.is_symlink():
                seen[relative] = f"link {os.readlink(path)}"
            elif path.is_dir():
                seen[relative] = "folder"
            else:
                try:
                    seen[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
                except PermissionError:
                    seen[relative] = "unreadable"
    return seen


def good_text(count: int = 5, start: int = 0) -> bytes:
    return b"".join(corpus_hands()[start : start + count])


def member(name: str, data: bytes, mode: int | None = None) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    if mode is not None:
        info.external_attr = mode << 16
    return info, data


def write_zip(path: Path, members: list[tuple[zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for info, data in members:
            archive.writestr(info, data)
    return path


def errors_by_path(root: Path) -> dict[str, str | None]:
    return {row["path"]: row["error"] for row in dataset.read_manifest(root).to_pylist()}


def reject_reasons(root: Path) -> dict[str, str]:
    return {
        row["source_file"]: row["reason"] for row in dataset.read_table(root, "rejects").to_pylist()
    }


def test_hostile_archive_is_refused_member_by_member_and_writes_nothing_outside(
    tmp_path: Path,
) -> None:
    inner = write_zip(tmp_path / "inner.zip", [member("hands.txt", good_text(3))])
    hostile = {
        "../escape.txt": "unsafe archive member path",
        "../../../../../../tmp/escape-abs.txt": "unsafe archive member path",
        "/etc/hilo-absolute.txt": "unsafe archive member path",
        "C:\\Windows\\hilo-drive.txt": "unsafe archive member path",
        "c:/hilo-drive2.txt": "unsafe archive member path",
        "..\\..\\hilo-backslash.txt": "unsafe archive member path",
        "ok/../../hilo-middle.txt": "unsafe archive member path",
        "link-to-passwd.txt": "symbolic link",
        "inner.zip": "nested archive",
        "deeper/inner.tar.gz": "nested archive",
        "bomb.txt": "compression ratio",
    }
    members = [
        member(name, good_text(2))
        for name in hostile
        if name not in ("link-to-passwd.txt", "inner.zip", "bomb.txt")
    ]
    members.append(member("link-to-passwd.txt", b"/etc/passwd", stat.S_IFLNK | 0o777))
    members.append(member("inner.zip", inner.read_bytes()))
    members.append(member("bomb.txt", b"\n" * (64 << 20)))  # 64 MiB of line feeds: ~1000:1
    members.append(member("good/hands.txt", good_text(5)))
    archive = write_zip(tmp_path / "hostile.zip", members)
    inner.unlink()
    out = tmp_path / "out"
    before = snapshot(tmp_path)
    summary = ingest([archive], out / "dataset", workers=1)
    after = snapshot(tmp_path, skip=out)
    assert after == before, "something was written outside the output folder"
    errors = errors_by_path(out / "dataset")
    reasons = reject_reasons(out / "dataset")
    for name, reason in hostile.items():
        assert reason in (errors[f"{archive}!{name}"] or ""), name
        assert reason in reasons[f"{archive}!{name}"], name
    assert errors[f"{archive}!good/hands.txt"] is None
    assert summary.parsed == 5
    # Nothing was extracted: the dataset folder holds Parquet parts and the lock only.
    stray = [
        path for path in (out / "dataset").rglob("*")
        if path.is_file() and path.suffix != ".parquet" and path.name != dataset.LOCK_NAME
    ]  # fmt: skip
    assert stray == []


def test_bombs_are_stopped_by_ratio_and_by_absolute_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A gzip bomb: its trailer could lie about the size, so it is stopped while reading.
    (tmp_path / "bomb.txt.gz").write_bytes(gzip.compress(b"\n" * (64 << 20), compresslevel=9))
    # Honest members that are simply too large once the absolute limit is lowered for the test.
    (tmp_path / "large.txt.gz").write_bytes(gzip.compress(os.urandom(300_000).hex().encode()))
    write_zip(tmp_path / "large.zip", [member("large.txt", os.urandom(300_000).hex().encode())])
    monkeypatch.setattr(ingest_sources, "MAX_MEMBER_BYTES", 500_000)
    # workers=1 and one task: runs in this process, where the lowered limit applies.
    ingest([tmp_path], tmp_path / "dataset", workers=1, batch_bytes=1 << 30)
    errors = errors_by_path(tmp_path / "dataset")
    assert "gzip bomb" in errors[str(tmp_path / "bomb.txt.gz")]
    assert "expands beyond 500000 bytes" in errors[str(tmp_path / "large.txt.gz")]
    assert "archive member too large" in errors[f"{tmp_path / 'large.zip'}!large.txt"]
    assert dataset.read_table(tmp_path / "dataset", "hands").num_rows == 0


def test_symbolic_links_pointing_outside_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(good_text(4, start=10))
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "mine.txt").write_bytes(good_text(3))
    (inputs / "file-link.txt").symlink_to(outside / "secret.txt")
    (inputs / "folder-link").symlink_to(outside, target_is_directory=True)
    (inputs / "dangling.txt").symlink_to(tmp_path / "does-not-exist")
    (inputs / "loop").symlink_to(inputs, target_is_directory=True)
    summary = ingest([inputs], tmp_path / "dataset", workers=1)
    errors = errors_by_path(tmp_path / "dataset")
    for name in ("file-link.txt", "folder-link", "dangling.txt", "loop"):
        assert errors[str(inputs / name)] == "symbolic link not followed", name
    assert summary.parsed == 3
    sources = set(
        dataset.read_table(tmp_path / "dataset", "hands").column("source_file").to_pylist()
    )
    assert sources == {str(inputs / "mine.txt")}


def test_nested_archive_rule_one_level_only(tmp_path: Path) -> None:
    """The rule: archives are read one level deep; an archive inside one is refused by name,
    and archive bytes under a text name are refused as binary, never unpacked."""
    inner = write_zip(tmp_path / "inner.zip", [member("hands.txt", good_text(3))])
    outer = write_zip(
        tmp_path / "outer.zip",
        [
            member("inner.zip", inner.read_bytes()),
            member("disguised.txt", inner.read_bytes()),
            member("packed.gz", gzip.compress(good_text(2))),
            member("plain.txt", good_text(4)),
        ],
    )
    inner.unlink()
    summary = ingest([outer], tmp_path / "dataset", workers=1)
    errors = errors_by_path(tmp_path / "dataset")
    assert "nested archive" in errors[f"{outer}!inner.zip"]
    assert "nested archive" in errors[f"{outer}!packed.gz"]
    assert errors[f"{outer}!disguised.txt"] is not None  # binary or unknown, never read inside
    assert errors[f"{outer}!plain.txt"] is None
    assert summary.parsed == 4


def _as_nobody() -> None:
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def _nobody_can_run_python() -> bool:
    try:
        subprocess.run([sys.executable, "-c", "import polars"], preexec_fn=_as_nobody, capture_output=True, check=True, timeout=60)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return True


def _run_ingest(
    arguments: list[str], as_nobody: bool, cache: Path
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY),
        "NUMBA_CACHE_DIR": str(cache),
        "HOME": str(cache),
    }
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "ingest", *arguments],
        cwd=cache, env=environment, capture_output=True, text=True, timeout=300,
        preexec_fn=_as_nobody if as_nobody else None, check=False,
    )  # fmt: skip


def test_unreadable_files_and_folders_are_skipped_with_a_reason(tmp_path: Path) -> None:
    """chmod 000 means nothing to root: as root, the ingest runs as user nobody instead."""
    as_nobody = os.geteuid() == 0
    if as_nobody and not _nobody_can_run_python():
        pytest.skip("running as root, and user nobody cannot run this Python to test chmod 000")
    work = tmp_path / "work"
    inputs = work / "inputs"
    (inputs / "closed").mkdir(parents=True)
    (inputs / "readable.txt").write_bytes(good_text(3))
    (inputs / "secret.txt").write_bytes(good_text(2, start=5))
    (inputs / "closed" / "inside.txt").write_bytes(good_text(2, start=8))
    (work / "cache").mkdir()
    if as_nobody:
        for path in [tmp_path, work, *work.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
    os.chmod(inputs / "secret.txt", 0)
    os.chmod(inputs / "closed", 0)
    try:
        if not as_nobody and os.access(inputs / "secret.txt", os.R_OK):
            pytest.skip("this user can read a chmod 000 file")
        result = _run_ingest(
            [str(inputs), "--out", str(work / "dataset"), "--workers", "1"],
            as_nobody,
            work / "cache",
        )
    finally:
        os.chmod(inputs / "closed", 0o755)
        os.chmod(inputs / "secret.txt", 0o644)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "secret.txt: cannot read file: Permission denied" in result.stderr
    assert "closed: cannot list folder: Permission denied" in result.stderr
    errors = errors_by_path(work / "dataset")
    assert errors[str(inputs / "readable.txt")] is None
    assert "Permission denied" in errors[str(inputs / "secret.txt")]
    assert "Permission denied" in errors[str(inputs / "closed")]
    # Made readable again, the next run ingests them (refusals for access are retried).
    shutil.rmtree(work / "cache")
    (work / "cache").mkdir()
    if as_nobody:
        os.chown(work / "cache", NOBODY, NOBODY)
    again = _run_ingest(
        [str(inputs), "--out", str(work / "dataset"), "--workers", "1"], as_nobody, work / "cache"
    )
    assert again.returncode == 0, again.stderr
    assert "hands parsed 4" in again.stdout, again.stdout


def test_permission_errors_are_recorded_and_retried_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same as above without a second user: the operating system's refusals are simulated."""
    inputs = tmp_path / "inputs"
    (inputs / "closed").mkdir(parents=True)
    (inputs / "readable.txt").write_bytes(good_text(3))
    (inputs / "secret.txt").write_bytes(good_text(2, start=5))
    (inputs / "closed" / "inside.txt").write_bytes(good_text(2, start=8))
    real_open, real_scandir = open, os.scandir

    def guarded_open(path: object, *arguments: object, **options: object) -> object:
        if str(path).endswith("secret.txt"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *arguments, **options)  # type: ignore[call-overload]

    def guarded_scandir(path: object = ".") -> object:
        if str(path).endswith("closed"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(ingest_sources, "open", guarded_open, raising=False)
        patch.setattr(os, "scandir", guarded_scandir)
        first = ingest([inputs], tmp_path / "dataset", workers=1)
    assert first.parsed == 3
    assert dict(first.errors) == {
        str(inputs / "closed"): "cannot list folder: Permission denied",
        str(inputs / "secret.txt"): "cannot read file: Permission denied",
    }
    second = ingest([inputs], tmp_path / "dataset", workers=1)
    assert (second.parsed, second.already_ingested) == (4, 1)
