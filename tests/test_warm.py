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


def test_a_module_that_does_not_compile_is_reported(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def (:\n")
    assert not compile_bytecode([tmp_path])


def test_the_packages_compiled_are_the_ones_a_command_imports() -> None:
    assert all((REPOSITORY / package / "__init__.py").is_file() for package in PACKAGES)
