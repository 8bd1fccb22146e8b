"""Callbacks that connect training frameworks to a search.

Each module imports its framework only when it is itself imported, and none of the
frameworks is a dependency of hpnb:

- :mod:`hpnb.integrations.keras`: Keras 3, reports every epoch;
- :mod:`hpnb.integrations.xgboost` and :mod:`hpnb.integrations.lightgbm`: every boosting round;
- :mod:`hpnb.integrations.lightning` (PyTorch Lightning) and :mod:`hpnb.integrations.transformers`
  (the Hugging Face ``Trainer``): every validation.

Each reports the framework's metrics through :func:`hpnb.report` and ends the training at once
when the search stops the trial (the attempt then ends as stopped, whatever the objective
returns). Outside a search a callback does nothing.

Example:
    >>> from hpnb.integrations import steps
    >>> steps.report_step(1, {"loss": 0.5})  # outside a search: go on
    False
"""
