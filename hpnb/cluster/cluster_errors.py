"""Errors raised while starting, reaching or scaling a Dask cluster.

Each message says what went wrong and what to do about it (the command to run
or the setting to change), so a notebook user can fix it without reading a
traceback.
"""

from __future__ import annotations

from hpnb.core.errors import HpnbError

KUBERNETES_EXTRA_HINT = 'pip install "hpnb[kubernetes]"'
OPERATOR_INSTALL_COMMAND = (
    "helm install --repo https://helm.dask.org --create-namespace -n dask-operator "
    "--generate-name dask-kubernetes-operator"
)


class ClusterError(HpnbError):
    """A Dask cluster could not be started, reached or scaled.

    Example:
        >>> raise ClusterError("no scheduler at tcp://10.0.0.5:8786")
        Traceback (most recent call last):
        ...
        hpnb.cluster.cluster_errors.ClusterError: no scheduler at tcp://10.0.0.5:8786
    """


class KubernetesExtraMissingError(ClusterError):
    """``cluster: kubernetes`` was asked for but dask-kubernetes is not installed."""

    def __init__(self, missing: str) -> None:
        super().__init__(
            f"cluster: kubernetes needs the Kubernetes extra ({missing} is not installed); "
            f"install it with: {KUBERNETES_EXTRA_HINT}"
        )


class KubeConfigError(ClusterError):
    """No usable Kubernetes credentials: no kubeconfig and not running inside a pod."""


class KubernetesApiError(ClusterError):
    """The Kubernetes API server could not be reached or refused a request."""


class OperatorNotInstalledError(ClusterError):
    """The API server does not know the ``DaskCluster`` resource: the Dask operator is missing."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"the Kubernetes cluster at {server} has no DaskCluster resource type "
            "(kubernetes.dask.org/v1): the Dask Kubernetes operator is not installed. "
            f"Install it once per Kubernetes cluster with:\n    {OPERATOR_INSTALL_COMMAND}"
        )


class OperatorNotRunningError(ClusterError):
    """The DaskCluster resource was created but no operator acted on it in time."""


class WorkersTimeoutError(ClusterError):
    """Fewer workers than asked for joined the scheduler before the timeout."""

    def __init__(self, seen: int, wanted: int, timeout: float, where: str, hint: str = "") -> None:
        self.seen = seen
        self.wanted = wanted
        message = f"only {seen} of {wanted} Dask workers joined {where} within {timeout:g} s"
        super().__init__(f"{message}; {hint}" if hint else message)


MAIN_GUARD_EXAMPLE = 'if __name__ == "__main__":\n    search = hpnb.search(train, spec)'


class MainGuardError(ClusterError):
    """A script started a local cluster from module-level code, without a main guard.

    Dask starts local workers with the ``spawn`` method: each worker re-imports
    the main script, which, unguarded, starts a cluster again in every worker.
    """

    def __init__(self, script: str) -> None:
        super().__init__(
            f"{script} starts a local Dask cluster (hpnb.search with cluster: local) from module-level code: "
            "each worker process re-runs that code. Put the search under "
            f'`if __name__ == "__main__":`, for example:\n{MAIN_GUARD_EXAMPLE}'
        )
