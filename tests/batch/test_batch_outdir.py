"""Who may write an output folder (logicparse.batch.outdir): one run at a time, a dead run's lock
taken over, and what a folder must hold for a run to start, resume or overwrite it."""

import fcntl
import json
import os

import pytest

from logicparse.batch import outdir
from logicparse.batch import shards as sh
from logicparse.batch.outdir import LOCK, OutputLock, prepare
from logicparse.errors import DataFormatError, OutputError


def lock_text(out) -> str:
    return (out / LOCK).read_text()


def test_lock_creates_the_folder_names_its_holder_and_goes_with_the_run(tmp_path):
    out = tmp_path / "a" / "b"
    with OutputLock(out) as held:
        assert held.out == out and out.is_dir()
        assert lock_text(out) == f"{os.getpid()}\n"
        assert oct((out / LOCK).stat().st_mode & 0o777) == oct(0o644 & ~current_umask())
    assert out.is_dir() and not (out / LOCK).exists()
    with OutputLock(out):  # free again
        pass


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_second_run_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "out"
    with OutputLock(out):
        with pytest.raises(OutputError) as e:
            OutputLock(out).__enter__()
        assert e.value.code == "E343" and f"(pid {os.getpid()})" in str(e.value)
        assert str(out) in str(e.value)
        assert lock_text(out) == f"{os.getpid()}\n"  # the refused run changed nothing


def test_a_lock_held_without_a_pid_names_the_holder_unknown(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match=r"\[E343\].*\(pid unknown\)"):
            OutputLock(out).__enter__()
        os.write(fd, b"  4242 \n")
        with pytest.raises(OutputError, match=r"\(pid 4242\)"):
            OutputLock(out).__enter__()
        # What the file holds is shown, not trusted: at most 32 bytes, undecodable ones replaced.
        os.ftruncate(fd, 0)
        os.pwrite(fd, b"7" * 40, 0)
        with pytest.raises(OutputError, match=r"\(pid 7{32}\)"):
            OutputLock(out).__enter__()
        os.ftruncate(fd, 0)
        os.pwrite(fd, b"\xff12", 0)
        with pytest.raises(OutputError, match="\\(pid \ufffd12\\)"):
            OutputLock(out).__enter__()
    finally:
        os.close(fd)


def test_a_dead_runs_lock_is_taken_and_its_pid_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK).write_text("123456789012\n")  # longer than our pid: nothing of it may remain
    with OutputLock(out):
        assert lock_text(out) == f"{os.getpid()}\n"


def test_releasing_is_harmless_twice_unheld_or_with_the_file_gone(tmp_path):
    out = tmp_path / "out"
    OutputLock(out).__exit__(None, None, None)  # never taken
    lock = OutputLock(out).__enter__()
    (out / LOCK).unlink()  # removed by hand while held
    assert lock.__exit__(None, None, None) is False
    assert lock.__exit__(None, None, None) is False
    with OutputLock(out):
        pass


