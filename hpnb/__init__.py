"""hpnb: hyperparameter search as a first-class citizen of Jupyter.

Example:
    >>> import hpnb
    >>> hpnb.report(step=0, loss=1.0)  # outside a search: does nothing
"""

from __future__ import annotations

from typing import Any

from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.trial import TrialState

__version__ = "0.1.0"

__all__ = ["HpnbError", "SpecError", "TrialState", "__version__", "report"]


def report(step: int | None = None, checkpoint: Any = None, **metrics: Any) -> None:
    """Report metrics of the running trial (a no-op outside a search)."""
    return None
