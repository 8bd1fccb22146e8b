"""One attempt of a trial as a gang of ranks: who is in it, and the environment each rank runs in.

A trial of ``resources.per_trial.workers: N`` runs its objective once per rank, as ``torchrun``
runs a script, each rank on a worker of its own; the driver still sees one trial. What a rank is
told is what ``torch.distributed.init_process_group("env://")``, the Hugging Face ``Trainer`` and
Lightning's DDP strategy read: ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``,
``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``NODE_RANK``.

Example:
    >>> gang = Gang(workers=("tcp://10.0.0.5:4001", "tcp://10.0.0.6:4001"), master="10.0.0.5:29411")
    >>> info = RankInfo.of(gang, rank=1)
    >>> rank_environment(info)["RANK"], rank_environment(info)["MASTER_PORT"]
    ('1', '29411')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: seconds a rank waits in a collective (``init_process_group`` included) for its peers, unless
#: the search has a ``trial_timeout``: far below torch's 30 minutes, so that a rank that hangs or
#: never joins ends its attempt in minutes.
DEFAULT_COLLECTIVE_TIMEOUT = 300.0


def collective_timeout(trial_timeout: float | None) -> float:
    """How long a rank's collective waits for its peers: half the search's ``trial_timeout`` (so
    that the peer that never came is named before the trial's own time runs out), else
    :data:`DEFAULT_COLLECTIVE_TIMEOUT`. An objective that passes ``timeout=`` to
    ``init_process_group`` chooses its own.

    Example:
        >>> collective_timeout(None), collective_timeout(60.0)
        (300.0, 30.0)
    """
    return DEFAULT_COLLECTIVE_TIMEOUT if trial_timeout is None else trial_timeout / 2


@dataclass(frozen=True)
class Gang:
    """The ranks of one attempt: ``workers[r]`` is the Dask worker rank ``r`` runs on, rank 0
    listens at ``master`` (``host:port``, a port free on its host, chosen for the attempt), and a
    collective waits ``collective_timeout`` seconds at most for a peer."""

    workers: tuple[str, ...]
    master: str
    collective_timeout: float = DEFAULT_COLLECTIVE_TIMEOUT
    #: the driver's settings of the communication libraries (:func:`passed_through`), which every
    #: rank gets where its worker has none of its own
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        return len(self.workers)

    def hosts(self) -> tuple[str, ...]:
        """The host of each rank's worker (``tcp://10.0.0.5:4001`` -> ``10.0.0.5``)."""
        return tuple(worker_host(address) for address in self.workers)


@dataclass(frozen=True)
class RankInfo:
    """Where one rank stands in its gang, as ``torchrun`` would tell it."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    node_rank: int
    master_addr: str
    master_port: int

    @classmethod
    def of(cls, gang: Gang, rank: int) -> RankInfo:
        """Rank ``rank`` of ``gang``."""
        hosts = gang.hosts()
        nodes = list(dict.fromkeys(hosts))  # in the order of their first rank
        mine = hosts[rank]
        same_host = [r for r, host in enumerate(hosts) if host == mine]
        host, _, port = gang.master.rpartition(":")
        return cls(rank=rank, world_size=gang.size, local_rank=same_host.index(rank),
                   local_world_size=len(same_host), node_rank=nodes.index(mine), master_addr=host,
                   master_port=int(port))


def rank_environment(info: RankInfo) -> dict[str, str]:
    """The environment variables a rank runs with."""
    return {"MASTER_ADDR": info.master_addr, "MASTER_PORT": str(info.master_port), "RANK": str(info.rank),
            "WORLD_SIZE": str(info.world_size), "LOCAL_RANK": str(info.local_rank),
            "LOCAL_WORLD_SIZE": str(info.local_world_size), "NODE_RANK": str(info.node_rank),
            "GROUP_RANK": str(info.node_rank)}


#: the variables of the communication libraries a rank gets from the driver's environment, as
#: ``torchrun``'s processes inherit them: NCCL's and gloo's network and debug settings.
PASSED_THROUGH = ("NCCL_", "TORCH_NCCL_", "GLOO_", "TP_SOCKET_IFNAME", "TORCH_DISTRIBUTED_DEBUG",
                  "TORCH_CPP_LOG_LEVEL")


def passed_through(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The settings of ``environ`` that ranks get (:data:`PASSED_THROUGH`).

    Example:
        >>> passed_through({"NCCL_DEBUG": "INFO", "HOME": "/root", "GLOO_SOCKET_IFNAME": "eth0"})
        (('GLOO_SOCKET_IFNAME', 'eth0'), ('NCCL_DEBUG', 'INFO'))
    """
    return tuple(sorted((name, value) for name, value in environ.items() if name.startswith(PASSED_THROUGH)))


def worker_host(address: str) -> str:
    """The host of a Dask worker's address.

    Example:
        >>> worker_host("tcp://10.0.0.5:4001"), worker_host("tls://[::1]:4001")
        ('10.0.0.5', '::1')
    """
    rest = address.split("://", 1)[-1]
    host = rest.rpartition(":")[0] if ":" in rest else rest
    return host.strip("[]")
