"""Running a search's driver in a process of its own, detached from the kernel that starts it.

A kernel's death (Kernel > Restart, an idle culler, an out-of-memory kill), a closed browser or a
terminal that exits does not take a detached driver down: it runs in a session of its own, with
its own local cluster when the spec says ``cluster: local``, and logs to a file beside the store.
The objective travels as the kernel defined it (cloudpickle: the notebook's functions and classes
by value), kept with the search's checkpoints so that ``hpnb resume NAME --detach`` can run it
again from a terminal. Every command reaches the detached driver through the store.

Example:
    >>> payload = objective_payload(train)  # doctest: +SKIP
    >>> started = start_detached(store, record, payload)  # doctest: +SKIP
    >>> started.log  # doctest: +SKIP
    PosixPath('/home/me/.hpnb/logs/mlp-lr-3.log')
"""

from __future__ import annotations

import importlib.machinery
import os
import pickletools
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hpnb.core.control import not_running_reason
from hpnb.core.errors import HpnbError
from hpnb.core.spec import ExperimentSpec
from hpnb.core.store import CLEAR, ExperimentRecord, Store
from hpnb.core.store.location import STORE_SETTING
from hpnb.core.trial import ExperimentState
from hpnb.driving.kept_objective import keep_objective
from hpnb.driving.on_cluster import start_on_cluster
from hpnb.driving.placement import DetachedDriver, Starter

#: the opcodes that push a string (a module or attribute name of STACK_GLOBAL).
_STRING_OPS = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING",
                         "BINSTRING", "STRING"})


def objective_payload(objective: Callable[..., Any]) -> bytes:
    """``objective`` pickled for a detached driver, checked to load in another process.

    Raises:
        HpnbError: it cannot be pickled, or it uses a module that another process cannot import
            (named, with what to do).
    """
    import cloudpickle

    try:
        payload: bytes = cloudpickle.dumps(objective)
    except Exception as exc:
        raise HpnbError(f"--detach: the objective {_name(objective)!r} cannot be pickled for a driver of "
                        f"its own: {exc}. Objects it uses (open files, locks, database connections) "
                        "should be created inside the function.") from exc
    for module in sorted(referenced_modules(payload)):
        problem = _import_problem(module)
        if problem is not None:
            raise HpnbError(f"--detach: the objective {_name(objective)!r} uses the module {module!r}, "
                            f"which a driver in another process cannot import ({problem}); define what "
                            "it uses in the notebook, or make the module importable there (a file "
                            "beside the notebook, or an installed package)")
    return payload


def referenced_modules(payload: bytes) -> set[str]:
    """The modules a pickle names (its ``GLOBAL`` and ``STACK_GLOBAL`` references).

    Example:
        >>> import collections
        >>> sorted(referenced_modules(pickle.dumps(collections.OrderedDict())))
        ['collections']
    """
    modules: set[str] = set()
    strings: list[Any] = []
    memo: dict[int, Any] = {}
    for opcode, arg, _ in pickletools.genops(payload):
        name = opcode.name
        if name in _STRING_OPS:
            strings.append(arg)
        elif name == "MEMOIZE":
            memo[len(memo)] = strings[-1] if strings else None
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            strings.append(memo.get(int(arg or 0)))
        elif name == "GLOBAL":
            modules.add(str(arg).split(" ")[0])
        elif name == "STACK_GLOBAL" and len(strings) >= 2 and isinstance(strings[-2], str):
            modules.add(strings[-2])
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[int(arg or 0)] = strings[-1] if strings else None
    return modules


