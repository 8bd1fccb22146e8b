"""hpnb: hyperparameter search as a first-class citizen of Jupyter.

Example:
    >>> import hpnb
    >>> hpnb.report(step=0, loss=1.0)  # outside a search: does nothing
"""

from __future__ import annotations

import importlib
from typing import Any

from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.trial import TrialState
from hpnb.runner.worker.checkpointing import checkpoint_dir
from hpnb.runner.worker.reporting import TrialStopped, load_checkpoint, report
from hpnb.runner.worker.trial_info import TrialInfo, artifact, current_trial

__version__ = "0.1.0"

#: public names imported on first use (they pull in pandas, dask, IPython).
_LAZY = {
    "search": "hpnb.api",
    "resume": "hpnb.api",
    "load": "hpnb.api",
    "Search": "hpnb.api",
    "compare": "hpnb.comparison",
    "Comparison": "hpnb.comparison",
    "parse_spec": "hpnb.core.spec",
    "ExperimentSpec": "hpnb.core.spec",
    "show": "hpnb.jupyter",
    "load_ipython_extension": "hpnb.jupyter",
    "unload_ipython_extension": "hpnb.jupyter",
}

__all__ = [
    "Comparison",
    "ExperimentSpec",
    "HpnbError",
    "Search",
    "SpecError",
    "TrialInfo",
    "TrialState",
    "TrialStopped",
    "__version__",
    "artifact",
    "checkpoint_dir",
    "compare",
    "current_trial",
    "load",
    "load_checkpoint",
    "parse_spec",
    "report",
    "resume",
    "search",
    "show",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hpnb' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
