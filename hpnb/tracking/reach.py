"""Whether an MLflow tracking URI is well formed and its server answers, asked quickly.

An ``http(s)://`` server is asked for ``/health`` with a short timeout (MLflow's own client
would retry a refused connection for minutes); other URIs (``file:``, ``sqlite:``, a database)
are opened with MLflow's client and listed once: within :data:`OPEN_TIMEOUT` for a database
server, without a limit for a file or a SQLite file on this machine (nothing there waits on a
network, and creating a new one's tables takes long on a busy machine). Every message shows the URI
with its password masked.

Example:
    >>> malformed("localhost:5000")
    "'localhost:5000' is not a tracking URI: unknown scheme 'localhost'"
    >>> malformed("http://127.0.0.1:5000") is None
    True
"""

from __future__ import annotations

import concurrent.futures
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from hpnb.core.spec.tracking import masked

#: seconds a server has to answer the probe.
PROBE_TIMEOUT = 3.0
#: seconds MLflow's client has to open a database server's store at the start.
OPEN_TIMEOUT = 20.0
#: schemes of stores on this machine's disk, opened without a time limit.
DISK_SCHEMES = ("file", "sqlite")
HTTP_SCHEMES = ("http", "https")
#: schemes MLflow's client reads without a server.
LOCAL_SCHEMES = ("file", "sqlite", "postgresql", "mysql", "mssql")
OTHER_SCHEMES = ("databricks", "databricks-uc", "uc")
URI_ALLOWED = ("http(s)://host:port of an MLflow server, file:///folder, sqlite:///file.db, "
               "or a database URI (postgresql://, mysql://)")


def malformed(uri: str) -> str | None:
    """Why ``uri`` is not a tracking URI MLflow reads, or None."""
    try:
        parts = urlsplit(uri)
        port = parts.port if parts.scheme in HTTP_SCHEMES else None
    except ValueError as err:
        return f"{masked(uri)!r} is not a tracking URI ({err})"
    scheme = parts.scheme.split("+")[0].lower()
    if not scheme:
        return f"{masked(uri)!r} is not a tracking URI: it has no scheme"
    if scheme not in HTTP_SCHEMES + LOCAL_SCHEMES + OTHER_SCHEMES:
        return f"{masked(uri)!r} is not a tracking URI: unknown scheme {scheme!r}"
    if scheme in HTTP_SCHEMES and not parts.hostname:
        return f"{masked(uri)!r} is not a tracking URI: it names no host"
    if scheme in ("file", "sqlite") and not parts.path.strip("/"):
        return f"{masked(uri)!r} is not a tracking URI: it names no file or folder"
    del port  # read only so that a port that is not a number is refused above
    return None


def is_http(uri: str) -> bool:
    """Whether ``uri`` names an MLflow server over HTTP(S)."""
    return urlsplit(uri).scheme.lower() in HTTP_SCHEMES


def http_problem(uri: str, timeout: float = PROBE_TIMEOUT) -> str | None:
    """Why the MLflow server at ``uri`` does not answer ``/health``, or None when it does."""
    url = uri.rstrip("/") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            if answer.status < 400:
                return None
            return f"MLflow at {masked(uri)} answered {answer.status}"
    except urllib.error.HTTPError as err:
        return f"MLflow at {masked(uri)} answered {err.code} {err.reason}"
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", err)
        return f"MLflow at {masked(uri)} cannot be reached ({reason})"


def client_problem(uri: str, timeout: float | None = OPEN_TIMEOUT) -> str | None:
    """Why MLflow's client cannot read the experiments at ``uri`` (within ``timeout`` seconds; None:
    however long it takes), or None when it can."""
    def list_one() -> None:
        from mlflow.tracking import MlflowClient

        MlflowClient(uri).search_experiments(max_results=1)

    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hpnb-mlflow-probe")
    try:
        pool.submit(list_one).result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        return f"MLflow at {masked(uri)} did not answer within {timeout:.0f} s"
    except Exception as err:
        text = str(err).replace(uri, masked(uri)).splitlines()
        return f"MLflow at {masked(uri)} cannot be read ({type(err).__name__}: {text[0] if text else ''})"
    finally:
        pool.shutdown(wait=False)
    return None


def mlflow_problem(uri: str) -> str | None:
    """Why a search could not be tracked in MLflow at ``uri`` now, or None."""
    problem = malformed(uri)
    if problem is not None:
        return f"{problem}; allowed: {URI_ALLOWED}"
    try:
        import mlflow  # noqa: F401
    except ImportError:
        return "the mlflow package is not installed (pip install 'hpnb[tracking]')"
    if is_http(uri):
        return http_problem(uri)
    on_disk = urlsplit(uri).scheme.lower() in DISK_SCHEMES
    return client_problem(uri, timeout=None if on_disk else OPEN_TIMEOUT)
