"""What one sentence costs the bundled parser as it gets longer: seconds per sentence and the
rise of the process's peak RSS, for 4 sentences of N tokens parsed together (one parser call;
the peak of the first call, the time of two more), each N in a fresh process so that peaks do
not mask each other.

Why it matters: the parser's chart grows with the square of the sentence length, so the service
bounds work by tokens and parses sentences in chunks whose squared lengths are bounded
(``logicparse.annotator.PARSE_CHUNK_COST``).

Prints one line per length, then one JSON object as the last line of stdout.

    python benchmarks/speed/parse_cost.py
    python benchmarks/speed/parse_cost.py --lengths 25 300
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

WORDS = ("the committee said that the plan would be presented again to the council because it "
         "was too expensive").split()

ONE = r"""
import json, resource, sys, time, torch
torch.set_num_threads(1)
from logicparse.parser import load_parser
n = int(sys.argv[1]); words = json.loads(sys.argv[2])
parser = load_parser("default")
parser.parse([["It", "rains", "."]])
toks = [words[i % len(words)] for i in range(n)]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
parser.parse([toks] * 4)  # the first call at this length: its memory peak
rise = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
t0 = time.perf_counter()
for _ in range(2):  # then its time, warm
    parser.parse([toks] * 4)
seconds = (time.perf_counter() - t0) / 8
print(json.dumps({"tokens": n, "s_per_sentence": round(seconds, 4),
                  "ms_per_token": round(1000 * seconds / n, 3), "peak_rss_rise_mb": round(rise)}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", type=int, nargs="*", default=[25, 50, 100, 200, 300])
    args = ap.parse_args()
    rows = []
    for n in args.lengths:
        out = subprocess.run([sys.executable, "-c", ONE, str(n), json.dumps(WORDS)],
                             capture_output=True, text=True, check=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        rows.append(row)
        print(f"{n:4d} tokens: {row['s_per_sentence']:.3f} s/sentence, {row['ms_per_token']:.2f} "
              f"ms/token, peak RSS +{row['peak_rss_rise_mb']} MiB for 4 sentences", flush=True)
    base = rows[0]
    print(json.dumps({"benchmark": "parse_cost", "rows": rows, "longest_vs_shortest_s": round(
        rows[-1]["s_per_sentence"] / base["s_per_sentence"], 1)}))


if __name__ == "__main__":
    main()
