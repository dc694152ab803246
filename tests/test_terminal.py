"""Ids and text from inputs reach the terminal with their control characters escaped: no
clear-screen, window title, fake OSC 8 link, C1 control or bidi reordering gets through."""

import json
import logging
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.cli import _register, app
from logicparse.terminal import SafeFormatter, safe, safe_json

FIX = Path(__file__).parent / "fixtures" / "batch"
sys.path.insert(0, str(FIX))  # the flat fake pipeline, found by the worker processes
_register()

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;owned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\FAKE: all good\x1b]8;;\x1b\\"
C1 = "\x9b31m"
BIDI = "\u202egnp.exe"
# Any raw control character a terminal acts on (tab and newline are layout, not commands).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f]")


def test_safe_escapes_controls_and_keeps_ordinary_text():
    assert safe(CLEAR) == "\\x1b[2J\\x1b[H"
    assert safe(TITLE) == "\\x1b]0;owned\\x07"
    assert safe(C1 + BIDI) == "\\x9b31m\\u202egnp.exe"
    assert safe("Ça, déjà 中文 — ok") == "Ça, déjà 中文 — ok"
    assert safe("a\tb\nc") == "a\\tb\\nc" and safe("a\tb\nc\rd", lines=True) == "a\tb\nc\\rd"
    line = safe_json({"t": LINK + C1 + BIDI}, ensure_ascii=False)
    assert not RAW.search(line) and json.loads(line) == {"t": LINK + C1 + BIDI}


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
    assert not RAW.search(res.output)


@pytest.mark.parametrize("doc_id", [TITLE + "a", LINK, BIDI])
def test_shards_show_escapes_id_text_and_spans(hostile, doc_id):
    out, _ = hostile
    for extra in ([], ["--labels"], ["--json"]):
        res = CliRunner().invoke(app, ["shards", "show", str(out), "--id", doc_id, *extra])
        assert res.exit_code == 0, res.output
        assert not RAW.search(res.output), (extra, res.output)
        if extra == ["--json"]:
            assert json.loads(res.output)["id"] == doc_id
        else:
            assert safe(doc_id) in res.output


def test_error_messages_quoting_input_names_are_escaped(tmp_path):
    res = CliRunner().invoke(app, ["annotate", str(tmp_path / f"missing{CLEAR}{LINK}.txt"),
                                   "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and "[E301]" in res.output
    assert not RAW.search(res.output)
