"""What runs a trial's ranks: a trial that spans several workers (``resources.per_trial: {workers:
N, procs_per_worker: P}``) runs its objective once per rank, as ``torchrun`` runs a script.

This room holds the worker's side of such a trial: each rank's environment (``MASTER_ADDR``,
``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ...) set for that rank alone and
restored after, the processes a worker runs for its ranks, rank 0's reports as the trial's, and
the end of every rank when one fails. Placing a trial's ranks on workers (all or none, counted in
ranks) is the executor's job (:mod:`hpnb.runner.dask_executor` and :mod:`hpnb.cluster`), never a
strategy's.

Import rules (checked by ``tests/test_import_graph.py``): besides :mod:`hpnb.integrations`,
:mod:`hpnb.llm` and :mod:`hpnb.nas`, this is the one place in hpnb that may import torch and its
family, and only inside the functions of a trial that asked for ranks, so a plain search never
loads them.
"""
