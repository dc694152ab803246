"""What the digest of a shard's documents (logicparse.batch.changes.digest) costs beside reading
them: a 200 MB .jsonl file (2,000 records of 100,000 characters) is written to a temporary
folder, read with the batch run's reader, and its documents hashed as a run hashes them. Once
with ASCII text, once with accented text (UTF-8 encoding is slower for it).

    python benchmarks/speed/input_digest.py
"""

import json
import tempfile
import time
from pathlib import Path

from logicparse.batch.changes import digest
from logicparse.batch.inputs import ReadOptions, read_documents, resolve_inputs

TEXTS = {"ascii": "It rains, so we stay. ", "accented": "Il pleut, donc nous restons à la maison. "}


def measure(path: Path, sentence: str) -> str:
    text = (sentence * (100_000 // len(sentence) + 1))[:100_000]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(2000):
            f.write(json.dumps({"id": f"d{i}", "text": text}) + "\n")
    start = time.perf_counter()
    docs = [d for _, d in read_documents(resolve_inputs([str(path)]), ReadOptions())]
    read = time.perf_counter() - start
    start = time.perf_counter()
    digest([d.id for d in docs], [d.text for d in docs], [d.error for d in docs])
    hashed = time.perf_counter() - start
    size = path.stat().st_size / 1e6
    return (f"{size:.0f} MB file, {len(docs):,} documents: read in {read:.2f} s, digest in "
            f"{hashed:.2f} s ({hashed / read:.0%} of the read)")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        for name, sentence in TEXTS.items():
            print(f"{name}: {measure(Path(tmp) / 'big.jsonl', sentence)}")
