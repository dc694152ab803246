"""Files a logicparse user may receive from elsewhere, written for the robustness cases and the
tests that check the readers refuse them (the tests load this file from the checkout)."""

from __future__ import annotations

from pathlib import Path


def write_zip_bomb(path: Path, inflated: int = 64 << 20) -> None:
    """A torch checkpoint whose tensor entry is deflated zeros declaring ``inflated`` bytes, the
    rest copied from a real one: torch reads it (and allocates every declared byte) unless it is
    refused. Written a MiB at a time, so the writer never holds the inflated size."""
    import zipfile

    import torch

    real = path.with_name("real.pt")
    torch.save({"model": {"w": torch.zeros(4)}, "step": 1}, real)
    zeros = bytes(1 << 20)
    with zipfile.ZipFile(real) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            if not info.filename.endswith("/data/0"):
                dst.writestr(info.filename, src.read(info))
                continue
            entry = zipfile.ZipInfo(info.filename)
            entry.compress_type = zipfile.ZIP_DEFLATED
            with dst.open(entry, "w", force_zip64=True) as out:
                for _ in range(inflated >> 20):
                    out.write(zeros)
    real.unlink()


def write_finished_run(path: Path, table, **manifest) -> Path:
    """``table`` (a pyarrow Table, whatever its schema) as shard 0 of a finished run, its manifest
    entry made from the file alone; ``manifest`` adds or overrides manifest fields."""
    import pyarrow as pa

    from logicparse.batch import shards as sh
    from logicparse.tokens import SCHEMA_VERSION

    path.mkdir(parents=True, exist_ok=True)
    shard = path / sh.shard_name(0)
    with pa.OSFile(str(shard), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)
    entry = {"file": shard.name, "rows": table.num_rows, "bytes": shard.stat().st_size,
             "sha256": sh.file_sha256(shard), "failed": 0}
    sh.write_manifest(path, {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION,
                             "complete": True, "shards": [entry], **manifest})
    return path
