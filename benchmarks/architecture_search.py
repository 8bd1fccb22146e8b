"""Architecture search with DARTS (hpnb.nas): does it learn, how fast is a supernet epoch, and are
its genotypes any good.

(a) It learns: on images built so that one operation is decisively best on an edge (two pixels
    four apart, across or down: only the separable convolution sees both), DARTS picks that
    operation for the edge on >= 4 of 5 seeds, first and second order; beside it, Katib's trial
    semantics (the architecture weights among the SGD weights, no validation gradient). The mean
    |gradient| of the architecture weights after one step is printed (not zero).
(b) Speed: a supernet epoch of hpnb against a minimal reference of the DARTS paper's code (its
    semantics: the same operations, cells, nodes, channels and batch; the unrolled model built as a
    new network each step), on CPU, one thread: hpnb / reference <= 1.1, both orders.
(c) Quality: genotypes DARTS finds on digits (a reduced training set) retrained from scratch,
    against 10 random genotypes of matched parameter count: higher mean test accuracy (spread shown).
    With it, collapse to skip connections: the skip connections of the normal cell epoch by epoch,
    where DARTS+'s stop (the default) ends the search, and the genotypes kept with it and without it
    (the paper's last epoch) retrained.

Usage:
    python benchmarks/architecture_search.py [--quick] [--part a,b,c]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ALL_OPS = ("separable_convolution_3x3", "separable_convolution_5x5", "dilated_convolution_3x3",
           "dilated_convolution_5x5", "avg_pooling_3x3", "max_pooling_3x3", "skip_connection")


def _torch() -> Any:
    import torch

    torch.set_num_threads(1)
    return torch


def digits(train: int, valid: int, test: int) -> tuple[Any, Any, Any]:
    from sklearn.datasets import load_digits

    found = load_digits()
    x, y = (found.images / 16.0).astype("float32")[:, None], found.target
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    a, b = train, train + valid
    return (x[:a], y[:a]), (x[a:b], y[a:b]), (x[b:b + test], y[b:b + test])


# -- (a) it learns ---------------------------------------------------------------------------
def katib_like(operations: tuple[str, ...], settings: dict, data: Any, seed: int) -> str:
    """Katib's DARTS trial as run on CPU: the architecture step gets no validation gradient, and
    the weights' SGD holds the architecture weights too (so only the training loss moves them)."""
    torch = _torch()
    from hpnb.nas.data import batches
    from hpnb.nas.supernet import Supernet

    torch.manual_seed(seed)
    net = Supernet((*operations, "none"), in_channels=data.channels, classes=data.classes,
                   channels=settings["init_channels"], layers=1, nodes=1, stem_multiplier=1, seed=seed)
    sgd = torch.optim.SGD(net.parameters(), settings["w_lr"], momentum=0.9, weight_decay=3e-4)
    order = torch.Generator().manual_seed(seed)
    for _ in range(settings["num_epochs"]):
        for x, y in batches(data.train_x, data.train_y, settings["batch_size"], order):
            sgd.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            sgd.step()
    return str(net.genotype())


def part_a(seeds: int) -> bool:
    from hpnb.nas import Genotype
    from hpnb.nas.bilevel import architecture_gradient
    from hpnb.nas.data import SearchData
    from hpnb.nas.settings import darts_settings
    from hpnb.nas.supernet import Supernet
    from hpnb.nas.trial import search_architecture
    from tests.nas.data_functions import decisive_pairs

    torch = _torch()
    ops = ("separable_convolution_3x3", "max_pooling_3x3", "skip_connection")
    data = SearchData.load(decisive_pairs)
    print("(a) it learns: the strongest edge of the node runs separable_convolution_3x3")
    print(f"{'variant':<34}{'picked':>8}  genotypes' first edges")
    ok = True
    for label, order, epochs in (("hpnb, first order", "first", 12), ("hpnb, second order", "second", 6),
                                 ("Katib's trial semantics", None, 12)):
        settings = darts_settings({"num_epochs": epochs, "batch_size": 32, "init_channels": 4, "num_nodes": 1,
                                   "stem_multiplier": 1, "order": order or "first", "w_lr": 0.05,
                                   "alpha_lr": 6e-3, "stop_at_skip_connections": 0}, "nas.darts")
        firsts = []
        for seed in range(seeds):
            text = (katib_like(ops, settings, data, seed) if order is None else
                    search_architecture(ops, 1, settings, data, seed)[-1].genotype)
            firsts.append(Genotype.parse(text).normal[0][0][0])
        picked = firsts.count("separable_convolution_3x3")
        short = ", ".join(f.split("_")[0][:4] for f in firsts)
        print(f"{label:<34}{picked:>5} / {seeds}  {short}")
        if order is not None:
            ok &= picked >= 0.8 * seeds
    net = Supernet((*ops, "none"), in_channels=1, classes=2, channels=4, layers=1, nodes=1, seed=0)
    batch = (data.train_x[:32], data.train_y[:32])
    optimiser = torch.optim.SGD(net.weights(), 0.05, momentum=0.9)
    for second in (False, True):
        architecture_gradient(net, batch, (data.valid_x[:32], data.valid_y[:32]), lr=0.05, w_optim=optimiser,
                              second_order=second)
        size = float(net.alpha_normal.grad.abs().mean())
        print(f"mean |d L_val / d alpha| after one {'second' if second else 'first'}-order step: {size:.2e}")
        ok &= size > 0
    return ok


