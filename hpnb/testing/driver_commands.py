"""Sending a command to a driver under test the way every front end does: through its store.

Example:
    >>> send(driver, "extend", 2)  # doctest: +SKIP
"""

from __future__ import annotations

from hpnb.core.store.commands import CommandRecord
from hpnb.runner.driver import Driver


def send(driver: Driver, kind: str, value: int | None = None) -> CommandRecord:
    """Add the command to the driver's store and wake its loop (the next message it reads)."""
    sent = driver.store.send_command(driver.experiment_id, kind, value, source="test")
    driver.wake()
    return sent
