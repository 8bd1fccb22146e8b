"""The PyTorch Lightning and Hugging Face ``Trainer`` callbacks against the real libraries.

torch is gigabytes of wheels, so these are not among CI's tests: run this script by hand
after ``pip install torch lightning transformers accelerate`` (a CPU build of torch is enough). Each
framework trains a small network on scikit-learn's digits in a search under ASHA on a local
Dask cluster of 2 workers; the script prints, per framework, the trials stopped and completed,
and the steps that began after a stop decision (goal: 0), and exits 1 when a check fails.

Usage:
    python benchmarks/frameworks_torch.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np

import hpnb

RATES = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003)
EPOCHS = 4


def digits() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x, y = (x[:600] / 16.0).astype("float32"), y[:600]
    return x[:448], y[:448], x[448:], y[448:]


def began(log: str, tag: float, step: int) -> None:
    with Path(log).open("a") as file:
        file.write(f"{tag} {step}\n")


def network() -> Any:
    import torch

    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))


def lightning_digits(lr: float, log: str) -> None:
    """A LightningModule trained by ``Trainer.fit`` with the callback; logs each epoch begun."""
    import lightning.pytorch as pl
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from hpnb.integrations.lightning import HpnbCallback

    class Digits(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = network()

        def training_step(self, batch: Any, index: int) -> Any:
            x, y = batch
            return torch.nn.functional.cross_entropy(self.net(x), y)

        def validation_step(self, batch: Any, index: int) -> None:
            x, y = batch
            self.log("val_loss", torch.nn.functional.cross_entropy(self.net(x), y))

        def on_train_epoch_start(self) -> None:
            began(log, lr, self.current_epoch + 1)

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=lr)

    x, y, xv, yv = (torch.tensor(a) for a in digits())
    trainer = pl.Trainer(max_epochs=EPOCHS, accelerator="cpu", logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False,
                         callbacks=[HpnbCallback(monitor="val_loss")])
    trainer.fit(Digits(), DataLoader(TensorDataset(x, y), batch_size=64),
                DataLoader(TensorDataset(xv, yv), batch_size=256))


def transformers_digits(lr: float, log: str) -> None:
    """A torch module trained by the Hugging Face ``Trainer`` with the callback, evaluated each epoch."""
    import torch
    import transformers

    from hpnb.integrations.transformers import HpnbCallback

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = network()

        def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
            logits = self.net(x)
            return {"loss": torch.nn.functional.cross_entropy(logits, labels), "logits": logits}

    class EpochLog(transformers.TrainerCallback):
        def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            began(log, lr, round(state.epoch or 0) + 1)

    x, y, xv, yv = digits()
    train = [{"x": a, "labels": int(b)} for a, b in zip(x, y)]
    valid = [{"x": a, "labels": int(b)} for a, b in zip(xv, yv)]
    args = transformers.TrainingArguments(
        output_dir=tempfile.mkdtemp(), num_train_epochs=EPOCHS, per_device_train_batch_size=64,
        learning_rate=lr, eval_strategy="epoch", save_strategy="no", report_to="none", use_cpu=True,
        disable_tqdm=True, logging_strategy="no", optim="sgd", lr_scheduler_type="constant")
    trainer = transformers.Trainer(model=Net(), args=args, train_dataset=train, eval_dataset=valid,
                                   callbacks=[EpochLog(), HpnbCallback(monitor="eval_loss")])
    trainer.train()


def run(framework: str, objective: Any, metric: str, steps_per_epoch: int) -> dict[str, Any]:
    log = tempfile.mktemp(suffix=".log")
    max_t = EPOCHS * steps_per_epoch
    started = time.monotonic()
    search = hpnb.search(partial(objective, log=log), name=f"torch-{framework}", metric=metric, parallel=2,
                         store=Path(tempfile.mkdtemp()) / "hpnb.sqlite",
                         resources={"workers": 2}, parameters={"lr": list(RATES)},
                         strategy={"name": "fixed", "configs": [{"lr": r} for r in RATES]},
                         early_stopping={"rule": "asha", "grace": steps_per_epoch, "reduction": 3,
                                         "max_t": max_t}).wait(900)
    seconds = time.monotonic() - started
    begun: dict[str, int] = {}
    for line in (Path(log).read_text() if Path(log).exists() else "").splitlines():
        tag, epoch = line.split()
        begun[tag] = max(begun.get(tag, 0), int(epoch))
    trials = search.store.trials(search.experiment_id)
    after_stop = sum(begun.get(str(t.params["lr"]), 0) - (t.last_step or 0) // steps_per_epoch
                     for t in trials)
    states = [t.state for t in trials]
    ok = (search.state == "COMPLETED" and "STOPPED" in states and after_stop == 0
          and all(t.last_step == max_t for t in trials if t.state == "COMPLETED"))
    return {"framework": framework, "search": search.state, "stopped": states.count("STOPPED"),
            "completed": states.count("COMPLETED"), "steps after a stop": after_stop,
            "seconds": round(seconds, 1), "ok": ok, "message": search.message}


def main() -> int:
    os.environ.setdefault("HPNB_HOME", tempfile.mkdtemp())
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    import lightning
    import torch
    import transformers

    print(f"torch {torch.__version__}, lightning {lightning.__version__}, "
          f"transformers {transformers.__version__}")
    rows = [run("lightning", lightning_digits, "val_loss", 1),
            run("transformers", transformers_digits, "eval_loss", 7)]
    for row in rows:
        print(" | ".join(f"{key}: {value}" for key, value in row.items()))
    return 0 if all(row["ok"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
