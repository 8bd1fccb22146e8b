"""``hpnb show NAME --importance`` in a subprocess, on stores filled here."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hpnb.core.spec import parse_spec
from hpnb.core.store import Store

SPEC = {
    "metric": "val_loss", "mode": "min", "strategy": "random", "trials": 40,
    "parameters": {"lr": {"distribution": "logUniform", "min": 1e-5, "max": 1e-1},
                   "optimizer": ["sgd", "adam"], "noise": {"min": 0.0, "max": 1.0}, "batch": 64},
}  # fmt: skip


def hpnb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hpnb", *args], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"})


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "hpnb.sqlite"
    spec = parse_spec(SPEC)
    rng = np.random.default_rng(0)
    with Store(path) as store:
        for name, count in (("mlp-lr", 30), ("one-trial", 1)):
            exp = store.create_experiment(name, spec.to_dict(), metric="val_loss", mode="min",
                                          strategy="random", budget=count, parallel=2)
            for trial_id in range(count):
                config = spec.space.sample(rng)
                loss = (math.log10(config["lr"]) + 3) ** 2 + 1.0 * (config["optimizer"] == "sgd")
                store.add_trial(exp.id, trial_id, config)
                store.update_trial(exp.id, trial_id, state="COMPLETED", value=loss, best=loss,
                                   start=float(trial_id), end=trial_id + 2.0)
            store.update_experiment(exp.id, state="COMPLETED")
    return path


def test_importance_prints_one_bar_per_parameter_most_important_first(store_path: Path) -> None:
    done = hpnb("show", "mlp-lr", "--importance", "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    title, *rows = done.stdout.splitlines()
    assert title == "Parameter importance in mlp-lr (fANOVA over 30 completed trials; val_loss, min)"
    parsed = [re.fullmatch(r"  (\w+) +(\d\.\d{3})(?:  (█*[▏▎▍▌▋▊▉]?))?", row) for row in rows]
    assert all(parsed), rows
    names = [m.group(1) for m in parsed]
    assert names[0] == "lr" and sorted(names) == ["lr", "noise", "optimizer"]  # the fixed batch: not rated
    values = [float(m.group(2)) for m in parsed]
    assert values == sorted(values, reverse=True) and sum(values) == pytest.approx(1.0, abs=0.002)
    assert len(parsed[0].group(3)) == 40  # the longest bar
    assert len(parsed[1].group(3) or "") == pytest.approx(40 * values[1] / values[0], abs=1)


def test_importance_as_json_and_with_ped_anova(store_path: Path) -> None:
    done = hpnb("show", "mlp-lr", "--importance", "ped-anova", "--json", "--store", str(store_path))
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert next(iter(found)) == "lr" and set(found) == {"lr", "optimizer", "noise"}


def test_importance_of_one_trial_says_it_needs_more(store_path: Path) -> None:
    done = hpnb("show", "one-trial", "--importance", "--store", str(store_path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip() == "hpnb show: importance needs at least 4 completed trials; this search has 1"


def test_an_unknown_evaluator_is_refused_by_the_command_line(store_path: Path) -> None:
    done = hpnb("show", "mlp-lr", "--importance", "shap", "--store", str(store_path))
    assert done.returncode == 2
    assert "invalid choice: 'shap' (choose from 'fanova', 'ped-anova')" in done.stderr


def test_without_scikit_learn_fanova_says_what_to_install(store_path: Path) -> None:
    blocked = ("import sys; sys.modules['sklearn'] = None; from hpnb.cli import main; "
               "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", blocked, "show", "mlp-lr", "--importance", "--store",
                           str(store_path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert "hpnb show: importance: fanova needs a package that is not installed" in done.stderr
    assert done.stderr.strip().endswith("pip install scikit-learn, or use evaluator='ped-anova'")
