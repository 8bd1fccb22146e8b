"""Commands to a running search from the Lab: the store's control channel over an authenticated route.

Routes (under ``/hpnb/api/experiments/NAME``):
    POST commands   body ``{"kind": KIND, "value": N}``: stop, stop_trial, pause_trial, resume_trial
                    (``value`` a trial id), extend, parallel (``value`` a count); stop takes no value
    POST stop       the same as a ``stop`` command (the sidebar's Stop button)
    GET  commands/ID  the command ID as stored now: done, refused or still pending (to follow a
                    command the driver had not answered within the wait)

A command is checked here (a 400 names the field and what is allowed), then sent as the CLI and
the notebook send it (:func:`hpnb.core.control.send`: a search that does not exist is a 404, a
trial it does not have a 404 naming the ids it has, one no driver runs a 409 saying why), and the
route waits up to :data:`COMMAND_WAIT` seconds for the driver's answer, in threads of its own so
that a wait never holds up the view's routes. It answers 200 with the command as stored
(``state`` done, or pending when the driver has not answered yet, ``reply`` what to show), or 409
with the driver's reason when it refused.

Example:
    >>> checked_command({"kind": "extend", "value": 5})
    ('extend', 5)
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import url_path_join
from tornado import web

from hpnb.core import control
from hpnb.core.store import Store, StoreError, StoreUnreachable
from hpnb.core.store.commands import (
    COMMAND_KINDS,
    REFUSED,
    TRIAL_COMMANDS,
    CommandRecord,
    CommandRefused,
    command_problem,
)
from hpnb.jupyter.server.handlers import MAX_POSITION, HpnbHandler

#: seconds a request waits for the driver's answer before it answers ``pending``.
COMMAND_WAIT = 5.0
#: largest body a command route reads, in bytes.
MAX_BODY = 1024
#: largest value of each kind that carries one: trials added at once, trials at once, a trial id.
MAX_VALUE = {"extend": 100_000, "parallel": 10_000} | dict.fromkeys(TRIAL_COMMANDS, MAX_POSITION)
#: the threads that wait for answers (a few: commands are rare, and each wait is bounded).
_WAITERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hpnb-command")


def checked_command(body: object) -> tuple[str, int | None]:
    """(kind, value) of a command's JSON body; a 400 naming the field and what is allowed.

    Example:
        >>> checked_command({"kind": "parallel", "value": 0})
        Traceback (most recent call last):
        ...
        tornado.web.HTTPError: HTTP 400: Bad Request (value: parallel: at least 1 trial must run ...)
    """
    if not isinstance(body, dict):
        raise web.HTTPError(400, 'body: must be a JSON object such as {"kind": "extend", "value": 10}')
    unknown = sorted(str(key)[:40] for key in body if key not in ("kind", "value"))
    if unknown:
        raise web.HTTPError(400, f"body: {unknown[0]!r} is not a field of a command; fields: kind, value")
    kind, value = body.get("kind"), body.get("value")
    if not isinstance(kind, str) or kind not in COMMAND_KINDS:
        shown = repr(kind)[:80]
        raise web.HTTPError(400, f"kind: {shown} is not allowed; allowed: {', '.join(COMMAND_KINDS)}")
    if kind == "stop":
        if value is not None:
            raise web.HTTPError(400, f"value: stop takes no value (got {repr(value)[:80]})")
        return kind, None
    problem = command_problem(kind, value)  # the body is at most MAX_BODY bytes: so is the message
    if problem is not None or not isinstance(value, int):  # no problem: a whole number
        raise web.HTTPError(400, f"value: {problem}")
    if value > MAX_VALUE[kind]:
        raise web.HTTPError(400, f"value: {kind} takes at most {MAX_VALUE[kind]} (got {value})")
    return kind, value


def command_json(answer: CommandRecord) -> dict[str, Any]:
    """What the routes answer for a command: its id, kind, value, state and what to show."""
    return {"id": answer.id, "kind": answer.kind, "value": answer.value, "state": answer.state,
            "reply": control.describe_answer(answer)}


class CommandHandler(HpnbHandler):
    """``POST .../commands``: send a command and answer with the driver's answer."""

    @web.authenticated
    @authorized
    async def post(self, name: str) -> None:
        name = self.checked_name(name)
        kind, value = checked_command(self.json_body())
        await self.send(name, kind, value)

    def json_body(self) -> object:
        raw = self.request.body or b""
        if len(raw) > MAX_BODY:
            raise web.HTTPError(400, f"body: {len(raw)} bytes; a command takes at most {MAX_BODY}")
        try:
            return json.loads(raw.decode("utf-8")) if raw.strip() else None
        except (UnicodeDecodeError, ValueError) as err:
            raise web.HTTPError(400, f"body: not JSON ({err})") from err

    async def send(self, name: str, kind: str, value: int | None) -> None:
        """Send the command, wait (bounded) for its answer and write it: 200, or 409 when refused."""

        def work(store: Store) -> CommandRecord:
            sent = control.send(store, name, kind, value, source="lab")
            return control.await_answer(store, sent, COMMAND_WAIT)

        try:
            answer = await self.in_store(work, _WAITERS)
        except CommandRefused as refused:
            raise web.HTTPError(409, str(refused)) from refused
        if answer.state == REFUSED:
            raise web.HTTPError(409, control.describe_answer(answer))
        self.write_json(command_json(answer))


class StopHandler(CommandHandler):
    """``POST .../stop``: a ``stop`` command (its body, if any, is not read)."""

    @web.authenticated
    @authorized
    async def post(self, name: str) -> None:
        await self.send(self.checked_name(name), "stop", None)


class AnswerHandler(HpnbHandler):
    """``GET .../commands/ID``: the command as stored now; a read, which changes nothing."""

    @web.authenticated
    @authorized
    async def get(self, name: str, command: str) -> None:
        name, command_id = self.checked_name(name), self.checked_id(command, "command")

        def work(store: Store) -> CommandRecord | None:
            record = store.experiment(name)  # an unknown search: 404, a damaged store: 503
            try:
                found = store.command(command_id)
            except StoreUnreachable:  # its server went away meanwhile: a 503, not a 404
                raise
            except StoreError:  # the store answered just now: no such command
                return None
            return found if found.experiment_id == record.id else None

        answer = await self.in_store(work)
        if answer is None:
            raise web.HTTPError(404, f"search {name!r} has no command {command_id}")
        self.write_json(command_json(answer))


def command_routes(base: str) -> list[tuple[str, type[HpnbHandler]]]:
    """The routes under ``base`` (``.../hpnb/api/experiments``)."""
    search = url_path_join(base, r"(?P<name>[^/]+)")
    return [(url_path_join(search, "commands"), CommandHandler), (url_path_join(search, "stop"), StopHandler),
            (url_path_join(search, "commands", r"(?P<command>[^/]+)"), AnswerHandler)]
