"""Cost of the keyword decisions: annotating a corpus with them on vs ``senses=None``.

    python benchmarks/speed/senses_overhead.py [--corpus ../shared/data/corpora/inaugural] [--limit N]
    python benchmarks/speed/senses_overhead.py --trees    # no parser: annotate_trees over parsed trees

Default mode: one Annotator's parser is shared by both runs (loaded once, outside the timing),
and each run annotates every ``*.txt`` file of the corpus with ``pipe``; the ratio is
time(senses="default") / time(senses=None) in one process, one run each (after a short warm-up
of both). Model loading is timed separately. ``--trees`` parses the corpus once, then times
``annotate_trees`` over the trees with and without senses: the sense cost with no parser to hide
it (an upper bound of the ratio). Prints its figures, the last line as one JSON object.
"""

import collections
import json
import time
from pathlib import Path

from _corpus import corpus_arguments, corpus_texts

ap = corpus_arguments(__doc__)
ap.add_argument("--trees", action="store_true", help="time annotate_trees over parsed trees")
ap.add_argument("--treebank", default="", help="with --trees: take the trees from this bracketed "
                "file (e.g. a GDTB const/*.mrg or PTB .mrg) instead of parsing the corpus")
ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default). "
                "On a machine shared by other jobs, 1 is much faster for small batches: OpenMP "
                "threads wait on busy cores")
ap.add_argument("--senses", default="default", help="the decisions to time: 'default' (tree "
                "rules + bundled classifiers), 'rules', or a sense model directory")
args = ap.parse_args()
if args.threads:
    import torch

    torch.set_num_threads(args.threads)

import logicparse  # noqa: E402
from logicparse.senses import load_senses  # noqa: E402

texts = corpus_texts(args)

t0 = time.perf_counter()
base = logicparse.Annotator(parser="default", senses=None)
t_parser = time.perf_counter() - t0
t0 = time.perf_counter()
senses = load_senses(args.senses)
t_senses_load = time.perf_counter() - t0
with_senses = logicparse.Annotator(parser=base.parser, senses=senses)

# Time spent inside the sense model itself: a figure that the noise of a shared machine does
# not swamp the way it swamps the difference of two whole runs.
_disambiguate = senses.disambiguate
sense_seconds = [0.0]
sense_queries = [0]


def timed_disambiguate(queries):
    t = time.perf_counter()
    out = _disambiguate(queries)
    sense_seconds[0] += time.perf_counter() - t
    sense_queries[0] += len(queries)
    return out


senses.disambiguate = timed_disambiguate

# Queries that reach the classifier: the ones that cost an encoder pass.
encoder_queries = [0]
if getattr(senses, "classifier", None) is not None:
    _classify = senses.classifier.disambiguate

    def counted_classify(queries):
        encoder_queries[0] += len(queries)
        return _classify(queries)

    senses.classifier.disambiguate = counted_classify

# Warm-up: first calls pay one-off costs (allocations, lazy imports) that are not per-text work.
for a in (base, with_senses):
    a.annotate("Since it rained, we stayed inside as the roads were icy while they waited.")


def run(annotator):
    t = time.perf_counter()
    docs = list(annotator.pipe(texts, batch_size=args.batch_size))
    return time.perf_counter() - t, docs


if args.trees:
    if args.treebank:
        from logicparse.ptb import split_trees

        trees = list(split_trees(Path(args.treebank).read_text(encoding="utf-8")))
        parsed = [trees[i:i + 20] for i in range(0, len(trees), 20)]  # 20-sentence "documents"
    else:
        parsed = [d.parse for d in base.pipe(texts, batch_size=args.batch_size)]

    def run(annotator):  # noqa: F811 - the no-parser variant
        t = time.perf_counter()
        docs = [logicparse.annotate_trees(p, senses=annotator.senses) for p in parsed]
        return time.perf_counter() - t, docs

t_off, docs_off = run(base)
sense_seconds[0] = 0.0
sense_queries[0] = 0
encoder_queries[0] = 0
t_on, docs_on = run(with_senses)

ambiguous = sum(1 for d in docs_off for r in d.relations
                if logicparse.taxonomy.keywords(True)[r.keyword.lower()].ambiguous)
classified = sum(1 for d in docs_on for r in d.relations if r.sense_source == "classifier")
sources = collections.Counter(r.sense_source for d in docs_on for r in d.relations)
dropped = sum(len(d.relations) for d in docs_off) - sum(len(d.relations) for d in docs_on)
sentences = sum(len(d.sentence_starts) for d in docs_off)
tokens = sum(len(d.tokens) for d in docs_off)
result = {
    "mode": "trees" if args.trees else "text", "input": args.treebank or args.corpus,
    "files": len(docs_off), "sentences": sentences,
    "tokens": tokens, "ambiguous_occurrences": ambiguous, "kept_by_classifier": classified,
    "senses": args.senses, "relations_by_source": dict(sources), "dropped_as_none": dropped,
    "encoder_queries": encoder_queries[0],
    "seconds_senses_none": round(t_off, 2), "seconds_senses_default": round(t_on, 2),
    "ratio": round(t_on / t_off, 3),
    "seconds_in_senses": round(sense_seconds[0], 3), "sense_queries": sense_queries[0],
    "ratio_from_sense_time": round((t_off + sense_seconds[0]) / t_off, 3),
    "load_seconds": {"parser": round(t_parser, 2), "senses": round(t_senses_load, 2)},
    "cpu_threads": __import__("torch").get_num_threads(),
}
print(f"input           {args.treebank or args.corpus} ({len(docs_off)} documents, {sentences} sentences, {tokens} tokens)")
print(f"decisions       {sense_queries[0]} keyword occurrences, {encoder_queries[0]} of them sent "
      f"to a classifier; relations kept by source {dict(sources)}, {dropped} dropped as none")
print(f"senses=None     {t_off:.1f} s")
print(f"senses={args.senses:<8} {t_on:.1f} s")
print(f"ratio           {t_on / t_off:.3f}  (bound <= 1.10)")
print(f"in senses       {sense_seconds[0]:.2f} s for {sense_queries[0]} queries: "
      f"(none + senses) / none = {(t_off + sense_seconds[0]) / t_off:.3f}")
print(json.dumps(result))