def test_the_lock_is_released_when_the_run_fails(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(KeyError):
        with OutputLock(out):
            raise KeyError("the run failed")
    assert not (out / LOCK).exists()
    with OutputLock(out):
        assert lock_text(out) == f"{os.getpid()}\n"


def test_a_file_or_an_unwritable_place_is_a_coded_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(DataFormatError) as e:
        OutputLock(tmp_path / "file").__enter__()
    assert str(e.value) == (f"[E347] --out {tmp_path / 'file'} is a file, not a folder. Choose a "
                            "new or empty folder for the shards.")
    with pytest.raises(OutputError) as e:
        OutputLock(tmp_path / "file" / "out").__enter__()  # under a file: cannot be made
    assert e.value.code == "E337"
    assert f"Cannot write {tmp_path / 'file' / 'out'} (Not a directory)" in str(e.value)


def test_a_lock_file_replaced_before_it_was_locked_is_locked_afresh(tmp_path, monkeypatch):
    """The run before removes its lock file as it ends: a run that opened that file just before
    must lock the file that is there now, or two runs would hold "the" lock."""
    out = tmp_path / "out"
    out.mkdir()
    real = fcntl.flock
    replaced = []

    def flock(fd, op):
        if len(replaced) < 2:  # the file opened is removed and made again twice
            (out / LOCK).unlink()
            (out / LOCK).write_text("")
            replaced.append(os.fstat(fd).st_ino)
        return real(fd, op)

    monkeypatch.setattr(outdir.fcntl, "flock", flock)
    with OutputLock(out) as held:
        assert len(replaced) == 2 and lock_text(out) == f"{os.getpid()}\n"
        assert os.fstat(held._fd).st_ino == (out / LOCK).stat().st_ino
        monkeypatch.setattr(outdir.fcntl, "flock", real)
        with pytest.raises(OutputError, match=r"\[E343\]"):  # and it is really held
            OutputLock(out).__enter__()


def test_a_lock_file_that_never_stays_is_refused(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    real = fcntl.flock
    tries = []

    def flock(fd, op):
        tries.append(fd)
        (out / LOCK).unlink()
        return real(fd, op)

    monkeypatch.setattr(outdir.fcntl, "flock", flock)
    with pytest.raises(OutputError, match=r"\[E343\].*\(pid unknown\)") as e:
        OutputLock(out).__enter__()
    assert len(tries) == 10 and f"{out} is in use" in str(e.value)


# --- what a folder must hold -------------------------------------------------------------------

def manifest(out, fingerprint="fp", **extra):
    m = {"format": sh.FORMAT, "fingerprint": fingerprint, "shards": [], **extra}
    (out / sh.MANIFEST).write_text(json.dumps(m))
    return m


def test_a_new_or_empty_folder_starts_a_run(tmp_path):
    out = tmp_path / "out"
    with OutputLock(out):
        assert prepare(out, "fp", overwrite=False) is None
        (out / f"{sh.TMP_PREFIX}shard-00000.arrow.1").write_text("half written")
        assert prepare(out, "fp", overwrite=False) is None  # a killed run's temporary file goes
        assert sorted(p.name for p in out.iterdir()) == [LOCK]


@pytest.mark.parametrize("name", ["notes.txt", "shard-00000.arrow"])
def test_a_folder_with_other_files_and_no_manifest_is_refused(tmp_path, name):
    (tmp_path / name).write_text("x")
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "fp", overwrite=False)
    assert e.value.code == "E311" and (tmp_path / name).exists()
    assert str(e.value).startswith(f"[E311] {tmp_path} exists and is not a logicparse shard "
                                   f"directory: it holds {name} and no manifest.json.")


def test_a_runs_settings_hold_its_networks_precisions(monkeypatch):
    """So that a run is not resumed in another precision (int8 labels differ from float32's)."""
    from logicparse.batch import RunConfig

    for var in ("LOGICPARSE_PARSER_PRECISION", "LOGICPARSE_ENCODER_PRECISION"):
        monkeypatch.delenv(var, raising=False)
    settings = RunConfig().content_settings()
    assert (settings["parser_precision"], settings["encoder_precision"]) == ("int8", "int8")
    monkeypatch.setenv("LOGICPARSE_ENCODER_PRECISION", "fp32")
    assert RunConfig().content_settings()["encoder_precision"] == "fp32"


def test_the_same_run_resumes_and_another_is_refused_saying_what_changed(tmp_path):
    before = {"settings": {"senses": "default"}, "inputs": []}
    (tmp_path / "shard-00000.arrow").write_text("x")  # the run wrote something another could mix with
    m = manifest(tmp_path, identity=before)
    assert prepare(tmp_path, "fp", overwrite=False) == m
    now = {"settings": {"senses": "none"}, "inputs": []}
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "other", overwrite=False, identity=now)
    assert e.value.code == "E310" and "setting senses was 'default', now 'none'" in str(e.value)
    assert f"{tmp_path} holds shards of a different run" in str(e.value)
    manifest(tmp_path, identity={"settings": "edited by hand"})
    with pytest.raises(DataFormatError, match="other inputs, input files changed since"):
        prepare(tmp_path, "other", overwrite=False, identity=now)
    manifest(tmp_path, format="something else")
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "fp", overwrite=False)
    assert str(e.value).startswith(f"[E346] {tmp_path / sh.MANIFEST} was not written by "
                                   "logicparse (its \"format\" is 'something else', not ")


def test_a_run_that_wrote_no_shard_leaves_the_folder_to_another(tmp_path):
    manifest(tmp_path, identity={"settings": {"device": "cpux"}, "inputs": []})
    assert prepare(tmp_path, "other", overwrite=False, identity={"settings": {}}) is None
    assert not (tmp_path / sh.MANIFEST).exists()


def test_overwrite_removes_shards_and_manifest_only_even_a_damaged_one(tmp_path):
    (tmp_path / "shard-00000.arrow").write_text("x")
    (tmp_path / "shard-00001.arrow").write_text("x")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / sh.MANIFEST).write_text('{"format": "logicparse-shards", "sha')  # cut short
    with pytest.raises(DataFormatError, match=r"\[E342\]"):
        prepare(tmp_path, "fp", overwrite=False)
    assert prepare(tmp_path, "fp", overwrite=True) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert prepare(tmp_path, "fp", overwrite=True) is None  # nothing left to remove: no error


def test_a_folder_that_cannot_be_read_is_a_coded_error(tmp_path, monkeypatch):
    def refuse(self, pattern):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(type(tmp_path), "glob", refuse)
    with pytest.raises(OutputError) as e:
        prepare(tmp_path, "fp", overwrite=False)
    assert e.value.code == "E337" and f"Cannot write {tmp_path} (Permission denied)" in str(e.value)


