"""Fine-tuning searches (``llm:``): what a trial costs beyond the Trainer's own work, how often the
model and the data are read, and the notebook process's memory, beside the ways without hpnb.

Inputs: a tiny Llama (hidden 64, 2 layers, a 512-token BPE tokenizer trained on Python's help
topics) saved with ``save_pretrained``, and 400 lines of text as JSON lines; made in a subprocess,
so this process never imports a training library. Every fine-tune: LoRA r=4 on q_proj/v_proj, 20
steps of batch 8 over 32 tokens, evaluated every 5 steps, one thread.

1. **Per-trial cost.** A 6-trial grid (6 learning rates) with ``hpnb.llm.search`` on hpnb's local
   cluster of 2 single-thread workers, against the same 6 fine-tunes as plain Trainer scripts run
   one after another (``python script.py``, each paying its imports as a script does). Wall time
   of each, and for each hpnb trial its stored start to end less the Trainer's own
   ``train_runtime`` (from the trial's log): the first trial of each worker pays the imports
   (cold), the others are warm. A second 6-trial search on the same (now warm) workers is timed too.
2. **Fetched once.** 8 trials on the 2 workers with the model and the data behind a counting file
   system (``counting://``: every open for reading is logged, in every process): how many times
   ``model.safetensors`` and ``text.jsonl`` were read. Beside it, Katib's way: its storage
   initializer runs in every trial's master pod, so the same 8 trials with an objective that
   fetches both into a folder of its own (as the initializer does) before it fine-tunes.
3. **The notebook's process.** This process's resident memory sampled every 50 ms while part 1's
   search runs, against before it started; and whether torch or transformers got imported here.

   The same trials' printed lines are read with the metrics format Katib's ``tune()`` gives its
   stdout collector: how many of the printed ``eval_loss`` values it reads as a number, beside the
   ones hpnb stored from the callback.

Goals: hpnb's wall <= 0.6 x the scripts'; warm per-trial overhead < 1 s; model and data read
once for 8 trials (Katib's way: 8); the notebook process + < 100 MB, no training library loaded.

Usage:
    python benchmarks/llm_fine_tuning.py
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import hpnb
import hpnb.llm
from hpnb.core.spec import parse_spec
from hpnb.llm.objective import FineTune
from hpnb.llm.section import prepare
from hpnb.llm.section_spec import parse_llm
from tests.llm import counting_fs

RATES = [3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1]
TRAINING = {"max_steps": 20, "per_device_train_batch_size": 8, "eval_strategy": "steps", "eval_steps": 5,
            "logging_steps": 5}
LORA = {"r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}
MAKE_INPUTS = """
from hpnb.llm.demo import tiny_model, write_text_dataset
tiny_model({folder!r} + "/model")
write_text_dataset({folder!r} + "/text.jsonl", rows=400)
"""
PLAIN_SCRIPT = """
import time
started = time.perf_counter()
import torch, transformers, peft, datasets
torch.set_num_threads(1)
folder, rate = {folder!r}, {rate!r}
tokenizer = transformers.AutoTokenizer.from_pretrained(folder + "/model")
tokenizer.pad_token = tokenizer.eos_token
rows = datasets.load_dataset("json", data_files=folder + "/text.jsonl", split="train")
rows = rows.train_test_split(test_size=0.1, seed=0)
encode = lambda b: tokenizer(b["text"], truncation=True, max_length=32)
train = rows["train"].map(encode, batched=True, remove_columns=["text"])
held = rows["test"].map(encode, batched=True, remove_columns=["text"])
model = transformers.AutoModelForCausalLM.from_pretrained(folder + "/model")
model = peft.get_peft_model(model, peft.LoraConfig(task_type="CAUSAL_LM", r=4, lora_alpha=8,
                                                   target_modules=["q_proj", "v_proj"]))
args = transformers.TrainingArguments(output_dir=folder + "/plain-out", learning_rate=rate, max_steps=20,
                                      per_device_train_batch_size=8, eval_strategy="steps", eval_steps=5,
                                      logging_steps=5, save_strategy="steps", save_steps=5, report_to="none",
                                      disable_tqdm=True, use_cpu=True, save_total_limit=1)
collator = transformers.DataCollatorForLanguageModeling(tokenizer, mlm=False)
trainer = transformers.Trainer(model=model, args=args, train_dataset=train, eval_dataset=held,
                               data_collator=collator)
