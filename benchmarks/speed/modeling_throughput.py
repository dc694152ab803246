"""Training-step time of a Logical Transformer over its baseline: same model, same batch, one run.

A step is what the training loop does: forward (bf16 autocast on GPU), backward, clipping, AdamW.
Both variants are timed in the same process, interleaved, after warm-up; the ratio of the medians
is reported. Peak memory: on GPU torch.cuda.max_memory_allocated per variant; on CPU the peak
resident size of a fresh child process per variant (torch's CPU allocations are invisible to
tracemalloc).

    python benchmarks/speed/modeling_throughput.py                      # MiniLM, DREAM-like batch
    python benchmarks/speed/modeling_throughput.py --device cuda --batch 8 --seq 512

Prints a table and, last, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

from logicparse.resources import offline_environment  # noqa: E402

offline_environment()

import torch  # noqa: E402


def build(args, logic: bool):
    import transformers

    from logicparse.modeling import logicalize
    from logicparse.training.train import resolve_model_path

    torch.manual_seed(0)
    model = transformers.AutoModelForMultipleChoice.from_pretrained(resolve_model_path(args.model))
    if logic:
        logicalize(model, k=args.k, variant=args.layer)
    model.to(args.device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=args.device.startswith("cuda"))
    return model, opt


def make_batch(args, vocab: int):
    g = torch.Generator().manual_seed(1)
    shape = (args.batch, args.choices, args.seq)
    ids = torch.randint(1000, vocab, shape, generator=g)
    # A share of the tokens (--labelled; a third by default, as annotated dialogue text has) carry
    # labels, up to K deep. The centered layer's cost grows with that share.
    logic = torch.randint(1, 35, (*shape, args.k), generator=g)
    depth = torch.randint(0, args.k + 1, shape, generator=g)
    logic[torch.arange(args.k).expand(*shape, args.k) >= depth[..., None]] = 0
    logic[torch.rand(shape, generator=g) > args.labelled] = 0
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
             "token_type_ids": torch.zeros_like(ids),
             "labels": torch.randint(0, args.choices, (args.batch,), generator=g)}
    return {k: v.to(args.device) for k, v in batch.items()}, logic.to(args.device)


def step(model, opt, batch, logic, device):
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if device.startswith("cuda") else torch.autocast("cpu", enabled=False)
    with ctx:
        loss = model(**batch, **({"logic_ids": logic} if logic is not None else {})).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)


def sync(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _vm_hwm_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_peak(args, variant: str) -> float:
    """Peak RSS (MiB) of a fresh process that builds one variant and runs a few steps."""
    cmd = [sys.executable, __file__, "--child", variant, "--model", args.model, "--batch",
           str(args.batch), "--choices", str(args.choices), "--seq", str(args.seq), "--k",
           str(args.k), "--device", args.device, "--layer", args.layer, "--labelled", str(args.labelled)] + (["--threads", str(args.threads)] if args.threads else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="all-MiniLM-L6-v2")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--batch", type=int, default=None, help="examples (default: 8 GPU, 2 CPU)")
    p.add_argument("--choices", type=int, default=3)
    p.add_argument("--seq", type=int, default=None, help="subwords (default: 512 GPU, 128 CPU)")
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--layer", default="centered", choices=["centered", "paper"])
    p.add_argument("--labelled", type=float, default=0.33, help="share of tokens with labels")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=None, help="timed steps per variant")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    p.add_argument("--child", choices=["baseline", "logical"], help=argparse.SUPPRESS)
    args = p.parse_args()
    gpu = args.device.startswith("cuda")
    args.batch = args.batch or (8 if gpu else 2)
    args.seq = args.seq or (512 if gpu else 128)
    args.repeats = args.repeats or (30 if gpu else 8)
    if args.threads:
        torch.set_num_threads(args.threads)

    if args.child:
        model, opt = build(args, args.child == "logical")
        batch, logic = make_batch(args, model.config.vocab_size)
        # Loading peaks higher than training on CPU: reset the high-water mark (Linux) so that
        # the figure is the peak of the training steps, model and optimizer state included.
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        for _ in range(2):
            step(model, opt, batch, logic if args.child == "logical" else None, args.device)
        print(_vm_hwm_mib())
        return

    variants, params = {}, {}
    for name in ("baseline", "logical"):
        model, opt = build(args, name == "logical")
        variants[name] = (model, opt)
        params[name] = sum(q.numel() for q in model.parameters())
    batch, logic = make_batch(args, variants["baseline"][0].config.vocab_size)
    inputs = {"baseline": None, "logical": logic}
    times = {n: [] for n in variants}
    peak = {}
    for name, (model, opt) in variants.items():
        if gpu:
            torch.cuda.reset_peak_memory_stats()
        for _ in range(args.warmup):
            step(model, opt, batch, inputs[name], args.device)
        sync(args.device)
        if gpu:
            peak[name] = torch.cuda.max_memory_allocated() / 2**20
    # Interleaved, so that clock or load drift hits both variants alike.
    for _ in range(args.repeats):
        for name, (model, opt) in variants.items():
            sync(args.device)
            t = time.perf_counter()
            step(model, opt, batch, inputs[name], args.device)
            sync(args.device)
            times[name].append(time.perf_counter() - t)
    if not gpu:
        del variants
        peak = {n: child_peak(args, n) for n in ("baseline", "logical")}

    med = {n: statistics.median(v) for n, v in times.items()}
    ratio = med["logical"] / med["baseline"]
    device_name = torch.cuda.get_device_name() if gpu else f"cpu ({torch.get_num_threads()} threads)"
    print(f"model {args.model}  device {device_name}  batch {args.batch}x{args.choices}x{args.seq}  K={args.k}"
          f"  {args.layer} layer, {args.labelled:.0%} of tokens labelled")
    print(f"{'variant':<10}{'step ms (median)':>18}{'min ms':>10}{'peak MiB':>12}{'params':>14}")
    for n in ("baseline", "logical"):
        print(f"{n:<10}{1000 * med[n]:>18.1f}{1000 * min(times[n]):>10.1f}{peak[n]:>12.0f}{params[n]:>14,}")
    min_ratio = min(times["logical"]) / min(times["baseline"])
    print(f"step-time ratio logical/baseline: {ratio:.3f} (medians), {min_ratio:.3f} (fastest steps)"
          "   target on GPU: <= 1.05")
    print(json.dumps({
        "device": device_name, "model": args.model, "batch": [args.batch, args.choices, args.seq],
        "k": args.k, "layer": args.layer, "labelled": args.labelled, "repeats": args.repeats, "bf16": gpu,
        "baseline_step_ms": round(1000 * med["baseline"], 2),
        "logical_step_ms": round(1000 * med["logical"], 2), "ratio": round(ratio, 4), "ratio_of_min": round(min_ratio, 4),
        "baseline_peak_mib": round(peak["baseline"], 1), "logical_peak_mib": round(peak["logical"], 1),
        "peak_memory": "cuda.max_memory_allocated" if gpu else "peak RSS of the training steps (child process)",
        "added_params": params["logical"] - params["baseline"]}))


if __name__ == "__main__":
    main()
