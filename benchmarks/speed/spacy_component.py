"""The spaCy component against ``Annotator.pipe``: speed and labels on the same texts.

    python benchmarks/speed/spacy_component.py [--corpus ../shared/data/corpora/inaugural] [--limit N]

One process, one parser and one set of sense models shared by both paths (loaded once, outside
the timing): ``Annotator.pipe(texts)`` and ``nlp.pipe(texts)`` with ``spacy.blank("en")`` +
``sentencizer`` + ``logicparse`` (the Annotator's own tokenizer and sentence splitter), the same
batch size, interleaved batch by batch so that a shared machine's changing load weighs on both. Prints
sentences/s of each, their ratio (spaCy / Annotator) and whether every document's labels
(per-token label ids of the non-space tokens, relations) are equal; last line JSON.
"""

import json
import time

from _corpus import corpus_arguments, corpus_texts

ap = corpus_arguments(__doc__)
ap.add_argument("--senses", default="default", help="'default' or 'none'")
args = ap.parse_args()

import spacy  # noqa: E402

from logicparse.resources import senses_spec  # noqa: E402

texts = corpus_texts(args)
senses = senses_spec(args.senses)

nlp = spacy.blank("en")
nlp.add_pipe("sentencizer")
nlp.add_pipe("logicparse", config={"senses": senses, "batch_size": args.batch_size})
annotator = nlp.get_pipe("logicparse").annotator  # the same parser and senses for both paths


def run_annotator(chunk):
    return list(annotator.pipe(chunk, batch_size=args.batch_size))


def run_spacy(chunk):
    return list(nlp.pipe(chunk, batch_size=args.batch_size))


run_annotator(texts[:1])  # warm-up: first calls pay for lazy initialisation
run_spacy(texts[:1])
# Interleaved one batch at a time, in alternating order: a shared machine's load changes over a
# long run, and this way it weighs on both paths alike.
times = {"annotator": 0.0, "spacy": 0.0}
records, docs = [], []
for n, a in enumerate(range(0, len(texts), args.batch_size)):
    chunk = texts[a:a + args.batch_size]
    order = [("annotator", run_annotator, records), ("spacy", run_spacy, docs)]
    for name, fn, sink in (order if n % 2 == 0 else order[::-1]):
        t0 = time.perf_counter()
        sink.extend(fn(chunk))
        times[name] += time.perf_counter() - t0

sentences = sum(len(r.sentence_starts) for r in records)
equal = 0
for record, doc in zip(records, docs):
    words = [t for t in doc if not t.is_space]
    same = ([t.text for t in words] == record.tokens
            and [doc._.logic[t.i] for t in words] == record.logic
            and [(r["keyword"], r["relation"]) for r in doc._.relations]
            == [(r.keyword, r.relation) for r in record.relations])
    equal += same
rate = {k: sentences / v for k, v in times.items()}
result = {"documents": len(texts), "sentences": sentences, "senses": args.senses,
          "annotator_sentences_per_s": round(rate["annotator"], 2),
          "spacy_sentences_per_s": round(rate["spacy"], 2),
          "ratio_spacy_over_annotator": round(rate["spacy"] / rate["annotator"], 3),
          "documents_with_equal_labels": equal}
print(f"Annotator.pipe: {rate['annotator']:.1f} sentences/s; nlp.pipe: {rate['spacy']:.1f} "
      f"sentences/s; ratio {result['ratio_spacy_over_annotator']}; labels equal in {equal} of "
      f"{len(texts)} documents")
print(json.dumps(result))
