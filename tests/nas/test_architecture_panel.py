"""The dashboard's architecture panel of a DARTS trial: its cells drawn, its architecture weights
over the epochs and at the last one, from the records a real supernet wrote."""

from __future__ import annotations

import re

from hpnb.jupyter.dashboard.architecture import architecture_html, panel_html
from hpnb.nas import Genotype
from hpnb.nas.data import SearchData
from hpnb.nas.drawing import short_name
from hpnb.nas.records import ARCHITECTURE
from hpnb.nas.settings import darts_settings
from hpnb.nas.trial import search_architecture
from tests.nas.data_functions import tiny_digits

OPS = ("separable_convolution_3x3", "max_pooling_3x3", "skip_connection")


def _records(**given):
    settings = darts_settings({"num_epochs": 3, "batch_size": 40, "init_channels": 2, "num_nodes": 2,
                               "order": "first", "stop_at_skip_connections": 0, **given}, "nas.darts")
    return search_architecture(OPS, 2, settings, SearchData.load(tiny_digits), seed=0)


def test_the_panel_draws_the_last_genotypes_cells_and_the_weights_of_every_edge_by_epoch():
    records = _records()
    panel = architecture_html(records)
    genotype = Genotype.parse(records[-1].genotype)
    svgs = re.findall(r"<svg.*?</svg>", panel)
    assert len(svgs) == 2  # the normal and the reduction cell
    for svg, cell in zip(svgs, ("normal", "reduce")):
        labels = re.findall(r"paint-order='stroke'>([^<]*)</text>", svg)
        assert sorted(labels) == sorted(short_name(op) for op in genotype.operations(cell))
    over_epochs = re.findall(r"<caption>normal cell: strongest operation.*?</table>", panel)[0]
    assert "<th>edge \\ epoch</th><th>1</th><th>2</th><th>3</th>" in over_epochs
    assert over_epochs.count("<tr><th>node") == 5  # 2 + 3 edges of two nodes
    last = re.findall(r"<caption>normal cell at epoch 3.*?</table>", panel)[0]
    first_edge = records[-1].weights["normal"][0][0]
    shown = [float(v) for v in re.findall(r"<td[^>]*>([0-9.]+)</td>", last)[:4]]
    assert shown == [round(v, 2) for v in first_edge]


def test_the_panel_says_when_darts_plus_stopped_the_search_and_is_empty_for_other_trials():
    records = _records(stop_at_skip_connections=1, num_epochs=6)
    assert records[-1].stopped and records[-1].stopped in architecture_html(records).replace("&#x27;", "'")
    files = {"/t/" + ARCHITECTURE: "".join(r.to_json() + "\n" for r in records).encode()}
    listed = [{"name": ARCHITECTURE, "size": 1, "path": "/t/" + ARCHITECTURE}]
    assert panel_html(listed, files.__getitem__) == architecture_html(records)
    assert panel_html([{"name": "loss.png", "size": 1, "path": "/t/loss.png"}], files.__getitem__) == ""
    assert architecture_html([]) == ""
