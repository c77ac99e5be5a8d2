"""The model family of an imported GraphNet sample, from what the sample says about itself.

Splitting by family (``--split-by family``) is only as good as these names: guessed from
folder names they were poor ("wav" for wav2vec2, "hf" for a tiny ViT, "sshleifer" for a BERT).
In order: the Hugging Face model type among the sample's hub tags (``graph_net.json``
``original_tag``; library, language and task tags skipped), the architecture in a class-like
model name (``...Swinv2ForImage...``), the Hugging Face base-model attribute that model.py's
argument names start with (``L_self_modules_vit_modules_...``: the model's ``vit``), then the
model's own name (the last part of ``model_name`` or of the folder, the linked folder's own
name where ``folder`` is a link), without version digits,
suffixes and the collection prefixes of mmpose, NeMo and timm (``pose_``, ``stt_en_``,
``legacy_``). GraphNet's placeholder name ``NO_VALID_MATCH_FOUND`` is no name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_GENERIC_TAGS = frozenset(
    "transformers pytorch jax tf tensorflow safetensors tensorboard onnx endpoints_compatible "
    "generated_from_trainer model_hub_mixin pytorch_model_hub_mixin autotrain_compatible "
    "text-generation-inference custom_code inference peft timm diffusers rust openvino coreml "
    "tflite gguf mlx keras setfit flair spacy ctranslate2 paddlepaddle adapter-transformers "
    "sentence-transformers transformer nlp multilingual".split()
)
_TASK_WORDS = ("classification", "generation", "extraction", "recognition", "fill-mask",
               "question-answering", "summarization", "translation", "segmentation",
               "detection", "-to-", "similarity", "estimation", "embedding")  # fmt: skip
_FILLER = frozenset({"tiny", "random", "hf", "model", "private", "base", "small", "large",
                    "pose", "stt", "en", "legacy"})  # fmt: skip
_NO_NAME = "NO_VALID_MATCH_FOUND"
# Module attributes that hold a model without naming its architecture.
_CONTAINERS = frozenset(
    "model base_model encoder decoder embeddings backbone transformer text_model vision_model "
    "audio_model core body net module modules layers layer blocks stages features head "
    "pooler classifier".split()
)
_PREFIX = re.compile(r"\bL_self_modules_([a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)?)_modules_")
_CLASS = re.compile(r"([A-Z][A-Za-z0-9]*?)(?:For[A-Z]|Model(?:$|[^a-z])|LMHead)")
_VERSION = re.compile(r"^(.{3,}?)v?\d+[a-z]{0,2}$")


def _base(word: str) -> str:
    """Without a trailing version: resnet18 -> resnet, yolov8n -> yolo, wav2vec2 -> wav2vec,
    swinv2 -> swin (t5 stays: too short to be a name without its number)."""
    word = word.lower()
    m = _VERSION.match(word)
    return (m.group(1) if m else word).rstrip("-_") or word


def _from_tags(tags: object) -> str | None:
    if not isinstance(tags, list):
        return None
    for tag in tags:
        if not isinstance(tag, str) or ":" in tag or tag in _GENERIC_TAGS:
            continue
        if any(word in tag for word in _TASK_WORDS):
            continue
        if len(tag) <= 2 and tag.isalpha():
            continue  # a language code ("en", "no")
        return _base(tag)
    return None


def _from_name(name: str) -> str:
    """``resnet10t.c3_in1k`` -> resnet, ``mobilenet_v3_small`` -> mobilenet, ``mlp-iris`` -> mlp."""
    if m := _CLASS.search(name):
        return _base(m.group(1))
    last = name.rstrip("/").rsplit("/", 1)[-1]
    for word in re.split(r"[^A-Za-z0-9]+", last):
        if word and word[0].isalpha() and word.lower() not in _FILLER:
            return _base(word)
    return last.lower() or "unknown"


def _from_code(folder: Path) -> str | None:
    """The base-model attribute most arguments of model.py sit under (``vit``, ``bert``), as
    Hugging Face models name it after their architecture; None for generic containers."""
    try:
        with (folder / "model.py").open(encoding="utf-8") as f:
            head = f.read(200_000)  # the forward signature comes first
    except OSError:
        return None
    words = _PREFIX.findall(head)
    if not words:
        return None
    word = max(set(words), key=words.count)
    return None if re.sub(r"\d+$", "", word) in _CONTAINERS or "_" in word else _base(word)


def family_of(folder: Path, name: str) -> str:
    """The family of the sample in ``folder``, imported under ``name`` (see module docstring)."""
    try:
        meta = json.loads((folder / "graph_net.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = {}
    meta = meta if isinstance(meta, dict) else {}
    if family := _from_tags(meta.get("original_tag")):
        return family
    model_name = meta.get("model_name")
    if not isinstance(model_name, str) or model_name in ("", _NO_NAME):
        model_name = None
    if model_name and _CLASS.search(model_name):
        return _from_name(model_name)
    if meta.get("source") == "huggingface_hub" and (family := _from_code(folder)):
        return family
    if folder.is_symlink():  # a selection links samples under other names: use the sample's own
        name = folder.resolve().name
    return _from_name(model_name or name)
