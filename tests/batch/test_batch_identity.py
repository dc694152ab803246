"""What a resumed run trusts (logicparse.batch.identity): the identity kept in the manifest, the
fingerprint that decides whether a folder may be resumed, and the exact words E310 gives for what
changed between two runs."""

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from logicparse.batch.changes import digest
from logicparse.batch.identity import describe_change, fingerprint, identity
from logicparse.batch.inputs import InputSpec
from logicparse.tokens import SCHEMA_VERSION

ANY = "other inputs, input files changed since, or other settings"


def ident(settings=None, inputs=()):
    return {"settings": settings or {}, "inputs": list(inputs)}


def one_file(path="/in/a.txt", files=None):
    return {"path": path, "kind": "txt", "files": files or {"a.txt": [10, 1]}}


def folder(path="/in", files=None):
    return {"path": path, "kind": "dir", "files": files or {}}


def test_without_either_identity_the_reason_is_the_general_one():
    assert describe_change(None, ident()) == ANY
    assert describe_change(ident(), None) == ANY
    assert describe_change({}, ident()) == ANY


def test_the_same_identity_means_another_version_wrote_it():
    same = ident({"senses": "default"}, [one_file()])
    assert describe_change(same, same) == "it was written by another version of logicparse"


def test_each_changed_setting_is_named_with_both_values_nested_ones_by_dotted_key():
    before = ident({"senses": "default", "chunk": {"chars": 20000, "max": 5}, "gone": 1})
    now = ident({"senses": "none", "chunk": {"chars": 10, "max": 5}, "new": True})
    assert describe_change(before, now) == (
        "setting chunk.chars was 20000, now 10; setting gone was 1, now None; "
        "setting new was None, now True; setting senses was 'default', now 'none'")


def test_settings_missing_from_an_older_manifest_read_as_unset():
    before = {"inputs": []}
    assert describe_change(before, ident({"device": "cpu"})) == "setting device was None, now 'cpu'"
    assert describe_change(before, ident()) == "it was written by another version of logicparse"


def test_other_inputs_are_listed_by_path_and_their_files_not_compared():
    before = ident(inputs=[one_file("/in/a.txt")])
    now = ident(inputs=[one_file("/in/b.txt", {"a.txt": [99, 9]})])
    assert describe_change(before, now) == "inputs were ['/in/a.txt'], now ['/in/b.txt']"
    assert describe_change({"settings": {}}, now) == "inputs were [], now ['/in/b.txt']"
    assert describe_change(before, ident()) == "inputs were ['/in/a.txt'], now []"


def test_a_file_of_another_size_or_only_modified_is_named_by_its_path():
    before = ident(inputs=[one_file(files={"a.txt": [26, 1]}),
                           folder(files={"x.txt": [5, 1], "y.txt": [5, 1]})])
    now = ident(inputs=[one_file(files={"a.txt": [35, 2]}),
                        folder(files={"x.txt": [5, 2], "y.txt": [5, 1]})])
    assert describe_change(before, now) == (
        "/in/a.txt changed: 26 bytes, now 35; /in/x.txt was modified since (same size)")


def test_a_file_unreadable_then_or_now_is_modified_since():
    before = ident(inputs=[folder(files={"x.txt": None, "y.txt": [5, 1]})])
    now = ident(inputs=[folder(files={"x.txt": [5, 1], "y.txt": None})])
    assert describe_change(before, now) == (
        "/in/x.txt was modified since (same size); /in/y.txt was modified since (same size)")


def test_files_added_to_and_gone_from_a_folder_show_the_first_three_sorted():
    old = {n: [1, 1] for n in ("a", "b", "c", "d", "e")}
    new = {n: [1, 1] for n in ("a", "b", "c", "f", "g", "h", "i")}
    before = ident(inputs=[folder(files=old)])
    now = ident(inputs=[folder(files=new)])
    assert describe_change(before, now) == (
        "4 file(s) added to /in (f, g, h ...); 2 file(s) gone from /in (d, e)")
    three = {**old, "f": [1, 1], "g": [1, 1], "h": [1, 1]}
    assert describe_change(before, ident(inputs=[folder(files=three)])) == (
        "3 file(s) added to /in (f, g, h)")
    # the same for files gone
    assert describe_change(now, before) == (
        "2 file(s) added to /in (d, e); 4 file(s) gone from /in (f, g, h ...)")
    assert describe_change(ident(inputs=[folder(files=three)]), before) == (
        "3 file(s) gone from /in (f, g, h)")


