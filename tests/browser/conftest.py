"""A real JupyterLab server and headless Chromium for the browser tests.

The server runs in a subprocess on a free loopback port with a token, its own
root and settings folders, and ``HPNB_HOME`` pointing at a store filled by
``write_sample_store``. It loads the extension build of the checkout under test
(``hpnb/labextension``, from ``jlpm build``) ahead of any installed copy. One Lab
page is loaded for the whole session (loading Lab is the slow part); tests open
what they need in it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hpnb.jupyter.server import LABEXTENSION_DIR
from tests.jupyter.server.sample_store import SampleStore, start_search, write_sample_store
from tests.runner.processes import free_port
from tests.waiting import patience, wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SERVER_START_TIMEOUT = 90.0
SPEC_NOTEBOOK = "spec-cells.ipynb"
#: the same two lines in a %%hpsearch cell and in a plain Python cell.
SPEC_BODY = ["metric: val_loss\n", "trials: 4"]


@dataclass(frozen=True)
class LabServer:
    url: str
    token: str
    root: Path
    store: SampleStore

    def api(self, path: str) -> str:
        return f"{self.url}/{path}?token={self.token}"


def _write_spec_notebook(root: Path) -> None:
    def cell(cell_id: str, source: list[str]) -> dict[str, object]:
        return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [],
                "source": source}  # fmt: skip

    notebook = {
        "cells": [cell("spec", ["%%hpsearch train --name demo\n", *SPEC_BODY]), cell("python", SPEC_BODY)],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / SPEC_NOTEBOOK).write_text(json.dumps(notebook))


def _quiet_lab_settings(settings: Path) -> None:
    """No news or update checks: nothing leaves the machine and no popup covers the page; a
    notebook starts its preferred kernel without asking (a loaded machine slow to list the
    kernels would otherwise raise "Select Kernel" while the cells are sent)."""
    folder = settings / "@jupyterlab" / "apputils-extension"
    folder.mkdir(parents=True)
    (folder / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    notebooks = settings / "@jupyterlab" / "notebook-extension"
    notebooks.mkdir(parents=True)
    (notebooks / "tracker.jupyterlab-settings").write_text(json.dumps({"autoStartDefaultKernel": True}))


def _answers(url: str, process: subprocess.Popen[bytes], log: Path) -> bool:
    if process.poll() is not None:
        raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    try:
        wait_until(lambda: _answers(url, process, log), SERVER_START_TIMEOUT, interval=0.2)
    except AssertionError:
        raise RuntimeError(
            f"jupyter lab did not answer within {SERVER_START_TIMEOUT} s:\n{log.read_text()[-3000:]}"
        ) from None


def end_process(process: subprocess.Popen[bytes]) -> None:
    """Ends a server: asked first, killed if it has not ended within 20 s."""
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _this_build_first(base: Path) -> dict[str, str]:
    """``JUPYTER_PATH`` that puts this checkout's extension build ahead of an installed one (Lab
    takes an extension from the first folder that has it); nothing when there is no build here."""
    if not (LABEXTENSION_DIR / "package.json").exists():
        return {}
    folder = base / "jupyter-path" / "labextensions"
    folder.mkdir(parents=True)
    (folder / "hpnb").symlink_to(LABEXTENSION_DIR.resolve(), target_is_directory=True)
    rest = os.environ.get("JUPYTER_PATH")
    return {"JUPYTER_PATH": os.pathsep.join([str(base / "jupyter-path"), *([rest] if rest else [])])}


# Module scope: Playwright's sync API keeps an event loop running in the main thread while it
# is open, which later asyncio-based tests (the route tests) cannot share.
@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    base = tmp_path_factory.mktemp("lab")
    root, home, settings = base / "root", base / "hpnb-home", base / "settings"
    root.mkdir()
    store = write_sample_store(home / "hpnb.sqlite")
    _write_spec_notebook(root)
    _quiet_lab_settings(settings)
    token, port = secrets.token_hex(16), free_port()
    env = dict(
        os.environ,
        HPNB_HOME=str(home),
        JUPYTER_CONFIG_DIR=str(base / "config"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        **_this_build_first(base),
    )
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
    ]  # fmt: skip
    log = base / "lab.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(f"{url}/api/status?token={token}", process, log)
        yield LabServer(url, token, root, store)
    finally:
        end_process(process)
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(log, ARTIFACTS / "lab-server.log")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing: install it with `apt-get install -y chromium`")
        pytest.skip("Chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def lab_page(browser, lab_server: LabServer) -> Iterator[object]:
    """JupyterLab with the spec-cells notebook open, shared by the module's tests."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{lab_server.url}/lab/tree/{SPEC_NOTEBOOK}?token={lab_server.token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-line")
    page.errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.fixture
def running_search(lab_server: LabServer, dask_client) -> Iterator[object]:
    """A real search driven by this process into the server's store, running slow trials."""
    search = start_search(lab_server.store.path, dask_client, "live-search", trials=6, steps=600, pause=0.1)
    yield search
    if search.is_live:  # a test may have stopped it: a stop command to an ended search is refused
        search.stop()
    search.wait(patience(60))


@pytest.fixture
def save_screenshot():
    """Saves a page's screenshot to test-artifacts/NAME.png and returns the path."""

    def save(page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path))
        return path

    return save
