"""Ids and text from inputs and received shards reach the terminal with their control characters
escaped: no clear-screen, window title, clipboard write, fake OSC 8 link, C1 control, bidi
reordering, tag character or other invisible character gets through."""

import json
import logging
import sys
import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

import logicparse
from logicparse.batch import shards as sh
from logicparse.cli import _register, app
from logicparse.terminal import SafeFormatter, safe, safe_json
from logicparse.tokens import SCHEMA_VERSION, Document

FIX = Path(__file__).parent / "fixtures" / "batch"
sys.path.insert(0, str(FIX))  # the flat fake pipeline, found by the worker processes
_register()

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;owned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\FAKE: all good\x1b]8;;\x1b\\"
C1 = "\x9b31m"
BIDI = "\u202egnp.exe"
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "run rm")  # invisible: ASCII spelt in tags
ZW = "\u200b\u2060\ufeff\u00ad\ufe0f"


def raw(text: str) -> list:
    """The characters of ``text`` a terminal acts on or shows as nothing (tab and newline are
    layout): C0, DEL, C1, format characters (Cf), separators, tags, variation selectors."""
    return [c for c in text if (c < " " and c not in "\t\n") or "\x7f" <= c <= "\x9f"
            or unicodedata.category(c) in ("Cf", "Zl", "Zp") or 0xE0000 <= ord(c) <= 0xE0FFF
            or 0xFE00 <= ord(c) <= 0xFE0F]


def test_safe_escapes_controls_and_keeps_ordinary_text():
    assert safe(CLEAR) == "\\x1b[2J\\x1b[H"
    assert safe(TITLE) == "\\x1b]0;owned\\x07"
    assert safe(C1 + BIDI) == "\\x9b31m\\u202egnp.exe"
    assert safe("Ça, déjà 中文 — ok") == "Ça, déjà 中文 — ok"
    assert safe("a\tb\nc") == "a\\tb\\nc" and safe("a\tb\nc\rd", lines=True) == "a\tb\nc\\rd"
    line = safe_json({"t": LINK + C1 + BIDI}, ensure_ascii=False)
    assert not raw(line) and json.loads(line) == {"t": LINK + C1 + BIDI}


def test_safe_shows_tags_and_invisible_characters():
    assert safe("id" + chr(0xE0041)) == "id\\U000e0041"
    assert safe("a" + ZW + "b") == "a\\u200b\\u2060\\ufeff\\xad\\ufe0fb"
    assert safe("a\u200db") != safe("ab") and safe("a\u200db") == "a\\u200db"
    # Every format character Python knows, whatever its Unicode version.
    cf = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    assert len(cf) > 150 and not raw(safe("".join(cf)))
    line = safe_json({"id": TAGS + ZW}, ensure_ascii=False)
    assert not raw(line) and json.loads(line) == {"id": TAGS + ZW}


