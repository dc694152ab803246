"""Inputs that are what they claim: compressed files read transparently, and files that are not
text (images, PDFs, compressed data under a text name, zero bytes) kept as error rows, never
annotated."""

import bz2
import gzip
import io
import json
import lzma
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from logicparse.batch import filetypes
from logicparse.batch.inputs import ReadOptions, count_documents, read_documents, resolve_inputs
from logicparse.errors import DataFormatError

from test_batch_inputs import CORPUS, read

ALPHA = (CORPUS / "alpha.txt").read_bytes()
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" * 20


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".GZ"])
def test_a_compressed_text_reads_as_the_plain_one_with_the_same_id(tmp_path, suffix):
    f = tmp_path / f"alpha.txt{suffix}"
    f.write_bytes(COMPRESS[suffix.lower()](ALPHA))
    docs, n = read([f])
    plain, _ = read([CORPUS / "alpha.txt"])
    assert n == 1 and [(d.id, d.text, d.error) for d in docs] == [
        (d.id, d.text, d.error) for d in plain]


def test_a_directory_reads_its_compressed_texts_beside_the_plain_ones(tmp_path):
    (tmp_path / "a.txt").write_bytes(ALPHA)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt.gz").write_bytes(gzip.compress(b"Since it rained, we stayed."))
    (tmp_path / "c.jsonl.gz").write_bytes(b"not a text file of the directory")
    docs, n = read([tmp_path])
    assert n == 2 and [(d.id, d.text) for d in docs] == [
        ("a", ALPHA.decode()), ("sub/b", "Since it rained, we stayed.")]


@pytest.mark.parametrize("suffix", [".gz", ".xz"])
def test_compressed_jsonl_and_tables_read_as_the_plain_ones(tmp_path, suffix):
    lines = b"".join(json.dumps({"id": f"r{i}", "text": f"Text {i}."}).encode() + b"\n"
                     for i in range(3)) + b'{"text": "no id"}\n'
    (tmp_path / f"recs.jsonl{suffix}").write_bytes(COMPRESS[suffix](lines))
    table = pa.table({"text": ["One.", "Two."]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    (tmp_path / f"t.parquet{suffix}").write_bytes(COMPRESS[suffix](sink.getvalue()))
    stream = io.BytesIO()
    with pa.ipc.new_file(stream, table.schema) as w:
        w.write_table(table)
    (tmp_path / f"t.arrow{suffix}").write_bytes(COMPRESS[suffix](stream.getvalue()))
    docs, n = read([tmp_path / f"recs.jsonl{suffix}", tmp_path / f"t.parquet{suffix}",
                    tmp_path / f"t.arrow{suffix}"])
    assert n == 8
    assert [(d.id, d.text) for d in docs] == [
        ("r0", "Text 0."), ("r1", "Text 1."), ("r2", "Text 2."), ("recs:4", "no id"),
        ("t:1", "One."), ("t:2", "Two."), ("t:1", "One."), ("t:2", "Two.")]
    assert not any(d.error for d in docs)


@pytest.mark.parametrize("name,data,what", [
    ("screenshot.png", PNG, "a PNG image"),
    ("paper.pdf", PDF, "a PDF document"),
    ("scan.txt", PDF, "a PDF document"),
    ("inner.txt.gz", gzip.compress(PNG), "a PNG image"),  # a gzip that is not text inside
    ("notes.txt", gzip.compress(ALPHA), "gzip-compressed data"),  # compressed, text name
    ("raw.bin", bytes(range(256)) * 10, "binary data (it holds zero bytes)"),
    ("wide.txt", "Since it rained.".encode("utf-16"), "UTF-16 text by its zero bytes"),
    ("ctl.txt", bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 65, 66]) * 50, "mostly binary"),
])
def test_a_file_that_is_not_text_is_an_error_row_never_decoded(tmp_path, name, data, what):
    f = tmp_path / name
    f.write_bytes(data)
    docs, n = read([f])
    assert n == 1 and len(docs) == 1
    doc = docs[0]
    assert doc.text is None and doc.error.startswith("[E349]")
    assert what in doc.error and str(f) in doc.error


