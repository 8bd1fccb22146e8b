"""A trial's artifacts over the server (authenticated, read-only).

    GET /hpnb/api/experiments/NAME/trials/ID/artifacts         ``{"artifacts": [{name, size, url}]}``
    GET /hpnb/api/experiments/NAME/trials/ID/artifacts/ARTIFACT  the file (images inline, others
                                                                 as a download)

The artifact is looked up among those the checkpoint store lists for the trial: a name from
the request is checked (plain parts joined by ``/``, no ``..``) and must be listed, so no
path from a request reaches the file system or the object store unchecked.
"""

from __future__ import annotations

import asyncio
import mimetypes
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import url_path_join
from tornado import web

from hpnb.core.store import Store
from hpnb.jupyter.server.handlers import HpnbHandler
from hpnb.runner.checkpoint_store import CheckpointStore, check_artifact_name, search_location

#: bytes sent per write while streaming an artifact.
CHUNK = 1024 * 1024
#: types a browser may show inline; anything else is sent as a download.
_INLINE = ("image/png", "image/jpeg", "image/gif", "image/webp", "text/plain", "text/csv", "application/json")


class ArtifactsHandler(HpnbHandler):
    """The artifacts of one trial, with the URL of each."""

    @web.authenticated
    @authorized
    async def get(self, name: str, trial: str) -> None:
        name, trial_id = self.checked_name(name), self.checked_id(trial, "trial")
        _, listed = await self.in_store(lambda s: trial_artifacts(s, name, trial_id))
        base = url_path_join(self.base_url, "hpnb", "api", "experiments", name, "trials", str(trial_id),
                             "artifacts")
        self.write_json({"artifacts": [{"name": a["name"], "size": a["size"],
                                        "url": url_path_join(base, a["name"])} for a in listed]})


class ArtifactFileHandler(HpnbHandler):
    """One artifact's bytes, streamed from the checkpoint store."""

    @web.authenticated
    @authorized
    async def get(self, name: str, trial: str, artifact: str) -> None:
        name, trial_id = self.checked_name(name), self.checked_id(trial, "trial")
        try:
            check_artifact_name(artifact)
        except ValueError as err:
            raise web.HTTPError(400, str(err)) from err
        store, listed = await self.in_store(lambda s: trial_artifacts(s, name, trial_id))
        found = next((a for a in listed if a["name"] == artifact), None)
        if found is None:
            raise web.HTTPError(404, f"trial {trial_id} of {name!r} has no artifact {artifact!r}")
        kind = mimetypes.guess_type(artifact)[0] or "application/octet-stream"
        self.set_header("Content-Type", kind)
        self.set_header("X-Content-Type-Options", "nosniff")
        disposition = "inline" if kind in _INLINE else "attachment"
        self.set_header("Content-Disposition", f'{disposition}; filename="{artifact.rsplit("/", 1)[-1]}"')
        await self._stream(store, found["path"])

    async def _stream(self, store: CheckpointStore, path: str) -> None:
        loop = asyncio.get_running_loop()
        handle = await loop.run_in_executor(None, store.fs.open, path, "rb")
        try:
            while chunk := await loop.run_in_executor(None, handle.read, CHUNK):
                self.write(chunk)
                await self.flush()
        finally:
            handle.close()
        self.finish()


def trial_artifacts(store: Store, name: str, trial_id: int) -> tuple[CheckpointStore, list[dict[str, Any]]]:
    """The checkpoint store of search ``name`` and trial ``trial_id``'s artifacts in it (404s for an
    unknown search or trial come from the store)."""
    record = store.experiment(name)
    store.trial(record.id, trial_id)
    checkpoints = CheckpointStore(search_location(store.path, record.name, record.id, record.created,
                                                  record.spec))
    return checkpoints, checkpoints.artifacts(trial_id)


def artifact_routes(base: str) -> list[tuple[str, type[HpnbHandler]]]:
    """The routes under ``base`` (``.../hpnb/api/experiments``)."""
    trial = url_path_join(base, r"(?P<name>[^/]+)", "trials", r"(?P<trial>[^/]+)", "artifacts")
    return [(trial, ArtifactsHandler), (url_path_join(trial, r"(?P<artifact>.+)"), ArtifactFileHandler)]
