"""Where a network of ``layers`` cells has its reduction cells (Katib's and DARTS's rule).

One cell: a normal cell only. Two: a normal cell, then a reduction cell. Three or more: reduction
cells at a third and at two thirds of the depth (the DARTS paper's layout); each halves the image
and doubles the channels.

Example:
    >>> reduction_layers(1), reduction_layers(2), reduction_layers(8)
    ((), (1,), (2, 5))
"""

from __future__ import annotations


def reduction_layers(layers: int) -> tuple[int, ...]:
    """The indices of the reduction cells of a network of ``layers`` cells."""
    if layers <= 1:
        return ()
    if layers == 2:
        return (1,)
    return (layers // 3, 2 * layers // 3)


def smallest_image(layers: int) -> int:
    """The smallest image side the reduction cells of ``layers`` cells can halve (1 pixel at least
    left after the last)."""
    return 2 ** len(reduction_layers(layers))


def cell_plan(layers: int, channels: int, stem_multiplier: int,
              nodes: int) -> list[tuple[int, int, int, bool, bool]]:
    """For each cell: the channels of its two inputs, its own channels, whether it is a reduction
    cell, whether the one before it was (then its first input is halved to match).

    Example:
        >>> cell_plan(3, 4, 3, 2)[1]
        (12, 8, 8, True, False)
    """
    reductions = reduction_layers(layers)
    c_prev_prev = c_prev = channels * stem_multiplier
    current, before, plan = channels, False, []
    for index in range(layers):
        reduction = index in reductions
        current = current * 2 if reduction else current
        plan.append((c_prev_prev, c_prev, current, reduction, before))
        c_prev_prev, c_prev, before = c_prev, current * nodes, reduction
    return plan
