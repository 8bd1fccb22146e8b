"""Real store files damaged on disk: every read raises one StoreDamaged naming the file and the cure.

The helpers here (:func:`write_store`, :func:`damage`, :data:`DAMAGES`) are shared with the CLI and
REST tests of damaged stores.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import hpnb
from hpnb.core.store import ResultRow, Store, StoreDamaged, StoreError

#: the experiments :func:`write_store` writes.
NAMES = ("mlp-lr", "cnn-depth", "gbm-leaves")
#: ways to damage a store file, each found by the listing query.
DAMAGES = ("truncated", "garbage-header", "garbage-pages", "zeros")


def write_store(path: Path) -> Path:
    """A real store with three experiments of eight trials, each with five results and an event."""
    with Store(path) as store:
        for name in NAMES:
            exp = store.create_experiment(
                name, {"parameters": {"lr": {"min": 0.001, "max": 0.1}}}, metric="loss", mode="min",
                strategy="random", budget=8, parallel=2,
            )  # fmt: skip
            for trial in range(8):
                store.add_trial(exp.id, trial, {"lr": 0.01 * (trial + 1), "note": "x" * 200})
                rows = [
                    ResultRow(trial, seq, seq, float(seq), 1.0 / seq, {"loss": 1.0 / seq})
                    for seq in range(1, 6)
                ]
                store.add_results(exp.id, rows)
                store.update_trial(exp.id, trial, state="COMPLETED", value=0.2, best=0.2)
            store.add_event(exp.id, "extended", {"by": 2})
    return path


def _garbage(size: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(size)


def _page(data: bytes, number: int) -> slice:
    size = int.from_bytes(data[16:18], "big")
    return slice((number - 1) * size, number * size)


def _experiments_page(path: Path) -> int:
    """The root page of the experiments table: every listing reads it."""
    with closing(sqlite3.connect(path)) as conn:
        return int(
            conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'experiments'").fetchone()[0]
        )


def damage(good: Path, target: Path, how: str, seed: int = 0) -> Path:
    """Copy the store ``good`` to ``target``, damaged ``how`` (one of :data:`DAMAGES`, or "empty")."""
    data = bytearray(good.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "garbage-header":
        data[:100] = _garbage(100, seed)
    elif how == "garbage-pages":
        pages = len(data) // len(data[_page(data, 1)])
        for number in {_experiments_page(good), pages // 2, pages // 2 + 1}:
            where = _page(data, number)
            data[where] = _garbage(where.stop - where.start, seed + number)
    elif how == "zeros":
        data = bytearray(len(data))
    elif how == "empty":
        data = bytearray()
    else:
        raise ValueError(how)
    target.write_bytes(bytes(data))
    return target


@pytest.fixture(scope="module")
def good_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_store(tmp_path_factory.mktemp("good") / "hpnb.sqlite")


@pytest.fixture(params=DAMAGES)
def damaged(request: pytest.FixtureRequest, good_store: Path, tmp_path: Path) -> Path:
    """A copy of :func:`good_store` damaged in each way of :data:`DAMAGES`."""
    return damage(good_store, tmp_path / "hpnb.sqlite", request.param)


def assert_clear(err: BaseException, path: Path) -> None:
    """``err`` is the one clear message: the file, that it is damaged, and how to move it aside."""
    assert isinstance(err, StoreDamaged), repr(err)
    text = str(err)
    assert "\n" not in text
    assert f"the store {path} is damaged (" in text
    assert f"mv {path} {path}.bak" in text and "restore a backup" in text


def assert_fails_clearly(action: Callable[[], Any], path: Path) -> None:
    with pytest.raises(StoreError) as raised:
        action()
    assert_clear(raised.value, path)


def reads(store: Store) -> dict[str, Callable[[], Any]]:
    """Every read method of the store, with arguments that hit stored rows."""
    return {
        "experiments": store.experiments,
        "experiment": lambda: store.experiment(NAMES[0]),
        "find_experiment": lambda: store.find_experiment(NAMES[1]),
        "experiment_with_id": lambda: store.experiment_with_id(1),
        "trials": lambda: store.trials(1),
        "trial": lambda: store.trial(2, 3),
        "results": lambda: store.results(3),
        "results_since": lambda: store.results_since(2),
        "last_seq": lambda: store.last_seq(1),
        "result_count": lambda: store.result_count(3),
        "events": lambda: store.events(2),
    }


def test_listing_a_damaged_store_raises_one_clear_store_error(damaged: Path) -> None:
    with Store(damaged, readonly=True) as store:
        assert_fails_clearly(store.experiments, damaged)


def test_showing_and_loading_a_damaged_store_raise_the_same_error(damaged: Path) -> None:
    with Store(damaged, readonly=True) as store:
        assert_fails_clearly(lambda: store.experiment(NAMES[0]), damaged)
    assert_fails_clearly(lambda: hpnb.load(NAMES[0], store=damaged), damaged)


def test_a_writable_open_of_a_damaged_store_fails_clearly_at_once_or_on_its_first_read(damaged: Path) -> None:
    def open_and_list() -> None:
        with Store(damaged) as store:
            store.experiments()

    assert_fails_clearly(open_and_list, damaged)


@pytest.mark.parametrize("seed", range(6))
def test_any_read_of_randomly_damaged_pages_fails_only_with_the_clear_error(
    good_store: Path, tmp_path: Path, seed: int
) -> None:
    data = bytearray(good_store.read_bytes())
    pages = len(data) // len(data[_page(data, 1)])
    rng = random.Random(seed)
    for number in rng.sample(range(2, pages + 1), 3):
        where = _page(data, number)
        data[where] = rng.randbytes(where.stop - where.start)
    path = tmp_path / "hpnb.sqlite"
    path.write_bytes(bytes(data))
    with Store(path, readonly=True) as store:
        for name, read in reads(store).items():
            try:
                read()
            except Exception as err:  # whatever fails must fail clearly
                assert isinstance(err, StoreDamaged), f"{name} raised {err!r}"
                assert_clear(err, path)


def test_an_empty_file_reads_as_an_empty_store(good_store: Path, tmp_path: Path) -> None:
    # SQLite sees a new database in a 0-byte file (one a writer has just created looks the same).
    path = damage(good_store, tmp_path / "hpnb.sqlite", "empty")
    with Store(path, readonly=True) as store:
        assert store.experiments() == [] and store.find_experiment(NAMES[0]) is None


def test_a_missing_file_is_not_damaged(tmp_path: Path) -> None:
    with Store(tmp_path / "none" / "hpnb.sqlite", readonly=True) as store:
        assert store.experiments() == []


def test_an_intact_copy_still_reads(good_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "copy.sqlite"
    shutil.copyfile(good_store, path)
    with Store(path, readonly=True) as store:
        assert sorted(e.name for e in store.experiments()) == sorted(NAMES)
        assert all(len(store.trials(e.id)) == 8 for e in store.experiments())


def test_the_cure_quotes_the_path_and_moves_a_write_ahead_log_too(tmp_path: Path) -> None:
    path = tmp_path / "my stores" / "hpnb.sqlite"
    path.parent.mkdir()
    path.write_bytes(b"\0" * 4096)
    assert f"mv '{path}' '{path}.bak')" in str(StoreDamaged(path, "file is not a database"))
    (path.parent / "hpnb.sqlite-wal").write_bytes(b"frames")
    (path.parent / "hpnb.sqlite-shm").write_bytes(b"index")
    text = str(StoreDamaged(path, "file is not a database"))
    assert f"mv '{path}' '{path}.bak' && mv '{path}-wal' '{path}.bak-wal')" in text
    assert "-shm" not in text


def test_a_damaged_file_of_an_older_schema_is_damaged_not_a_version_problem(tmp_path: Path) -> None:
    from tests.core.store.test_store_schema import _write_version_1

    path = tmp_path / "hpnb.sqlite"
    _write_version_1(path)
    data = bytearray(path.read_bytes())
    data[100 : _page(data, 1).stop] = _garbage(_page(data, 1).stop - 100, 1)  # the schema, past the header
    path.write_bytes(bytes(data))
    with Store(path, readonly=True) as store:
        assert_fails_clearly(store.experiments, path)
