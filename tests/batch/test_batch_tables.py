"""Parquet and Arrow inputs that are damaged or odd: a batch whose offsets point past its data is
one row with E357 and the other batches are read (pyarrow would have read past the buffer, and
segfaulted on such files); invalid UTF-8 in a dictionary or string-view column spoils its own row;
a dictionary's long value is one string for all its rows; rows a Parquet file declares but does
not give are a row; two columns of one name are E356; replaced dictionaries are not summed."""

import struct
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from logicparse.batch import filetypes, tables
from logicparse.batch.inputs import ReadOptions, count_documents, read_documents, resolve_inputs
from logicparse.batch.ipc import survey
from logicparse.errors import DataFormatError


def read(path, **opts):
    specs, o = resolve_inputs([str(path)]), ReadOptions(**opts)
    n = count_documents(specs, o)
    return n, [d for _, d in read_documents(specs, o, None)]


def test_a_batch_whose_offsets_run_past_its_data_is_one_row_and_the_rest_is_read(tmp_path):
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, pa.schema([("text", pa.string())])) as w:
        for texts in (["Fine one.", "Fine two."], ["one.", "two."], ["Last."]):
            w.write_table(pa.table({"text": texts}))
    data = bytearray(sink.getvalue().to_pybytes())
    at = data.index(struct.pack("<3i", 0, 4, 8))  # the offsets of ["one.", "two."]
    data[at:at + 12] = struct.pack("<3i", 0, 4, 1_000_000)
    (tmp_path / "damaged.arrow").write_bytes(bytes(data))
    n, docs = read(tmp_path / "damaged.arrow")
    assert n == 5 and [d.text for d in docs] == ["Fine one.", "Fine two.", None, "Last."]
    assert docs[2].error.startswith("[E357]") and "after row 2" in docs[2].error
    assert "out of bounds" in docs[2].error and docs[2].id == "damaged:3"
    assert "(2 rows; ArrowInvalid" in docs[2].error  # what the batch held


DAMAGED = Path(__file__).parents[1] / "fixtures" / "batch" / "damaged"


@pytest.mark.parametrize("name, row, counts", [("offsets.arrow", 77, "194 193"),
                                               ("dictionary.arrow", 0, "1 0")])
def test_files_whose_bytes_would_crash_pyarrow_are_a_row_each_damaged_batch(name, row, counts):
    """Two files of 200 rows, in batches of 7, each with one flipped byte (an offset; a
    dictionary's offset), on which pyarrow's own reading ended the process (SIGSEGV; SIGABRT from
    std::length_error). Read in a child process, so that a crash fails this test alone."""
    script = ("import sys; from logicparse.batch.inputs import ReadOptions, read_documents, "
              "resolve_inputs; docs = [d for _, d in read_documents(resolve_inputs([sys.argv[1]]), "
              "ReadOptions(), None)]; print(len(docs), sum(d.error is None for d in docs)); "
              "print(next(d.error for d in docs if d.error))")
    r = subprocess.run([sys.executable, "-c", script, str(DAMAGED / name)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-500:])
    # offsets: one batch of 7 rows lost, the other 193 read; the dictionary: every batch's.
    assert r.stdout.splitlines()[0] == counts
    error = r.stdout.splitlines()[1]
    assert error.startswith("[E357]") and f"after row {row}:" in error


def _write(table, path):
    """``table`` as Parquet or as an Arrow IPC file, by ``path``'s suffix."""
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        with pa.ipc.new_file(str(path), table.schema) as w:
            w.write_table(table)
    return path


def _invalid_dictionary():
    strings = pa.array([b"ok one.", b"bad \xff text.", b"fine."]).view(pa.string())
    return pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int32()), strings)


@pytest.mark.parametrize("kind", ["arrow", "parquet"])
def test_invalid_utf8_in_a_dictionary_column_spoils_its_own_row(tmp_path, kind):
    table = pa.table({"id": ["a", "b", "c"], "text": _invalid_dictionary()})
    n, docs = read(_write(table, tmp_path / f"t.{kind}"))
    assert n == 3 and [d.id for d in docs] == ["a", "b", "c"]
    assert docs[0].text == "ok one." and docs[2].text == "fine."
    assert docs[1].error.startswith("[E340]") and "invalid UTF-8" in docs[1].error


@pytest.mark.skipif(not hasattr(pa, "string_view"), reason="pyarrow before 16")
def test_invalid_utf8_in_a_string_view_column_spoils_its_own_row(tmp_path):
    texts = pa.array([b"ok one.", b"bad \xff text."], pa.binary_view()).view(pa.string_view())
    with pa.ipc.new_file(str(tmp_path / "v.arrow"), pa.schema([("text", pa.string_view())])) as w:
        w.write_table(pa.table({"text": texts}))
    n, docs = read(tmp_path / "v.arrow")
    assert docs[0].text == "ok one." and docs[1].error.startswith("[E340]")


