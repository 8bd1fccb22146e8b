"""The local cluster that the tests of several folders share."""

from __future__ import annotations


def shared_local_client() -> object:
    """hpnb's own process-wide local cluster of 2 single-threaded worker processes, started again
    when a test elsewhere shut it down (tests of a module may run after another module's, in any
    order, under ``pytest -n``)."""
    from hpnb.cluster.connect import local_client
    from hpnb.core.spec.resources import Resources

    return local_client(Resources(workers=2))
