"""Arrow IPC inputs: rows and the bytes a batch inflates, read from the metadata before any batch is
read; a batch that would inflate past the limit, or a message that is not what it says, refuses
the file before any work."""

import pyarrow as pa
import pytest

from logicparse.batch import filetypes
from logicparse.batch.inputs import ReadOptions, count_documents, read_documents, resolve_inputs
from logicparse.batch.ipc import survey
from logicparse.errors import DataFormatError

TEXTS = pa.table({"id": [f"d{i}" for i in range(1000)], "text": ["word " * (i % 50) for i in range(1000)]})
REPEATED = pa.table({"text": pa.array(["same text"] * 500 + ["other"] * 500).dictionary_encode()})
# Its dictionary, read once and kept beside every batch, outweighs any batch of indices.
DICTIONARY = pa.table({"text": pa.array([f"{'a' * 10_000} {i % 100}" for i in range(1000)]
                                        ).dictionary_encode()})


def _ipc(kind, table, compression, chunk=300):
    sink = pa.BufferOutputStream()
    new = pa.ipc.new_file if kind == "file" else pa.ipc.new_stream
    with new(sink, table.schema, options=pa.ipc.IpcWriteOptions(compression=compression)) as w:
        w.write_table(table, max_chunksize=chunk)
    return sink.getvalue()


def _read_bytes(data, kind):
    """The most bytes one batch holds once pyarrow has read it, and its dictionaries' (one per
    column here, no deltas), which stay beside every batch."""
    reader = pa.ipc.open_file(data) if kind == "file" else pa.ipc.open_stream(data)
    batches = ([reader.get_batch(i) for i in range(reader.num_record_batches)] if kind == "file"
               else list(reader))

    def size(array):
        return sum(b.size for b in array.buffers() if b is not None)

    dictionaries = sum(size(col.dictionary) for col in batches[0].columns
                       if hasattr(col, "dictionary"))
    return max(sum(size(col) for col in b.columns) for b in batches) + dictionaries


@pytest.mark.parametrize("kind", ["file", "stream"])
@pytest.mark.parametrize("compression", ["lz4", "zstd"])
@pytest.mark.parametrize("table", [TEXTS, REPEATED, DICTIONARY],
                         ids=["texts", "small-dictionary", "large-dictionary"])
def test_the_metadata_tell_the_rows_and_what_a_batch_inflates_to(kind, compression, table):
    data = _ipc(kind, table, compression)
    assert survey(data, kind == "file") == (1000, _read_bytes(data, kind))


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_buffers_stored_as_they_are_inflate_nothing(kind):
    assert survey(_ipc(kind, TEXTS, None), kind == "file") == (1000, 0)


def _read(path):
    specs, opts = resolve_inputs([str(path)]), ReadOptions()
    n = count_documents(specs, opts)
    return n, [d for _, d in read_documents(specs, opts, None)]


@pytest.mark.parametrize("kind", ["file", "stream"])
def test_a_batch_inflating_past_the_limit_refuses_the_file_before_any_work(kind, tmp_path,
                                                                          monkeypatch):
    # 20 MB of text in 4 kB of Zstandard: the limit lowered to 1 MB stands for the real 2 GiB.
    bomb = pa.table({"text": ["a" * 1_000_000] * 20})
    data = _ipc(kind, bomb, "zstd", chunk=20)
    assert data.size < 10_000
    (tmp_path / "bomb.arrow").write_bytes(data.to_pybytes())
    monkeypatch.setattr(filetypes, "TABLE_INFLATE_LIMIT", 1_000_000)
    with pytest.raises(DataFormatError) as e:
        _read(tmp_path / "bomb.arrow")
    assert e.value.code == "E355"
    assert f"inflate to {_read_bytes(data, kind):,} bytes" in str(e.value)
    assert "over the 1,000,000" in str(e.value) and "max_chunksize" in str(e.value)
    monkeypatch.setattr(filetypes, "TABLE_INFLATE_LIMIT", 1 << 31)
    n, docs = _read(tmp_path / "bomb.arrow")
    assert n == 20 and [d.id for d in docs][:2] == ["bomb:1", "bomb:2"]


