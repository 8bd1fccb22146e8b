"""How much memory fine-tuning a model takes, estimated from its ``config.json`` alone, so that a
model too large for a trial's memory is said before anything starts.

The estimate counts the weights (embeddings, attention, the feed-forward block, in the dtype they
load in, 4-bit when quantized), LoRA's optimizer state as a tenth of that, and the ~0.5 GB a
process with torch and transformers holds. It is a floor: activations grow with the batch.

Example:
    >>> config = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    ...           "intermediate_size": 11008, "vocab_size": 32000, "tie_word_embeddings": False}
    >>> round(parameter_count(config) / 1e9, 1)
    6.7
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError

#: what a trial's process holds besides the model (torch, transformers, peft, the data)
PROCESS_BYTES = 500 * 2 ** 20
_GATED = ("llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "phi3", "olmo")
_DTYPE_BYTES = {"float32": 4, "float": 4, "float16": 2, "bfloat16": 2, "half": 2}


def _first(config: Mapping[str, Any], *names: str) -> int:
    for name in names:
        if isinstance(config.get(name), int):
            return int(config[name])
    return 0


def parameter_count(config: Mapping[str, Any]) -> int:
    """The model's parameters, from its configuration (0 when it names no sizes)."""
    hidden = _first(config, "hidden_size", "n_embd", "d_model", "dim")
    layers = _first(config, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    inner = _first(config, "intermediate_size", "n_inner", "ffn_dim", "hidden_dim") or 4 * hidden
    vocab = _first(config, "vocab_size")
    heads = _first(config, "num_attention_heads", "n_head") or 1
    kv_heads = _first(config, "num_key_value_heads") or heads
    attention = 2 * hidden * hidden + 2 * hidden * (hidden * kv_heads // heads)
    feed_forward = (3 if config.get("model_type") in _GATED else 2) * hidden * inner
    embeddings = vocab * hidden * (1 if config.get("tie_word_embeddings", True) else 2)
    return embeddings + layers * (attention + feed_forward)


def training_bytes(config: Mapping[str, Any], four_bit: bool = False) -> int:
    """A floor of the memory one trial's process takes to fine-tune the model with LoRA."""
    dtype = str(config.get("torch_dtype") or config.get("dtype") or "float32")
    per_parameter = 0.5 if four_bit else _DTYPE_BYTES.get(dtype, 4)
    weights = parameter_count(config) * per_parameter
    return int(weights * 1.1) + PROCESS_BYTES


def check_fits(config: Mapping[str, Any] | None, memory: float | None, model: str,
               four_bit: bool = False) -> None:
    """Refuse a model whose estimate exceeds ``memory`` (bytes a trial has; None: not said).

    Raises:
        SpecError: at ``llm.model``, with the estimate and what to do.
    """
    if not config or not memory:
        return
    need = training_bytes(config, four_bit)
    if need > memory:
        raise SpecError("llm.model", f"needs about {need / 2 ** 30:.1f} GiB to fine-tune "
                        f"({parameter_count(config) / 1e6:,.0f}M parameters, from its config.json), "
                        f"more than a trial's {memory / 2 ** 30:.1f} GiB", value=model,
                        allowed="a smaller model, 4-bit loading on a GPU (llm.quantization: 4bit), or "
                        "more memory per trial (resources.per_trial.memory, resources.limits.memory)")
