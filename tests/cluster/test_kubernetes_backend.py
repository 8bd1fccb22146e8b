"""Starting a Kubernetes cluster: every failure before and at the API boundary, with its message.

No Kubernetes API server runs here. The far side of the boundary is either absent (no
kubeconfig, a closed port) or a small local HTTP server that answers like an API server
without the Dask operator's CRDs. Everything on this side (kr8s, dask-kubernetes'
KubeCluster, distributed) is the real thing.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hpnb.cluster.cluster_errors import (
    ClusterError,
    KubeConfigError,
    KubernetesApiError,
    KubernetesExtraMissingError,
    OperatorNotInstalledError,
    OperatorNotRunningError,
    WorkersTimeoutError,
)
from hpnb.cluster.kubernetes import (
    ApiCheck,
    KubernetesBackend,
    check_api,
    explain_api_error,
    find_kube_credentials,
    require_kubernetes_extra,
    wait_for_workers,
)
from hpnb.core.errors import SpecError
from hpnb.core.spec.resources import parse_resources

NEEDS_EXTRA = "needs the kubernetes extra: pip install hpnb[kubernetes]"
HELM = "helm install --repo https://helm.dask.org --create-namespace -n dask-operator"


def kube_resources(**fields: Any) -> Any:
    return parse_resources({"cluster": "kubernetes", "workers": 2, **fields})


def write_kubeconfig(directory: Path, server: str) -> Path:
    path = directory / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "test", "cluster": {"server": server}}],
        "users": [{"name": "test", "user": {"token": "not-a-secret"}}],
        "contexts": [
            {"name": "test", "context": {"cluster": "test", "user": "test", "namespace": "default"}}
        ],
        "current-context": "test",
    }
    path.write_text(json.dumps(config))  # JSON is YAML
    return path


@pytest.fixture
def no_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing-kubeconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    return tmp_path


# --- a stand-in for the API server -------------------------------------------------------------

NOT_FOUND = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the server could not find the requested resource",
    "reason": "NotFound",
    "details": {},
    "code": 404,
}
DASK_RESOURCES = {
    "kind": "APIResourceList",
    "apiVersion": "v1",
    "groupVersion": "kubernetes.dask.org/v1",
    "resources": [
        {
            "name": "daskclusters",
            "singularName": "daskcluster",
            "namespaced": True,
            "kind": "DaskCluster",
            "verbs": ["create", "delete", "get", "list"],
        }
    ],
}


class FakeApiServer(ThreadingHTTPServer):
    """Answers ``/version``, and each route in ``routes``; everything else 404 like a real server."""

    daemon_threads = True

    def __init__(self, routes: dict[tuple[str, str], tuple[int, dict[str, Any]]]) -> None:
        super().__init__(("127.0.0.1", 0), _FakeApiHandler)
        self.routes = {
            ("GET", "/version"): (200, {"major": "1", "minor": "30", "gitVersion": "v1.30.2"}),
            **routes,
        }
        self.requests: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _FakeApiHandler(BaseHTTPRequestHandler):
    server: FakeApiServer

    def _answer(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"  # kr8s asks for "/version/"
        self.server.requests.append((self.command, path))
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        status, body = self.server.routes.get((self.command, path), (404, NOT_FOUND))
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def api_server(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeApiServer]:
    server = FakeApiServer(getattr(request, "param", {}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path, server.url)))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    yield server
    server.shutdown()
    server.server_close()


WITH_OPERATOR = {("GET", "/apis/kubernetes.dask.org/v1"): (200, DASK_RESOURCES)}


# --- before the boundary -----------------------------------------------------------------------


def test_missing_extra_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch):
    for module in ("dask_kubernetes", "dask_kubernetes.operator"):
        monkeypatch.setitem(sys.modules, module, None)  # what an absent package looks like to import
    with pytest.raises(KubernetesExtraMissingError, match=r'pip install "hpnb\[kubernetes\]"'):
        require_kubernetes_extra()
    with pytest.raises(KubernetesExtraMissingError, match="dask_kubernetes is not installed"):
        KubernetesBackend(kube_resources(), "hpnb-a").start()


def test_no_kubeconfig_and_not_in_a_pod(no_credentials: Path):
    with pytest.raises(KubeConfigError) as caught:
        find_kube_credentials()
    message = str(caught.value)
    assert f"KUBECONFIG={no_credentials / 'missing-kubeconfig'}" in message
    assert "Set KUBECONFIG" in message and "inside the Kubernetes cluster" in message


def test_no_kubeconfig_variable_names_the_default_file(no_credentials: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("KUBECONFIG")
    with pytest.raises(KubeConfigError, match=r"~/.kube/config does not name an existing file"):
        find_kube_credentials()
    (no_credentials / ".kube").mkdir()
    (no_credentials / ".kube" / "config").write_text("{}")
    assert find_kube_credentials() == "kubeconfig ~/.kube/config"


def test_a_pods_service_account_counts_as_credentials(no_credentials: Path, monkeypatch: pytest.MonkeyPatch):
    account = no_credentials / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("token")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    assert "service account" in find_kube_credentials(service_account_dir=account)


def test_start_without_credentials_fails_before_any_call(no_credentials: Path):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    with pytest.raises(KubeConfigError, match="no Kubernetes credentials"):
        KubernetesBackend(kube_resources(), "hpnb-a").start()


def test_bad_input_fails_when_the_backend_is_made():
    with pytest.raises(SpecError, match=r"resources\.limits\.nvidia\.com/gpu"):
        KubernetesBackend(kube_resources(requests={"nvidia.com/gpu": 1}), "hpnb-a")


def test_scale_before_start_is_an_error():
    backend = KubernetesBackend(kube_resources(), "hpnb-a")
    with pytest.raises(ClusterError, match="not running; start"):
        backend.scale(3)
    with pytest.raises(ClusterError, match="minimum <= maximum"):
        backend.adapt(5, 2)


# --- at the boundary ---------------------------------------------------------------------------


def test_closed_port_is_reported_quickly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path, "https://127.0.0.1:1")))
    with pytest.raises(
        KubernetesApiError, match=r"cannot reach the Kubernetes API server at https://127.0.0.1:1"
    ):
        check_api("hpnb-a", timeout=10)
    with pytest.raises(KubernetesApiError, match="kubectl cluster-info"):
        KubernetesBackend(kube_resources(), "hpnb-a").start()


def test_a_server_that_never_answers_hits_the_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    import socket

    with socket.socket() as silent:  # accepts connections (backlog) but never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        server = f"http://127.0.0.1:{silent.getsockname()[1]}"
        monkeypatch.setenv("KUBECONFIG", str(write_kubeconfig(tmp_path, server)))
        with pytest.raises(KubernetesApiError, match=r"no answer from the Kubernetes API server within 1 s"):
            check_api("hpnb-a", timeout=1)


def test_missing_operator_is_reported_with_the_helm_command(api_server: FakeApiServer):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    with pytest.raises(OperatorNotInstalledError) as caught:
        KubernetesBackend(kube_resources(), "hpnb-a").start()
    assert HELM in str(caught.value)
    assert api_server.url in str(caught.value)
    assert ("GET", "/apis/kubernetes.dask.org/v1") in api_server.requests
    assert all(method == "GET" for method, _ in api_server.requests)  # nothing was created


@pytest.mark.parametrize("api_server", [WITH_OPERATOR], indirect=True)
def test_an_api_with_the_operator_passes_the_check(api_server: FakeApiServer):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    assert check_api("hpnb-a", timeout=10) == ApiCheck(api_server.url, "default", cluster_exists=False)
    assert check_api("hpnb-a", "ml", timeout=10).namespace == "ml"


KEPT_CLUSTER = {
    **WITH_OPERATOR,
    ("GET", "/apis/kubernetes.dask.org/v1/namespaces/default/daskclusters/hpnb-kept"): (
        200,
        {"apiVersion": "kubernetes.dask.org/v1", "kind": "DaskCluster", "metadata": {"name": "hpnb-kept"}},
    ),
}


@pytest.mark.parametrize("api_server", [KEPT_CLUSTER], indirect=True)
def test_an_existing_cluster_is_found(api_server: FakeApiServer):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    assert check_api("hpnb-kept", timeout=10).cluster_exists
    assert not check_api("hpnb-other", timeout=10).cluster_exists


FORBIDDEN = {
    ("GET", "/apis/kubernetes.dask.org/v1"): (
        403,
        {**NOT_FOUND, "code": 403, "reason": "Forbidden", "message": "forbidden"},
    )
}


@pytest.mark.parametrize("api_server", [FORBIDDEN], indirect=True)
def test_forbidden_names_the_permissions_needed(api_server: FakeApiServer):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    with pytest.raises(
        KubernetesApiError, match=r"refused .*\(403\).*create/get/list/delete/patch on daskclusters"
    ):
        check_api("hpnb-a", timeout=10)


MISSING_NAMESPACE = {
    **WITH_OPERATOR,
    ("POST", "/apis/kubernetes.dask.org/v1/namespaces/nope/daskclusters"): (
        404,
        {
            **NOT_FOUND,
            "message": 'namespaces "nope" not found',
            "details": {"name": "nope", "kind": "namespaces"},
        },
    ),
}


@pytest.mark.parametrize("api_server", [MISSING_NAMESPACE], indirect=True)
def test_dask_kubernetes_create_into_a_missing_namespace(api_server: FakeApiServer):
    pytest.importorskip("dask_kubernetes", reason=NEEDS_EXTRA)
    backend = KubernetesBackend(kube_resources(kubernetes={"namespace": "nope", "timeout": 5}), "hpnb-a")
    with pytest.raises(KubernetesApiError, match=r'namespaces "nope" not found.*kubectl create namespace'):
        backend.start()
    assert ("POST", "/apis/kubernetes.dask.org/v1/namespaces/nope/daskclusters") in api_server.requests


def test_api_exceptions_are_explained():
    httpx = pytest.importorskip("httpx", reason=NEEDS_EXTRA)
    kr8s = pytest.importorskip("kr8s", reason=NEEDS_EXTRA)
    url = "https://k8s.example:6443/apis/kubernetes.dask.org/v1/namespaces/ml/daskclusters"
    response = httpx.Response(404, json=NOT_FOUND, request=httpx.Request("POST", url))
    missing = explain_api_error(kr8s.ServerError("not found", status=NOT_FOUND, response=response))
    assert isinstance(missing, OperatorNotInstalledError)
    assert "https://k8s.example:6443" in str(missing) and HELM in str(missing)
    refused = explain_api_error(httpx.ConnectError("Connection refused", request=httpx.Request("GET", url)))
    assert isinstance(refused, KubernetesApiError) and "https://k8s.example:6443 (Connection refused)" in str(
        refused
    )
    not_actioned = TimeoutError(  # as dask-kubernetes raises it when no operator acts on the resource
        "Dask Cluster resource not actioned after 5 seconds, is the Dask Operator running?"
    )
    explained = explain_api_error(not_actioned)
    assert isinstance(explained, OperatorNotRunningError)
    assert "kubectl get pods -A -l app.kubernetes.io/name=dask-kubernetes-operator" in str(explained)
    assert explain_api_error(KeyError("unrelated")) is None


# --- after the boundary: workers joining -------------------------------------------------------


@pytest.mark.slow
def test_waiting_for_workers_reports_how_many_came():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert wait_for_workers(client, 1, timeout=30, where="the local cluster") == 1
            with pytest.raises(WorkersTimeoutError) as caught:
                wait_for_workers(client, 3, timeout=1, where="DaskCluster hpnb-a", hint="look at the pods")
    assert (
        str(caught.value) == "only 1 of 3 Dask workers joined DaskCluster hpnb-a within 1 s; look at the pods"
    )
    assert (caught.value.seen, caught.value.wanted) == (1, 3)
