"""Ray Tune beside hpnb: one local Ray instance of 2 CPUs, a Tuner of 2 concurrent 1-CPU trials.

Ray Tune is not a dependency of hpnb: ``pip install -e .[bench]`` installs it. A
benchmark asks :func:`missing` first and prints the reason when a Ray row is
skipped. Ray's start (``ray.init``: its local cluster of 2 CPUs, without the
dashboard) is not timed, as the Dask cluster's start is not; :func:`fit` times a
``Tuner`` from its construction to ``fit()`` returning: the controller's setup,
the trial actors' start (``reuse_actors=True``: one actor per slot serves many
trials, Ray's setting for short trials), every trial and Tune's own bookkeeping
(its result files in a temporary folder), as ``Bench.search`` times hpnb's driver
from ``hpnb.search`` to ``wait()``.

Example:
    >>> with ray_session() as tuner:  # doctest: +SKIP
    ...     seconds, results = tuner.fit(objective, {"x": tune.uniform(0, 1)}, num_samples=10)
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from _cluster import SLOTS


def missing() -> str | None:
    """Why Ray Tune cannot run here, or None when it can."""
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.tune") is None:
        return "ray[tune] is not installed (pip install -e .[bench])"
    return None


@dataclass
class RayTuner:
    """Runs Tuners on the session's Ray instance, results kept under ``folder``."""

    folder: str

    def fit(self, trainable: Callable[[dict[str, Any]], Any], param_space: dict[str, Any],
            **tune_options: Any) -> tuple[float, Any]:
        """Seconds from the ``Tuner``'s construction to ``fit()`` returning, and its ``ResultGrid``.

        ``tune_options`` go to ``TuneConfig`` (``metric``, ``mode``, ``scheduler``,
        ``search_alg``, ``num_samples``...), except ``callbacks``, which go to ``RunConfig``.
        """
        from ray import tune

        callbacks = tune_options.pop("callbacks", None)
        tune_options.setdefault("max_concurrent_trials", SLOTS)
        tune_options.setdefault("reuse_actors", True)
        started = time.perf_counter()
        tuner = tune.Tuner(
            tune.with_resources(trainable, {"cpu": 1}), param_space=param_space,
            tune_config=tune.TuneConfig(**tune_options),
            run_config=tune.RunConfig(storage_path=self.folder, verbose=0, callbacks=callbacks))
        results = tuner.fit()
        elapsed = time.perf_counter() - started
        if results.errors:
            raise RuntimeError(f"Ray Tune trials failed: {results.errors[0]}")
        return elapsed, results

    def warm_up(self, trainable: Callable[[dict[str, Any]], Any], param_space: dict[str, Any]) -> None:
        """One untimed run, so that Ray's worker processes have imported what the trials need."""
        self.fit(trainable, param_space, num_samples=2 * SLOTS)


@contextlib.contextmanager
def ray_session() -> Iterator[RayTuner]:
    """A local Ray instance of ``SLOTS`` CPUs for the block, its results in a temporary folder."""
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # no progress tables in the benchmark's output
    os.environ.setdefault("TUNE_WARN_EXCESSIVE_EXPERIMENT_CHECKPOINT_SYNC_THRESHOLD_S", "1000")
    import ray

    # Tune warns on every reused actor that a new trial has no result file yet
    logging.getLogger("ray.tune.logger").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="hpnb-bench-ray-") as folder:
        ray.init(num_cpus=SLOTS, include_dashboard=False, log_to_driver=False, configure_logging=False)
        try:
            yield RayTuner(folder)
        finally:
            ray.shutdown()


def tuner_runs(trainable: Callable[[dict[str, Any]], Any], trials: int, repeats: int = 1,
               config: dict[str, Any] | None = None,
               warm_config: dict[str, Any] | None = None) -> list[tuple[float, Any]] | None:
    """``repeats`` Tuner runs of ``trials`` trials over ``x`` uniform in [0, 1] (plus ``config``): seconds
    and results of each, after one untimed run with ``warm_config``; None, the reason printed, without Ray."""
    reason = missing()
    if reason:
        print(f"Ray Tune row skipped: {reason}")
        return None
    from ray import tune

    space = {"x": tune.uniform(0.0, 1.0)}
    with ray_session() as tuner:
        tuner.warm_up(trainable, {**space, **(warm_config or config or {})})
        return [tuner.fit(trainable, {**space, **(config or {})}, num_samples=trials) for _ in range(repeats)]

