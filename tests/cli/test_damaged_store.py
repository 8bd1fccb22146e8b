"""``hpnb list``, ``show`` and ``export`` on a damaged store file: one clear line, a non-zero exit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.store.test_damaged_store import NAMES, damage
from tests.core.store.test_damaged_store import damaged as damaged
from tests.core.store.test_damaged_store import good_store as good_store


def hpnb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hpnb", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", [["list"], ["show", NAMES[0]], ["export", NAMES[0]]])
def test_a_damaged_store_is_one_line_naming_the_file_and_the_cure(damaged: Path, command: list[str]) -> None:
    done = hpnb(*command, "--store", str(damaged))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"hpnb {command[0]}: the store {damaged} is damaged (")
    assert f"mv {damaged} {damaged}.bak" in line


def test_an_empty_store_file_lists_nothing(good_store: Path, tmp_path: Path) -> None:
    path = damage(good_store, tmp_path / "hpnb.sqlite", "empty")
    done = hpnb("list", "--store", str(path))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"no experiments in {path}\n", "")
