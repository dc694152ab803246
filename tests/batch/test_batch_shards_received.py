"""Shards from elsewhere: every reader refuses a shard whose columns, label ids or file kind are
not what logicparse writes, with a coded error, and the search for shard directories stays in its
folder."""

import pyarrow as pa
import pytest
from conftest import benchmark_module
from test_batch_shards import docs, write_dir

from logicparse.batch import shards as sh
from logicparse.errors import DataFormatError, LogicparseError
from logicparse.tokens import ARROW_SCHEMA, SCHEMA_VERSION

# the writer the robustness cases use
write_foreign = benchmark_module("robustness/_received_files").write_finished_run


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


def test_a_label_id_one_past_the_last_label_is_refused(tmp_path):
    # 35 is the first id with no label: LABELS[35] would raise (or, for an embedding table, read
    # past the vocabulary) wherever the labels are shown, so the bound is exact, not roughly 34.
    bad = docs()
    bad[0].logic[1] = [35]
    write_foreign(tmp_path / "past", sh.documents_to_table(bad))
    with pytest.raises(DataFormatError) as e:
        sh.read_shards(tmp_path / "past")
    assert str(e.value).startswith(f"[E511] {tmp_path / 'past' / 'shard-00000.arrow'}, document "
                                   "'d0': label id 35 is outside 0-34")


def test_a_missing_shard_is_refused_as_missing(tmp_path):
    # A manifest can list a shard that was deleted since (failed_ids reads the shards it lists):
    # the message says the file is missing, not that it is a link to nothing.
    write_dir(tmp_path)
    gone = tmp_path / "shard-00007.arrow"
    with pytest.raises(DataFormatError) as e:
        sh.read_shard(gone)
    assert str(e.value) == sh.Errors.E513.format(path=gone, reason="it is missing")


def test_a_shard_version_that_is_not_utf8_is_a_version_mismatch(tmp_path):
    # The version bytes come from another program: undecodable ones are shown replaced in the
    # E512 message (which says to re-annotate), never a decoding crash.
    table = sh.documents_to_table(docs()).replace_schema_metadata({sh.VERSION_KEY: b"\xff1"})
    write_foreign(tmp_path / "v", table)
    shard = tmp_path / "v" / "shard-00000.arrow"
    for read in (lambda: sh.read_shards(tmp_path / "v", verify=True), lambda: sh.read_shard(shard)):
        with pytest.raises(DataFormatError) as e:
            read()
        assert str(e.value) == sh.Errors.E512.format(path=shard, got="\ufffd1",
                                                     want=SCHEMA_VERSION)


def test_a_shard_that_vanishes_before_it_is_opened_is_refused_with_the_os_reason(tmp_path,
                                                                                monkeypatch):
    # Removed between the file check and the open (another run's --overwrite): pyarrow raises an
    # OSError with an errno; the message gives its reason, without Python's "[Errno 2]" prefix.
    write_dir(tmp_path)
    shard = tmp_path / "shard-00000.arrow"
    real = pa.memory_map

    def vanishing(path, *args, **kwargs):
        shard.unlink()
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pa, "memory_map", vanishing)
    with pytest.raises(DataFormatError) as e:
        sh.read_shard(shard)
    message = str(e.value)
    assert message.startswith(f"[E513] {shard} is not a logicparse Arrow IPC shard (Failed to open "
                              f"local file '{shard}'"), message
    assert "[Errno" not in message and "No such file or directory" in message


def relations_with(fields):
    """ARROW_SCHEMA with the struct of ``relations`` items made of ``fields``."""
    return ARROW_SCHEMA.set(ARROW_SCHEMA.get_field_index("relations"),
                            pa.field("relations", pa.list_(pa.struct(fields))))


def test_schema_problems_name_a_renamed_field_a_shorter_struct_and_both_column_orders(tmp_path):
    rel = list(ARROW_SCHEMA.field("relations").type.value_type)
    # A field renamed with its type kept is named by both names: the types alone look the same.
    renamed = relations_with([f.with_name("score") if f.name == "confidence" else f for f in rel])
    assert sh.schema_problem(renamed) == ("relations.item has a field 'score' where shards have "
                                          "'confidence'")
    # A struct with a field fewer is a different struct, shown whole but cut at 300 characters
    # (the two struct types run to 600). Its fields are not compared one by one (the shard's
    # struct has no tenth): a shard from elsewhere is a coded error, not an IndexError.
    dropped = relations_with(rel[:-1])
    full = f"column relations.item is {pa.struct(rel[:-1])}, not {pa.struct(rel)}"
    assert len(full) > 301
    assert sh.schema_problem(dropped) == full[:300]
    table = sh.documents_to_table(docs())
    narrow = pa.Table.from_pylist(table.to_pylist(), schema=dropped)
    write_foreign(tmp_path / "narrow", narrow)
    with pytest.raises(DataFormatError) as e:
        sh.read_shards(tmp_path / "narrow", verify=True)
    assert str(e.value) == sh.Errors.E513.format(path=tmp_path / "narrow" / "shard-00000.arrow",
                                                 reason=full[:300])
    # Columns out of order are listed both ways, each comma-separated.
    moved = pa.schema([ARROW_SCHEMA.field(1), ARROW_SCHEMA.field(0), *list(ARROW_SCHEMA)[2:]])
    names = ARROW_SCHEMA.names
    assert sh.schema_problem(moved) == (f"its columns are text, id, {', '.join(names[2:])}; "
                                        f"shards have {', '.join(names)}")


def test_a_manifest_that_is_not_an_object_names_the_json_kind(tmp_path):
    (tmp_path / "manifest.json").write_text("[1, 2]\n")
    with pytest.raises(DataFormatError) as e:
        sh.read_manifest(tmp_path)
    assert str(e.value) == sh.Errors.E342.format(path=tmp_path / "manifest.json",
                                                 reason="it holds a JSON list, not an object")
