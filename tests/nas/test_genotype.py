"""Genotypes in Katib's text: read, written back, built into networks that train."""

from __future__ import annotations

import pytest
import torch

from hpnb.nas import Genotype, GenotypeError, parameter_count
from hpnb.nas.genotype import derive

#: what Katib's DARTS trial prints (its 'Best-Genotype=' line, spaces removed), 4 nodes.
KATIB = ("Genotype(normal=[[('separable_convolution_3x3',0),('dilated_convolution_5x5',1)],"
         "[('skip_connection',0),('max_pooling_3x3',2)],[('avg_pooling_3x3',1),('separable_convolution_5x5',3)],"
         "[('dilated_convolution_3x3',4),('skip_connection',0)]],normal_concat=range(2,6),"
         "reduce=[[('max_pooling_3x3',0),('max_pooling_3x3',1)],[('max_pooling_3x3',0),('skip_connection',2)],"
         "[('avg_pooling_3x3',3),('max_pooling_3x3',1)],[('max_pooling_3x3',4),('skip_connection',2)]],"
         "reduce_concat=range(2,6))")
#: Katib's one-layer example (numLayers: 1, num_nodes: 1): no reduction cell.
KATIB_ONE_LAYER = ("Genotype(normal=[[('max_pooling_3x3',0),('max_pooling_3x3',1)]],normal_concat=range(2,3),"
                   "reduce=[],reduce_concat=range(2,3))")
#: the DARTS paper's DARTS_V2 cell, in its own flat form and names.
DARTS_V2 = ("Genotype(normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0), "
            "('sep_conv_3x3', 1), ('sep_conv_3x3', 1), ('skip_connect', 0), ('skip_connect', 0), "
            "('dil_conv_3x3', 2)], normal_concat=[2, 3, 4, 5], reduce=[('max_pool_3x3', 0), "
            "('max_pool_3x3', 1), ('skip_connect', 2), ('max_pool_3x3', 1), ('max_pool_3x3', 0), "
            "('skip_connect', 2), ('skip_connect', 2), ('max_pool_3x3', 1)], reduce_concat=[2, 3, 4, 5])")


@pytest.mark.parametrize("text", [KATIB, KATIB_ONE_LAYER])
def test_katib_strings_round_trip_exactly(text):
    genotype = Genotype.parse(text)
    assert str(genotype) == text
    assert Genotype.parse(f"Best-Genotype={text}") == genotype
    assert Genotype.parse(text.replace(",", ", ")) == genotype  # Katib's per-epoch lines keep spaces


def test_katib_cells_are_read_node_by_node():
    genotype = Genotype.parse(KATIB)
    assert genotype.nodes == 4 and genotype.normal_concat == (2, 3, 4, 5)
    assert genotype.normal[3] == (("dilated_convolution_3x3", 4), ("skip_connection", 0))
    assert genotype.count("skip_connection") == 2 and genotype.count("skip_connection", "reduce") == 2


def test_the_darts_papers_flat_lists_and_short_names_are_read_as_katibs():
    genotype = Genotype.parse(DARTS_V2)
    assert genotype.normal[0] == (("separable_convolution_3x3", 0), ("separable_convolution_3x3", 1))
    assert genotype.reduce[1] == (("skip_connection", 2), ("max_pooling_3x3", 1))
    assert Genotype.parse(str(genotype)) == genotype


@pytest.mark.parametrize(("text", "words"), [
    ("Genotype(normal=[[('conv_7x7',0),('skip_connection',1)]])", "unknown operation 'conv_7x7'"),
    ("Genotype(normal=[[('skip_connection',3),('skip_connection',1)]])", "input 3 does not exist yet"),
    ("Genotype(normal=__import__('os').system('true'))", "is not a list of (operation, input) pairs"),
    ("Genotype(normal=[[('skip_connection',0)]], colour='red')", "a genotype has the fields"),
    ("normal=[[('skip_connection',0)]]", "not a genotype"),
    ("Genotype(normal=[('skip_connection',0)])", "a flat list of edges needs two per node"),
])
def test_text_that_is_not_a_genotype_is_refused_saying_why(text, words):
    with pytest.raises(GenotypeError) as caught:
        Genotype.parse(text)
    assert words in str(caught.value)


@pytest.mark.parametrize(("text", "layers"), [(KATIB, 5), (KATIB_ONE_LAYER, 1)])
def test_a_genotype_builds_a_network_that_learns(text, layers):
    genotype = Genotype.parse(text)
    torch.manual_seed(0)
    net = genotype.build(in_channels=1, classes=3, channels=4, layers=layers)
    x, y = torch.randn(12, 1, 8, 8), torch.arange(12) % 3
    optimiser = torch.optim.Adam(net.parameters(), 0.01)
    losses = []
    for _ in range(15):
        optimiser.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    assert net(x).shape == (12, 3)
    assert losses[-1] < losses[0] * 0.7


def test_a_genotype_without_a_reduction_cell_cannot_build_reduction_layers():
    with pytest.raises(ValueError, match="has no reduce cell"):
        Genotype.parse(KATIB_ONE_LAYER).build(in_channels=1, classes=2, layers=3)


def test_the_derived_cell_keeps_each_nodes_two_strongest_edges_never_none():
    names = ("max_pooling_3x3", "skip_connection", "none")
    weights = [[[0.2, 0.1, 0.7], [0.5, 0.4, 0.1]],                    # node 0: none ignored on edge 0
               [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1], [0.9, 0.05, 0.05]]]  # node 1: edges 2 then 1
    assert derive(weights, names) == ((("max_pooling_3x3", 1), ("max_pooling_3x3", 0)),
                                      (("max_pooling_3x3", 2), ("skip_connection", 1)))


def test_random_genotypes_are_reproducible_and_sized_by_their_operations():
    ops = ["separable_convolution_5x5", "skip_connection"]
    assert Genotype.random(ops, 3, seed=4) == Genotype.random(ops, 3, seed=4)
    convs = Genotype(((("separable_convolution_5x5", 0), ("separable_convolution_5x5", 1)),), (2,))
    skips = Genotype(((("skip_connection", 0), ("skip_connection", 1)),), (2,))
    size = {"in_channels": 1, "classes": 10, "channels": 4, "layers": 1}
    assert parameter_count(convs, **size) > parameter_count(skips, **size)
