"""Model zoos that work offline: real architectures, random initialisation, no hub download.

Each :class:`ZooModel` names its library, family and domain, builds the model from installed
code only (Hugging Face transformers from their config classes, torchvision / timm / torchaudio
constructors with ``weights=None`` / ``pretrained=False``) and makes example inputs for a
:class:`Shape` (batch x sequence length, image resolution or audio samples). A library that is
not installed makes its models unavailable with that reason; an unknown name is an error that
lists close matches.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.util
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import torch

LIBRARIES = ("transformers", "torchvision", "timm", "torchaudio")


class ZooError(Exception):
    """An unknown model name, or a model whose library is not installed."""


@dataclass(frozen=True)
class Shape:
    """Input scale of one capture: ``size`` is the sequence length, resolution or samples."""

    batch: int
    size: int

    @property
    def key(self) -> str:
        return f"b{self.batch}-s{self.size}"

    @classmethod
    def parse(cls, text: str) -> Shape:
        """``"b4-s128"`` or ``"4x128"``."""
        cleaned = text.strip().lower().replace("b", "").replace("s", "").replace("-", "x")
        try:
            batch, size = (int(p) for p in cleaned.split("x"))
        except ValueError as e:
            raise ZooError(f"bad shape {text!r}: write BATCHxSIZE, e.g. 4x128") from e
        return cls(batch, size)


@dataclass(frozen=True)
class ZooModel:
    """One model of a zoo; ``build(shape)`` returns it in eval mode with random weights."""

    name: str
    library: str
    family: str
    domain: str
    build: Callable[[Shape], torch.nn.Module]
    inputs: Callable[[torch.nn.Module, Shape], tuple]
    shapes: tuple[Shape, ...]
    note: str = ""

    def unavailable(self) -> str | None:
        """Why the model cannot be built here (its library is not importable), else None."""
        try:
            found = importlib.util.find_spec(self.library) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"{self.library} is not installed (pip install {self.library})"
        try:
            importlib.import_module(self.library)
        except Exception as e:  # noqa: BLE001 - a broken install (ABI mismatch) is a reason too
            return f"{self.library} cannot be imported: {type(e).__name__}: {e}"[:300]
        return None


# --- inputs --------------------------------------------------------------------------------

NLP_SHAPES = (Shape(1, 16), Shape(4, 128))  # 2**11 vs 2**16 activations at H=128: buckets 2, 4
CV_SHAPES = (Shape(1, 32), Shape(2, 128))
AUDIO_SHAPES = (Shape(1, 1600), Shape(4, 16000))


def _ids(vocab: int) -> Callable[[torch.nn.Module, Shape], tuple]:
    def make(model: torch.nn.Module, shape: Shape) -> tuple:
        gen = torch.Generator().manual_seed(shape.batch * 7919 + shape.size)
        return (torch.randint(0, vocab, (shape.batch, shape.size), generator=gen),)

    return make


def _pixels(channels: int = 3) -> Callable[[torch.nn.Module, Shape], tuple]:
    def make(model: torch.nn.Module, shape: Shape) -> tuple:
        gen = torch.Generator().manual_seed(shape.batch * 7919 + shape.size)
        return (torch.randn(shape.batch, channels, shape.size, shape.size, generator=gen),)

    return make


def _waveform(model: torch.nn.Module, shape: Shape) -> tuple:
    gen = torch.Generator().manual_seed(shape.batch * 7919 + shape.size)
    return (torch.randn(shape.batch, shape.size, generator=gen),)


def _mel(bins: int) -> Callable[[torch.nn.Module, Shape], tuple]:
    def make(model: torch.nn.Module, shape: Shape) -> tuple:
        gen = torch.Generator().manual_seed(shape.batch * 7919 + shape.size)
        return (torch.randn(shape.batch, bins, shape.size, generator=gen),)

    return make


# --- Hugging Face transformers, from config classes ------------------------------------------

_TINY = {"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 128}
_TINY_NLP = {**_TINY, "vocab_size": 1000, "intermediate_size": 256, "max_position_embeddings": 512}
_TINY_DECODER = {**_TINY_NLP, "num_key_value_heads": 1, "use_cache": False}


#: The config keys that are a transformers model's hidden size (``hidden_width`` sets them):
#: ``embed_dim`` is Swin's first stage width, ``hidden_sizes`` ConvNeXt's, ResNet's and
#: Segformer's widths of every stage (the first becomes the width, the rest keep their ratios).
WIDTH_KEYS = ("hidden_size", "n_embd", "d_model", "dim", "embed_dim", "hidden_sizes")
_WIDTH: ContextVar[list | None] = ContextVar("zoo_width", default=None)


@contextlib.contextmanager
def hidden_width(width: int | None) -> Iterator[list]:
    """Inside, a transformers model is built with hidden size ``width`` (every key of
    ``WIDTH_KEYS`` its config sets): the same architecture at a size no pass was written for.
    The yielded list gets the keys set, so a caller can tell a model that has none."""
    applied: list[str] = []
    token = _WIDTH.set([width, applied] if width is not None else None)
    try:
        yield applied
    finally:
        _WIDTH.reset(token)


def _widened(value: Any, width: int) -> Any:
    """A config's width ``value`` set to ``width``: a list of stage widths scaled so that its
    first is ``width`` (each at least 1)."""
    if isinstance(value, list):
        return [max(1, round(v * width / value[0])) for v in value]
    return width


def _hf(model_cls: str, config_cls: str, shape_key: str | None = None, **config: Any):
    """Builder of a transformers model from its config class (``shape_key`` gets shape.size)."""

    def build(shape: Shape) -> torch.nn.Module:
        transformers = importlib.import_module("transformers")
        kwargs = dict(config)
        if shape_key:
            kwargs[shape_key] = shape.size
        if (width := _WIDTH.get()) is not None:
            for key in WIDTH_KEYS:
                if key in kwargs:
                    kwargs[key] = _widened(kwargs[key], width[0])
                    width[1].append(key)
        cfg = getattr(transformers, config_cls)(**kwargs)
        torch.manual_seed(0)
        model = getattr(transformers, model_cls)(cfg)
        return model.eval()

    return build


def _hf_part(model_cls: str, config_cls: str, part: str, **config: Any):
    """A sub-module (encoder) of a transformers model, e.g. Whisper's audio encoder."""
    full = _hf(model_cls, config_cls, **config)

    def build(shape: Shape) -> torch.nn.Module:
        return getattr(full(shape), part)().eval()

    return build


