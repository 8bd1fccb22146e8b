"""A trial's parts built from fetched inputs: the tokenizer, the model with its LoRA adapter, the
``TrainingArguments`` (hpnb's defaults under the fields the spec gives) and the data collator.

hpnb's defaults, each replaced by a field the spec gives: ``eval_strategy: epoch``,
``save_strategy`` and ``logging_strategy`` (and their ``_steps``) as the evaluation's, so a
checkpoint and a report exist at every evaluation; ``save_total_limit: 1``; ``report_to: none``;
``disable_tqdm: true``; ``use_cpu`` where no GPU is; ``ddp_backend: gloo`` for ranks on CPUs.

Example (not run here: it needs torch)::

    tokenizer = load_tokenizer(model_dir)
    model = with_lora(load_model(section, model_dir, tokenizer), section, lora_values)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hpnb.llm.section_spec import LlmSection


def load_tokenizer(model_dir: Path) -> Any:
    """The model's tokenizer; one without a padding token pads with its end-of-sequence token,
    and the trial's log says so."""
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is None:
            raise ValueError(f"the tokenizer of {model_dir.name} has neither a padding token nor an "
                             "end-of-sequence token to pad with: set tokenizer.pad_token and save it again")
        tokenizer.pad_token = tokenizer.eos_token
        print(f"hpnb.llm: the tokenizer has no padding token; its end-of-sequence token "
              f"{tokenizer.eos_token!r} pads", flush=True)
    return tokenizer


def load_model(section: LlmSection, model_dir: Path, tokenizer: Any) -> Any:
    """The base model, on its task's head (4-bit or 8-bit with ``quantization`` on a GPU)."""
    import torch
    import transformers

    extra: dict[str, Any] = {}
    if section.quantization:
        if not torch.cuda.is_available():
            raise RuntimeError(f"llm.quantization: {section.quantization} loading (bitsandbytes) needs a "
                               "GPU, and this trial's worker has none: give the trials a GPU "
                               "(resources.per_trial: {gpu: 1}) or leave quantization out")
        extra["quantization_config"] = transformers.BitsAndBytesConfig(
            load_in_4bit=section.quantization == "4bit", load_in_8bit=section.quantization == "8bit")
    if section.task == "sequence-classification":
        model = transformers.AutoModelForSequenceClassification.from_pretrained(
            str(model_dir), num_labels=section.num_labels, local_files_only=True, **extra)
    else:
        model = transformers.AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True,
                                                                  **extra)
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return model


def with_lora(model: Any, section: LlmSection, values: dict[str, Any]) -> Any:
    """``model`` with a LoRA adapter of ``values`` (LoraConfig's fields)."""
    import peft

    task_type = "SEQ_CLS" if section.task == "sequence-classification" else "CAUSAL_LM"
    config = peft.LoraConfig(**{"task_type": task_type, **values})
    return peft.get_peft_model(model, config)


def training_arguments(values: dict[str, Any], output_dir: Path, world_size: int) -> Any:
    """``TrainingArguments`` of ``values`` over hpnb's defaults (see the module's docstring)."""
    import torch
    import transformers

    args = dict(values)
    args.setdefault("eval_strategy", args.pop("evaluation_strategy", "epoch"))
    for kind in ("save", "logging"):
        args.setdefault(f"{kind}_strategy", args["eval_strategy"])
        if "eval_steps" in args:
            args.setdefault(f"{kind}_steps", args["eval_steps"])
    args.setdefault("save_total_limit", 1)
    args.setdefault("report_to", "none")
    args.setdefault("disable_tqdm", True)
    if world_size > 1:
        args.setdefault("ddp_find_unused_parameters", False)  # LoRA's frozen weights are used, not trained
    if world_size > 1:
        args.setdefault("ddp_find_unused_parameters", False)  # LoRA's frozen weights are used, not trained
    if not torch.cuda.is_available():
        args.setdefault("use_cpu", True)
        if world_size > 1:
            args.setdefault("ddp_backend", "gloo")
    return transformers.TrainingArguments(output_dir=str(output_dir), **args)


def collator(section: LlmSection, tokenizer: Any) -> Any:
    import transformers

    if section.task == "sequence-classification":
        return transformers.DataCollatorWithPadding(tokenizer)
    return transformers.DataCollatorForLanguageModeling(tokenizer, mlm=False)


def torch_threads() -> None:
    """One thread per trial unless ``OMP_NUM_THREADS`` says otherwise: trials share the cores."""
    import torch

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS") or 1)))


def reset_accelerate_state() -> None:
    """Forget the distributed state accelerate keeps per process, so the worker's next trial (a
    new gang, a new port) starts its own."""
    from accelerate.state import AcceleratorState, PartialState

    AcceleratorState._reset_state(reset_partial_state=True)
    PartialState._reset_state()
