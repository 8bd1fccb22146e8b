"""What a search that ended well may print: no log record at ERROR or above in the test's process
(Dask's own loggers included) and no ERROR line nor traceback on its stderr (where the workers of
a cluster the test started write)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

#: Dask's loggers, which do not hand their records on to the root logger.
DASK_LOGGERS = ("distributed", "distributed.client")


@pytest.fixture
def records(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Every log record of this process (root at DEBUG), Dask's own loggers included."""
    caplog.set_level(logging.DEBUG)
    loggers = [logging.getLogger(name) for name in DASK_LOGGERS]
    for logger in loggers:
        logger.addHandler(caplog.handler)
    try:
        yield caplog
    finally:
        for logger in loggers:
            logger.removeHandler(caplog.handler)


def assert_nothing_alarming(records: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
    """No record at ERROR or above in this process, no ERROR line nor traceback from the workers."""
    errors = [f"{r.name}: {r.getMessage()}" for r in records.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(errors)
    err = capfd.readouterr().err
    alarming = [line for line in err.splitlines() if " - ERROR - " in line or " - CRITICAL - " in line]
    assert not alarming, err
    assert "Traceback" not in err, err
