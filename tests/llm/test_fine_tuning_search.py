"""Fine-tuning searches on hpnb's real local cluster (2 worker processes) with a tiny Llama built
from a configuration: metrics streamed at every logging and evaluation step, the model and data
read once per search (a counting file system as their source), fetched again when the source
changes, the adapter kept and loadable with peft, samples recorded, a paused trial going on from
its Trainer checkpoint, and a trial of 2 ranks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import hpnb
import hpnb.llm
from tests.llm import counting_fs
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow

TRAINING = {
    "max_steps": 6,
    "per_device_train_batch_size": 8,
    "eval_strategy": "steps",
    "eval_steps": 2,
    "logging_steps": 1,
}


@pytest.fixture
def counted_source(tiny_source: Path, tmp_path: Path, dask_client) -> Path:
    """A copy of the tiny model and data whose reads are counted, in every process."""
    folder = counting_fs.counted(Path(shutil.copytree(tiny_source, tmp_path / "source")))
    counting_fs.register()
    dask_client.run(counting_fs.register)
    return folder


def test_a_search_fine_tunes_with_lora_reads_its_inputs_once_and_keeps_each_adapter(
    store, dask_client, counted_source: Path
) -> None:
    search = hpnb.llm.search(
        {"trials": 3, "strategy": "random", "seed": 0, "parallel": 2},
        name="lora",
        store=store,
        client=dask_client,
        model=f"counting://{counted_source}/model",
        dataset={"source": f"counting://{counted_source}/text.jsonl", "max_length": 24},
        training={**TRAINING, "learning_rate": [1.0e-3, 1.0e-2, 3.0e-2]},
        lora={"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]},
        samples=["The meaning of"],
        max_new_tokens=4,
    )
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    history = search.history
    for trial in range(3):
        rows = history[history.trial_id == trial]
        assert rows.step.tolist() == [1, 2, 3, 4, 5, 6]  # every logging step, each once
        assert rows.eval_loss.notna().tolist() == [False, True, False, True, False, True]  # evaluations
        assert rows.loss.notna().all()  # the training loss of a step goes with its evaluation
    reads = counting_fs.opens(counted_source)
    assert reads["model/model.safetensors"] == 1 and reads["text.jsonl"] == 1  # 3 trials, 2 workers
    assert reads["model/config.json"] == 2  # and the notebook's check of the model's size
    fetched = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "llm_fetched"]
    assert sorted(f["input"].split("-")[0] for f in fetched) == ["data", "model"]
    assert all(f["bytes"] > 0 and f["seconds"] >= 0 for f in fetched)

    best = search.best["trial_id"]
    names = [a["name"] for a in search.artifacts(best)]
    assert {"adapter/adapter_config.json", "adapter/adapter_model.safetensors", "samples.jsonl"} <= set(names)
    samples = [
        json.loads(line)
        for line in Path(next(a["path"] for a in search.artifacts(best) if a["name"] == "samples.jsonl"))
        .read_text()
        .splitlines()
    ]
    assert [s["step"] for s in samples] == [2, 4, 6] and all(s["prompt"] == "The meaning of" for s in samples)
    assert "hpnb.llm sample at step 6: 'The meaning of' ->" in search.logs(best).stdout

    import peft
    import transformers

    adapter = Path(
        next(a["path"] for a in search.artifacts(best) if a["name"] == "adapter/adapter_config.json")
    ).parent
    base = transformers.AutoModelForCausalLM.from_pretrained(str(counted_source / "model"))
    loaded = peft.PeftModel.from_pretrained(base, str(adapter))
    assert loaded.peft_config["default"].to_dict()["r"] == 4
    model, tokenizer = hpnb.llm.best_model("lora", merge=True, tokenizer=True, store=store)
    out = model.generate(
        **tokenizer("The meaning of", return_tensors="pt"), max_new_tokens=3, do_sample=False
    )
    assert out.shape[1] > 3

    with (counted_source / "text.jsonl").open("a") as handle:  # the source changes: fetched again
        handle.write(json.dumps({"text": "A line added after the search began, so the data is new."}) + "\n")
    search.extend(1)
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    assert len(search.results) == 4
    reads = counting_fs.opens(counted_source)
    assert reads["text.jsonl"] == 2 and reads["model/model.safetensors"] == 1


def test_a_paused_trial_goes_on_from_its_trainer_checkpoint(store, dask_client, tiny_source: Path) -> None:
    search = hpnb.llm.search(
        {"trials": 2, "parallel": 1, "strategy": "grid"},
        name="paused",
        store=store,
        client=dask_client,
        model=str(tiny_source / "model"),
        dataset={"source": str(tiny_source / "text.jsonl"), "max_length": 24},
        training={
            **TRAINING,
            "max_steps": 30,
            "per_device_train_batch_size": 4,
            "learning_rate": [1e-2, 2e-2],
        },
        lora={"r": 4},
    )
    wait_until(
        lambda: search.state != "RUNNING" or _checkpoint_step(store, search) >= 4,
        timeout=120,
        message="a checkpoint of step 4 or later",
    )
    search.pause_trial(0)  # trial 1 runs meanwhile; trial 0 resumes when nothing else is left
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    kinds = [e["kind"] for e in store.events(search.experiment_id)]
    assert "pause" in kinds and "resume" in kinds, kinds
    steps = [r.step for r in store.results(search.experiment_id, trial_id=0)]
    assert steps == list(range(1, 31))  # each step once: none trained twice, none skipped
    said = search.logs(0).stdout
    resumed = int(said.split("going on from the Trainer checkpoint of step ")[1].split()[0])
    assert resumed >= 4 and resumed % 2 == 0  # a checkpoint at every evaluation


def _checkpoint_step(store, search) -> int:
    found = store.trials(search.experiment_id)
    return (found[0].checkpoint_step or 0) if found else 0


def test_a_trial_of_two_ranks_trains_data_parallel(store, dask_client, tiny_source: Path) -> None:
    search = hpnb.llm.search(
        {"trials": 1, "resources": {"per_trial": {"workers": 2}}},
        name="ranks",
        store=store,
        client=dask_client,
        model=str(tiny_source / "model"),
        dataset={"source": str(tiny_source / "text.jsonl"), "max_length": 24},
        training={**TRAINING, "learning_rate": 1e-2},
        lora={"r": 4},
    )
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    rows = store.results(search.experiment_id, trial_id=0)
    assert [r.step for r in rows] == [1, 2, 3, 4, 5, 6]  # rank 0's reports are the trial's
    assert {"adapter/adapter_config.json", "adapter/adapter_model.safetensors"} <= {
        a["name"] for a in search.artifacts(0)
    }
    assert "[rank 1]" in search.logs(0).stdout  # both ranks trained


def own_objective(**params):
    """A user's own fine-tuning function in a search whose spec has an llm: section."""
    import transformers

    from hpnb.integrations.transformers import HpnbCallback

    parts = hpnb.llm.load(params)
    trainer = transformers.Trainer(
        model=parts.model,
        args=parts.args,
        train_dataset=parts.train_dataset,
        eval_dataset=parts.eval_dataset,
        data_collator=parts.data_collator,
        callbacks=[HpnbCallback(monitor="eval_loss")],
    )
    trainer.train()
    return {"eval_loss": trainer.evaluate()["eval_loss"], "lr_seen": parts.args.learning_rate}


