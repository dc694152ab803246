"""What bf16 autocast saves a training step on this CPU (``logicparse train --cpu-bf16``).

    python benchmarks/speed/cpu_bf16.py --model PATH_TO_MPNET --rounds 2 --steps 4

One sequence-classification model, one batch of random token ids, a forward, backward and AdamW
step per step; float32 and bf16 autocast alternate round by round (fp32, bf16, fp32, bf16 ...) so
that a machine that slows down over the run slows both. The first step of each round is a warm-up
and not counted. Prints the median seconds per step of each and the ratio fp32 / bf16; the last
line is the same as one JSON object. Run it alone on the machine: it is a timing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time


def summarize(seconds: dict) -> dict:
    """Median seconds per step of each precision and fp32's over bf16's."""
    med = {k: statistics.median(v) for k, v in seconds.items()}
    return {"fp32_step_s": round(med["fp32"], 4), "bf16_step_s": round(med["bf16"], 4),
            "ratio": round(med["fp32"] / med["bf16"], 3)}


def time_steps(model, batch: dict, bf16: bool, steps: int) -> list[float]:
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
    context = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if bf16 else contextlib.nullcontext
    out = []
    for i in range(steps + 1):
        started = time.perf_counter()
        with context():
            loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if i:  # the first step of a round warms up caches and kernels
            out.append(time.perf_counter() - started)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="A local Hugging Face model folder.")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--length", type=int, default=150, help="Subwords per example.")
    p.add_argument("--steps", type=int, default=4, help="Timed steps per round.")
    p.add_argument("--rounds", type=int, default=2, help="Rounds of each precision.")
    args = p.parse_args(argv)
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    torch.manual_seed(0)
    config = AutoConfig.from_pretrained(args.model, num_labels=2)
    model = AutoModelForSequenceClassification.from_pretrained(args.model, config=config)
    batch = {"input_ids": torch.randint(5, config.vocab_size, (args.batch_size, args.length)),
             "labels": torch.randint(0, 2, (args.batch_size,))}
    seconds: dict = {"fp32": [], "bf16": []}
    for _ in range(args.rounds):
        for name in ("fp32", "bf16"):
            seconds[name] += time_steps(model, batch, name == "bf16", args.steps)
            print(f"{name}: {' '.join(f'{s:.2f}' for s in seconds[name][-args.steps:])} s a step",
                  flush=True)
    summary = {**summarize(seconds), "batch_size": args.batch_size, "length": args.length,
               "steps": args.steps, "rounds": args.rounds, "threads": torch.get_num_threads(),
               "avx512_bf16": bool(getattr(torch.cpu, "_is_avx512_bf16_supported", lambda: None)()),
               "amx": bool(getattr(torch.cpu, "_is_amx_tile_supported", lambda: None)())}
    print(f"median step: float32 {summary['fp32_step_s']:.2f} s, bf16 autocast "
          f"{summary['bf16_step_s']:.2f} s: {summary['ratio']:.2f}x")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