def test_shards_listed_but_not_in_the_folder_still_refuse_another_run(tmp_path):
    """Listed shards moved away by hand may come back: a run of other inputs or settings must not
    take the folder, nor drop the manifest that lists them."""
    entry = {"file": "shard-00000.arrow", "sha256": "0" * 64, "bytes": 1, "rows": 1, "failed": 0}
    m = manifest(tmp_path, shards=[entry], identity={"settings": {"senses": "x"}, "inputs": []})
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "other", overwrite=False, identity={"settings": {}, "inputs": []})
    assert e.value.code == "E310" and str(e.value) == (
        f"[E310] {tmp_path} holds shards of a different run: setting senses was 'x', now None. "
        "Resuming would mix two runs: restore the inputs and settings of that run to resume it, "
        "pass --overwrite to annotate everything again, or choose another --out.")
    assert json.loads((tmp_path / sh.MANIFEST).read_text()) == m


def test_a_manifest_removed_by_hand_as_a_new_run_starts_is_no_error(tmp_path, monkeypatch):
    manifest(tmp_path)
    read = sh.read_manifest

    def read_then_removed(out):
        found = read(out)
        (out / sh.MANIFEST).unlink()
        return found

    monkeypatch.setattr(sh, "read_manifest", read_then_removed)
    assert prepare(tmp_path, "other", overwrite=False) is None
    assert list(tmp_path.iterdir()) == []


def logicparse_shard(path):
    sh.write_shard(path.parent, int(path.name[6:11]), sh.documents_to_table([]))


@pytest.mark.parametrize("content, reason", [
    ('{"name": "my-package", "version": "1.0"}', "its \"format\" is None, not 'logicparse-shards'"),
    ('{"format": "other"}', "its \"format\" is 'other', not 'logicparse-shards'"),
    ("[1, 2]", "it is not a manifest of logicparse's, and no logicparse shard is beside it"),
    ("not json", "it is not a manifest of logicparse's, and no logicparse shard is beside it"),
])
def test_a_manifest_json_logicparse_did_not_write_is_never_deleted(tmp_path, content, reason):
    """--overwrite removes what a run wrote, never another program's manifest.json (nor the
    shard files beside it); a run without --overwrite is refused with the same reason."""
    (tmp_path / sh.MANIFEST).write_text(content)
    (tmp_path / "shard-00000.arrow").write_text("x")
    for overwrite in (True, False):
        with pytest.raises(DataFormatError) as e:
            prepare(tmp_path, "fp", overwrite=overwrite)
        assert str(e.value) == (
            f"[E346] {tmp_path / sh.MANIFEST} was not written by logicparse ({reason}), so a run "
            "neither resumes from it nor deletes it, --overwrite included. Move it out of the "
            "folder, or choose another --out.")
    assert (tmp_path / sh.MANIFEST).read_text() == content
    assert (tmp_path / "shard-00000.arrow").read_text() == "x"


@pytest.mark.parametrize("kind, reason", [("folder", "it is a folder"),
                                          ("fifo", "it is not a regular file"),
                                          ("dangling", "it is a link to nothing")])
def test_a_manifest_json_that_is_not_a_file_is_never_read_nor_deleted(tmp_path, kind, reason):
    path = tmp_path / sh.MANIFEST
    {"folder": path.mkdir, "fifo": lambda: os.mkfifo(path),
     "dangling": lambda: path.symlink_to(tmp_path / "gone")}[kind]()
    for overwrite in (True, False):
        with pytest.raises(DataFormatError) as e:
            prepare(tmp_path, "fp", overwrite=overwrite)
        assert e.value.code == "E346" and f"{path} was not written by logicparse ({reason})" \
            in str(e.value)
    assert os.path.lexists(path)


def test_overwrite_keeps_shard_files_logicparse_did_not_write(tmp_path):
    """Without a manifest of logicparse's, a shard file is removed only if it is a shard of
    logicparse's (its Arrow schema says so); an empty manifest.json loses nothing."""
    logicparse_shard(tmp_path / "shard-00000.arrow")
    (tmp_path / "shard-00001.arrow").write_text("someone else's")
    with pytest.raises(DataFormatError) as e:
        prepare(tmp_path, "fp", overwrite=True)
    assert e.value.code == "E346" and str(tmp_path / "shard-00001.arrow") in str(e.value)
    assert "not an Arrow IPC file with a logicparse schema" in str(e.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard-00000.arrow", "shard-00001.arrow"]
    (tmp_path / "shard-00001.arrow").unlink()
    (tmp_path / sh.MANIFEST).write_text("")
    assert prepare(tmp_path, "fp", overwrite=True) is None
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_manifest_beside_logicparse_shards_is_logicparses(tmp_path):
    logicparse_shard(tmp_path / "shard-00000.arrow")
    (tmp_path / sh.MANIFEST).write_text("[]")
    with pytest.raises(DataFormatError, match=r"\[E342\]"):
        prepare(tmp_path, "fp", overwrite=False)
    assert prepare(tmp_path, "fp", overwrite=True) is None
    assert list(tmp_path.iterdir()) == []
