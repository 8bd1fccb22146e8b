"""A real ipykernel driven through jupyter_client, as a front end drives it (for the kernel tests)."""

from __future__ import annotations

import contextlib
import os
import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

from hpnb.core.store import Store


class KernelSession:
    """One kernel with ``HPNB_HOME`` in ``home`` (and ``env`` besides); keeps every iopub message it sees."""

    def __init__(self, home: Path, env: dict[str, str] | None = None) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self.manager = KernelManager(kernel_name="python3")
        env = {**os.environ, "HPNB_HOME": str(home), **(env or {})}
        self.manager.start_kernel(env=env, cwd=str(home))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.iopub: list[dict[str, Any]] = []

    def drain_iopub(self) -> None:
        while True:
            try:
                self.iopub.append(self.client.get_iopub_msg(timeout=0))
            except queue.Empty:
                return

    def execute(self, code: str, timeout: float = 120.0) -> tuple[dict[str, Any], float]:
        """Run ``code``; returns its execute_reply and the seconds from request to reply."""
        started = time.perf_counter()
        msg_id = self.client.execute(code)
        while True:
            reply = self.client.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply, time.perf_counter() - started

    def run(self, code: str, timeout: float = 120.0) -> str:
        """Run ``code`` and return what it printed (stdout); fail on an error."""
        reply, _ = self.execute(code, timeout)
        msg_id = reply["parent_header"]["msg_id"]
        deadline = time.monotonic() + timeout
        output: list[str] = []
        while time.monotonic() < deadline:
            msg = self.client.get_iopub_msg(timeout=timeout)
            self.iopub.append(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stdout":
                output.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        content = reply["content"]
        if content["status"] != "ok":
            raise AssertionError(f"{content.get('ename')}: {content.get('evalue')}\n{code}")
        return "".join(output)

    def results_stored(self, name: str) -> int:
        """How many results search ``name`` has stored in the kernel's store, read from this process."""
        path = self.home / "hpnb.sqlite"
        if not path.exists():
            return 0
        with Store(path, readonly=True) as store:
            record = store.find_experiment(name)
            return 0 if record is None else store.result_count(record.id)

    def widget_comms(self, model_name: str) -> list[tuple[str, dict[str, Any]]]:
        """(comm id, initial state) of every widget of ``model_name`` the kernel opened."""
        self.drain_iopub()
        found = []
        for msg in self.iopub:
            if msg["msg_type"] != "comm_open" or msg["content"].get("target_name") != "jupyter.widget":
                continue
            state = msg["content"]["data"]["state"]
            if state.get("_model_name") == model_name:
                found.append((msg["content"]["comm_id"], state))
        return found

    def updates(self, comm_id: str, key: str) -> list[Any]:
        """Every value of ``key`` sent to the front end in update messages of one widget."""
        self.drain_iopub()
        values = []
        for msg in self.iopub:
            content = msg["content"]
            if msg["msg_type"] == "comm_msg" and content.get("comm_id") == comm_id:
                data = content["data"]
                if data.get("method") == "update" and key in data.get("state", {}):
                    values.append(data["state"][key])
        return values

    def click(self, comm_id: str) -> None:
        """What JupyterLab sends when a Button is clicked (ipywidgets 8 protocol)."""
        content = {"comm_id": comm_id, "data": {"method": "custom", "content": {"event": "click"}}}
        self.client.shell_channel.send(self.client.session.msg("comm_msg", content))

    def set_state(self, comm_id: str, state: dict[str, Any]) -> None:
        """What a front end sends when the user changes a widget (a row click, a number typed)."""
        content = {"comm_id": comm_id, "data": {"method": "update", "state": state, "buffer_paths": []}}
        self.client.shell_channel.send(self.client.session.msg("comm_msg", content))

    def button(self, description: str) -> str:
        """The comm id of the (last opened) Button labelled ``description``."""
        buttons = self.widget_comms("ButtonModel")
        found = [comm for comm, state in buttons if state["description"] == description]
        assert found, f"no {description!r} button"
        return found[-1]

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@contextlib.contextmanager
def hpnb_kernel(home: Path, source: str) -> Iterator[KernelSession]:
    """A kernel with hpnb's magics loaded and ``source`` (the objective) run; on leaving, its
    local Dask cluster is shut down and the kernel closed."""
    session = KernelSession(home)
    session.run("%load_ext hpnb.jupyter")
    session.run(source)
    try:
        yield session
    finally:
        session.run("import hpnb.cluster.connect as c; c.shutdown_local()")
        session.close()
