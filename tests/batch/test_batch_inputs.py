"""Readers of `logicparse annotate`: every input kind, ids, order, decoding fallback, bad input."""

import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from logicparse.batch import filetypes
from logicparse.batch.inputs import (ReadOptions, count_documents, decode, read_documents,
                                     resolve_inputs)
from logicparse.errors import DataFormatError

FIX = Path(__file__).parents[1] / "fixtures" / "batch"
CORPUS = FIX / "corpus"


def read(paths, stdin=None, **opts):
    o = ReadOptions(**opts)
    specs = resolve_inputs([str(p) for p in paths])
    docs = [d for _, d in read_documents(specs, o, stdin)]
    return docs, count_documents(specs, o)


def test_directory_is_read_recursively_in_sorted_order_with_relative_ids():
    docs, n = read([CORPUS])
    assert [d.id for d in docs] == ["alpha", "beta", "letters/empty", "letters/gamma",
                                    "letters/latin1"]
    assert n == 5
    assert docs[0].text.startswith("The bridge was closed")
    assert docs[2].text == ""  # an empty file is still a document


def test_latin1_file_is_decoded_with_the_fallback_never_dropped():
    docs, _ = read([CORPUS / "letters" / "latin1.txt"])
    assert docs[0].id == "latin1" and docs[0].fallback
    assert "café" in docs[0].text and "crème brûlée" in docs[0].text
    assert not read([CORPUS / "alpha.txt"])[0][0].fallback


@pytest.mark.parametrize("fallback,expected", [
    ("latin-1", "\x93quoted\x94 caf\xe9"),
    ("cp1252", "\u201cquoted\u201d caf\xe9"),
    ("replace", "\ufffdquoted\ufffd caf\ufffd"),
])
def test_fallbacks(fallback, expected):
    text, fell_back = decode(b"\x93quoted\x94 caf\xe9", ReadOptions(fallback=fallback))
    assert fell_back and text == expected


def test_cp1252_keeps_bytes_it_leaves_undefined():
    text, _ = decode(b"a\x81b\x93", ReadOptions(fallback="cp1252"))
    assert text == "a\x81b\u201c"


def test_utf8_bom_is_dropped():
    assert decode("\ufeffhello".encode("utf-8"), ReadOptions()) == ("hello", False)


def test_jsonl_with_configurable_fields_and_default_ids():
    docs, n = read([FIX / "docs.jsonl"], text_field="body", id_field="doc_id")
    assert [d.id for d in docs] == ["j-1", "j-2", "docs:4"]  # blank line 3 skipped
    assert docs[1].text.startswith("Prices rose")
    assert n == 3


def test_jsonl_missing_text_field_names_the_option():
    with pytest.raises(DataFormatError, match="docs.jsonl, line 1: .*--text-field"):
        read([FIX / "docs.jsonl"])


def test_bad_jsonl_records_become_documents_with_a_coded_error(tmp_path):
    """Every record in, one document out: a line that is not JSON, not an object, a text that is
    not a string or null or missing each keep their place with the error naming file and line."""
    p = tmp_path / "bad.jsonl"
    p.write_text('{"text": "ok"}\n{not json}\n[1, 2]\n{"id": "n", "text": 5}\n'
                 '{"text": null}\n{"body": "x"}\n' + "[" * 100000 + "\n" + '{"text": "end"}\n')
    docs, n = read([p])
    assert n == len(docs) == 8
    assert [d.id for d in docs] == ["bad:1", "bad:2", "bad:3", "n", "bad:5", "bad:6", "bad:7",
                                    "bad:8"]
    assert [d.text for d in docs] == ["ok", None, None, None, None, None, None, "end"]
    errors = [d.error for d in docs]
    assert errors[0] is None and errors[-1] is None
    assert errors[1].startswith("[E303]") and "line 2: not valid JSON" in errors[1]
    assert errors[2].startswith("[E304]") and "line 3" in errors[2]
    assert errors[3].startswith("[E335]") and "line 4" in errors[3] and "of type int" in errors[3]
    assert "line 5" in errors[4] and "is null" in errors[4]
    assert "line 6" in errors[5] and "missing (fields: body)" in errors[5]
    assert errors[6].startswith("[E303]") and "nested too deeply" in errors[6]