# -- (b) speed: the reference -----------------------------------------------------------------
def reference_network(names: tuple[str, ...], channels: int, layers: int, nodes: int, classes: int) -> Any:
    """The DARTS paper's search network, written from its description: a cell's node sums a mixed
    operation (the weighted sum of every operation) over every earlier state; pooling is followed by
    batch normalisation; the architecture weights are tensors outside ``parameters()``."""
    torch = _torch()
    from torch import nn

    from hpnb.nas.network import preprocess, stem
    from hpnb.nas.operations import make  # the operations themselves: convolutions, pooling + BN

    class Mixed(nn.Module):
        def __init__(self, c: int, stride: int) -> None:
            super().__init__()
            self.ops = nn.ModuleList(make(n, c, stride, affine=False) for n in names)

        def forward(self, x: Any, w: Any) -> Any:
            return sum(wi * op(x) for wi, op in zip(w, self.ops))

    class Cell(nn.Module):
        def __init__(self, cpp: int, cp: int, c: int, reduction: bool, reduction_prev: bool) -> None:
            super().__init__()
            self.reduction = reduction
            self.pre0, self.pre1 = preprocess(cpp, cp, c, reduction_prev, False)
            self.ops = nn.ModuleList(Mixed(c, 2 if reduction and j < 2 else 1)
                                     for i in range(nodes) for j in range(2 + i))

        def forward(self, s0: Any, s1: Any, weights: Any) -> Any:
            states, offset = [self.pre0(s0), self.pre1(s1)], 0
            for _ in range(nodes):
                s = sum(self.ops[offset + j](h, weights[offset + j]) for j, h in enumerate(states))
                offset += len(states)
                states.append(s)
            return torch.cat(states[-nodes:], dim=1)

    class Network(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            from hpnb.nas.layout import cell_plan

            self.stem = stem(1, channels * 3)
            plan = cell_plan(layers, channels, 3, nodes)
            self.cells = nn.ModuleList(Cell(*step) for step in plan)
            self.classifier = nn.Linear(plan[-1][2] * nodes, classes)
            k = nodes * (nodes + 3) // 2
            self.alphas_normal = (1e-3 * torch.randn(k, len(names))).requires_grad_()
            self.alphas_reduce = (1e-3 * torch.randn(k, len(names))).requires_grad_()

        def arch_parameters(self) -> list:
            return [self.alphas_normal, self.alphas_reduce]

        def new(self) -> Any:
            fresh = Network()
            for x, y in zip(fresh.arch_parameters(), self.arch_parameters()):
                x.data.copy_(y.data)
            return fresh

        def forward(self, x: Any) -> Any:
            s0 = s1 = self.stem(x)
            for cell in self.cells:
                alpha = self.alphas_reduce if cell.reduction else self.alphas_normal
                s0, s1 = s1, cell(s0, s1, torch.softmax(alpha, dim=-1))
            return self.classifier(s1.mean((2, 3)))

    return Network()


def reference_epoch(model: Any, train: Any, valid: Any, w_optim: Any, a_optim: Any, lr: float,
                    unrolled: bool) -> None:
    """One epoch of the DARTS paper's search loop: an architect step (the unrolled model a new
    network with the virtual weights loaded), then the weights' step with gradient clipping."""
    torch = _torch()
    ce = torch.nn.functional.cross_entropy
    for (x, y), (vx, vy) in zip(train, valid):
        a_optim.zero_grad()
        if not unrolled:
            ce(model(vx), vy).backward()
        else:
            weights = list(model.parameters())
            grads = torch.autograd.grad(ce(model(x), y), weights, allow_unused=True)
            group = w_optim.param_groups[0]
            step = []
            for w, g in zip(weights, grads):
                buffer = w_optim.state.get(w, {}).get("momentum_buffer")
                d = (g if g is not None else torch.zeros_like(w)) + group["weight_decay"] * w.data
                step.append(w.data - lr * (d + (group["momentum"] * buffer if buffer is not None else 0)))
            copy = model.new()
            state = dict(model.state_dict())
            state.update({name: v for (name, _), v in zip(model.named_parameters(), step)})
            copy.load_state_dict(state)
            ce(copy(vx), vy).backward()
            dalpha = [a.grad for a in copy.arch_parameters()]
            vector = [p.grad if p.grad is not None else torch.zeros_like(p) for p in copy.parameters()]
            r = 0.01 / torch.cat([v.flatten() for v in vector]).norm()
            implicit = []
            for sign in (1, -2, 1):
                with torch.no_grad():
                    for p, v in zip(model.parameters(), vector):
                        p.add_(sign * r * v)
                if sign != 1 or not implicit:
                    implicit.append(torch.autograd.grad(ce(model(x), y), model.arch_parameters()))
            for a, g, gp, gn in zip(model.arch_parameters(), dalpha, implicit[0], implicit[1]):
                a.grad = g - lr * (gp - gn) / (2 * r)
        a_optim.step()
        w_optim.zero_grad()
        ce(model(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        w_optim.step()


def _batches(x: Any, y: Any, size: int) -> list:
    return [(x[i:i + size], y[i:i + size]) for i in range(0, len(x) - size + 1, size)]


def part_b(repeats: int, quick: bool) -> bool:
    """One supernet epoch, hpnb and the reference in turns; the median of each."""
    torch = _torch()
    from hpnb.nas.data import SearchData
    from hpnb.nas.settings import darts_settings
    from hpnb.nas.supernet import Supernet
    from hpnb.nas.training import Optimisers, search_epoch

    size = 256 if quick else 512
    train, valid, _ = digits(size, size, 0)
    data = SearchData.load(lambda: (train, valid))
    names, layers, nodes, channels, batch = (*ALL_OPS, "none"), 5, 4, 8, 64
    print(f"\n(b) a supernet epoch: {layers} cells, {nodes} nodes, {channels} channels, "
          f"{len(names)} operations, batch {batch}, {size} + {size} digits, one thread")
    print(f"{'order':<8}{'hpnb s':>9}{'reference s':>13}{'ratio':>8}")
    ok = True
    for order in ("first", "second"):
        settings = darts_settings({"num_epochs": 1, "batch_size": batch, "order": order}, "nas.darts")
        ours, theirs = [], []
        for _ in range(repeats):
            torch.manual_seed(0)
            net = Supernet(names, in_channels=1, classes=10, channels=channels, layers=layers, nodes=nodes,
                           seed=0)
            optimisers = Optimisers.of(net, settings)
            pairs = _batches(data.train_x, data.train_y, batch)
            checks = _batches(data.valid_x, data.valid_y, batch)
            start = time.perf_counter()
            search_epoch(net, iter(pairs), iter(checks), optimisers, settings)
            ours.append(time.perf_counter() - start)
            torch.manual_seed(0)
            model = reference_network(names, channels, layers, nodes, 10)
            w_optim = torch.optim.SGD(model.parameters(), 0.025, momentum=0.9, weight_decay=3e-4)
            a_optim = torch.optim.Adam(model.arch_parameters(), 3e-4, betas=(0.5, 0.999), weight_decay=1e-3)
            start = time.perf_counter()
            reference_epoch(model, pairs, checks, w_optim, a_optim, 0.025, unrolled=order == "second")
            theirs.append(time.perf_counter() - start)
        mine, ref = statistics.median(ours), statistics.median(theirs)
        print(f"{order:<8}{mine:>9.2f}{ref:>13.2f}{mine / ref:>8.3f}")
        ok &= mine / ref <= 1.1
    return ok


# -- (c) quality --------------------------------------------------------------------------------
def retrained(genotype: str, train: Any, test: Any, seeds: int, epochs: int) -> list[float]:
    from hpnb.nas import train_genotype

    return [train_genotype(genotype, train, test, epochs=epochs, channels=8, layers=3, lr=0.05, seed=seed,
                           batch_size=32)["Validation-Accuracy"] for seed in range(seeds)]


def matched_random(sizes: list[int], count: int, nodes: int) -> list[str]:
    """``count`` random genotypes whose networks are within 15 % of the DARTS genotypes' mean size."""
    from hpnb.nas import Genotype, parameter_count

    target, found, seed = statistics.mean(sizes), [], 0
    while len(found) < count and seed < 5000:
        genotype = Genotype.random(ALL_OPS, nodes, seed=seed)
        seed += 1
        size = parameter_count(genotype, in_channels=1, classes=10, channels=8, layers=3)
        if abs(size - target) <= 0.15 * target:
            found.append(str(genotype))
    return found


def kept(records: list, limit: int) -> tuple[Any, int | None]:
    """The genotype a trial keeps (its epoch of best validation accuracy) had DARTS+'s stop at
    ``limit`` skip connections run, and the epoch it would have stopped at (None: never)."""
    from hpnb.nas import Genotype
    from hpnb.nas.settings import guard_start

    start = guard_start(len(records))
    def skips(record: Any) -> int:
        return Genotype.parse(record.genotype).count("skip_connection")

    stop = next((r.epoch for r in records if skips(r) >= limit and r.epoch >= start), None)
    seen = [r for r in records if stop is None or r.epoch <= stop]
    return max(reversed(seen), key=lambda r: r.metrics["Validation-Accuracy"]), stop


def part_c(quick: bool) -> bool:
    """One unguarded search per seed: its records say where DARTS+ would have stopped and what it
    would have kept (the stop changes nothing before it), and where the paper's DARTS ends."""
    from hpnb.nas import Genotype, parameter_count
    from hpnb.nas.data import SearchData
    from hpnb.nas.settings import darts_settings
    from hpnb.nas.trial import search_architecture

    train, valid, test = digits(300, 300, 600)
    data = SearchData.load(lambda: (train, valid))
    seeds, searches, epochs, randoms, search_epochs = (2, 2, 10, 5, 12) if quick else (3, 3, 15, 10, 25)
    nodes = 4
    settings = darts_settings({"num_epochs": search_epochs, "batch_size": 50, "init_channels": 4,
                               "num_nodes": nodes, "order": "first", "w_lr": 0.05, "alpha_lr": 3e-3,
                               "stop_at_skip_connections": 0}, "nas.darts")
    print(f"\n(c) DARTS on {len(train[0])} + {len(valid[0])} digits (3 cells, {nodes} nodes, 4 channels, "
          f"first order, {search_epochs} epochs); genotypes retrained {epochs} epochs x {seeds} seeds "
          f"(3 cells, 8 channels), tested on {len(test[0])}")
    guarded, final = [], []
    for seed in range(searches):
        records = search_architecture(ALL_OPS, 3, settings, data, seed)
        record, stop = kept(records, 2)
        guarded.append(record.genotype)
        final.append(records[-1].genotype)
        skips = [Genotype.parse(r.genotype).count("skip_connection") for r in records]
        kept_skips = Genotype.parse(record.genotype).count("skip_connection")
        print(f"  seed {seed}: skip connections of the normal cell by epoch {skips}; DARTS+ stops at "
              f"epoch {stop}, keeps epoch {record.epoch} ({kept_skips} skip connections)")
    sizes = [parameter_count(g, in_channels=1, classes=10, channels=8, layers=3) for g in guarded]
    rows = [("DARTS + DARTS+ stop (hpnb)", guarded), ("DARTS, last epoch (paper)", final),
            ("random, matched size", matched_random(sizes, randoms, nodes))]
    print(f"{'genotypes':<28}{'count':>6}{'skips':>7}{'test accuracy':>15}{'spread (sd)':>13}")
    means = {}
    for label, genotypes in rows:
        per = [statistics.mean(retrained(g, train, test, seeds, epochs)) for g in genotypes]
        skips = statistics.mean(Genotype.parse(g).count("skip_connection") for g in genotypes)
        means[label] = statistics.mean(per)
        spread = statistics.stdev(per) if len(per) > 1 else 0.0
        print(f"{label:<28}{len(per):>6}{skips:>7.1f}{means[label]:>15.4f}{spread:>13.4f}")
    print(f"  sizes of the DARTS genotypes' networks {sizes}")
    return means["DARTS + DARTS+ stop (hpnb)"] > means["random, matched size"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds and repeats")
    parser.add_argument("--part", default="a,b,c", help="which parts to run (a,b,c)")
    args = parser.parse_args()
    _torch()  # one thread: two on a busy 2-core machine run many times slower
    parts = args.part.split(",")
    verdicts = {}
    if "a" in parts:
        verdicts["a"] = part_a(5)
    if "b" in parts:
        verdicts["b"] = part_b(1 if args.quick else 3, args.quick)
    if "c" in parts:
        verdicts["c"] = part_c(args.quick)
    print("\n" + ", ".join(f"({k}) {'met' if v else 'missed'}" for k, v in verdicts.items()))
    return 0 if all(verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
