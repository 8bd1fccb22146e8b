"""Kubernetes object names made from hpnb's names (a Katib Experiment, a DaskCluster).

Example:
    >>> kubernetes_name("MLP_lr.v2"), kubernetes_name("MLP_lr.v2", dots=False, prefix="hpnb-")
    ('mlp-lr.v2', 'hpnb-mlp-lr-v2')
"""

from __future__ import annotations

import re

#: the longest name of most Kubernetes objects (a DNS subdomain).
MAX_OBJECT_NAME = 253


def kubernetes_name(name: str, *, dots: bool = True, prefix: str = "", limit: int = MAX_OBJECT_NAME) -> str:
    """``name`` in lower case with every run of other characters than letters, digits and '-'
    (and '.' with ``dots``) as one '-', after ``prefix``, cut to ``limit`` characters, with no
    separator at either end ("" when nothing is left)."""
    kept = "a-z0-9.-" if dots else "a-z0-9-"
    ends = "-." if dots else "-"
    text = prefix + re.sub(f"[^{kept}]+", "-", name.lower()).strip(ends)
    return text[:limit].rstrip(ends)