def _whisper(shape: Shape) -> torch.nn.Module:
    # Whisper's encoder takes exactly 2 * max_source_positions mel frames.
    build = _hf_part(
        "WhisperModel",
        "WhisperConfig",
        "get_encoder",
        d_model=128,
        encoder_layers=2,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=256,
        decoder_ffn_dim=256,
        num_mel_bins=16,
        vocab_size=1000,
        max_source_positions=shape.size // 2,
        pad_token_id=0,
        bos_token_id=0,
        eos_token_id=0,
        decoder_start_token_id=0,
        use_cache=False,
    )
    return build(shape)


_VISION = {**_TINY, "intermediate_size": 256}


_Spec = tuple[str, str, str, Any, Any, tuple[Shape, ...]]
"""(name, family, domain, build, inputs, shapes) of one transformers zoo entry."""


def _encoders() -> list[_Spec]:
    """BERT-style text encoders, small random configs."""
    nlp = NLP_SHAPES
    return [
        ("bert", "bert", "nlp", _hf("BertModel", "BertConfig", **_TINY_NLP), _ids(1000), nlp),
        ("bert-eager-attn", "bert", "nlp",
         _hf("BertModel", "BertConfig", attn_implementation="eager", **_TINY_NLP), _ids(1000), nlp),
        ("roberta", "roberta", "nlp", _hf("RobertaModel", "RobertaConfig", **_TINY_NLP), _ids(1000), nlp),
        ("camembert", "roberta", "nlp",
         _hf("CamembertModel", "CamembertConfig", **_TINY_NLP), _ids(1000), nlp),
        ("xlm-roberta", "roberta", "nlp",
         _hf("XLMRobertaModel", "XLMRobertaConfig", **_TINY_NLP), _ids(1000), nlp),
        ("distilbert", "distilbert", "nlp",
         _hf("DistilBertModel", "DistilBertConfig", vocab_size=1000, dim=128, n_layers=2, n_heads=2,
             hidden_dim=256), _ids(1000), nlp),
        ("albert", "albert", "nlp",
         _hf("AlbertModel", "AlbertConfig", embedding_size=64, **_TINY_NLP), _ids(1000), nlp),
        ("electra", "electra", "nlp",
         _hf("ElectraModel", "ElectraConfig", embedding_size=64, **_TINY_NLP), _ids(1000), nlp),
        ("mobilebert", "mobilebert", "nlp",
         _hf("MobileBertModel", "MobileBertConfig", vocab_size=1000, hidden_size=128,
             num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
             embedding_size=64, intra_bottleneck_size=64, true_hidden_size=64), _ids(1000), nlp),
    ]  # fmt: skip


