"""A local Hugging Face ``transformers`` causal LM, e.g. a checkpoint fine-tuned on trajectories.

``--model`` is a hub id or a local folder. Tools go through the checkpoint's chat template;
tool calls are read back in the Hermes/Qwen form the templates of Qwen2.5/Qwen3 (upstream's
fine-tuned model) emit::

    <tool_call>
    {"name": "file_editor", "arguments": {"command": "view", "path": "."}}
    </tool_call>

Optional: needs ``pip install transformers``. One generation at a time per loaded model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from typing import Any

from passnet.agent.llm import Completion, GenerateConfig, LLMConfigError, ToolCall, Usage

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_KEEP = frozenset({"<tool_call>", "</tool_call>", "<think>", "</think>"})


def parse_tool_calls(text: str, step_tag: str = "hf") -> tuple[str | None, str | None, list]:
    """Split generated text into (content, reasoning, tool calls)."""
    reasoning = "\n".join(m.strip() for m in _THINK.findall(text)) or None
    if "</think>" in text and "<think>" not in text:  # template opened the think block
        head, _, text = text.partition("</think>")
        reasoning = head.strip() or reasoning
    text = _THINK.sub("", text)
    calls: list[ToolCall] = []
    for i, raw in enumerate(_TOOL_CALL.findall(text)):
        call_id = f"call_{step_tag}_{i}"
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError:
            calls.append(ToolCall(id=call_id, name="", arguments=raw))
            continue
        if not isinstance(obj, dict):
            calls.append(ToolCall(id=call_id, name="", arguments=raw))
            continue
        args = obj.get("arguments", obj.get("parameters", {}))
        arguments = args if isinstance(args, str) else json.dumps(args)
        calls.append(ToolCall(id=call_id, name=str(obj.get("name", "")), arguments=arguments))
    content = _TOOL_CALL.sub("", text).strip() or None
    return content, reasoning, calls


def _template_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat templates want tool-call arguments as objects, not JSON text."""
    out = []
    for m in messages:
        m = {k: v for k, v in m.items() if k != "reasoning_content"}
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                fn = dict(c["function"])
                try:
                    fn["arguments"] = json.loads(fn.get("arguments") or "{}")
                except json.JSONDecodeError:
                    pass
                calls.append({**c, "function": fn})
            m["tool_calls"] = calls
        out.append(m)
    return out


class HFBackend:
    """``generate`` with ``model.generate`` on a locally loaded checkpoint."""

    def __init__(self, device: str | None = None) -> None:
        try:
            import transformers
        except ImportError as exc:
            raise LLMConfigError(
                "the hf backend needs `transformers`: pip install 'passnet[zoo]' (or "
                "pip install transformers)"
            ) from exc
        self._transformers = transformers
        self._device = device
        self._loaded: dict[str, tuple[Any, Any]] = {}
        self._lock = threading.Lock()
        self._calls = 0

    def _load(self, name: str) -> tuple[Any, Any]:
        if name not in self._loaded:
            import torch

            tf = self._transformers
            device = self._device or ("cuda" if torch.cuda.is_available() else "cpu")
            try:
                tokenizer = tf.AutoTokenizer.from_pretrained(name)
                model = tf.AutoModelForCausalLM.from_pretrained(name, dtype="auto")
            except (OSError, ValueError) as exc:  # missing files, invalid hub id
                raise LLMConfigError(
                    f"cannot load the model {name!r} with transformers: {exc}. Pass a local "
                    "checkpoint folder or a hub id this machine can download."
                ) from exc
            if tokenizer.chat_template is None:
                raise LLMConfigError(f"{name!r} has no chat template; use a chat/instruct model")
            self._loaded[name] = (tokenizer, model.to(device).eval())
        return self._loaded[name]

    def generate(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], config: GenerateConfig
    ) -> Completion:
        import torch

        t0 = time.perf_counter()
        with self._lock:
            tokenizer, model = self._load(config.model)
            prompt = tokenizer.apply_chat_template(
                _template_messages(messages),
                tools=tools or None,
                add_generation_prompt=True,
                tokenize=False,
            )
            inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
            inputs = inputs.to(model.device)
            sample = bool(config.temperature)
            options: dict[str, Any] = {"max_new_tokens": config.max_tokens or 2048}
            if sample:
                options.update(do_sample=True, temperature=config.temperature)
                if config.top_p is not None:
                    options["top_p"] = config.top_p
            else:
                options["do_sample"] = False
            if tokenizer.pad_token_id is None:
                options["pad_token_id"] = tokenizer.eos_token_id
            with torch.inference_mode():
                out = model.generate(**inputs, **options, **config.extra_body)
            n_prompt = inputs["input_ids"].shape[1]
            new = out[0, n_prompt:]
            text = tokenizer.decode(new, skip_special_tokens=False)
            for token in tokenizer.all_special_tokens:  # end markers; keep tool/think tags
                if token not in _KEEP:
                    text = text.replace(token, "")
            self._calls += 1
            tag = str(self._calls)
        content, reasoning, calls = parse_tool_calls(text, tag)
        hit_limit = len(new) >= options["max_new_tokens"]
        return Completion(
            content=content,
            reasoning=reasoning,
            tool_calls=calls,
            finish_reason="length" if hit_limit else ("tool_calls" if calls else "stop"),
            usage=Usage(prompt_tokens=n_prompt, completion_tokens=int(len(new))).priced(config),
            latency_s=time.perf_counter() - t0,
        )