def test_a_file_of_another_size_in_a_folder_is_named_by_its_path_under_it():
    before = ident(inputs=[folder(files={"sub/x.txt": [5, 1]})])
    now = ident(inputs=[folder(files={"sub/x.txt": [6, 1]})])
    assert describe_change(before, now) == "/in/sub/x.txt changed: 5 bytes, now 6"


def test_more_than_eight_changes_show_eight_and_a_count():
    for n, tail in ((8, ""), (9, "; ... and 1 more"), (11, "; ... and 3 more")):
        keys = sorted(f"s{i}" for i in range(n))
        reason = describe_change(ident(dict.fromkeys(keys, 0)), ident(dict.fromkeys(keys, 1)))
        assert reason == "; ".join(f"setting {k} was 0, now 1" for k in keys[:8]) + tail


def test_identity_records_each_file_size_and_time_escaped_and_stdin_as_a_dash(tmp_path):
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "b.txt").write_text("hello")
    odd = d / os.fsdecode(b"a\xff.txt")  # a name that is not UTF-8
    odd.write_text("hi")
    single = tmp_path / "one.txt"
    single.write_text("abc")
    files = [odd, d / "sub" / "b.txt"]
    specs = [InputSpec(str(d), "dir", files), InputSpec(str(single), "txt"),
             InputSpec("-", "stdin")]
    got = identity(specs, {"senses": "none"})
    st = {f: [os.stat(f).st_size, os.stat(f).st_mtime_ns] for f in [*files, single]}
    assert got == {"settings": {"senses": "none"}, "inputs": [
        {"path": str(d.resolve()), "kind": "dir",
         "files": {"a\\xff.txt": st[files[0]], "sub/b.txt": st[files[1]]}},
        {"path": str(single.resolve()), "kind": "txt", "files": {"one.txt": st[single]}},
        {"path": "-", "kind": "stdin", "files": {}}]}
    # stats taken at the start are used as given; a file that could not be read is None
    given = {str(files[0]): (1, 2), str(files[1]): None, str(single): (3, 4)}
    got = identity(specs, {}, given)
    assert got["inputs"][0]["files"] == {"a\\xff.txt": [1, 2], "sub/b.txt": None}
    assert got["inputs"][1]["files"] == {"one.txt": [3, 4]}


def test_identity_records_the_inputs_after_stdin_and_an_input_path_not_utf8(tmp_path):
    odd = tmp_path / os.fsdecode(b"caf\xe9.txt")
    odd.write_text("x")
    got = identity([InputSpec("-", "stdin"), InputSpec(str(odd), "txt")], {}, {str(odd): (1, 5)})
    where = str(tmp_path.resolve())
    assert got["inputs"] == [{"path": "-", "kind": "stdin", "files": {}},
                             {"path": f"{where}/caf\\xe9.txt", "kind": "txt",
                              "files": {"caf\\xe9.txt": [1, 5]}}]


