"""Where a search's driver runs, and how it is started there.

A search has one driver at a time (the loop of :mod:`hpnb.runner`), and it runs in one of three
places; the store is its channel wherever it runs, so every command reaches it alike:

- :mod:`~hpnb.driving.launch`: in this process (the kernel's, the ``hpnb`` command's), started in
  the caller's thread or a background one while its cluster comes up.
- :mod:`~hpnb.driving.detached`: in a process of its own that outlives the kernel
  (``detach: process``), which runs :mod:`~hpnb.driving.detached_process`.
- :mod:`~hpnb.driving.on_cluster`: as a task on a worker of the search's cluster (``detach: cluster``).

Beside them: :mod:`~hpnb.driving.placement` (which place a search asks for, who holds it),
:mod:`~hpnb.driving.driver_parts` (the strategy and the early-stopping rule a spec names) and
:mod:`~hpnb.driving.kept_objective` (the objective a detached driver runs, kept with the search).
"""
