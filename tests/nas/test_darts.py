"""DARTS as the paper defines it: the architecture weights get the validation loss's gradient (first
and second order), they learn the operation the data needs, and a supernet resumes from its
checkpoint exactly where it was."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hpnb.nas import Genotype, bilevel
from hpnb.nas.bilevel import architecture_gradient, loss
from hpnb.nas.data import SearchData
from hpnb.nas.settings import darts_settings, guard_start
from hpnb.nas.supernet import Supernet
from hpnb.nas.training import Optimisers
from hpnb.nas.trial import search_architecture
from tests.nas.data_functions import decisive_pairs, tiny_digits

OPS = ("separable_convolution_3x3", "max_pooling_3x3", "skip_connection", "none")


def _tiny_net() -> tuple[Supernet, tuple, tuple]:
    torch.manual_seed(0)
    net = Supernet(OPS, in_channels=1, classes=2, channels=2, layers=2, nodes=1, stem_multiplier=1,
                   seed=0).double()
    for module in net.modules():  # batch statistics make the loss depend on the whole batch: fine,
        if isinstance(module, torch.nn.BatchNorm2d):  # but the running ones must not change between calls
            module.track_running_stats = False
    generator = torch.Generator().manual_seed(1)
    train = (torch.randn(6, 1, 4, 4, generator=generator, dtype=torch.float64), torch.tensor([0, 1] * 3))
    valid = (torch.randn(6, 1, 4, 4, generator=generator, dtype=torch.float64), torch.tensor([1, 0] * 3))
    return net, train, valid


def _numeric(function, alphas: list[torch.Tensor], h: float = 1e-5) -> list[torch.Tensor]:
    """The central finite difference of ``function()`` along every architecture weight."""
    grads = []
    for alpha in alphas:
        grad = torch.zeros_like(alpha)
        for index in np.ndindex(*alpha.shape):
            with torch.no_grad():
                alpha[index] += h
                up = float(function())
                alpha[index] -= 2 * h
                down = float(function())
                alpha[index] += h
            grad[index] = (up - down) / (2 * h)
        grads.append(grad)
    return grads


def test_first_order_gives_the_architecture_weights_the_validation_losss_gradient():
    net, train, valid = _tiny_net()
    optimiser = torch.optim.SGD(net.weights(), lr=0.1)
    architecture_gradient(net, train, valid, lr=0.1, w_optim=optimiser, second_order=False)
    expected = _numeric(lambda: loss(net, valid), net.alphas())
    for alpha, grad in zip(net.alphas(), expected):
        assert alpha.grad.abs().sum() > 0
        torch.testing.assert_close(alpha.grad, grad, rtol=1e-4, atol=1e-7)


def test_second_order_is_the_gradient_after_one_virtual_weights_step(monkeypatch):
    # the paper's finite difference moves the weights by 0.01: coarse on a net this small; a tiny
    # step makes the approximated second-order term exact, to compare with the numbers
    monkeypatch.setattr(bilevel, "EPSILON", 1e-6)
    net, train, valid = _tiny_net()
    lr = 0.5
    optimiser = torch.optim.SGD(net.weights(), lr=lr)
    architecture_gradient(net, train, valid, lr=lr, w_optim=optimiser, second_order=True)
    unrolled = [a.grad.clone() for a in net.alphas()]
    weights = list(net.weights())
    saved = [w.detach().clone() for w in weights]

    def validation_after_step() -> torch.Tensor:  # L_val(w - lr * grad_w L_train(w, a), a)
        with torch.enable_grad():
            grads = torch.autograd.grad(loss(net, train), weights, allow_unused=True)
        with torch.no_grad():
            for w, g in zip(weights, grads):
                if g is not None:
                    w.sub_(lr * g)
            value = loss(net, valid)
            for w, original in zip(weights, saved):
                w.copy_(original)
        return value

    expected = _numeric(validation_after_step, net.alphas())
    first = torch.autograd.grad(loss(net, valid), net.alphas())
    for got, want, plain in zip(unrolled, expected, first):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-7)
        assert not torch.allclose(got, plain)  # and it is there
    for w, original in zip(weights, saved):
        assert torch.equal(w.detach(), original)  # the virtual step left the weights as they were


def test_the_weights_optimiser_holds_no_architecture_weight_and_a_step_moves_them():
    net = Supernet(OPS, in_channels=1, classes=10, channels=2, layers=1, nodes=1)
    settings = darts_settings({"num_epochs": 1}, "nas.darts")
    optimisers = Optimisers.of(net, settings)
    in_weights = {id(p) for group in optimisers.weights.param_groups for p in group["params"]}
    assert not in_weights & {id(a) for a in net.alphas()}
    assert len(in_weights) + len(net.alphas()) == len(list(net.parameters()))


@pytest.mark.parametrize("order", ["first", "second"])
def test_darts_learns_the_operation_the_data_needs(order):
    """Two pixels across or down: only the separable convolution sees both (data_functions.pairs)."""
    settings = darts_settings({"num_epochs": 12 if order == "first" else 6, "batch_size": 32,
                               "init_channels": 4, "num_nodes": 1, "stem_multiplier": 1, "order": order,
                               "w_lr": 0.05, "alpha_lr": 6e-3}, "nas.darts")
    records = search_architecture(OPS[:3], 1, settings, SearchData.load(decisive_pairs), seed=1)
    genotype = Genotype.parse(records[-1].genotype)
    weights = records[-1].weights["normal"][0]  # node 0's edges from states 0 and 1
    assert genotype.normal[0][0][0] == "separable_convolution_3x3"  # its strongest edge
    assert max(weights[genotype.normal[0][0][1]]) == weights[genotype.normal[0][0][1]][0]
    assert weights[0][0] > 1.2 / len(OPS) and weights[1][0] > 1.2 / len(OPS)  # from 1/4 at the start
    assert records[-1].metrics["Validation-Accuracy"] > 0.65


def _settings(**given):
    return darts_settings({"num_epochs": 3, "batch_size": 40, "init_channels": 2, "num_nodes": 2,
                           "order": "first", "stop_at_skip_connections": 0, **given}, "nas.darts")


def test_a_supernet_resumed_from_its_checkpoint_goes_on_as_if_never_stopped():
    data = SearchData.load(tiny_digits)
    whole = search_architecture(OPS[:3], 2, _settings(), data, seed=3)
    saved = {}

    def stop_after_first(record, checkpoint):
        saved.update(checkpoint())
        raise KeyboardInterrupt  # the worker went away

    with pytest.raises(KeyboardInterrupt):
        search_architecture(OPS[:3], 2, _settings(), data, seed=3, on_epoch=stop_after_first)
    assert saved["epoch"] == 1
    resumed = search_architecture(OPS[:3], 2, _settings(), data, seed=3, resume=saved)
    assert [r.epoch for r in resumed] == [1, 2, 3]
    assert resumed == whole  # the same metrics, weights and genotypes, epoch by epoch


def test_darts_plus_stops_the_search_when_skip_connections_take_the_normal_cell():
    data = SearchData.load(tiny_digits)
    settings = _settings(num_epochs=8, stop_at_skip_connections=1, num_nodes=1, alpha_lr=0.01)
    records = search_architecture(("skip_connection", "avg_pooling_3x3"), 1, settings, data, seed=0)
    skips = {r.epoch: Genotype.parse(r.genotype).count("skip_connection") for r in records}
    start = guard_start(8)  # the first epochs' genotypes are their weights' noise: never a reason to stop
    stop = records[-1].epoch
    assert start <= stop < 8 and "DARTS+" in records[-1].stopped and skips[stop] >= 1
    assert all(skips[epoch] == 0 for epoch in range(start, stop))
    assert any(skips[epoch] >= 1 for epoch in range(1, start))  # skip connections then: no stop
    assert all(r.stopped is None for r in records[:-1])


def test_images_too_small_for_the_reduction_cells_are_refused_before_training():
    def small():
        x = np.zeros((4, 1, 2, 2), "float32")
        return (x, [0, 1, 0, 1]), (x, [0, 1, 0, 1])

    with pytest.raises(ValueError, match="too small for the 2 reduction cells of 3 layers"):
        search_architecture(OPS[:2], 3, _settings(), SearchData.load(small), seed=0)