def test_fingerprint_changes_with_inputs_their_stats_and_settings_only(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("x")
    b.write_text("y")
    specs = [InputSpec(str(a), "txt")]
    stats = {str(a): (1, 5)}
    fp = fingerprint(specs, {"senses": "none"}, stats)
    assert len(fp) == 64 and fp == fingerprint(specs, {"senses": "none"}, dict(stats))
    assert fp != fingerprint(specs, {"senses": "default"}, stats)
    assert fp != fingerprint(specs, {"senses": "none"}, {str(a): (1, 6)})
    assert fp != fingerprint(specs, {"senses": "none"}, {str(a): (2, 5)})
    assert fp != fingerprint(specs, {"senses": "none"}, {str(a): None})
    assert fp != fingerprint([InputSpec(str(b), "txt")], {"senses": "none"}, {str(b): (1, 5)})
    assert fp != fingerprint([InputSpec(str(a), "jsonl")], {"senses": "none"}, stats)
    # read now when no stats are given
    now = os.stat(a)
    assert fingerprint(specs, {}) == fingerprint(specs, {}, {str(a): (now.st_size,
                                                                       now.st_mtime_ns)})
    folder_specs = [InputSpec(str(tmp_path), "dir", [a, b])]
    both = {str(a): (1, 5), str(b): (1, 5)}
    assert fingerprint(folder_specs, {}, both) != fingerprint(
        [InputSpec(str(tmp_path), "dir", [a])], {}, both)
    stdin = fingerprint([InputSpec("-", "stdin")], {})
    assert stdin == fingerprint([InputSpec("-", "stdin")], {}, {}) and stdin != fp


def test_fingerprint_sees_the_files_given_after_stdin(tmp_path):
    a = tmp_path / "a.txt"
    a.write_text("x")
    specs = [InputSpec("-", "stdin"), InputSpec(str(a), "txt")]
    # a file listed after stdin that changed since is another run's input
    assert fingerprint(specs, {}, {str(a): (1, 5)}) != fingerprint(specs, {}, {str(a): (2, 5)})


def test_fingerprint_tells_apart_one_relative_name_in_two_folders(tmp_path, monkeypatch):
    for sub in ("one", "two"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "a.txt").write_text("x")
    specs, stats = [InputSpec("a.txt", "txt")], {"a.txt": (1, 5)}
    monkeypatch.chdir(tmp_path / "one")
    first = fingerprint(specs, {}, stats)
    monkeypatch.chdir(tmp_path / "two")
    # the same name, size and time, but another file: a resumed run must not trust it
    assert fingerprint(specs, {}, stats) != first


def test_fingerprint_does_not_depend_on_the_order_of_the_settings(tmp_path):
    specs = [InputSpec("-", "stdin")]
    assert fingerprint(specs, {"senses": "none", "max_chars": 10}) == fingerprint(
        specs, {"max_chars": 10, "senses": "none"})


def test_fingerprint_never_takes_a_file_that_could_not_be_read_for_one_that_could(tmp_path):
    a = tmp_path / "a.txt"
    specs = [InputSpec(str(a), "txt")]
    # one byte, last modified a nanosecond before 1970: a file that exists, whatever its time
    assert fingerprint(specs, {}, {str(a): None}) != fingerprint(specs, {}, {str(a): (1, -1)})


# A partial run resumes only under the same fingerprint: a fingerprint that changed between
# releases or machines silently restarts every user's run. These values are therefore fixed.
# (A new SCHEMA_VERSION changes every fingerprint on purpose: rows of another schema must not be
# mixed with these; update the values with it.)
ABSENT = "/logicparse-test-absent"
SHAPE = ('{"inputs": [["-"], ["' + ABSENT + '/in", "dir", "%s"], '
         '["' + ABSENT + '/caf\\\\xe9.txt", "txt", "%s"]], '
         '"schema": "1", "settings": {"chunk": {"chars": 20000}, "senses": "none"}}')


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.skipif(sys.getfilesystemencoding() != "utf-8", reason="names are not UTF-8 here")
def test_fingerprint_of_fixed_inputs_and_settings_is_a_known_value():
    odd = os.fsdecode(ABSENT.encode() + b"/caf\xe9.txt")  # a name that is not UTF-8
    a, b = Path(f"{ABSENT}/in/a.txt"), Path(f"{ABSENT}/in/b.txt")
    specs = [InputSpec("-", "stdin"), InputSpec(f"{ABSENT}/in", "dir", [a, b]),
             InputSpec(odd, "txt")]
    stats = {str(a): (5, 1_234_567_890_123_456_789), str(b): None, odd: (3, 7)}
    fp = fingerprint(specs, {"senses": "none", "chunk": {"chars": 20000}}, stats)
    assert SCHEMA_VERSION == "1"
    assert fp == "d7150d9a75662ed8241a17fef125452d0d0e71a2e33153c6f2bb23a983c5a063"
    # what is hashed: per input its resolved path (undecodable bytes as \xNN), kind and a hash
    # of each file's name as bytes, size and time (an unread file: -1, -1); stdin is a dash
    folder = sha256(ABSENT.encode() + b"/in/a.txt\x005\x001234567890123456789\n"
                    + ABSENT.encode() + b"/in/b.txt\x00-1\x00-1\n")
    single = sha256(ABSENT.encode() + b"/caf\xe9.txt\x003\x007\n")
    assert folder == "9f1c3cb33d1e1de1814ecc0b4176fcd66902bbaff66dae6cb95d41ff6068f256"
    assert single == "3fd86c5444552d6ac905ecbcd2238da99d89c4d1462f07f46762997580f35598"
    assert fp == sha256((SHAPE % (folder, single)).encode())


def test_fingerprint_of_files_read_now_hashes_their_resolved_paths_sizes_and_times(tmp_path):
    a, gone = tmp_path / "a.txt", tmp_path / "gone.txt"
    a.write_bytes(b"hello")
    os.utime(a, ns=(1_000_000_000_000_000_000, 1_234_567_890_000_000_000))
    specs = [InputSpec(str(a), "txt"), InputSpec("-", "stdin"), InputSpec(str(gone), "txt")]
    files = [sha256(os.fsencode(a) + b"\x005\x001234567890000000000\n"),
             sha256(os.fsencode(gone) + b"\x00-1\x00-1\n")]
    paths = [json.dumps(str(p.resolve())) for p in (a, gone)]
    blob = (f'{{"inputs": [[{paths[0]}, "txt", "{files[0]}"], ["-"], '
            f'[{paths[1]}, "txt", "{files[1]}"]], "schema": "1", "settings": {{}}}}')
    assert fingerprint(specs, {}) == sha256(blob.encode())


def test_stdin_alone_is_another_run_than_no_input_at_all():
    assert fingerprint([], {}) == (
        "5b297260c2e081ed6a0eb84edc92d6bdc3d1818c28b0f80c5cfdaa99dd73a2f8")
    assert fingerprint([InputSpec("-", "stdin")], {}) == (
        "3e997330419e4ba3705fc0ffbfc2b7513d52970512ea278860642bb2de70bc41")


def test_identity_and_fingerprint_are_made_of_size_and_time_only(tmp_path):
    # a run's stats also hold the status change time, device and inode, checked during the run
    # only: a copy of the corpus elsewhere resumes
    a = tmp_path / "a.txt"
    specs = [InputSpec(str(a), "txt")]
    full, short = {str(a): (1, 5, 77, 8, 9)}, {str(a): (1, 5)}
    assert fingerprint(specs, {}, full) == fingerprint(specs, {}, short)
    assert identity(specs, {}, full) == identity(specs, {}, short)
    assert identity(specs, {}, full)["inputs"][0]["files"] == {"a.txt": [1, 5]}


def test_the_digest_of_a_shards_documents_tells_every_field_apart():
    base = digest(["a", "b"], ["x", None], [None, "[E336] ..."])
    assert len(base) == 32 and base == digest(("a", "b"), ("x", None), (None, "[E336] ..."))
    for other in (digest(["a", "b"], ["x", ""], [None, "[E336] ..."]),  # no text, empty text
                  digest(["a", "b"], ["x", None], [None, "[E339] ..."]),
                  digest(["ab", ""], ["x", None], [None, "[E336] ..."]),  # where a field ends
                  digest(["a", "b"], [None, "x"], [None, "[E336] ..."]),
                  digest(["a"], ["x"], [None])):
        assert other != base
    assert digest(["\ud800"], ["t"], [None]) != digest(["\udc80"], ["t"], [None])
