"""The worker side of a trial: what runs on a Dask worker thread.

- :mod:`~hpnb.runner.worker.objective`: calling the user's objective and turning what it
  returns (or raises) into an outcome, never an exception;
- :mod:`~hpnb.runner.worker.reporting`: ``hpnb.report``, ``hpnb.load_checkpoint`` and
  ``TrialStopped``;
- :mod:`~hpnb.runner.worker.trial_context`: the state of the trial running in this thread and
  its channel to its driver;
- :mod:`~hpnb.runner.worker.checkpointing`: checkpoints written to the checkpoint store;
- :mod:`~hpnb.runner.worker.trial_info`: ``hpnb.current_trial()`` and artifacts.

The driver side of a trial (what the driver knows of it) is :mod:`hpnb.runner.driven_trial`.
"""
