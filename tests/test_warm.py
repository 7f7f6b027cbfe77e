"""Set-up's bytecode step (`pipeline.warm.compile_bytecode`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from pipeline.warm import PACKAGES, REPOSITORY, compile_bytecode


def test_bytecode_is_written_where_imports_look_for_it(tmp_path: Path) -> None:
    module = tmp_path / "package" / "module.py"
    module.parent.mkdir()
    module.write_text("VALUE = 1\n")
    assert compile_bytecode([tmp_path / "package"])
    assert Path(importlib.util.cache_from_source(str(module))).is_file()


def test_a_module_that_does_not_compile_is_reported_and_the_rest_still_compiled(
    tmp_path: Path,
) -> None:
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "module.py").write_text("def (:\n")
    module = tmp_path / "fine" / "module.py"
    module.parent.mkdir()
    module.write_text("VALUE = 1\n")
    assert not compile_bytecode([tmp_path / "broken", tmp_path / "fine"])
    assert Path(importlib.util.cache_from_source(str(module))).is_file()


def test_the_packages_set_up_compiles_exist() -> None:
    assert all((REPOSITORY / package / "__init__.py").is_file() for package in PACKAGES)


def test_the_fork_servers_preload_loads_every_kernel_it_names() -> None:
    # Ingest's fork server imports it before forking workers: a kernel renamed or moved
    # without it would stop the preload (and every worker would load its kernels again).
    import parsers.warm

    parsers.warm.warm()
