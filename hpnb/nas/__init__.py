"""Neural architecture search as a search: a ``nas:`` section of the spec (layers, nodes,
operations in Katib's vocabulary), DARTS's supernet trained as a trial, and the genotypes it finds.

This room holds that built-in objective and its parts: the operations and cells, the supernet and
its bilevel optimisation, the genotype in Katib's format (parsed, and built into a network to
train), and the architecture weights each trial reports every epoch for the views to draw
(:mod:`hpnb.nas.records`). Strategies that search architectures as black boxes (a controller,
regularised evolution) work on ordinary parameters and live with the other strategies in
:mod:`hpnb.core.strategies`, with no torch.

Import rules (checked by ``tests/test_import_graph.py``): torch is imported here (and in
:mod:`hpnb.integrations`, :mod:`hpnb.llm`, :mod:`hpnb.runner.ranks`) and nowhere else; only the
front door (:mod:`hpnb.api`), the notebook layer (:mod:`hpnb.jupyter`) and the command line
(:mod:`hpnb.cli`) import this room, so a plain search never loads it. Importing this package
loads no torch: the modules that need it (operations, cells, supernet, training) are imported
when a network is built or trained.

Example:
    >>> from hpnb.nas import Genotype
    >>> Genotype.parse("Genotype(normal=[[('skip_connection',0),('max_pooling_3x3',1)]],"
    ...                "normal_concat=range(2,3),reduce=[],reduce_concat=range(2,3))").nodes
    1
"""

from __future__ import annotations

from hpnb.nas.genotype import Genotype, GenotypeError
from hpnb.nas.records import EpochRecord, genotypes, history
from hpnb.nas.retrain import parameter_count, train_genotype

__all__ = ["EpochRecord", "Genotype", "GenotypeError", "genotypes", "history", "parameter_count",
           "train_genotype"]
