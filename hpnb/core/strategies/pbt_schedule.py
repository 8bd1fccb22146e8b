"""Population-based training, time-sharing: which member waits at a ready step, and when it may go on.

A population larger than the cluster's slots takes turns. At a ready step a member
*pauses* (frees its slot, to be resumed later from its checkpoint) when members behind
it are waiting for a slot, so that the least advanced member runs and exploitation
compares members at the same step, never a member with one that finished long ago.
With ``synch`` the whole population reaches each ready step before anyone decides
(the paper's synchronous mode): a member that arrives early waits for all the others.
A paused member decides as soon as it no longer has to wait (:func:`must_wait` turns
false), while the donors' checkpoints are those of that step, and then waits for a
slot with its decision made.

Members that are not started yet count as waiting at step 0.

Example:
    >>> from hpnb.core.strategies.pbt_exploit import Member
    >>> ahead, behind = Member(0, {}, step=4, checkpoint_step=4), Member(1, {}, step=0)
    >>> must_wait(ahead, [ahead, behind], unstarted=0, synch=True)
    True
    >>> must_wait(ahead, [ahead, behind], unstarted=0, synch=False, ready=4)  # member 1 runs, close behind
    False
"""

from __future__ import annotations

from collections.abc import Sequence

from hpnb.core.strategies.pbt_exploit import Member


def _active(population: Sequence[Member], member: Member) -> list[Member]:
    return [m for m in population if m is not member and not m.done and not m.failed]


def must_wait(member: Member, population: Sequence[Member], unstarted: int, synch: bool,
              ready: int = 1) -> bool:
    """Whether ``member``, at a ready step, pauses instead of deciding now.

    A member without a checkpoint never pauses (it could not resume without losing its
    steps); it decides at once.
    """
    if member.checkpoint_step is None:
        return False
    step = member.step
    if unstarted and step > 0:
        return True
    others = _active(population, member)
    if synch:
        return any(m.step < step for m in others)
    # a member behind by more than ``ready`` could never be compared with it nor copy it: let it catch up
    return any((m.waiting and m.step < step) or m.step < step - ready for m in others)