def test_a_dictionary_value_is_one_string_for_all_its_rows(tmp_path):
    """A 10 kB file of 64 rows of one 100 MB text took 3.4 GB, 16 copies at a time."""
    text = "It rained. " * 1000
    column = pa.DictionaryArray.from_arrays(pa.array([0] * 40, pa.int32()), pa.array([text]))
    with pa.ipc.new_file(str(tmp_path / "d.arrow"), pa.schema([("text", column.type)])) as w:
        w.write_table(pa.table({"text": column}))
    values = tables._values(column)
    assert values == [text] * 40 and all(v is values[0] for v in values)
    n, docs = read(tmp_path / "d.arrow")
    assert n == 40 and all(d.text == text for d in docs)


def test_rows_a_parquet_file_declares_but_does_not_give_are_a_row(tmp_path, monkeypatch):
    pq.write_table(pa.table({"text": [f"Text {i}." for i in range(40)]}), tmp_path / "p.parquet",
                   row_group_size=16)
    real = tables._checked
    # A damaged row count in a row group's metadata makes the reader stop early, without error.
    monkeypatch.setattr(tables, "_checked", lambda batches, fields: (
        b for i, b in enumerate(real(batches, fields)) if i < 2))
    n, docs = read(tmp_path / "p.parquet")
    assert n == 40 and len(docs) == 33 and docs[-1].id == "p:33"
    assert docs[-1].error.startswith("[E357]") and "declares 40 rows and 32 were read" in docs[-1].error


def test_damaged_parquet_metadata_is_e338_before_any_work(tmp_path, monkeypatch):
    pq.write_table(pa.table({"text": ["x"]}), tmp_path / "p.parquet")

    def undecodable(*args):
        raise UnicodeDecodeError("utf-8", b"\xe5", 0, 1, "invalid continuation byte")

    monkeypatch.setattr(tables, "_parquet_columns", undecodable)
    with pytest.raises(DataFormatError) as e:
        read(tmp_path / "p.parquet")
    assert e.value.code == "E338" and "invalid continuation byte" in str(e.value)


@pytest.mark.parametrize("kind", ["arrow", "parquet"])
def test_two_columns_of_one_name_are_refused_before_any_work(tmp_path, kind):
    table = pa.Table.from_arrays([pa.array(["a."]), pa.array(["b."])], names=["text", "text"])
    with pytest.raises(DataFormatError) as e:
        read(_write(table, tmp_path / f"dup.{kind}"))
    assert e.value.code == "E356" and "2 columns named 'text'" in str(e.value)


def test_a_replaced_dictionary_is_not_added_to_the_one_before(tmp_path, monkeypatch):
    """Each of 24 one-row batches with a dictionary of its own 100 kB text: about 100 kB in
    memory at a time, not 2.4 MB; deltas add up."""
    schema = pa.schema([("text", pa.dictionary(pa.int32(), pa.string()))])

    def stream(deltas: bool):
        sink = pa.BufferOutputStream()
        opts = pa.ipc.IpcWriteOptions(compression="zstd", emit_dictionary_deltas=deltas)
        with pa.ipc.new_stream(sink, schema, options=opts) as w:
            values = []
            for i in range(24):
                values = values + [f"{'y' * 100_000} {i}"] if deltas else [f"{'y' * 100_000} {i}"]
                w.write_batch(pa.record_batch([pa.DictionaryArray.from_arrays(
                    pa.array([len(values) - 1], pa.int32()), pa.array(values))], schema=schema))
        return sink.getvalue()

    rows, most = survey(stream(False), False)
    assert rows == 24 and 100_000 < most < 110_000
    rows, most = survey(stream(True), False)
    assert rows == 24 and 2_400_000 < most < 2_500_000
    (tmp_path / "replaced.arrow").write_bytes(stream(False).to_pybytes())
    monkeypatch.setattr(filetypes, "TABLE_INFLATE_LIMIT", 1_000_000)
    n, docs = read(tmp_path / "replaced.arrow")
    assert n == 24 and docs[23].text.endswith(" 23")


def test_table_ids_that_are_not_strings_are_written_as_a_reader_expects(tmp_path):
    """Bytes were `b'x'`, a boolean `True`, a struct Python's dict."""
    ids = {"bytes": pa.array([b"x1", b"caf\xe9", None]), "bool": pa.array([True, False, None]),
           "struct": pa.array([{"a": 1, "b": "y"}, None, {"a": None, "b": "z"}]),
           "list": pa.array([[1, 2], [], None]), "float": pa.array([1.5, 2.0, None])}
    expected = {"bytes": ["x1", "caf\\xe9"], "bool": ["true", "false"],
                "struct": ['{"a":1,"b":"y"}', "t:2", '{"a":null,"b":"z"}'],
                "list": ["[1,2]", "[]"], "float": ["1.5", "2.0"]}
    for kind, column in ids.items():
        pq.write_table(pa.table({"id": column, "text": ["A.", "B.", "C."]}), tmp_path / "t.parquet")
        n, docs = read(tmp_path / "t.parquet")
        assert [d.id for d in docs] == (expected[kind] + ["t:3"])[:3], kind
        assert n == 3 and all(d.error is None for d in docs)
