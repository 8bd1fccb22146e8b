from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from hpnb.core.analysis.humane_time import clock_time, duration, relative_time

UTC = timezone.utc
NOW = datetime(2026, 12, 1, 4, 49, 34, 603368, tzinfo=UTC).timestamp()


def test_clock_time_is_hours_today_then_the_day_then_the_year():
    assert clock_time(NOW, now=NOW, tz=UTC) == "04:49"
    assert clock_time(NOW - 4 * 3600, now=NOW, tz=UTC) == "00:49"
    assert clock_time(NOW - 5 * 3600, now=NOW, tz=UTC) == "Nov 30 23:49"
    assert clock_time(NOW - 200 * 86400, now=NOW, tz=UTC) == "May 15 04:49"
    assert clock_time(NOW - 400 * 86400, now=NOW, tz=UTC) == "Oct 27 2025 04:49"


def test_clock_time_follows_the_time_zone_it_is_given():
    tokyo = timezone(timedelta(hours=9))
    assert clock_time(NOW, now=NOW, tz=tokyo) == "13:49"
    # 23:49 UTC on Nov 30 is Dec 1 in Tokyo: today there
    assert clock_time(NOW - 5 * 3600, now=NOW, tz=tokyo) == "08:49"


def test_clock_time_defaults_to_the_local_zone_and_now():
    assert clock_time(time.time()) == datetime.now().astimezone().strftime("%H:%M")


@pytest.mark.parametrize("missing", [None, float("nan"), float("inf")])
def test_missing_times_print_a_dash(missing):
    assert clock_time(missing) == relative_time(missing) == duration(missing) == "-"


@pytest.mark.parametrize(("ago", "text"), [
    (0.0, "just now"), (4.9, "just now"), (42.7, "42 s ago"), (200, "3 min ago"),
    (3 * 3600 + 59 * 60, "3 h ago"), (2.5 * 86400, "2 d ago"), (-180, "in 3 min"),
])
def test_relative_time(ago, text):
    assert relative_time(NOW - ago, now=NOW) == text


@pytest.mark.parametrize(("seconds", "text"), [
    (0.0, "0 ms"), (0.0042, "4 ms"), (0.42, "420 ms"), (0.9996, "1.0 s"),
    (9.94, "9.9 s"), (12.3, "12 s"), (59.6, "1 min"), (80, "1 min 20 s"),
    (3600, "1 h"), (3725, "1 h 2 min"), (7500, "2 h 5 min"), (90000, "1 d 1 h"), (-1, "-"),
])
def test_duration_in_its_two_largest_units(seconds, text):
    assert duration(seconds) == text
