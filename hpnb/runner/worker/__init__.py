"""The worker side of a trial: what runs on a Dask worker thread.

- :mod:`~hpnb.runner.worker.objective`: calling the user's objective and turning what it
  returns (or raises) into an outcome, never an exception;
- :mod:`~hpnb.runner.worker.reporting`: ``hpnb.report``, ``hpnb.load_checkpoint`` and
  ``TrialStopped``, the trial's channel to its driver.

The driver side of a trial (what the driver knows of it) is :mod:`hpnb.runner.driven_trial`.
"""