def _import_problem(module: str) -> str | None:
    """Why another process with this one's ``sys.path`` could not import ``module``, or None."""
    if module == "__main__":
        return "it is this process's main script"
    top = module.partition(".")[0]
    if top in sys.builtin_module_names:
        return None
    try:
        found = importlib.machinery.PathFinder.find_spec(top, sys.path)
    except (ImportError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    if found is None and importlib.machinery.FrozenImporter.find_spec(top) is None:
        return "it is not in a folder of the import path: it was loaded from elsewhere or made here"
    return None


def _name(objective: Callable[..., Any]) -> str:
    return str(getattr(objective, "__name__", objective))


def cluster_address(client: Any, cluster: str, namespace: Mapping[str, Any] | None) -> str | None:
    """The scheduler address a detached driver connects to, when the kernel names its cluster by an
    object (a ``client=`` argument, or ``resources.cluster: NAME`` of the notebook); None when the
    spec alone says where trials run (``local``, ``kubernetes``, an address).

    Raises:
        HpnbError: the object named is not a Dask client or cluster.
    """
    if client is None and (namespace is None or cluster not in namespace or cluster == "local"):
        return None
    found = client if client is not None else namespace[cluster] if namespace is not None else None
    address = getattr(getattr(found, "scheduler", None), "address", None) or getattr(
        found, "scheduler_address", None)
    if not isinstance(address, str):
        raise HpnbError(f"--detach: {cluster!r} is a {type(found).__name__}, not a Dask Client or cluster "
                        "whose scheduler address a driver in another process could connect to")
    return address


def log_path(store: Store, record: ExperimentRecord) -> Path:
    """The log file of a detached driver of ``record``: ``logs/NAME-ID.log`` beside the store."""
    return store.path.parent / "logs" / f"{record.name}-{int(record.id)}.log"


def start_detached(store: Store, record: ExperimentRecord, payload: bytes, *, mode: str = "process",
                   address: str | None = None, since: float | None = None) -> DetachedDriver:
    """Record the search as starting and start its driver: in a new session of its own (``mode``
    process) or as a task on a worker of the cluster at ``address`` (``mode`` cluster).

    Args:
        store, record: the search, recorded already.
        payload: the objective, from :func:`objective_payload`.
        address: a running scheduler to use instead of the spec's ``resources.cluster``.
        since: commands sent from then on (epoch seconds) are for this driver.
    """
    keep_objective(store, record, payload)
    started = time.time() if since is None else since
    if mode == "cluster":
        return start_on_cluster(store, record, address, started)
    log = log_path(store, record)
    log.parent.mkdir(parents=True, exist_ok=True)
    store.update_experiment(record.id, state=ExperimentState.RUNNING, heartbeat=time.time(), driver=CLEAR,
                            message=f"starting a detached driver (its log: {log})")
    # the store reaches the driver in its environment, never on its command line (where any user
    # of the machine reads it): a server's URL may carry a password
    command = [sys.executable, "-m", "hpnb.driving.detached_process", "--name", record.name,
               "--since", repr(started)]
    if address is not None:
        command += ["--address", address]
    with open(log, "ab") as output:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                   cwd=os.getcwd(), env={**_environment(), STORE_SETTING: store.url},
                                   start_new_session=True)
    store.update_experiment(record.id, driver=f"{socket.gethostname()}:{process.pid}")
    return DetachedDriver(f"process {process.pid}", log)


def detached_starter(mode: str, payload: bytes, client: Any = None,
                     namespace: Mapping[str, Any] | None = None) -> Starter:
    """What starts a search's driver elsewhere (``mode``: process or cluster) each time its handle
    starts it (a start, an extend after the end): the objective as ``payload``, the cluster as
    ``client`` or the notebook's ``namespace`` name it.

    Example:
        >>> start = detached_starter("process", objective_payload(train))  # doctest: +SKIP
        >>> hpnb.handle.Search(store, record, spec, objective=train, detach=start)  # doctest: +SKIP
    """

    def start(store: Store, name: str, spec: ExperimentSpec, commands_since: float | None) -> DetachedDriver:
        record = store.experiment(name)
        if not_running_reason(record, time.time()) is None:
            raise HpnbError(f"search {name!r} is already running (driven by {record.driver})")
        address = cluster_address(client, spec.resources.cluster, namespace)
        return start_detached(store, record, payload, mode=mode, address=address, since=commands_since)

    return start


def _environment() -> dict[str, str]:
    """This process's environment, with the folders it imports from beyond the interpreter's own
    (the notebook's folder, paths a notebook added): the driver imports what the kernel does."""
    own = tuple(os.path.abspath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    path = [os.path.abspath(entry or os.getcwd()) for entry in sys.path]
    extra = [entry for entry in path if not (entry + os.sep).startswith(own)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(extra)), "PYTHONUNBUFFERED": "1"}
