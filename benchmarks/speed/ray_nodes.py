"""A Ray cluster of one node against two: ``logicparse annotate --engine ray`` on the same corpus,
one node, two nodes, one, two (``--rounds``), each node with one CPU, then the shards compared.

    python benchmarks/speed/ray_nodes.py [--corpus DIR] [--rounds 2]
    python benchmarks/speed/ray_nodes.py --rounds 0 --kill-after 20    # a node dies mid-run

Each node is a raylet and object store of its own (what ``ray start`` runs on a machine), started
with Ray's ``cluster_utils.Cluster``: on Linux, ``ray start --node-ip-address 127.0.0.1`` swaps
loopback for the machine's address and listens on every interface, and the one switch that keeps
loopback (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) makes ``ray start`` refuse a second node. Here
every server listens on 127.0.0.1 (checked over the listening sockets before the first run).

The run is the command a user types against a cluster (``--ray-address``, ``--workers`` one
per node), in a fresh process; its wall time includes start-up and the actors' model loading,
not the cluster's start. Rows: the manifests' shard digests, which must be the same in every run.

``--kill-after S``: one more two-node run, in which the second node is removed S seconds after
the command starts; reported is whether the run finished and whether its shards are the same.

Each finished run is appended to ``--out``/runs.jsonl at once; the last stdout line is one JSON
object with every figure.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import annotate_ab  # noqa: E402
DEFAULT_CORPUS = annotate_ab.DEFAULT_CORPUS
# Ray reads it at import, in this process and in every process it starts: nodes and the driver
# then take 127.0.0.1 as this machine's address.
LOOPBACK_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def start_cluster(nodes: int, object_store_mb: int):
    from ray.cluster_utils import Cluster

    args = dict(num_cpus=1, node_ip_address="127.0.0.1",
                object_store_memory=object_store_mb * 1024 * 1024)
    cluster = Cluster(initialize_head=True, head_node_args=dict(args, include_dashboard=False))
    for _ in range(nodes - 1):
        cluster.add_node(**args)
    cluster.wait_for_nodes()
    return cluster


def loopback(ip: str) -> bool:
    a = ipaddress.ip_address(ip)
    # A dual-stack socket bound to 127.0.0.1 shows as ::ffff:127.0.0.1.
    return a.is_loopback or bool(getattr(a, "ipv4_mapped", None) and a.ipv4_mapped.is_loopback)


def listening_elsewhere() -> list[str]:
    """Sockets this process's children (the cluster's servers) listen on beyond loopback."""
    import psutil

    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            out += [f"{c.laddr.ip}:{c.laddr.port} ({p.name()})" for c in p.net_connections("tcp")
                    if c.status == psutil.CONN_LISTEN and not loopback(c.laddr.ip)]
        except psutil.Error:  # a process that ended while being read
            pass
    return out


def annotate(address: str, corpus: Path, out: Path, workers: int, kill=None, checkout=ROOT) -> dict:
    """``annotate_ab.annotate`` (the user's command, timed) against the cluster at ``address``;
    ``kill``: (seconds, function) called that long after the start. Adds the shards' digests."""
    if kill is not None:
        threading.Timer(*kill).start()
    try:
        res = annotate_ab.annotate(checkout, corpus, out, workers,
                                   [f"{k}={v}" for k, v in LOOPBACK_ENV.items()],
                                   ["--engine", "ray", "--ray-address", address])
    except subprocess.CalledProcessError as e:
        return {"ok": False, "exit": e.returncode}
    shards = json.loads((out / "manifest.json").read_text())["shards"]
    return {"ok": True, **res, "shards": [s["sha256"] for s in shards]}


def summarize(one: list[float], two: list[float]) -> dict:
    """Speed-ups of two nodes over one: per order (one before two, two before one) and over all
    rounds (sum of one-node times over sum of two-node times)."""
    return {"one_node_seconds": one, "two_node_seconds": two,
            "speedup_one_then_two": [round(a / b, 3) for a, b in zip(one, two)],
            "speedup_two_then_one": [round(a / b, 3) for b, a in zip(two, one[1:])],
            "speedup_all": round(sum(one) / sum(two), 3) if two else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--object-store-mb", type=int, default=512, help="per node")
    ap.add_argument("--kill-after", type=float, default=0,
                    help="then a two-node run whose second node is removed after S seconds")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "ray-nodes")
    ap.add_argument("--checkout", type=Path, default=ROOT,
                    help="the logicparse checkout whose command is timed (default: this one)")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        ap.error(f"corpus {args.corpus} not found: pass --corpus DIR")
    os.environ.update(LOOPBACK_ENV)  # before Ray is imported
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "runs.jsonl"
    runs: dict[int, list[dict]] = {1: [], 2: []}
    exposed: list[str] = []
    for r in range(args.rounds):
        for nodes in (1, 2):
            cluster = start_cluster(nodes, args.object_store_mb)
            try:
                if r == 0:
                    exposed += listening_elsewhere()
                res = annotate(cluster.address, args.corpus.resolve(), args.out / f"nodes{nodes}",
                               workers=nodes, checkout=args.checkout.resolve())
            finally:
                cluster.shutdown()
            res.update(round=r, nodes=nodes)
            runs[nodes].append(res)
            with log.open("a") as f:
                f.write(json.dumps(res) + "\n")
            if not res["ok"]:
                raise SystemExit(f"{nodes} node(s), round {r}: the run failed (exit {res['exit']})")
            print(f"round {r}, {nodes} node(s): {res['wall_seconds']} s wall "
                  f"({res['run_seconds']} s run, {res['sentences']} sentences)", flush=True)
    all_runs = runs[1] + runs[2]
    result = {"corpus": str(args.corpus), "rounds": args.rounds, "cpus": os.cpu_count(),
              **summarize([x["wall_seconds"] for x in runs[1]], [x["wall_seconds"] for x in runs[2]]),
              "rows_identical": len({tuple(x["shards"]) for x in all_runs}) <= 1,
              "listening_beyond_loopback": exposed}
    if args.kill_after:
        cluster = start_cluster(2, args.object_store_mb)
        second = [n for n in cluster.list_all_nodes() if n is not cluster.head_node][0]
        try:
            res = annotate(cluster.address, args.corpus.resolve(), args.out / "killed", workers=2,
                           kill=(args.kill_after, lambda: cluster.remove_node(second)),
                           checkout=args.checkout.resolve())
        finally:
            cluster.shutdown()
        with log.open("a") as f:
            f.write(json.dumps(dict(res, killed_after=args.kill_after)) + "\n")
        same = bool(all_runs) and res.get("shards") == all_runs[0]["shards"]
        result["node_killed"] = {"after_seconds": args.kill_after, "finished": res["ok"],
                                 "wall_seconds": res.get("wall_seconds"),
                                 "rows_identical": same if res["ok"] else None}
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    if args.rounds:
        print(f"two nodes over one: one then two {result['speedup_one_then_two']}, two then one "
              f"{result['speedup_two_then_one']}, all rounds {result['speedup_all']}; rows "
              f"identical: {result['rows_identical']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
