"""``%hpsearch attach`` and ``list`` of a server store that cannot be reached: a plain UsageError
naming the host, the port and why, within the 10 s the product promises."""

from __future__ import annotations

import socket
import time

import pytest
from IPython.core.error import UsageError
from IPython.testing import globalipapp


@pytest.fixture
def ip():
    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    shell.run_line_magic("load_ext", "hpnb.jupyter")
    yield shell
    shell.run_line_magic("unload_ext", "hpnb.jupyter")


@pytest.mark.parametrize("line", ["attach mlp-lr", "list"])
def test_a_port_nothing_listens_on_is_a_usage_error_at_once(ip, line: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    started = time.monotonic()
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("hpsearch", f"{line} --store postgresql://alice@127.0.0.1:{port}/team")
    assert time.monotonic() - started < 10
    assert type(caught.value) is UsageError  # a subclass would print a traceback
    assert f"connection refused at 127.0.0.1:{port}: is the server running" in str(caught.value)
