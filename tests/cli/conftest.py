"""CLI tests run hpnb in subprocesses on stores under their ``tmp_path``: check those stores afterwards."""

from __future__ import annotations

from tests.store_checks import no_result_stored_twice as no_result_stored_twice