def test_a_dataframe_from_the_notebook_and_a_users_own_objective(
    store, dask_client, tiny_source: Path
) -> None:
    import pandas as pd

    from hpnb.llm.demo import english_lines

    frame = pd.DataFrame({"text": english_lines(60)})
    search = hpnb.llm.search(
        name="frame",
        store=store,
        client=dask_client,
        model=str(tiny_source / "model"),
        dataset=frame,
        training={**TRAINING, "max_steps": 2, "learning_rate": [1e-3, 1e-2]},
        lora={"r": 4},
        algorithm_name="grid",
        objective_metric_name="eval_loss",
        objective_type="minimize",
        max_trial_count=2,
    )
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    assert search.spec.mode == "min" and sorted(search.results.learning_rate) == [1e-3, 1e-2]
    fetched = [e["data"]["what"] for e in store.events(search.experiment_id) if e["kind"] == "llm_fetched"]
    assert "dataset notebook" in fetched  # the frame travelled with the objective, tokenized once

    spec = {
        "llm": {
            "model": str(tiny_source / "model"),
            "dataset": str(tiny_source / "text.jsonl"),
            "training": {**TRAINING, "max_steps": 2, "learning_rate": [1e-3, 1e-2]},
        },
        "strategy": "grid",
    }
    own = hpnb.search(own_objective, spec, name="own", store=store, client=dask_client)
    assert own.wait(patience(120)).state == "COMPLETED", own.message
    assert own.spec.metric == "eval_loss"  # an llm: section's default goal
    seen = [
        (trial.params["learning_rate"], trial.metrics.get("lr_seen"))
        for trial in store.trials(own.experiment_id)
    ]
    assert sorted(seen) == [
        (1e-3, 1e-3),
        (1e-2, 1e-2),
    ]  # load() built each trial's arguments from its parameters


def test_sequence_classification_runs_plain_outside_a_search(
    tiny_source: Path, tmp_path: Path, capsys
) -> None:
    from hpnb.llm.demo import english_lines
    from hpnb.llm.objective import FineTune
    from hpnb.llm.section_spec import parse_llm

    rows = [{"text": line, "label": "long" if len(line) > 70 else "short"} for line in english_lines(80)]
    (tmp_path / "labelled.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    section = parse_llm(
        {
            "model": str(tiny_source / "model"),
            "task": "sequence-classification",
            "dataset": {"source": str(tmp_path / "labelled.jsonl"), "label": "label", "max_length": 24},
            "training": {**TRAINING, "max_steps": 2},
            "lora": {"r": 4},
            "cache": str(tmp_path / "cache"),
        }
    )
    assert FineTune(section)(learning_rate=1e-2) is None  # outside a search: trains, reports nothing
    said = capsys.readouterr().out
    assert "'eval_loss'" in said and "hpnb.llm: fetched dataset" in said
    assert {p.name.split("-")[0] for p in (tmp_path / "cache").iterdir() if not p.name.startswith(".")} == {
        "model",
        "data",
    }