def _decoders() -> list[_Spec]:
    """Decoder-only and encoder-decoder text models, small random configs."""
    nlp = NLP_SHAPES
    return [
        ("gpt2", "gpt2", "nlp",
         _hf("GPT2Model", "GPT2Config", vocab_size=1000, n_embd=128, n_layer=2, n_head=2,
             n_positions=512, attn_implementation="eager", use_cache=False,
             bos_token_id=0, eos_token_id=0), _ids(1000), nlp),
        ("opt", "opt", "nlp",
         _hf("OPTModel", "OPTConfig", vocab_size=1000, hidden_size=128, num_hidden_layers=2,
             num_attention_heads=2, ffn_dim=256, word_embed_proj_dim=128,
             max_position_embeddings=512, use_cache=False), _ids(1000), nlp),
        ("llama", "llama", "nlp", _hf("LlamaModel", "LlamaConfig", **_TINY_DECODER), _ids(1000), nlp),
        ("mistral", "mistral", "nlp",
         _hf("MistralModel", "MistralConfig", attn_implementation="eager", **_TINY_DECODER),
         _ids(1000), nlp),
        ("qwen2", "qwen2", "nlp", _hf("Qwen2Model", "Qwen2Config", **_TINY_DECODER), _ids(1000), nlp),
        ("gemma", "gemma", "nlp",
         _hf("GemmaModel", "GemmaConfig", head_dim=64, **_TINY_DECODER), _ids(1000), nlp),
        ("phi", "phi", "nlp", _hf("PhiModel", "PhiConfig", **_TINY_DECODER), _ids(1000), nlp),
        ("t5-encoder", "t5", "nlp",
         _hf("T5EncoderModel", "T5Config", vocab_size=1000, d_model=128, d_kv=64, d_ff=256,
             num_layers=2, num_heads=2), _ids(1000), nlp),
    ]  # fmt: skip


def _vision() -> list[_Spec]:
    """Vision and vision-language models at the CV shapes (CLIP's text tower too)."""
    cv = CV_SHAPES
    return [
        ("clip-text", "clip", "multimodal",
         _hf("CLIPTextModel", "CLIPTextConfig", vocab_size=1000, hidden_size=128,
             intermediate_size=256, num_hidden_layers=2, num_attention_heads=2,
             max_position_embeddings=128, bos_token_id=0, eos_token_id=0), _ids(1000),
         (Shape(1, 16), Shape(8, 77))),
        ("vit", "vit", "cv",
         _hf("ViTModel", "ViTConfig", "image_size", patch_size=8, **_VISION), _pixels(), cv),
        ("deit", "vit", "cv",
         _hf("DeiTModel", "DeiTConfig", "image_size", patch_size=8, **_VISION), _pixels(), cv),
        ("clip-vision", "clip", "multimodal",
         _hf("CLIPVisionModel", "CLIPVisionConfig", "image_size", patch_size=8, **_VISION),
         _pixels(), cv),
        ("convnext", "convnext", "cv",
         _hf("ConvNextModel", "ConvNextConfig", hidden_sizes=[16, 32, 64, 128],
             depths=[1, 1, 1, 1]), _pixels(), cv),
        ("resnet", "resnet", "cv",
         _hf("ResNetModel", "ResNetConfig", embedding_size=16, hidden_sizes=[16, 32, 64, 128],
             depths=[1, 1, 1, 1]), _pixels(), cv),
        ("mobilenet-v2", "mobilenet", "cv",
         _hf("MobileNetV2Model", "MobileNetV2Config", "image_size", depth_multiplier=0.35),
         _pixels(), cv),
        ("swin", "swin", "cv",
         _hf("SwinModel", "SwinConfig", "image_size", embed_dim=32, depths=[1, 1],
             num_heads=[2, 2], window_size=4, patch_size=4), _pixels(), cv),
        ("segformer", "segformer", "cv",
         _hf("SegformerModel", "SegformerConfig", hidden_sizes=[16, 32, 64, 128],
             depths=[1, 1, 1, 1], num_attention_heads=[1, 1, 2, 2]), _pixels(), cv),
    ]  # fmt: skip


def _audio() -> list[_Spec]:
    """Speech encoders."""
    return [
        ("wav2vec2", "wav2vec2", "audio",
         _hf("Wav2Vec2Model", "Wav2Vec2Config", vocab_size=32, conv_dim=[32, 32, 32],
             conv_stride=[5, 2, 2], conv_kernel=[10, 3, 3], num_conv_pos_embeddings=16,
             num_conv_pos_embedding_groups=4, **_VISION), _waveform, AUDIO_SHAPES),
        ("whisper-encoder", "whisper", "audio", _whisper, _mel(16), (Shape(1, 64), Shape(4, 512))),
    ]  # fmt: skip


