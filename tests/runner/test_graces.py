"""Waits with a grace period that run side by side in one thread of their own."""

from __future__ import annotations

import threading
from collections.abc import Callable

from hpnb.runner.graces import Graces
from tests.waiting import patience

FollowUp = Callable[[bool], None]


def _recorder() -> tuple[list[tuple[str, bool]], threading.Event, Callable[[str, int], FollowUp]]:
    """What the follow-ups said, set once ``expected`` of them did, and a maker of follow-ups."""
    said: list[tuple[str, bool]] = []
    all_said = threading.Event()

    def then(name: str, expected: int) -> FollowUp:
        def call(held: bool) -> None:
            said.append((name, held))
            if len(said) == expected:
                all_said.set()
        return call
    return said, all_said, then


def test_a_condition_that_holds_is_followed_up_at_once_and_one_that_never_does_after_its_grace():
    said, all_said, then = _recorder()
    graces = Graces()
    flag = threading.Event()
    graces.add(lambda: False, 3.0, then("never", 2))
    graces.add(flag.is_set, 60.0, then("flagged", 2))
    flag.set()
    assert all_said.wait(patience(10))
    # the second wait did not queue behind the first one's grace
    assert said == [("flagged", True), ("never", False)]


def test_a_condition_that_raises_does_not_hold_and_a_failing_follow_up_spares_the_others():
    said, all_said, then = _recorder()
    graces = Graces()

    def broken() -> bool:
        raise RuntimeError("unreadable")

    def fails(held: bool) -> None:
        raise RuntimeError("a follow-up that fails")

    graces.add(lambda: True, 60.0, fails)
    graces.add(broken, 0.2, then("broken", 2))
    graces.add(lambda: True, 60.0, then("fine", 2))
    assert all_said.wait(patience(10))
    assert sorted(said) == [("broken", False), ("fine", True)]


def test_waits_added_after_the_thread_ended_still_run():
    said, all_said, then = _recorder()
    graces = Graces()
    first = threading.Event()
    graces.add(lambda: True, 1.0, lambda held: first.set())
    assert first.wait(patience(10))
    graces.add(lambda: True, 1.0, then("later", 1))
    assert all_said.wait(patience(10))
    assert said == [("later", True)]
