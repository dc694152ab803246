"""What a user reads of a finished run: ``logicparse shards stats`` and ``logicparse shards show``,
their tables and terminal views. Shards come from ``annotate_trees`` (no parser), as in
test_batch_shards.py."""

import io
import json

from test_batch_shards import docs, write_dir

import logicparse
from logicparse.batch.stats import shard_stats
from logicparse.tokens import Document


def test_stats(tmp_path):
    write_dir(tmp_path)
    s = shard_stats(tmp_path)
    d = docs()
    assert s["documents"] == 3 and s["failed"] == 1 and s["shards"] == 2
    assert s["sentences"] == 3
    assert s["tokens"] == sum(len(x.tokens) for x in d)
    assert s["relations"] == sum(len(x.relations) for x in d) == sum(s["per_relation"].values())
    assert s["per_relation"]["negation"] == 1 and s["per_keyword"]["but"] == 1
    labelled = sum(1 for x in d for ids in x.logic if ids)
    assert s["labelled_token_share"] == round(labelled / s["tokens"], 4)
    assert list(s["per_relation"]) == logicparse.RELATIONS


def test_cli_stats_and_show(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    write_dir(tmp_path)
    r = CliRunner().invoke(app, ["shards", "stats", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout.strip().splitlines()[-1])["documents"] == 3
    assert "tokens with a label" in r.stdout
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "d0"])
    assert r.exit_code == 0, r.output
    assert "negation" in r.stdout and "conditional" in r.stdout
    assert "key   not" in r.stdout and "alpha" in r.stdout
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "bad"])
    assert "FAILED: ValueError: boom" in r.stdout
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "d1", "--json"])
    assert Document.from_dict(json.loads(r.stdout)) == docs()[1]
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "nope"])
    assert r.exit_code == 2 and "No document with id 'nope'" in r.output


def test_show_renders_discontinuous_spans():
    from rich.console import Console

    from logicparse.batch.show import render_document, span_text

    d = docs()[0]
    neg = next(r for r in d.relations if r.relation == "negation")
    assert " … " in span_text(d, neg.alpha)  # pa(n) minus n leaves pieces on both sides
    buf = io.StringIO()
    render_document(d, Console(file=buf, width=100), labels=True)
    assert "negation:key" in buf.getvalue()


def test_cli_stats_header_fits_80_columns(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    out = tmp_path / "annotated" / "a-long-shard-directory-name"
    write_dir(out, {"parser": "logicparse-minilm-v4", "senses": "logicparse-senses-minilm"})
    r = CliRunner().invoke(app, ["shards", "stats", str(out)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()[:-1]  # the last line is the JSON object
    # Directory, state and models each on a line of their own, none cut.
    assert lines[0] == str(out) and lines[1] == "2 shards, complete"
    assert any(line.split() == ["parser", "logicparse-minilm-v4"] for line in lines)
    assert any(line.split() == ["senses", "logicparse-senses-minilm"] for line in lines)
    assert all(len(line) <= 80 for line in lines[1:])


def test_show_marks_keywords_in_plain_text_when_piped(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    write_dir(tmp_path)
    # CliRunner's stdout is not a terminal, as in `logicparse shards show ... | less`.
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "d0"])
    assert "[0] I will *not* go *if* it rains ." in r.stdout
    r = CliRunner().invoke(app, ["shards", "show", str(tmp_path), "--id", "d1"])
    assert "[0] Cats *and* dogs play ." in r.stdout and "[1] *But* they fight ." in r.stdout
    assert "alpha Cats" in r.stdout and "beta  dogs" in r.stdout


def test_cli_stats_says_what_its_keyword_table_leaves_out(tmp_path):
    from typer.testing import CliRunner

    from logicparse.cli import _register, app

    _register()
    write_dir(tmp_path)
    per_keyword = shard_stats(tmp_path)["per_keyword"]
    assert len(per_keyword) >= 2
    r = CliRunner().invoke(app, ["shards", "stats", str(tmp_path), "--top", "1"])
    assert r.exit_code == 0, r.output
    rest = sum(list(per_keyword.values())[1:])
    assert (f"... and {len(per_keyword) - 1} more keywords ({rest} occurrences): --top "
            f"{len(per_keyword)} lists them all") in r.stdout
    r = CliRunner().invoke(app, ["shards", "stats", str(tmp_path)])
    assert "more keywords" not in r.stdout  # all of them fit under the default 20