def test_the_fix_is_named_for_each_kind_of_not_text():
    assert "pdftotext" in filetypes.not_text(PDF)[1]
    assert ".gz" in filetypes.not_text(gzip.compress(b"x"))[1]
    assert "--encoding utf-16" in filetypes.not_text("hi".encode("utf-16-le"))[1]
    # Text under a wide encoding the user named is not refused for its zero bytes.
    assert filetypes.not_text("Since it rained.".encode("utf-16"), "utf-16") is None


@pytest.mark.parametrize("data", [
    ALPHA, "Café crème, naïve — “quoted”".encode("utf-8"), b"caf\xe9 cr\xe8me\r\n\tindented\f",
    b"\x1b[31mred log line\x1b[0m\n" * 40, b"", b"BMW and GIF are words. PK too. MZ.",
])
def test_text_is_not_refused(data):
    assert filetypes.not_text(data) is None


def test_stdin_text_and_lines_are_checked_too():
    docs, _ = read(["-"], stdin=io.BytesIO(PNG), stdin_format="text")
    assert docs[0].error.startswith("[E349]") and "<stdin>" in docs[0].error
    docs, _ = read(["-"], stdin=io.BytesIO(b"A fine line.\nbad\x00line\n"))
    assert [d.text for d in docs] == ["A fine line.", None]
    assert "<stdin>, line 2" in docs[1].error


