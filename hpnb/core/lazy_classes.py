"""Classes named by a spec, imported on first use: what the strategy and early-stopping lookups share.

Example:
    >>> lazy_class("hpnb.core.strategies", {"random": "random:RandomStrategy"}, "random").name
    'random'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def lazy_class(package: str, registry: Mapping[str, str], name: str) -> Any:
    """The class ``registry[name]`` names (``"module:Class"`` below ``package``); a KeyError for
    unknown names."""
    module, cls = registry[name].split(":")
    return getattr(importlib.import_module(f"{package}.{module}"), cls)
