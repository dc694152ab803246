"""Shards from elsewhere: every reader refuses a shard whose columns, label ids or file kind are
not what logicparse writes, with a coded error, and the search for shard directories stays in its
folder."""

import pyarrow as pa
import pytest
from test_batch_shards import docs, write_dir

from logicparse.batch import shards as sh
from logicparse.errors import DataFormatError, LogicparseError
from logicparse.tokens import ARROW_SCHEMA, SCHEMA_VERSION


def write_foreign(path, table):
    """``table`` as shard 0 of a finished run, its manifest entry made from the file alone."""
    path.mkdir(parents=True, exist_ok=True)
    shard = path / sh.shard_name(0)
    with pa.OSFile(str(shard), "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)
    entry = {"file": shard.name, "rows": table.num_rows, "bytes": shard.stat().st_size,
             "sha256": sh.file_sha256(shard), "failed": 0}
    sh.write_manifest(path, {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION,
                             "complete": True, "shards": [entry]})


def readers(path):
    """Every way a shard directory is read: the Python readers and both commands."""
    from typer.testing import CliRunner

    from logicparse.batch.stats import shard_stats
    from logicparse.cli import _register, app

    _register()
    yield lambda: sh.read_shards(path, verify=True)
    yield lambda: list(sh.iter_documents(path, verify=True))
    yield lambda: sh.find_document(path, "d0")
    yield lambda: shard_stats(path)
    for args in (["stats"], ["show", "--id", "d0", "--labels"], ["show", "--id", "d0", "--json"]):
        yield lambda args=args: CliRunner().invoke(app, ["shards", args[0], str(path), *args[1:]])


def refusals(path) -> list[str]:
    out = []
    for read in readers(path):
        try:
            result = read()
        except LogicparseError as e:
            out.append(str(e))
            continue
        assert getattr(result, "exit_code", None) == 2, getattr(result, "output", result)
        out.append(" ".join(result.output.split()).removeprefix("error: "))
    return out


def test_a_shard_whose_column_types_differ_under_a_valid_version_is_refused(tmp_path):
    table = sh.documents_to_table(docs())
    cols = {n: table.column(n) for n in table.column_names}
    cols["tokens"], cols["token_starts"] = cols["token_starts"], cols["tokens"]
    swapped = pa.table(cols).replace_schema_metadata(ARROW_SCHEMA.metadata)
    write_foreign(tmp_path / "swapped", swapped)
    for message in refusals(tmp_path / "swapped"):
        assert message.startswith(f"[E513] {tmp_path / 'swapped' / 'shard-00000.arrow'} is not a "
                                  "logicparse Arrow IPC shard (column tokens.item is int32, not "
                                  "string)"), message
    # A field inside a column is named by its path; a column dropped or moved is named too.
    rel = ARROW_SCHEMA.field("relations").type.value_type
    wide = pa.list_(pa.struct([f.with_type(pa.float64()) if f.name == "confidence" else f
                               for f in rel]))
    schema = ARROW_SCHEMA.set(ARROW_SCHEMA.get_field_index("relations"),
                              pa.field("relations", wide))
    assert sh.schema_problem(schema) == "column relations.item.confidence is double, not float"
    assert sh.schema_problem(ARROW_SCHEMA.remove(0)) == "it lacks the column 'id'"
    moved = pa.schema([ARROW_SCHEMA.field(1), ARROW_SCHEMA.field(0), *list(ARROW_SCHEMA)[2:]])
    assert sh.schema_problem(moved).startswith("its columns are text, id, tokens")
    assert sh.schema_problem(ARROW_SCHEMA) is None


def test_a_label_id_past_the_vocabulary_is_refused_naming_the_document(tmp_path):
    bad = docs()
    bad[1].logic[2] = [3, 200]
    write_foreign(tmp_path / "labels", sh.documents_to_table(bad))
    for message in refusals(tmp_path / "labels"):
        assert message.startswith(f"[E511] {tmp_path / 'labels' / 'shard-00000.arrow'}, document "
                                  "'d1': label id 200 is outside 0-34"), message
    bad[1].logic[2] = [3, 34]  # the last label is a label
    write_foreign(tmp_path / "last", sh.documents_to_table(bad))
    assert list(sh.iter_documents(tmp_path / "last")) == bad


@pytest.mark.parametrize("kind, reason", [("dangling", "it is a link to nothing"),
                                          ("folder", "it is a folder"),
                                          ("device", "it is not a regular file")])
def test_a_shard_that_is_not_a_file_is_refused(tmp_path, kind, reason):
    write_dir(tmp_path)
    shard = tmp_path / "shard-00001.arrow"
    shard.unlink()
    {"dangling": lambda: shard.symlink_to(tmp_path / "gone.arrow"), "folder": shard.mkdir,
     "device": lambda: shard.symlink_to("/dev/zero")}[kind]()
    (tmp_path / "manifest.json").unlink()  # no manifest to verify against: the reader meets it
    with pytest.raises(DataFormatError) as e:
        sh.read_shards(tmp_path)
    assert str(e.value) == sh.Errors.E513.format(path=shard, reason=reason)


def test_the_search_for_shard_dirs_follows_no_link_below_its_folder_and_is_bounded(tmp_path,
                                                                                  monkeypatch):
    write_dir(tmp_path / "elsewhere" / "run")
    (tmp_path / "cache" / "deep" / "er").mkdir(parents=True)
    write_dir(tmp_path / "cache" / "deep" / "er" / "run")
    (tmp_path / "cache" / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "cache" / "loop").symlink_to(tmp_path / "cache")
    (tmp_path / "root-link").symlink_to(tmp_path / "cache")  # the folder given may be a link
    for root in (tmp_path / "cache", tmp_path / "root-link"):
        assert sh.find_shard_dirs(root) == [root / "deep" / "er" / "run"]
    monkeypatch.setattr(sh, "MAX_SEARCH_DIRS", 3, raising=False)
    with pytest.raises(DataFormatError) as e:
        sh.find_shard_dirs(tmp_path / "root-link")
    assert str(e.value).startswith(f"[E348] {tmp_path / 'root-link'} holds more than 3 folders")
    assert "Point --shards at a shard directory" in str(e.value)