def test_a_damaged_compressed_text_is_an_error_row_naming_the_format(tmp_path):
    good = gzip.compress(ALPHA * 50)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(good[:len(good) // 2])
    fake = tmp_path / "fake.txt.xz"
    fake.write_bytes(b"plain text, not xz at all")
    docs, n = read([cut, fake])
    assert n == 2 and [d.id for d in docs] == ["cut", "fake"]
    assert all(d.text is None and d.error.startswith("[E350]") for d in docs)
    assert "gzip-compressed data" in docs[0].error and "xz-compressed data" in docs[1].error


def test_a_compressed_jsonl_cut_midway_keeps_its_records_and_one_row_for_the_rest(tmp_path):
    lines = b"".join(json.dumps({"text": f"Record {i} " + "x" * 200}).encode() + b"\n"
                     for i in range(400))
    data = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip framing, written in two parts
    blob = data.compress(lines) + data.flush()
    f = tmp_path / "recs.jsonl.gz"
    f.write_bytes(blob[:len(blob) * 3 // 4])
    o = ReadOptions()
    specs = resolve_inputs([str(f)])
    count_documents(specs, o)  # counts what it can; never raises on a damaged file
    docs = [d for _, d in read_documents(specs, o)]
    good = [d for d in docs if d.error is None]
    assert len(good) >= 100 and [d.text.split()[1] for d in good] == [
        str(i) for i in range(len(good))]
    assert len(docs) == len(good) + 1
    last = docs[-1]
    assert last.id == f"recs:{len(good) + 1}" and last.error.startswith("[E350]")
    assert f"after record {len(good)}" in last.error


def test_a_compressed_table_past_the_inflate_limit_is_an_error_row(tmp_path, monkeypatch):
    monkeypatch.setattr(filetypes, "TABLE_INFLATE_LIMIT", 1000)
    sink = io.BytesIO()
    pq.write_table(pa.table({"text": [bytes(range(256)).hex() * 20]}), sink)
    f = tmp_path / "big.parquet.gz"
    f.write_bytes(gzip.compress(sink.getvalue()))
    docs, n = read([f])
    assert n == 1 and len(docs) == 1
    assert docs[0].error.startswith("[E350]") and "inflates to more than 1,000 bytes" in docs[0].error


def test_a_small_file_that_inflates_enormously_costs_no_more_than_a_text_can_hold(tmp_path):
    f = tmp_path / "bomb.txt.gz"
    f.write_bytes(gzip.compress(b"a" * (64 << 20)))  # 64 MiB of one letter in ~64 KB
    docs, _ = read([f], max_chars=1000)
    assert docs[0].error.startswith("[E333]") and len(docs[0].text) <= 1000


@pytest.mark.parametrize("kind", ["parquet", "arrow"])
def test_a_table_of_many_long_texts_becomes_python_strings_a_few_rows_at_a_time(
        tmp_path, monkeypatch, kind):
    # A dictionary-encoded column holds one long text for all its rows: a file of a few hundred
    # bytes, whose every row becomes a string of its own when read.
    from logicparse.batch import tables as records

    seen = []
    values = records._values
    monkeypatch.setattr(records, "_values", lambda col: seen.append(len(col)) or values(col))
    table = pa.table({"id": [f"r{i}" for i in range(100)],
                      "text": pa.array(["It rained. " * 500] * 100).dictionary_encode()})
    f = tmp_path / f"t.{kind}"
    if kind == "parquet":
        pq.write_table(table, f, compression="zstd", row_group_size=100)
    else:
        with pa.ipc.new_file(str(f), table.schema) as w:
            w.write_table(table, max_chunksize=100)
    docs, n = read([f])
    assert n == 100 and [d.id for d in docs] == [f"r{i}" for i in range(100)]
    assert docs[-1].text == "It rained. " * 500 and docs[-1].error is None
    assert max(seen) <= records.ROWS_AT_ONCE < 100


@pytest.mark.slow
def test_annotate_gives_a_compressed_corpus_the_plain_rows_and_refuses_what_is_not_text(tmp_path):
    """The real annotator through the CLI: the same rows from the corpus gzipped, bzip2'd and
    xz'd as from the plain files; a PNG, a gzipped PNG and a PDF are error rows (E349)."""
    from typer.testing import CliRunner

    from logicparse.batch import read_shards
    from logicparse.cli import _register, app

    _register()
    packed = tmp_path / "packed"
    suffixes = [".gz", ".bz2", ".xz"]
    for i, f in enumerate(sorted(CORPUS.rglob("*.txt"))):
        suffix = suffixes[i % 3]
        target = packed / f.relative_to(CORPUS).parent / (f.name + suffix)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(COMPRESS[suffix](f.read_bytes()))
    extras = {"shot.png": PNG, "inner.txt.gz": gzip.compress(PNG), "paper.pdf": PDF}
    for name, data in extras.items():
        (tmp_path / name).write_bytes(data)

    def annotate(out, *inputs):
        r = CliRunner().invoke(app, ["annotate", *map(str, inputs), "--out", str(out),
                                     "--senses", "none", "--workers", "1"])
        assert r.exit_code == 0, r.output
        return {row["id"]: row for row in read_shards(out).to_pylist()}

    plain = annotate(tmp_path / "plain", CORPUS)
    rows = annotate(tmp_path / "out", packed, *(tmp_path / n for n in extras))
    assert list(rows) == list(plain) + ["shot.png", "inner", "paper.pdf"]
    for doc_id, row in plain.items():
        assert rows[doc_id] == row
    assert any(row["relations"] for row in plain.values())
    for doc_id in ("shot.png", "inner", "paper.pdf"):
        assert rows[doc_id]["error"].startswith("[E349]") and rows[doc_id]["tokens"] == []


def test_a_quoted_glob_pattern_reads_the_files_it_matches_in_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.txt.gz").write_bytes(gzip.compress(b"Second."))
    (tmp_path / "one.txt").write_bytes(b"First.")
    (tmp_path / "skip.jsonl").write_bytes(b"")
    docs, n = read([str(tmp_path / "**" / "*.txt*")])
    assert n == 2 and [(d.id, d.text) for d in docs] == [("two", "Second."), ("one", "First.")]
    specs = resolve_inputs([str(tmp_path / "**" / "*.txt*")])
    assert [s.path for s in specs] == [str(tmp_path / "b" / "two.txt.gz"), str(tmp_path / "one.txt")]
    with pytest.raises(DataFormatError, match=r"\[E301\].*nothing\*\.txt does not exist: the pattern "
                                        r"matches no file"):
        resolve_inputs([str(tmp_path / "nothing*.txt")])


def test_a_glob_pattern_goes_into_no_linked_directory(tmp_path):
    # A link up: glob.glob's ** went round it (one file read 41 times; with two such links it
    # walked without end); a directory argument never follows links.
    (tmp_path / "d" / "s1").mkdir(parents=True)
    (tmp_path / "d" / "s1" / "up").symlink_to("..")
    (tmp_path / "d" / "a.txt").write_bytes(b"Once.")
    (tmp_path / "d" / ".hidden.txt").write_bytes(b"Not matched by *.")
    specs = resolve_inputs([str(tmp_path / "d" / "**" / "*.txt")])
    assert [s.path for s in specs] == [str(tmp_path / "d" / "a.txt")]
    assert [s.path for s in resolve_inputs([str(tmp_path / "d" / ".*.txt")])] == [
        str(tmp_path / "d" / ".hidden.txt")]
