"""Pareto ranks and crowding distances against a brute-force definition, on any points."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from hpnb.core.non_domination import crowding_distances, dominates, non_domination_ranks, pareto_order

POINTS = st.integers(1, 4).flatmap(
    lambda width: st.lists(st.tuples(*[st.integers(0, 4).map(float)] * width), max_size=40))


def brute_force_ranks(points: list[tuple[float, ...]]) -> list[int]:
    """Peel fronts by checking every pair (the definition)."""
    ranks = [-1] * len(points)
    left, rank = set(range(len(points))), 0
    while left:
        front = {i for i in left if not any(dominates(points[j], points[i]) for j in left)}
        for i in front:
            ranks[i] = rank
        left -= front
        rank += 1
    return ranks


@settings(max_examples=300, deadline=None)
@given(POINTS)
def test_ranks_match_the_definition(points: list[tuple[float, ...]]) -> None:
    assert non_domination_ranks(points) == brute_force_ranks(points)


@settings(max_examples=100, deadline=None)
@given(POINTS)
def test_order_is_by_rank_then_crowding(points: list[tuple[float, ...]]) -> None:
    order = pareto_order(points)
    ranks = non_domination_ranks(points)
    assert sorted(order) == list(range(len(points)))
    assert [ranks[i] for i in order] == sorted(ranks)
    for rank in set(ranks):  # within a front: the most isolated first, ties by index
        members = [i for i in range(len(points)) if ranks[i] == rank]
        distance = dict(zip(members, crowding_distances([points[i] for i in members]), strict=True))
        ordered = [i for i in order if ranks[i] == rank]
        assert ordered == sorted(members, key=lambda i: (-distance[i], i))


def test_equal_points_share_their_front() -> None:
    assert non_domination_ranks([(1.0, 2.0), (1.0, 2.0), (2.0, 3.0)]) == [0, 0, 1]


def test_the_ends_of_a_front_are_infinitely_far_and_the_middle_by_its_neighbours() -> None:
    distances = crowding_distances([(0.0, 4.0), (1.0, 3.0), (3.0, 1.0), (4.0, 0.0)])
    assert math.isinf(distances[0]) and math.isinf(distances[3])
    assert distances[1] == distances[2] == (3.0 - 0.0) / 4 + (4.0 - 1.0) / 4


def test_ten_thousand_trials_of_three_objectives_rank() -> None:
    points = [((i * 7919) % 10007 / 10007, (i * 104729) % 10009 / 10009, (i * 31) % 101 / 101)
              for i in range(10_000)]
    ranks = non_domination_ranks(points)
    front = [p for p, r in zip(points, ranks, strict=True) if r == 0]
    assert front and all(not dominates(q, p) for p in front[:50] for q in points)