def _real_size() -> list[_Spec]:
    """Real-size configs, captured on the meta device."""
    return [
        # A real-size config (Llama-2-7B, 6.7B parameters, 27 GB in float32): too large to
        # materialise here, so it is captured on the meta device (shapes and dtypes only).
        ("llama2-7b", "llama", "nlp",
         _hf("LlamaModel", "LlamaConfig", vocab_size=32000, hidden_size=4096,
             intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
             num_key_value_heads=32, max_position_embeddings=4096, use_cache=False),
         _ids(32000), (Shape(1, 128),)),
    ]  # fmt: skip


def _transformers() -> list[ZooModel]:
    return [
        ZooModel(f"transformers/{name}", "transformers", family, domain, build, inputs, shapes)
        for name, family, domain, build, inputs, shapes in (
            _encoders() + _decoders() + _vision() + _audio() + _real_size()
        )
    ]


# --- torchvision / timm / torchaudio (lazy imports; unavailable when not installed) ----------


def _ctor(library: str, path: str, **kwargs: Any) -> Callable[[Shape], torch.nn.Module]:
    def build(shape: Shape) -> torch.nn.Module:
        obj: Any = importlib.import_module(library)
        for part in path.split("."):
            obj = getattr(obj, part)
        torch.manual_seed(0)
        return obj(**kwargs).eval()

    return build


def _timm(name: str) -> Callable[[Shape], torch.nn.Module]:
    def build(shape: Shape) -> torch.nn.Module:
        timm = importlib.import_module("timm")
        torch.manual_seed(0)
        return timm.create_model(name, pretrained=False).eval()

    return build


def _others() -> list[ZooModel]:
    tv = [
        ("resnet18", "resnet"),
        ("mobilenet_v3_small", "mobilenet"),
        ("efficientnet_b0", "efficientnet"),
        ("convnext_tiny", "convnext"),
        ("vit_b_16", "vit"),
        ("regnet_y_400mf", "regnet"),
        ("shufflenet_v2_x0_5", "shufflenet"),
    ]
    models = [
        ZooModel(f"torchvision/{n}", "torchvision", fam, "cv",
                 _ctor("torchvision", f"models.{n}", weights=None), _pixels(),
                 (Shape(1, 224),) if n == "vit_b_16" else (Shape(1, 64), Shape(2, 224)))
        for n, fam in tv
    ]  # fmt: skip
    timm_models = [
        ("resnet10t", "resnet"),
        ("mobilevit_xxs", "mobilevit"),
        ("efficientvit_b0", "efficientvit"),
        ("levit_128s", "levit"),
        ("poolformer_s12", "poolformer"),
    ]
    models += [
        ZooModel(f"timm/{n}", "timm", fam, "cv", _timm(n), _pixels(), (Shape(1, 224),))
        for n, fam in timm_models
    ]
    audio = [("wav2vec2_base", "wav2vec2"), ("hubert_base", "hubert"), ("wavlm_base", "wavlm")]
    models += [
        ZooModel(f"torchaudio/{n}", "torchaudio", fam, "audio",
                 _ctor("torchaudio", f"models.{n}"), _waveform, AUDIO_SHAPES)
        for n, fam in audio
    ]  # fmt: skip
    return models


ZOO: dict[str, ZooModel] = {m.name: m for m in _transformers() + _others()}


def resolve(name: str) -> ZooModel:
    """A zoo model by full name (``transformers/bert``) or unambiguous short name (``bert``)."""
    if name in ZOO:
        return ZOO[name]
    short = [m for key, m in ZOO.items() if key.split("/", 1)[1] == name]
    if len(short) == 1:
        return short[0]
    if len(short) > 1:
        options = ", ".join(m.name for m in short)
        raise ZooError(f"model name {name!r} is ambiguous: {options}")
    close = difflib.get_close_matches(name, list(ZOO) + [k.split("/", 1)[1] for k in ZOO], n=5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise ZooError(
        f"unknown model {name!r}.{hint} `passnet dataset build --list` shows all "
        f"{len(ZOO)} models (libraries: {', '.join(LIBRARIES)})."
    )


def select(names: list[str] | None = None, library: str | None = None) -> list[ZooModel]:
    """Models by name (all if ``names`` is None), optionally of one library only."""
    if library and library not in LIBRARIES:
        raise ZooError(f"unknown library {library!r}; known: {', '.join(LIBRARIES)}")
    chosen = [resolve(n) for n in names] if names else list(ZOO.values())
    return [m for m in chosen if library is None or m.library == library]