print("RUNTIME", trainer.train().metrics["train_runtime"], time.perf_counter() - started)
"""


class KatibWay:
    """A trial as Katib's ``tune()`` runs it: its storage initializer fetches the model and the
    data into the trial's own volume, then the trainer reads them from there."""

    def __init__(self, model: str, data: str) -> None:
        self.model, self.data = model, data

    def __call__(self, **params: Any) -> Any:
        from hpnb.llm.fetching import copy_source
        from hpnb.llm.objective import FineTune
        from hpnb.llm.section_spec import parse_llm

        with tempfile.TemporaryDirectory(prefix="katib-volume-") as volume:
            copy_source(self.model, Path(volume) / "model")
            copy_source(self.data, Path(volume) / "data")
            data = {"source": f"{volume}/data/text.jsonl", "max_length": 32}
            section = parse_llm({"model": f"{volume}/model", "dataset": data,
                                 "training": TRAINING, "lora": LORA, "cache": f"{volume}/cache"})
            return FineTune(section)(**params)


class TimedFineTune(FineTune):
    """hpnb's fine-tuning objective, its own time printed to the trial's log."""

    def __call__(self, **params: Any) -> Any:
        started = time.perf_counter()
        try:
            return super().__call__(**params)
        finally:
            print(f"BENCH objective seconds {time.perf_counter() - started:.3f}", flush=True)


def timed_search(rates: list[float], folder: Path, name: str, store: str) -> Any:
    parsed = parse_spec({"metric": "eval_loss", **spec(rates, f"{folder}/model", f"{folder}/text.jsonl")})
    section = parse_llm(parsed.llm or {})
    parsed, objective = prepare(parsed, TimedFineTune(section))
    return hpnb.search(objective, parsed, name=name, store=store, overwrite=True)


def spec(rates: list[float], model: str, data: str, trials: int | None = None) -> dict[str, Any]:
    return {"strategy": "grid" if trials is None else "random", "seed": 0,
            **({"trials": trials} if trials else {}), "resources": {"workers": 2},
            "llm": {"model": model, "dataset": {"source": data, "max_length": 32},
                    "training": {**TRAINING, "learning_rate": rates}, "lora": LORA}}


def overheads(search: Any) -> list[tuple[str, float]]:
    """Each trial's worker, and its objective's seconds less the Trainer's ``train_runtime``."""
    found = []
    for record in search.store.trials(search.experiment_id):
        said = search.logs(record.trial_id).stdout
        runtime = float(re.findall(r"'train_runtime': '([0-9.]+)'", said)[-1])
        took = float(re.findall(r"BENCH objective seconds ([0-9.]+)", said)[-1])
        found.append((record.worker or "?", took - runtime))
    return found


def runtime_of(search: Any) -> list[float]:
    return [float(re.findall(r"'train_runtime': '([0-9.]+)'", search.logs(r.trial_id).stdout)[-1])
            for r in search.store.trials(search.experiment_id)]


def part_per_trial(folder: Path, store: str) -> dict[str, Any]:
    memory = MemorySampler()
    before = memory.rss()
    memory.start()
    started = time.perf_counter()
    cold = timed_search(RATES, folder, "six", store).wait()
    cold_wall = time.perf_counter() - started
    memory.stop()
    started = time.perf_counter()
    warm = timed_search(RATES, folder, "six-warm", store).wait()
    warm_wall = time.perf_counter() - started
    assert cold.state == warm.state == "COMPLETED", (cold.message, warm.message)
    plain, plain_overheads = [], []
    for rate in RATES:
        done = subprocess.run([sys.executable, "-c", PLAIN_SCRIPT.format(folder=str(folder), rate=rate)],
                              capture_output=True, text=True, check=True)
        runtime, wall = map(float, done.stdout.split("RUNTIME")[1].split())
        plain.append(wall)
        plain_overheads.append(wall - runtime)
    seen: set[str] = set()
    cold_over, warm_over = [], []
    for worker, beyond in overheads(cold):  # by trial id: a worker's first trial first
        (warm_over if worker in seen else cold_over).append(beyond)
        seen.add(worker)
    warm_over += [beyond for _, beyond in overheads(warm)]
    return {"cold_wall": cold_wall, "warm_wall": warm_wall, "plain_wall": sum(plain),
            "plain_overhead": statistics.median(plain_overheads), "cold_over": statistics.median(cold_over),
            "warm_over": statistics.median(warm_over), "warm_over_max": max(warm_over),
            "worker_seconds": (warm_wall * 2 - sum(runtime_of(warm))) / len(RATES),
            "memory": (memory.peak - before) / 2 ** 20,
            "loaded": sorted(m for m in ("torch", "transformers", "peft", "datasets") if m in sys.modules)}


