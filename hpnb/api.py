"""The public API: the functions that start, resume and open searches, each giving a ``Search``
handle (:mod:`hpnb.handle`, re-exported here).

It sits above the runner (the driver loop) and the cluster backends (which give it a Dask
client), and below the notebook layer.

Example:
    >>> import hpnb
    >>> def train(x):
    ...     return {"loss": (x - 0.3) ** 2}
    >>> search = hpnb.search(train, metric="loss", mode="min", strategy="random", trials=8,
    ...                      parameters={"x": {"min": 0.0, "max": 1.0}})  # doctest: +SKIP
    >>> search.wait().best["params"]  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hpnb.builtin_objective import prepared
from hpnb.cluster.connect import check_local_fits
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.spec import ExperimentSpec, parse_spec
from hpnb.core.spec.resources import DEFAULT_MAX_CAPTURED
from hpnb.core.spec.values import check_experiment_name, experiment_name_problem
from hpnb.core.store import ExperimentRecord, Store
from hpnb.core.summary import (
    driver_alive,
    heartbeat_age,
)
from hpnb.core.trial import ExperimentState
from hpnb.driving.placement import Starter, detach_mode, driver_id
from hpnb.handle import Search
from hpnb.tracking import check_tracking

if TYPE_CHECKING:
    from distributed import Client

StoreLike = Store | str | os.PathLike[str] | None

__all__ = ["Search", "StoreLike", "check_picklable", "driver_id", "load", "open_store", "resume", "search"]


def open_store(store: StoreLike, readonly: bool = False) -> Store:
    if isinstance(store, Store):
        return store
    return Store(store, readonly=readonly)


def check_picklable(objective: Callable[..., Any], limit: int = DEFAULT_MAX_CAPTURED) -> None:
    """Fail before anything starts when ``objective`` cannot travel to a worker: it captures
    something that cannot be pickled (named), or more than ``limit`` bytes
    (``resources.max_captured``)."""
    from hpnb.runner.captured import check_objective

    check_objective(objective, limit)


def search(objective: Callable[..., Any] | None,
           spec: str | Mapping[str, Any] | ExperimentSpec | None = None, *,
           name: str | None = None, store: StoreLike = None, client: Client | None = None,
           overwrite: bool = False, resume: bool = False, namespace: Mapping[str, Any] | None = None,
           source: str | None = None, wait_for_cluster: bool = True, detach: bool | str | None = None,
           **spec_fields: Any) -> Search:
    """Start a search in the background and return its handle once its cluster is up.

    Args:
        objective: ``f(**params)`` or ``f(config)``; returns a number, a dict of metrics,
            or nothing after ``hpnb.report``. With a spec that declares a built-in objective
            (``llm:``, ``nas:``), what that section takes: nothing (None) or its data function.
        spec: YAML text, a dict, or a parsed :class:`ExperimentSpec`; ``**spec_fields``
            are spec keys given directly (and override ``spec``'s).
        name: the search's name in the store (default: the spec's ``name`` or the objective's).
        store: a :class:`Store`, a path or a ``postgresql://`` URL (default: ``HPNB_STORE``, else
            ``$HPNB_HOME/hpnb.sqlite``).
        client: run on this Dask client instead of ``resources.cluster``.
        overwrite: replace a stored search of the same name.
        resume: continue a stored search of the same name.
        namespace: where ``resources.cluster: NAME`` is looked up (the notebook's).
        wait_for_cluster: False returns at once, recorded and RUNNING, while the cluster starts
            in the background; a failure to start is then recorded in the search (FAILED, and
            its ``message`` says why) instead of raised.
        detach: run the driver elsewhere, where it outlives this process: True or "process" (a
            process of its own), "cluster" (a task on a worker of the search's cluster); default:
            the spec's ``detach:``, else the ``HPNB_DETACH`` setting, else here.

    Example:
        >>> search = hpnb.search(train, metric="loss", trials=20,
        ...                      parameters={"lr": {"distribution": "logUniform", "min": 1e-4, "max": 1e-1}})
        ... # doctest: +SKIP
    """
    parsed, objective = prepared(_parse(spec, spec_fields), objective,
                                 source if source is not None else _source_text(spec))
    mode = detach_mode(detach, parsed.detach)
    starter = _checked_starter(objective, mode, client, parsed, namespace)
    if client is None:  # a client passed in is the cluster: the local one is not started
        check_local_fits(parsed.resources, parsed.resources.per_trial.widest(parsed.space))
    name = _search_name(name, parsed, objective)
    opened = open_store(store)
    if resume and opened.find_experiment(name) is not None:
        return _resume(opened, name, objective, client, namespace, background=not wait_for_cluster,
                       detach=starter)
    _announce_warm_start(opened, parsed, name, source if source is not None else _source_text(spec))
    parsed = _checkpoints_written_out(opened, parsed)
    _probe_checkpoint_store(opened, parsed, name)
    check_tracking(parsed)
    record = opened.create_experiment(
        name, parsed.to_dict(), source=source if source is not None else _source_text(spec),
        metric=parsed.metric, mode=parsed.mode, strategy=parsed.strategy.name, budget=parsed.trials,
        parallel=parsed.parallel, overwrite=overwrite,
    )
    handle = Search(opened, record, parsed, objective=objective, client=client, namespace=namespace,
                    detach=starter)
    handle._start(background=not wait_for_cluster)
    return handle


def _checked_starter(objective: Callable[..., Any], mode: str | None, client: Client | None,
                     parsed: ExperimentSpec, namespace: Mapping[str, Any] | None) -> Starter | None:
    """Check before anything starts that ``objective`` can travel: to workers, and when ``mode``
    detaches the driver, to it (what starts that driver then, else None)."""
    check_picklable(objective, parsed.resources.max_captured)
    if mode is None:
        return None
    # the rooms of detached drivers are imported only by searches that use them
    from hpnb.driving.detached import cluster_address, detached_starter, objective_payload
    from hpnb.driving.on_cluster import check_driver_cluster

    address = cluster_address(client, parsed.resources.cluster, namespace)
    if mode == "cluster":
        check_driver_cluster(address, parsed.resources.cluster)
    return detached_starter(mode, objective_payload(objective), client, namespace)


def _checkpoints_written_out(opened: Store, parsed: ExperimentSpec) -> ExperimentSpec:
    """On a server store, the spec with its default checkpoint folder written out (this process's
    ``$HPNB_HOME/servers/...``): every process that later drives or views the search (a driver on a
    worker, a teammate's notebook, another machine) then looks in that folder, not in its own."""
    if not opened.location.is_server or parsed.checkpoints.store is not None:
        return parsed
    folder = str(opened.path.parent / "checkpoints")
    return dataclasses.replace(parsed, checkpoints=dataclasses.replace(parsed.checkpoints, store=folder))


def _probe_checkpoint_store(opened: Store, parsed: ExperimentSpec, name: str) -> None:
    """Write and delete a probe in the checkpoint store before the search is even recorded.

    Raises:
        CheckpointStoreError: the store cannot be reached or written (naming it and why).
    """
    from hpnb.runner.checkpoint_store import probe_store, search_location

    probe_store(search_location(opened.path, name, 0, 0.0, parsed.to_dict()))


def _announce_warm_start(opened: Store, parsed: ExperimentSpec, name: str, text: str | None) -> None:
    """Check ``warm_start`` against the store before anything starts and print what it learns.

    Raises:
        SpecError: it names no stored search (or this one), with its line in ``text``.
    """
    from hpnb.core.spec.yaml_lines import line_of
    from hpnb.core.warm_start import warm_start_trials
    from hpnb.driving.driver_parts import make_strategy

    try:
        found = warm_start_trials(opened, parsed, name)
    except SpecError as err:
        raise err.with_line(line_of(text, err.path)) from None
    if found is not None:
        print(found.describe(make_strategy(parsed, parsed.trials).learn_prior(found.trials)))


def _search_name(name: str | None, parsed: ExperimentSpec, objective: Callable[..., Any]) -> str:
    """The name given (checked by the spec's one name rule), the spec's, or the objective's."""
    if name is not None:
        return check_experiment_name(name, "name")
    if parsed.name:
        return parsed.name
    if parsed.section is not None:
        return parsed.section.kind
    named = getattr(objective, "__name__", "")
    return named if experiment_name_problem(named) is None else "search"


def _source_text(spec: object) -> str | None:
    return spec if isinstance(spec, str) else None


def _parse(spec: str | Mapping[str, Any] | ExperimentSpec | None,
           fields: Mapping[str, Any]) -> ExperimentSpec:
    if isinstance(spec, ExperimentSpec):
        if not fields:
            return spec
        return parse_spec({**spec.to_dict(), **fields})
    if spec is None:
        return parse_spec(dict(fields))
    return parse_spec(spec, overrides=dict(fields) or None)


def resume(name: str, objective: Callable[..., Any] | None = None, *, store: StoreLike = None,
           client: Client | None = None, namespace: Mapping[str, Any] | None = None,
           detach: bool | str | None = None) -> Search:
    """Continue a stored search: finished trials stay, interrupted ones run again.

    Args:
        objective: the function its trials run; with ``detach``, default: the one a detached
            start of the search kept.
        detach: drive it elsewhere, as :func:`search` says (default: the spec's ``detach:``, else
            the ``HPNB_DETACH`` setting).

    Example:
        >>> search = hpnb.resume("mlp-lr", train)  # doctest: +SKIP
        >>> search = hpnb.resume("mlp-lr", detach=True)  # doctest: +SKIP
    """
    opened = open_store(store)
    record = opened.experiment(name)
    spec = parse_spec(record.spec)
    mode = detach_mode(detach, spec.detach)
    if spec.section is not None:
        spec, objective = prepared(spec, objective)
    if objective is None:
        if mode is None:
            raise HpnbError(f"resume {name!r}: give the objective, or detach=True to run the one a "
                            "detached start kept")
        from hpnb.driving.kept_objective import kept_objective

        objective = kept_objective(opened, record)
    starter = _checked_starter(objective, mode, client, spec, namespace)
    return _resume(opened, name, objective, client, namespace, detach=starter)


def _resume(opened: Store, name: str, objective: Callable[..., Any], client: Client | None,
            namespace: Mapping[str, Any] | None, background: bool = False,
            detach: Starter | None = None) -> Search:
    record = opened.experiment(name)
    _refuse_if_driven_elsewhere(record)
    spec = parse_spec(record.spec)
    check_tracking(spec)
    handle = Search(opened, record, spec, objective=objective, client=client, namespace=namespace,
                    detach=detach)
    handle._start(background)
    return handle


def _refuse_if_driven_elsewhere(record: ExperimentRecord) -> None:
    """A driver on another host is seen by its heartbeat (one on this host by its lock)."""
    host = (record.driver or "").rpartition(":")[0]
    now = time.time()
    if record.state == ExperimentState.RUNNING and host != socket.gethostname() and driver_alive(record, now):
        age = heartbeat_age(record, now)
        raise HpnbError(f"search {record.name!r} is already driven by {record.driver} "
                        f"(its last heartbeat was {age:.0f} s ago)")


def load(name: str, *, store: StoreLike = None) -> Search:
    """Open a stored search read-only (no driver): results, history, best, stop.

    Example:
        >>> hpnb.load("mlp-lr").results  # doctest: +SKIP
    """
    opened = open_store(store, readonly=True)
    record = opened.experiment(name)
    return Search(opened, record, parse_spec(record.spec))