def test_a_declared_length_is_what_counts_and_a_lie_is_refused(tmp_path):
    """Arrow inflates a buffer into the length its prefix declares: a prefix declaring a petabyte
    (the 8 bytes before the buffer's Zstandard frame) is refused as such, never allocated."""
    import struct

    data = bytearray(_ipc("stream", TEXTS, "zstd").to_pybytes())
    frame = data.index(b"\x28\xb5\x2f\xfd")  # the first compressed buffer's frame
    data[frame - 8:frame] = struct.pack("<q", 1 << 50)
    (tmp_path / "lie.arrow").write_bytes(bytes(data))
    with pytest.raises(DataFormatError) as e:
        _read(tmp_path / "lie.arrow")
    import re

    declared = int(re.search(r"inflate to ([\d,]+) bytes", str(e.value))[1].replace(",", ""))
    assert e.value.code == "E355" and 1 << 50 < declared < (1 << 50) + 100_000


def test_a_negative_declared_length_is_refused_not_summed(tmp_path):
    """-50,000,001 beside 50,000,001 would sum to nothing; Arrow would still allocate the one."""
    import struct

    data = bytearray(_ipc("stream", TEXTS, "zstd").to_pybytes())
    frame = data.index(b"\x28\xb5\x2f\xfd")
    data[frame - 8:frame] = struct.pack("<q", -50_000_001)
    (tmp_path / "negative.arrow").write_bytes(bytes(data))
    with pytest.raises(DataFormatError) as e:
        _read(tmp_path / "negative.arrow")
    assert e.value.code == "E309" and "declares -50000001 bytes" in str(e.value)


def test_a_stream_cut_inside_a_batch_is_one_row_with_its_error(tmp_path):
    data = _ipc("stream", TEXTS, "zstd").to_pybytes()
    (tmp_path / "cut.arrow").write_bytes(data[:len(data) * 2 // 3])
    n, docs = _read(tmp_path / "cut.arrow")
    # Damaged, not unreadable: E357 with pyarrow's reason (it was E336, "make the file readable").
    assert n == 1 and len(docs) == 1 and docs[0].error.startswith("[E357]")
    assert "bytes for message body" in docs[0].error and docs[0].id == "cut"


def test_annotate_refuses_an_arrow_bomb_before_the_output_is_touched(tmp_path):
    """The real limit, through the command: a batch declaring a petabyte."""
    import struct

    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    data = bytearray(_ipc("file", TEXTS, "lz4").to_pybytes())
    frame = data.index(b"\x04\x22\x4d\x18")  # the first compressed buffer's LZ4 frame
    data[frame - 8:frame] = struct.pack("<q", 1 << 50)
    (tmp_path / "bomb.arrow").write_bytes(bytes(data))
    _register()
    out = tmp_path / "out"
    r = CliRunner().invoke(app, ["annotate", str(tmp_path / "bomb.arrow"), "--out", str(out),
                                 "--senses", "none", "--annotator", "fake_pipeline:flat"])
    assert r.exit_code == 2 and "[E355]" in r.output and "smaller batches" in r.output
    assert not out.exists()



def test_a_footer_claiming_billions_of_batches_is_refused_at_once(tmp_path):
    """pyarrow verifies a file's footer when it opens it (E309 with its reason); the survey,
    which reads the footer itself, refuses a vector longer than its buffer before reading any."""
    import struct

    from logicparse.batch import ipc

    data = bytearray(_ipc("file", TEXTS, "zstd").to_pybytes())
    length = int.from_bytes(data[-10:-6], "little")
    start = len(data) - 10 - length
    root = ipc._root(bytes(data[start:start + length]))
    at = start + root.Vector(ipc._field(root, ipc._FOOTER_BATCHES)) - 4  # the vector's length
    data[at:at + 4] = struct.pack("<I", 2**31 - 1)
    with pytest.raises(ValueError, match="a vector of 2147483647 items runs past"):
        survey(pa.py_buffer(bytes(data)), True)
    (tmp_path / "many.arrow").write_bytes(bytes(data))
    with pytest.raises(DataFormatError) as e:
        _read(tmp_path / "many.arrow")
    assert e.value.code == "E309" and "Footer failed" in str(e.value)
