"""The PostgreSQL server the tests of a server store use.

``HPNB_TEST_POSTGRES`` names one (a superuser's URL: ``.ci/test`` starts a server and exports it,
with ``HPNB_TEST_POSTGRES_DIR``, its folder, so that tests can restart it);
without it, the first test that needs one starts its own on 127.0.0.1 for the session, when
PostgreSQL is installed. On CI (``CI`` set) a missing server fails those tests rather than
skipping them.
"""

from __future__ import annotations

import itertools
import os
import tempfile
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from hpnb.testing.postgres_server import PostgresServer, postgres_bindir

_names = itertools.count()


class TestServer:
    """Where test databases are made: a superuser's URL, and the server when the tests started it."""

    def __init__(self, admin_url: str, server: PostgresServer | None = None) -> None:
        self.admin_url = admin_url
        self.server = server

    def create_database(self) -> str:
        """A new empty database; its URL (the superuser's)."""
        import psycopg

        name = f"hpnb_test_{os.getpid()}_{next(_names)}_{uuid.uuid4().hex[:6]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return urlunsplit(urlsplit(self.admin_url)._replace(path=f"/{name}"))

    def sql(self, statement: str, url: str | None = None) -> None:
        """Run ``statement`` as the superuser (on the database of ``url`` when given)."""
        import psycopg

        with psycopg.connect(url or self.admin_url, autocommit=True) as conn:
            conn.execute(statement.encode())


def postgres_server_fixture() -> Iterator[TestServer]:
    given = os.environ.get("HPNB_TEST_POSTGRES")
    if given:
        folder = os.environ.get("HPNB_TEST_POSTGRES_DIR")
        yield TestServer(given, PostgresServer.of_folder(folder) if folder else None)
        return
    yield from own_postgres_server()


def own_postgres_server() -> Iterator[TestServer]:
    """A server started for the caller alone: the tests that stop and start their server use one,
    so that the other test processes' connections to the shared server are never cut."""
    if postgres_bindir() is None:
        reason = "no PostgreSQL server: set HPNB_TEST_POSTGRES or install postgresql"
        if os.environ.get("CI"):
            pytest.fail(reason + " (required on CI)")
        pytest.skip(reason)
    server = PostgresServer.start(tempfile.gettempdir())
    try:
        yield TestServer(server.url(), server)
    finally:
        server.stop()
