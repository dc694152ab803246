"""What a refused output folder tells the user, and where logicparse.batch.outdir draws its lines:
which manifest.json is logicparse's (empty, size limit, the head that names the format) and how
E311 and E346 name what they refuse. (The lock and the main cases: test_batch_outdir.py.)"""

import pytest

from logicparse.batch import outdir
from logicparse.batch import shards as sh
from logicparse.batch.outdir import LOCK, prepare
from logicparse.errors import DataFormatError

NOT_OURS = "it is not a manifest of logicparse's, and no logicparse shard is beside it"


def refused_as_foreign(out, reason):
    """Both modes refuse with E346 and this reason: a run neither resumes from nor deletes it."""
    for overwrite in (True, False):
        with pytest.raises(DataFormatError) as e:
            prepare(out, "fp", overwrite=overwrite)
        assert e.value.code == "E346" and f"logicparse ({reason}), so a run" in str(e.value)


@pytest.mark.parametrize("count, names", [
    (1, "a.txt"),
    (3, "a.txt, b.txt, c.txt"),
    (4, "a.txt, b.txt, c.txt and 1 more"),
    (6, "a.txt, b.txt, c.txt and 3 more"),
])
def test_a_refused_folder_names_its_first_three_files_and_counts_the_rest(tmp_path, count, names):
    """E311 says what is in the way without listing a whole folder: three names in sorted
    order, then how many more (this run's own lock file is not among them)."""
    for name in reversed("abcdef"[:count]):
        (tmp_path / f"{name}.txt").write_text("x")
    (tmp_path / LOCK).write_text("")
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "fp", overwrite=False)
    assert e.value.code == "E311" and f"it holds {names} and no manifest.json." in str(e.value)


def test_overwrite_names_the_shard_file_it_will_not_delete_and_why(tmp_path):
    (tmp_path / "shard-00000.arrow").write_text("someone else's")
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "fp", overwrite=True)
    assert str(e.value) == (
        f"[E346] {tmp_path / 'shard-00000.arrow'} was not written by logicparse (it is not an "
        "Arrow IPC file with a logicparse schema), so a run neither resumes from it nor deletes "
        "it, --overwrite included. Move it out of the folder, or choose another --out.")


def test_only_an_empty_manifest_counts_as_a_cut_off_run(tmp_path):
    """A power loss can leave manifest.json empty: nothing to lose, so --overwrite removes it
    and a resume calls it damaged. A single byte is already content, and not logicparse's."""
    path = tmp_path / sh.MANIFEST
    path.write_text("")
    with pytest.raises(DataFormatError, match=r"^\[E342\] .* is damaged \(empty\)"):
        prepare(tmp_path, "fp", overwrite=False)
    assert prepare(tmp_path, "fp", overwrite=True) is None and not path.exists()
    path.write_text("x")
    refused_as_foreign(tmp_path, NOT_OURS)
    assert path.read_text() == "x"


def test_a_manifest_over_the_size_limit_is_judged_by_its_head_not_parsed(tmp_path, monkeypatch):
    """A huge manifest.json is never loaded whole: one of exactly the limit is still parsed (and
    its "format" named), one a byte larger is judged by its first bytes only. The limit is made
    small here so that the test does not write 64 MiB."""
    monkeypatch.setattr(outdir, "_MAX_MANIFEST", 100)
    path = tmp_path / sh.MANIFEST
    head = '{"format": "other", "pad": "'
    for size, reason in [(100, "its \"format\" is 'other', not 'logicparse-shards'"),
                         (101, NOT_OURS)]:
        path.write_text(head + "x" * (size - len(head) - 2) + '"}')
        assert path.stat().st_size == size
        refused_as_foreign(tmp_path, reason)
        assert path.exists()


@pytest.mark.parametrize("end, ours", [(256, True), (257, False)])
def test_a_damaged_manifest_is_logicparses_only_if_its_first_256_bytes_say_so(tmp_path, end, ours):
    """logicparse writes "format" first, so its own manifest cut short names the format at its
    start. The same words further in (another program's file quoting them) must not make
    --overwrite delete that file."""
    path = tmp_path / sh.MANIFEST
    path.write_bytes(b" " * (end - len(outdir._MARK)) + outdir._MARK + b", cut short")
    if ours:
        assert prepare(tmp_path, "fp", overwrite=True) is None and not path.exists()
    else:
        refused_as_foreign(tmp_path, NOT_OURS)
        assert path.exists()