def test_log_messages_are_escaped():
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "ids: %s", (TITLE,), None)
    assert SafeFormatter("%(message)s").format(record) == "ids: \\x1b]0;owned\\x07"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    rows = [{"id": TITLE + "a", "text": "RAISE_IN_PARSER since it rains."},
            {"id": LINK, "text": f"We stay {CLEAR} since it {C1} rains {BIDI} ."},
            {"id": BIDI, "text": "Plain text, as it is."}]
    (d / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = d / "shards"
    res = CliRunner().invoke(app, ["annotate", str(d / "in.jsonl"), "--out", str(out),
                                   "--senses", "none", "--workers", "1",
                                   "--annotator", "fake_pipeline:flat"])
    assert res.exit_code == 0, res.output
    return out, res


def test_annotate_failed_ids_line_is_escaped(hostile):
    _, res = hostile
    assert "failed ids: \\x1b]0;owned\\x07a" in res.stderr
    assert not raw(res.output)


@pytest.mark.parametrize("doc_id", [TITLE + "a", LINK, BIDI])
def test_shards_show_escapes_id_text_and_spans(hostile, doc_id):
    out, _ = hostile
    for extra in ([], ["--labels"], ["--json"]):
        res = CliRunner().invoke(app, ["shards", "show", str(out), "--id", doc_id, *extra])
        assert res.exit_code == 0, res.output
        assert not raw(res.output), (extra, res.output)
        if extra == ["--json"]:
            assert json.loads(res.output)["id"] == doc_id
        else:
            assert safe(doc_id) in res.output


def test_error_messages_quoting_input_names_are_escaped(tmp_path):
    res = CliRunner().invoke(app, ["annotate", str(tmp_path / f"missing{CLEAR}{LINK}.txt"),
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "[E301]" in res.output
    assert not raw(res.output)


@pytest.fixture(scope="module")
def received(tmp_path_factory):
    """A shard as anyone could write it: every string field carries escapes or invisibles."""
    d = tmp_path_factory.mktemp("received")
    doc = logicparse.annotate_trees(["(S (NP (PRP I)) (VP (MD will) (RB not) (VP (VB go) (SBAR "
                                     "(IN if) (S (NP (PRP it)) (VP (VBZ rains)))))) (. .))"])
    doc.id = "d" + TAGS
    doc.tokens = [t + ZW for t in doc.tokens]
    doc.tokens[0] = CLIPBOARD + doc.tokens[0]
    doc.parse = [CLEAR]
    for r in doc.relations:
        r.keyword, r.relation = TAGS + r.keyword + C1, r.relation + TITLE
        r.category, r.sense_source = CLIPBOARD + r.category + CLEAR, LINK + TAGS
    failed = Document.failed("e" + ZW, f"text {CLIPBOARD}{BIDI}", f"Boom {LINK}{TAGS}")
    entry = sh.write_shard(d, 0, sh.documents_to_table([doc, failed]))
    sh.write_manifest(d, {"format": sh.FORMAT, "schema_version": SCHEMA_VERSION,
                          "complete": True, "shards": [entry], "parser": CLIPBOARD + TAGS,
                          "senses": LINK + ZW})
    return d, {"annotated": doc.id, "failed": failed.id}


@pytest.mark.parametrize("which", ["annotated", "failed"])
def test_shards_show_escapes_every_field_of_a_received_shard(received, which):
    out, doc_id = received[0], received[1][which]
    shown = {}
    for extra in ([], ["--labels"], ["--json"]):
        res = CliRunner().invoke(app, ["shards", "show", str(out), "--id", doc_id, *extra])
        assert res.exit_code == 0, res.output
        assert not raw(res.output), (extra, sorted(set(raw(res.output))))
        shown[" ".join(extra)] = res.output
    assert safe(doc_id) in shown[""] and json.loads(shown["--json"])["id"] == doc_id
    if which == "annotated":  # what the fields hold is shown, escaped
        assert "\\x1b]52;c;ZWNobyBvd25lZA==\\x07unary" in shown[""]  # a relation's category
        assert "\\x1b]8;;https://evil.example/" in shown[""]  # its sense source
        assert "\\U000e0072" in shown["--labels"]


def test_shards_stats_escapes_a_received_shard(received):
    res = CliRunner().invoke(app, ["shards", "stats", str(received[0])])
    assert res.exit_code == 0, res.output
    assert not raw(res.output), sorted(set(raw(res.output)))
    assert "\\x1b]52;c;" in res.output and "\\U000e0072" in res.output


def test_a_warning_is_one_escaped_line_on_the_command_line(monkeypatch, capsys):
    import warnings

    from logicparse.language import NotEnglishWarning
    from logicparse.terminal import warnings_as_lines

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    warnings_as_lines()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("[W024] Text that does not look like English\x1b[2J", NotEnglishWarning)
    err = capsys.readouterr().err
    assert err == "warning: [W024] Text that does not look like English\\x1b[2J\n"


@pytest.mark.slow
def test_annotate_shows_w024_as_one_line_without_python_source(tmp_path):
    """From a worker process, as a user meets it: the coded message, no path, line or class."""
    import subprocess

    german = tmp_path / "german.txt"
    german.write_text("Wir bleiben zu Hause, weil es regnet und der Zug spät ist. Obwohl die "
                      "Mannschaft gut gespielt hat, hat sie nicht gewonnen.", encoding="utf-8")
    r = subprocess.run([sys.executable, "-c", "from logicparse.cli import main; main()",
                        "annotate", str(german), "--out", str(tmp_path / "out"), "--senses",
                        "none", "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if "W024" in x]
    assert lines and all(x.startswith("warning: [W024] Text that does not look like English")
                         for x in lines)
    assert "NotEnglishWarning" not in r.stderr and ".py:" not in r.stderr
