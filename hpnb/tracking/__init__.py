"""Searches where a team already looks: MLflow and TensorBoard, fed live from the store.

A search whose spec has ``tracking:`` (see :mod:`hpnb.core.spec.tracking`) gets one thread per
tracker while its driver runs (:mod:`~hpnb.tracking.background`): each reads what the store holds
(:mod:`~hpnb.tracking.feed`) and sends what is new in batches, so the driver never waits for
MLflow or a disk. :func:`check_tracking` runs before a search starts: MLflow that cannot be
reached is one warning (the search runs) or, with ``required: true``, one error.
:func:`export_to_mlflow` sends a stored search in one pass (``hpnb export NAME --mlflow URI``);
it and a resumed search continue the same runs and send only what they lack. See
``docs/tracking.md``.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec({"metric": "loss", "parameters": {"x": [1, 2]}})
    >>> check_tracking(spec)   # nothing to track, nothing to check
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from hpnb.core.errors import HpnbError
from hpnb.core.spec.tracking import masked
from hpnb.tracking.background import Tracker, TrackerThread, Tracking
from hpnb.tracking.feed import StoreFeed

if TYPE_CHECKING:
    from hpnb.core.spec import ExperimentSpec
    from hpnb.core.store import Store

log = logging.getLogger("hpnb")

__all__ = ["TrackingError", "TrackingWarning", "check_tracking", "export_to_mlflow", "start_tracking"]


class TrackingError(HpnbError):
    """A tracker the spec requires cannot be used; nothing has started."""


class TrackingWarning(UserWarning):
    """A tracker cannot be used now; the search runs without it (or sends to it later)."""


def check_tracking(spec: ExperimentSpec) -> None:
    """Before a search starts: can its trackers be used?

    Raises:
        TrackingError: MLflow with ``required: true`` is malformed, missing or unreachable, or
            the TensorBoard folder cannot be written. Without ``required``, MLflow's problem
            is one :class:`TrackingWarning` instead.
    """
    from hpnb.tracking.reach import mlflow_problem

    tracking = spec.tracking
    if tracking.mlflow is not None:
        problem = mlflow_problem(tracking.mlflow.uri)
        if problem is not None:
            if tracking.mlflow.required:
                raise TrackingError(f"tracking.mlflow.uri: {problem} (required: true)")
            warnings.warn(f"tracking.mlflow: {problem}; the search runs, and what it reports is sent "
                          "if MLflow answers later (else `hpnb export NAME --mlflow URI` sends it)",
                          TrackingWarning, stacklevel=2)
    if tracking.tensorboard is not None:
        _check_folder(Path(tracking.tensorboard))


def _check_folder(folder: Path) -> None:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        raise TrackingError("tracking.tensorboard: the tensorboard package is not installed "
                            "(pip install 'hpnb[tracking]')") from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".hpnb-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise TrackingError(f"tracking.tensorboard: the folder {folder} cannot be written "
                            f"({err.strerror or err})") from None


def trackers_of(spec: ExperimentSpec, store_path: Path) -> list[Tracker]:
    """The trackers ``spec`` asks for (a tracker whose package is missing is left out)."""
    found: list[Tracker] = []
    tracking = spec.tracking
    if tracking.mlflow is not None:
        from hpnb.tracking.mlflow import MlflowTracker

        found.append(MlflowTracker(tracking.mlflow.uri, tracking.mlflow.experiment, store_path))
    if tracking.tensorboard is not None:
        try:
            from hpnb.tracking.tensorboard import TensorBoardTracker
        except ImportError:
            return found
        found.append(TensorBoardTracker(tracking.tensorboard))
    return found


def start_tracking(store: Store, experiment_id: int, name: str, spec: ExperimentSpec) -> Tracking:
    """Start a thread per tracker of ``spec`` for the search's driver that starts now (never
    raises: a tracker that cannot start is logged, and the search runs)."""
    try:
        tracking = Tracking([TrackerThread(tracker, store, experiment_id, name)
                             for tracker in trackers_of(spec, store.path)])
        tracking.start()
    except Exception:
        log.exception("hpnb: the trackers of search %s could not start; it runs without them", name)
        return Tracking([])
    return tracking


def export_to_mlflow(store: Store, name: str, uri: str, experiment: str | None = None) -> int:
    """Send the stored search ``name`` to MLflow at ``uri`` (its runs continued if they exist);
    how many reports were sent.

    Raises:
        TrackingError: MLflow cannot be reached or refused what was sent.

    Example:
        >>> export_to_mlflow(store, "mlp-lr", "http://127.0.0.1:5000")  # doctest: +SKIP
        1200
    """
    from hpnb.tracking.mlflow import MlflowTracker
    from hpnb.tracking.reach import mlflow_problem

    record = store.experiment(name)
    problem = mlflow_problem(uri)
    if problem is not None:
        raise TrackingError(f"--mlflow: {problem}")
    tracker = MlflowTracker(uri, experiment or _spec_experiment(record.spec), store.path)
    feed = StoreFeed(store.path, record.id)
    sent = 0
    try:
        while True:
            update = feed.read()
            tracker.take(update)
            sent += len(update.rows)
            if not update.more:
                break
        tracker.push()
        if update.ended:
            tracker.close(update)
    except Exception as err:
        raise TrackingError(f"--mlflow: sending {name!r} to MLflow at {masked(uri)} failed: "
                            f"{str(err).replace(uri, masked(uri))}") from err
    finally:
        feed.close()
    return sent


def _spec_experiment(spec: dict[str, object]) -> str | None:
    """The MLflow experiment the search's own spec names, if any."""
    section = spec.get("tracking")
    mlflow = section.get("mlflow") if isinstance(section, dict) else None
    value = mlflow.get("experiment") if isinstance(mlflow, dict) else None
    return value if isinstance(value, str) else None
