"""DARTS's settings, by Katib's names and with Katib's defaults, and hpnb's guard against collapse.

=====================  ==========  ================================================================
setting                default     what it is
=====================  ==========  ================================================================
num_epochs             50          supernet epochs (a trial reports once per epoch)
w_lr, w_lr_min         0.025, ...  the weights' SGD learning rate, cosine-annealed to ``w_lr_min``
w_momentum             0.9         SGD momentum
w_weight_decay         3e-4        SGD weight decay
w_grad_clip            5.0         the weights' gradient norm is clipped to this
alpha_lr               3e-4        Adam's learning rate of the architecture weights
alpha_weight_decay     1e-3        their weight decay
batch_size             128         both the training and the validation batch
init_channels          16          the first cells' channels
num_nodes              4           intermediate nodes per cell (``nas.nodes``)
stem_multiplier        3           the stem's channels are ``init_channels * stem_multiplier``
order                  second      ``second``: the unrolled architecture gradient; ``first``: plain
stop_at_skip_connections  auto     DARTS+'s criterion: the search stops once the normal cell has
                                   this many skip connections (0: never), from a quarter of the
                                   epochs on; ``auto``: DARTS+'s 2 for cells of 4 nodes or more,
                                   else more than half the cell's edges
=====================  ==========  ================================================================

Example:
    >>> settings = darts_settings({"num_epochs": "3", "order": "first"}, "nas.darts")
    >>> settings["num_epochs"], settings["w_lr"], settings["order"]
    (3, 0.025, 'first')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.interop.katib_nas import DARTS_SETTINGS
from hpnb.core.spec.values import as_float, as_int, choose

#: every setting and its default: Katib's, then hpnb's order and guard.
DEFAULTS: dict[str, Any] = {**DARTS_SETTINGS, "order": "second", "stop_at_skip_connections": "auto"}
_INTS = {"num_epochs": 1, "batch_size": 1, "init_channels": 1, "num_nodes": 1, "stem_multiplier": 1,
         "stop_at_skip_connections": 0}
ORDERS = ("first", "second")


def darts_settings(given: Mapping[str, Any] | None, path: str) -> dict[str, Any]:
    """Every setting: the given ones checked (a SpecError naming ``path.NAME``), the rest defaults."""
    settings = dict(DEFAULTS)
    for name, value in (given or {}).items():
        settings[str(name)] = setting_value(str(name), value, f"{path}.{name}")
    return settings


def setting_value(name: str, value: Any, path: str) -> Any:
    """One setting's value, checked: Katib writes numbers as strings, read as numbers."""
    if name not in DEFAULTS:
        raise SpecError(path, "is not a DARTS setting", value=name, allowed=tuple(DEFAULTS),
                        suggestion=closest(name, tuple(DEFAULTS)))
    if name == "order":
        return choose(value, path, ORDERS, "DARTS order")
    if name == "stop_at_skip_connections" and value == "auto":
        return value
    if name in _INTS:
        return as_int(value, path, minimum=_INTS[name])
    number = as_float(value, path)
    if number < 0:
        raise SpecError(path, "must be at least 0", value=value, allowed="a number >= 0")
    return number


def guard_start(num_epochs: int) -> int:
    """The first epoch DARTS+'s stop may end a search at: after a quarter of the epochs. Before,
    the architecture weights have barely left their start (each ``1 / operations``), and the
    genotype they give is their noise, not what the search learned.

    Example:
        >>> guard_start(50), guard_start(3)
        (13, 1)
    """
    return num_epochs // 4 + 1


def skip_limit(settings: Mapping[str, Any]) -> int:
    """The skip connections of a normal cell that stop the search (0: none do).

    Example:
        >>> skip_limit({"stop_at_skip_connections": "auto", "num_nodes": 4}), skip_limit(
        ...     {"stop_at_skip_connections": "auto", "num_nodes": 2})
        (2, 3)
    """
    limit = settings["stop_at_skip_connections"]
    if limit != "auto":
        return int(limit)
    nodes = int(settings["num_nodes"])
    return 2 if nodes >= 4 else nodes + 1