def test_table_text_that_is_not_a_string_is_a_row_with_its_error(tmp_path):
    pq.write_table(pa.table({"text": [1, 2, None]}), tmp_path / "ints.parquet")
    docs, n = read([tmp_path / "ints.parquet"])
    assert n == 3 and [d.id for d in docs] == ["ints:1", "ints:2", "ints:3"]
    assert all(d.text is None and d.error.startswith("[E335]") for d in docs)
    assert "ints.parquet, row 2" in docs[1].error and "of type int" in docs[1].error
    assert "is null" in docs[2].error


def test_unreadable_files_are_documents_with_their_error(tmp_path):
    """A symlink loop (and a dangling link) named *.txt in a directory is not skipped: it is a
    document whose error says why it could not be read. (A loop given as an argument is
    refused before any work, like a missing path.)"""
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.txt").write_text("Fine.")
    (d / "loop.txt").symlink_to(d / "loop.txt")
    (d / "gone.txt").symlink_to(d / "nowhere.txt")
    docs, n = read([d])
    assert [x.id for x in docs] == ["a", "gone", "loop"] and n == 3
    assert docs[0].error is None and docs[0].text == "Fine."
    for x in docs[1:]:
        assert x.text is None and x.error.startswith("[E336] Cannot read")
    assert "symbolic links" in docs[2].error.lower()
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop.jsonl")
    with pytest.raises(DataFormatError, match="E301"):
        read([tmp_path / "loop.jsonl"])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc on this system")
def test_a_file_of_proc_is_a_row_not_a_read_that_may_wait(tmp_path):
    # stat calls /proc's files regular, but a read of one may wait without end (/proc/kmsg).
    (tmp_path / "kernel.txt").symlink_to("/proc/self/status")
    (doc,), n = read([tmp_path / "kernel.txt"])
    assert n == 1 and doc.text is None
    assert doc.error.startswith("[E339]") and "a file of /proc" in doc.error


