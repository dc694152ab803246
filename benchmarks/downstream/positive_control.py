"""Positive control: can a logical model learn a task whose answer is only in its labels?

    python benchmarks/downstream/positive_control.py                      # all-MiniLM-L6-v2, 3 layers
    python benchmarks/downstream/positive_control.py --layers centered paper none --steps 150 --lr 1e-4
    python benchmarks/downstream/positive_control.py --shares              # the share table, at init only

The task (logicparse.training.control): sentences of common words, drawn alike for both classes;
one random span carries conditional:alpha (class 0) or causal:alpha (class 1) at its shallowest
layer, another span a distractor label. Each model is fine-tuned with one AdamW learning rate for
every parameter (what a Trainer does), from the same initialisation and batches; the plain model
(``none``) reads the same texts. Prints test accuracy over steps, the label-dependent share of the
embedding output on labelled tokens at initialisation and after, the time, and one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from logicparse.resources import offline_environment

offline_environment()


def run(layer: str, args) -> dict:
    import torch
    import transformers

    from logicparse.modeling import bundled_model_path, logicalize
    from logicparse.training.control import control_examples, fit_control

    path = args.model or bundled_model_path()
    transformers.set_seed(args.seed)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path, num_labels=2)
    if layer != "none":
        logicalize(model, variant=layer)
    train = control_examples(args.train, seed=args.seed)
    test = control_examples(args.test, seed=10_000 + args.seed)
    started = time.perf_counter()
    out = fit_control(model, tokenizer, train, test, steps=args.steps, lr=args.lr,
                      batch_size=args.batch_size, eval_every=args.eval_every, seed=args.seed,
                      logical=layer != "none")
    out.update(layer=layer, seconds=round(time.perf_counter() - started, 1),
               test_majority=max(sum(test[1]), len(test[1]) - sum(test[1])) / len(test[1]))
    return out


def shares(args) -> None:
    """The label-dependent share at initialisation, by where the labels sit, for both layers: 8
    sequences of 20 random word pieces, tokens 3-5 labelled."""
    import torch
    import transformers

    from logicparse.modeling import bundled_model_path, logical_embedding, logicalize

    path = args.model or bundled_model_path()
    ids = torch.randint(1000, 20000, (8, 20), generator=torch.Generator().manual_seed(args.seed))
    cases = {"one label, shallowest layer": [5, 0, 0], "one label, deepest": [0, 0, 5],
             "three labels": [5, 7, 9]}
    print("| layer | " + " | ".join(cases) + " | a token without labels moves by |")
    print("|---|" + "---|" * (len(cases) + 1))
    for layer in ("paper", "centered"):
        model = transformers.AutoModel.from_pretrained(path)
        emb = logical_embedding(logicalize(model, variant=layer, seed=args.seed))
        cells = []
        for labels in cases.values():
            logic = torch.zeros(8, 20, 3, dtype=torch.long)
            logic[:, 3:6] = torch.tensor(labels)
            share = emb.label_share(ids, logic)
            cells.append(f"{share['labelled']:.1%}")
        print(f"| {layer} | " + " | ".join(cells) + f" | {share['all_e']:.1%} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None, help="A local Hugging Face folder (default: the bundled all-MiniLM-L6-v2).")
    p.add_argument("--layers", nargs="+", default=["centered", "paper", "none"],
                   choices=["centered", "paper", "none"])
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--train", type=int, default=2000)
    p.add_argument("--test", type=int, default=500)
    p.add_argument("--eval-every", type=int, default=25)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--shares", action="store_true",
                   help="Only print the label-dependent share at initialisation, by layer.")
    args = p.parse_args(argv)
    import torch

    if args.shares:
        shares(args)
        return 0

    if args.threads:
        torch.set_num_threads(args.threads)
    results = []
    print("| layer | test accuracy | over steps | share at init | share after | all-E shift | s |")
    print("|---|---|---|---|---|---|---|")
    for layer in args.layers:
        r = run(layer, args)
        results.append(r)
        curve = " ".join(f"{a:.2f}" for _, a in r["curve"])
        si, sa = r["share_init"] or {}, r["share_after"] or {}
        fmt = lambda d, key: f"{d[key]:.4f}" if key in d else "-"  # noqa: E731
        print(f"| {layer} | {r['accuracy']:.4f} | {curve} | {fmt(si, 'labelled')} | "
              f"{fmt(sa, 'labelled')} | {fmt(sa, 'all_e')} | {r['seconds']:.0f} |", flush=True)
    print(f"\nchance (test majority class): {results[0]['test_majority']:.4f}; {args.steps} steps, "
          f"batch {args.batch_size}, lr {args.lr:g} for every parameter, seed {args.seed}")
    print(json.dumps({"args": vars(args), "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