def part_fetched_once(folder: Path, store: str) -> dict[str, Any]:
    counting_fs.register()
    from hpnb.cluster.connect import local_client
    from hpnb.core.spec.resources import Resources

    local_client(Resources(workers=2)).run(counting_fs.register)  # hpnb's local cluster: its workers too
    counts = {}
    for way in ("hpnb", "katib"):
        source = counting_fs.counted(Path(shutil.copytree(folder, folder.parent / f"counted-{way}")))
        model, data = f"counting://{source}/model", f"counting://{source}/text.jsonl"
        if way == "hpnb":
            search = hpnb.llm.search(spec([1e-3, 1e-2], model, data, trials=8), name="eight", store=store,
                                     overwrite=True)
        else:
            plain = {**spec([1e-3, 1e-2], model, data, trials=8), "llm": None, "metric": "eval_loss",
                     "parameters": {"learning_rate": [1e-3, 1e-2]}}
            search = hpnb.search(KatibWay(model, data), plain, name="eight-katib", store=store,
                                 overwrite=True)
        assert search.wait().state == "COMPLETED", search.message
        opened = counting_fs.opens(source)
        counts[way] = (opened["model/model.safetensors"], opened["text.jsonl"])
        if way == "hpnb":
            counts["stored"] = int(search.history["eval_loss"].notna().sum())
            counts["printed"] = katib_captures([search.logs(t.trial_id).stdout
                                                for t in search.store.trials(search.experiment_id)])
    return counts


#: the metrics format Katib's ``tune()`` gives its stdout collector for the Trainer's printed logs.
KATIB_FORMAT = re.compile(r"'([\w|-]+)'\s*:\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)")


def katib_captures(outputs: list[str]) -> tuple[int, int]:
    """How many ``eval_loss`` values the Trainer printed, and how many Katib's format reads as a
    number from those lines (transformers 5 prints ``{'eval_loss': '6.25'}``, quoted)."""
    printed = read = 0
    for line in (line for output in outputs for line in output.splitlines() if "'eval_loss'" in line):
        printed += 1
        read += sum(1 for name, value, *_ in KATIB_FORMAT.findall(line) if name == "eval_loss" and value)
    return printed, read


class MemorySampler:
    """The peak resident memory of this process, sampled every 50 ms."""

    def __init__(self) -> None:
        self.peak = 0
        self._done = threading.Event()

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def start(self) -> None:
        self.peak = self.rss()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while not self._done.wait(0.05):
            self.peak = max(self.peak, self.rss())

    def stop(self) -> None:
        self._done.set()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="hpnb-bench-llm-") as scratch:
        folder = Path(scratch) / "inputs"
        subprocess.run([sys.executable, "-c", MAKE_INPUTS.format(folder=str(folder))], check=True,
                       capture_output=True)
        store = str(Path(scratch) / "hpnb.sqlite")
        one = part_per_trial(folder, store)
        two = part_fetched_once(folder, store)
    report(one, two)


def report(one: dict[str, Any], two: dict[str, Any]) -> None:
    plain = one["plain_wall"]
    print("\n1. six LoRA fine-tunes, 20 steps each     hpnb (2 workers)   plain scripts (one after another)")
    print(f"   wall time (s)                          {one['cold_wall']:9.1f}   {plain:9.1f}"
          f"   ratio {one['cold_wall'] / plain:.2f} (goal <= 0.6)")
    print(f"   wall time, workers warm (s)            {one['warm_wall']:9.1f}   {plain:9.1f}"
          f"   ratio {one['warm_wall'] / plain:.2f}")
    print(f"   a trial beyond train_runtime, warm (s) {one['warm_over']:9.2f}   {one['plain_overhead']:9.2f}"
          f"   (median; worst {one['warm_over_max']:.2f}; goal < 1 s)")
    print(f"   a trial beyond train_runtime, cold (s) {one['cold_over']:9.2f}"
          "   (a worker's first trial: its imports)")
    print(f"   worker-seconds per trial beyond train_runtime, whole warm search: {one['worker_seconds']:.2f}"
          " (start, dispatch, end)")
    print("\n2. reads of the inputs, 8 trials on 2 workers   hpnb   Katib's way (a fetch per trial)")
    for index, name in enumerate(("model.safetensors", "text.jsonl")):
        print(f"   {name:<44} {two['hpnb'][index]:4d}   {two['katib'][index]:4d}   (goal: hpnb 1)")
    printed, read = two["printed"]
    print(f"   eval_loss values: hpnb stored {two['stored']}; of the {printed} the Trainer printed, Katib's "
          f"metrics format reads {read} as a number")
    loaded = ", ".join(one["loaded"]) or "none"
    print(f"\n3. the notebook process during the search: +{one['memory']:.0f} MB (goal < 100); "
          f"training libraries loaded in it: {loaded}")


if __name__ == "__main__":
    main()
