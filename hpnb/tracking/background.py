"""A tracker's own thread: it reads what the store holds of a search and sends it in batches.

The driver never waits for a tracker: each tracker runs in a thread of its own, fed from the
store (:mod:`hpnb.tracking.feed`) every :data:`INTERVAL` seconds. What cannot be sent is kept and
tried again, less often while it keeps failing; when the search ends the tracker makes a last
pass (for at most :data:`FINAL_GRACE` seconds) and what is still unsent is reported once, as a
warning and as an event of the search.

Example:
    >>> thread = TrackerThread(tracker, store, record.id, "mlp-lr")  # doctest: +SKIP
    >>> thread.start(); ...; thread.finish(); thread.join()         # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Protocol

from hpnb.core.store import Store
from hpnb.tracking.feed import StoreFeed, Update

log = logging.getLogger("hpnb")

#: seconds between two reads of the store while the search runs.
INTERVAL = 0.5
#: the longest wait between two tries while a tracker cannot be reached (seconds).
MAX_BACKOFF = 30.0
#: seconds a tracker keeps trying to send the rest once the search ended.
FINAL_GRACE = 10.0
#: seconds a tracker waits to be told the driver ended once the store says the search did (a
#: driver that died never tells).
ORPHAN_WAIT = 30.0


class TrackerUnreachable(Exception):
    """The tracker cannot be reached now; what it was sending is kept for the next try."""


class Tracker(Protocol):
    """One place a search is recorded besides the store (MLflow, TensorBoard)."""

    #: what the tracker is, for messages ("MLflow at http://127.0.0.1:5000")
    label: str

    def take(self, update: Update) -> None:
        """Remember what ``update`` brings that was not sent yet (no I/O)."""

    def push(self) -> None:
        """Send what is remembered; :class:`TrackerUnreachable` (or any error) keeps it."""

    def close(self, update: Update) -> None:
        """The search ended (or its driver stopped): end its runs as the store says."""

    def unsent(self) -> str | None:
        """What could not be sent, as the sentence the search's end reports; None if all was."""


class TrackerThread(threading.Thread):
    """Feeds one tracker from the store until the search ends (see the module's docstring)."""

    def __init__(self, tracker: Tracker, store: Store, experiment_id: int, name: str,
                 interval: float = INTERVAL, final_grace: float = FINAL_GRACE) -> None:
        super().__init__(name=f"hpnb-tracking-{name}", daemon=True)
        self.tracker, self.store, self.experiment_id = tracker, store, experiment_id
        self.interval, self.final_grace = interval, final_grace
        self._finishing = threading.Event()
        self._failures = 0
        self._next_try = 0.0
        #: the last error a push raised (None after a push that worked)
        self.last_error: BaseException | None = None

    def finish(self) -> None:
        """The search ended: send the rest, end the runs and stop (does not wait)."""
        self._finishing.set()

    def run(self) -> None:
        feed = StoreFeed(self.store.path, self.experiment_id)
        try:
            update = self._follow(feed)
            self._close(feed, update)
        except Exception:  # a tracker's bug must not reach the search: it is logged
            log.exception("hpnb: tracking the search in %s failed", self.tracker.label)
        finally:
            feed.close()

    def _follow(self, feed: StoreFeed) -> Update:
        """Read and send until the search ended; the last update read."""
        ended_at: float | None = None
        while True:
            finishing = self._finishing.is_set()
            update = feed.read()
            self.tracker.take(update)
            self._try_push()
            ended_at = (ended_at or time.monotonic()) if update.ended else None
            if not update.more and (finishing or (ended_at and time.monotonic() - ended_at > ORPHAN_WAIT)):
                return update
            if not update.more:
                self._finishing.wait(self.interval)

    def _close(self, feed: StoreFeed, update: Update) -> None:
        """The last pass: the rest sent (tried until :data:`FINAL_GRACE`), runs ended, unsent reported."""
        deadline = time.monotonic() + self.final_grace
        self._next_try = 0.0
        while not self._try_push() and time.monotonic() < deadline:
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            self._next_try = 0.0
        if self.last_error is None:
            with contextlib.suppress(Exception):
                self.tracker.close(update)
        report = self.tracker.unsent()
        if report:
            log.warning("hpnb: %s", report)
            with contextlib.suppress(Exception):  # the store is the one history: note it there too
                self.store.add_event(self.experiment_id, "tracking_unsent", {"text": report})

    def _try_push(self) -> bool:
        """Push when due (not while backing off); whether everything remembered was sent."""
        if time.monotonic() < self._next_try:
            return False
        try:
            self.tracker.push()
        except Exception as err:
            self._failed(err)
            return False
        self._failures, self.last_error = 0, None
        return True

    def _failed(self, err: BaseException) -> None:
        if self._failures == 0:
            log.info("hpnb: %s cannot be reached now (%s); trying again", self.tracker.label, err)
        self._failures += 1
        self.last_error = err
        self._next_try = time.monotonic() + min(MAX_BACKOFF, 0.5 * 2 ** min(self._failures, 8))


class Tracking:
    """The tracker threads of one run of a search's driver.

    Example:
        >>> tracking = Tracking([])
        >>> tracking.finish(); tracking.wait(1.0)
        True
    """

    def __init__(self, threads: list[TrackerThread]) -> None:
        self.threads = threads

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def finish(self) -> None:
        """The search's driver ended: each tracker sends the rest and ends its runs."""
        for thread in self.threads:
            thread.finish()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the trackers to be done; whether they all are."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self.threads:
            if thread.is_alive():
                thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in self.threads)