def test_parquet_and_arrow_inputs(tmp_path):
    table = pa.table({"id": ["p1", None, "p3"], "text": ["First one.", "Second.", None]})
    pq.write_table(table, tmp_path / "t.parquet")
    with pa.OSFile(str(tmp_path / "t.arrow"), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
    with pa.OSFile(str(tmp_path / "s.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
    for name in ("t.parquet", "t.arrow", "s.arrow"):
        docs, n = read([tmp_path / name])
        stem = name.split(".")[0]
        assert [d.id for d in docs] == ["p1", f"{stem}:2", "p3"] and n == 3
        assert docs[0].text == "First one."
        assert docs[2].text is None and "is null" in docs[2].error  # a row with the error


def test_a_file_that_is_not_parquet_is_refused_before_any_work(tmp_path):
    (tmp_path / "t.parquet").write_text("hello")
    with pytest.raises(DataFormatError) as e:
        read([tmp_path / "t.parquet"])
    assert e.value.code == "E338" and "t.parquet is not a Parquet file" in str(e.value)


def test_table_without_the_text_column(tmp_path):
    pq.write_table(pa.table({"body": ["x"]}), tmp_path / "t.parquet")
    with pytest.raises(DataFormatError, match="no column 'text'.*--text-field"):
        read([tmp_path / "t.parquet"])


@pytest.mark.parametrize("fmt,data,ids,texts", [
    ("lines", b"one doc\n\n  \ntwo doc\r\n", ["stdin:1", "stdin:2"], ["one doc", "two doc"]),
    ("text", b"all\n\nof it", ["stdin"], ["all\n\nof it"]),
    ("jsonl", b'{"id": "a", "text": "x"}\n{"text": "y"}\n', ["a", "stdin:2"], ["x", "y"]),
])
def test_stdin_formats(fmt, data, ids, texts):
    docs, n = read(["-"], stdin=io.BytesIO(data), stdin_format=fmt)
    assert [d.id for d in docs] == ids and [d.text for d in docs] == texts
    assert n is None  # unknown in advance: no ETA


def test_inputs_keep_argument_order():
    docs, _ = read([CORPUS / "beta.txt", FIX / "docs.jsonl", CORPUS / "alpha.txt"],
                   text_field="body", id_field="doc_id")
    assert [d.id for d in docs] == ["beta", "j-1", "j-2", "docs:4", "alpha"]


def test_bad_arguments(tmp_path):
    with pytest.raises(DataFormatError, match="does not exist"):
        resolve_inputs([str(tmp_path / "nope.txt")])
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.md").write_text("x")
    with pytest.raises(DataFormatError, match="holds no \\*.txt files"):
        resolve_inputs([str(tmp_path / "d")])
    with pytest.raises(DataFormatError, match="No input given"):
        resolve_inputs([])
    with pytest.raises(DataFormatError, match="Unknown decoding fallback"):
        ReadOptions(fallback="ascii")
    with pytest.raises(DataFormatError, match="'klingon' is not a text encoding Python knows"):
        ReadOptions(encoding="klingon")
    for codec in ("rot13", "hex", "zlib_codec", "undefined"):  # names of codecs, not of encodings
        with pytest.raises(DataFormatError, match=f"'{codec}' is not a text encoding: it does not"):
            ReadOptions(encoding=codec)


def test_a_codec_that_fails_otherwise_than_by_a_decode_error_takes_the_fallback():
    # punycode raises a bare UnicodeError for an incomplete string; with errors="replace" it
    # still raises for a byte past ASCII: both take Latin-1 then.
    assert decode(b"-9", ReadOptions(encoding="punycode")) == ("-9", True)
    assert decode(b"ab-\x80", ReadOptions(encoding="punycode", fallback="replace")) == (
        "ab-\x80", True)


def test_jsonl_fixture_is_valid_json():
    for line in (FIX / "docs.jsonl").read_text().splitlines():
        if line.strip():
            json.loads(line)


def test_only_regular_files_are_read_other_entries_are_rows_with_their_error(tmp_path):
    """A FIFO would block the read forever and a link to /dev/zero never end: each is one row
    with a coded error naming the file, and the others are read."""
    import os
    import socket

    d = tmp_path / "d"
    d.mkdir()
    (d / "a.txt").write_text("Fine.")
    os.mkfifo(d / "fifo.txt")
    (d / "zero.txt").symlink_to("/dev/zero")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock.txt"))
    try:
        docs, n = read([d])
    finally:
        sock.close()
    assert [x.id for x in docs] == ["a", "fifo", "sock", "zero"] and n == 4
    assert docs[0].text == "Fine." and docs[0].error is None
    for doc, what in zip(docs[1:], ("a FIFO", "a socket", "a character device")):
        assert doc.text is None and doc.error.startswith("[E339]"), doc.error
        assert what in doc.error and doc.id in doc.error
    docs, _ = read([d / "fifo.txt"])  # given by itself: the same row, not a hang
    assert docs[0].error.startswith("[E339]")


def test_a_long_file_is_read_only_as_far_as_the_limit_and_keeps_a_prefix(tmp_path):
    (tmp_path / "long.txt").write_text("word " * 10_000)  # 50,000 characters
    docs, _ = read([tmp_path / "long.txt"], max_chars=2_000)
    assert docs[0].error.startswith("[E333]") and "more than 2,000" in docs[0].error
    assert docs[0].text == ("word " * 10_000)[:1000]
    (tmp_path / "edge.txt").write_text("ab" * 1_001)  # fewer bytes than the read limit
    docs, _ = read([tmp_path / "edge.txt"], max_chars=2_000)
    assert docs[0].error.startswith("[E333] Text has 2,002 characters")
    assert read([tmp_path / "edge.txt"], max_chars=2_002)[0][0].error is None


def test_a_file_name_that_is_not_utf8_keeps_an_escaped_id(tmp_path):
    import os

    d = tmp_path / "d"
    d.mkdir()
    with open(os.path.join(os.fsencode(d), b"caf\xe9.txt"), "w") as f:
        f.write("It rains.")
    docs, _ = read([d])
    assert [(x.id, x.text, x.error) for x in docs] == [("caf\\xe9", "It rains.", None)]


def test_invalid_utf8_in_arrow_and_parquet_strings_spoils_its_row_only(tmp_path):
    bad = pa.array([b"Fine.", b"caf\xe9", None], pa.binary()).view(pa.string())
    ids = pa.array([b"a", b"b", b"\xff"], pa.binary()).view(pa.string())
    table = pa.table({"id": ids, "text": bad})
    pq.write_table(table, tmp_path / "t.parquet")
    with pa.OSFile(str(tmp_path / "t.arrow"), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
    for name in ("t.parquet", "t.arrow"):
        docs, n = read([tmp_path / name])
        assert n == 3 and [d.id for d in docs] == ["a", "b", "\\xff"]
        assert docs[0].text == "Fine." and docs[0].error is None
        assert docs[1].error.startswith("[E340]") and "invalid UTF-8 at byte 3" in docs[1].error
        assert docs[2].error.startswith("[E340]") and "'id'" in docs[2].error


def test_encoding_names_the_real_encoding_where_the_fallback_would_garble(tmp_path):
    """Quotes in a legacy Chinese code page (Big5), as in some State of the Union transcripts:
    the Latin-1 fallback keeps the bytes but not the characters; --encoding big5 reads them."""
    (tmp_path / "speech.txt").write_bytes(b"what man\xa1\xa6s genius has begun\xa1Xnot so much")
    garbled = read([tmp_path / "speech.txt"])[0][0]
    assert garbled.fallback and garbled.text == "what man\xa1\xa6s genius has begun\xa1Xnot so much"
    doc = read([tmp_path / "speech.txt"], encoding="big5")[0][0]
    assert not doc.fallback and doc.text == "what man\u2019s genius has begun\u2014not so much"


def test_a_directorys_text_files_are_read_whatever_the_case_of_their_suffix(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from logicparse.batch import read_shards
    from logicparse.cli import _register, app

    d = tmp_path / "d"
    d.mkdir()
    for name in ("a.txt", "B.TXT", "c.Txt"):
        (d / name).write_text(f"It rains in {name[0]}, so we stay.")
    (d / "notes.md").write_text("Not a text file.")
    docs, n = read([d])
    assert [doc.id for doc in docs] == ["B", "a", "c"] and n == 3  # sorted by path: upper first
    assert docs[0].text == "It rains in B, so we stay."
    monkeypatch.syspath_prepend(str(FIX))  # the flat fake pipeline, found by the worker process
    _register()
    res = CliRunner().invoke(app, ["annotate", str(d), "--out", str(tmp_path / "out"),
                                   "--senses", "none", "--workers", "1",
                                   "--annotator", "fake_pipeline:flat"])
    assert res.exit_code == 0, res.output
    rows = {r["id"]: r for r in read_shards(tmp_path / "out").to_pylist()}
    assert sorted(rows) == ["B", "a", "c"]
    for row in rows.values():
        assert row["error"] is None and row["tokens"][:3] == ["It", "rains", "in"]


def test_a_parquet_row_group_inflating_past_the_limit_is_refused_before_any_work(tmp_path,
                                                                                monkeypatch):
    """Its pages are read whole: 14 kB held a column chunk of 300 MB. Only the columns read
    count: a big column beside them is never inflated."""
    bomb = pa.table({"id": ["x"] * 20, "text": ["a" * 100_000] * 20})
    pq.write_table(bomb, tmp_path / "bomb.parquet", compression="zstd", use_dictionary=False,
                   row_group_size=10)
    pq.write_table(pa.table({"text": ["Fine."] * 20, "blob": ["b" * 100_000] * 20}),
                   tmp_path / "aside.parquet", compression="zstd", use_dictionary=False)
    assert (tmp_path / "bomb.parquet").stat().st_size < 10_000
    monkeypatch.setattr(filetypes, "TABLE_INFLATE_LIMIT", 500_000)
    with pytest.raises(DataFormatError) as e:
        read([tmp_path / "bomb.parquet"])
    meta = pq.ParquetFile(tmp_path / "bomb.parquet").metadata.row_group(0)
    declared = sum(meta.column(j).total_uncompressed_size for j in range(2))
    assert declared > 1_000_000 and e.value.code == "E355"
    assert f"row group 1 would inflate to {declared:,} bytes" in str(e.value)
    assert "row_group_size" in str(e.value)
    docs, n = read([tmp_path / "aside.parquet"])
    assert n == 20 and docs[0].text == "Fine."
    # A column whose name holds a dot counts as the column it is.
    pq.write_table(pa.table({"doc.text": ["a" * 100_000] * 20}), tmp_path / "dot.parquet",
                   compression="zstd", use_dictionary=False)
    with pytest.raises(DataFormatError, match=r"\[E355\]"):
        read([tmp_path / "dot.parquet"], text_field="doc.text")
