"""Documents made in process as a finished shard directory (logicparse.batch.shards.
write_documents): the manifest a later run or `logicparse shards` reads, and a folder written
again."""

import json

from logicparse.batch import shards as sh
from logicparse.tokens import SCHEMA_VERSION, Document

DOCS = [Document(id="a", text="It rained", tokens=["It", "rained"], token_starts=[0, 3],
                 token_ends=[2, 9], sentence_starts=[0], logic=[[28], []]),
        Document.failed("b", "Boom", "[E320] the parser failed")]


def test_the_manifest_is_a_finished_one_shard_run(tmp_path):
    out = tmp_path / "new" / "run"  # neither folder exists yet
    m = sh.write_documents(out, DOCS, parser="p")
    (entry,) = m["shards"]
    assert m == {"format": "logicparse-shards", "schema_version": SCHEMA_VERSION,
                 "complete": True, "documents": 2, "planned_shards": 1, "compression": "zstd",
                 "failed": 1, "parser": "p", "shards": [entry]}
    assert json.loads((out / sh.MANIFEST).read_text()) == m
    assert entry["file"] == "shard-00000.arrow" and entry["rows"] == 2
    assert list(sh.iter_documents(out, verify=True)) == DOCS
    # written again over the same folder: the new documents, verified
    m = sh.write_documents(out, DOCS[:1])
    assert (m["documents"], m["failed"]) == (1, 0)
    assert list(sh.iter_documents(out, verify=True)) == DOCS[:1]
