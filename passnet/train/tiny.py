"""A tiny randomly initialised chat model, built on the spot: no hub at run time.

For tests and smoke runs of the whole chain (export, SFT, serving, RL) on a machine that
cannot download weights: a byte-level BPE tokenizer trained in a second on the texts given
(the trajectories themselves), a Hermes/Qwen-style chat template with tool calls (the form
``passnet agent run --backend hf`` parses) and ``{% generation %}`` markers (TRL's
assistant-only loss), and a Llama model of any size from a config. The same builder makes a
0.44B model for throughput runs on a GPU (``--hidden 1280 --layers 24 --heads 10``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

CHAT_TEMPLATE = """\
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}
{{- '# Tools\\n\\nYou may call one or more functions. Function signatures:\\n<tools>' }}
{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}
{{- '\\n</tools>\\n\\nFor each function call, return a JSON object within <tool_call></tool_call> tags:\\n<tool_call>\\n{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call><|im_end|>\\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant' }}
{%- generation %}
{%- if message.content %}{{- '\\n' + message.content }}{%- endif %}
{%- for tool_call in message.tool_calls or [] %}
{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '\\n<tool_call>\\n{"name": "' + tool_call.name + '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
{{- '<|im_end|>\\n' }}
{%- endgeneration %}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""
"""Qwen2.5's layout (ChatML, Hermes tool calls) with generation markers; arguments may be
objects or JSON text."""


def train_tokenizer(texts: Iterable[str], vocab_size: int = 4000) -> object:
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on ``texts``, with the chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL + TAGS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts) or ["hello"], trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=[SPECIAL[1]],
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_model(
    out: Path,
    texts: Iterable[str] = (),
    hidden: int = 32,
    layers: int = 2,
    heads: int = 4,
    vocab_size: int = 4000,
    max_positions: int = 32768,
    seed: int = 0,
) -> Path:
    """Write a random Llama model and its tokenizer to ``out`` (a checkpoint folder that
    ``from_pretrained``, ``passnet train sft`` and ``--backend hf`` load)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = train_tokenizer(texts, vocab_size)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=hidden * 2 if hidden < 256 else int(hidden * 8 / 3) // 64 * 64,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        max_position_embeddings=max_positions,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out


def dataset_texts(rows: Iterable[dict]) -> list[str]:
    """Texts of a dataset's conversations to train the tokenizer on (contents, arguments)."""
    import json

    out: list[str] = []
    for row in rows:
        for m in row.get("messages", []):
            out.append(str(m.get("content") or ""))
            for c in m.get("tool_calls") or []:
                out.append(json.dumps(c.get("function", {}).get("arguments")))
        out += [json.dumps(t) for t in row.get("tools") or []]
    return out
