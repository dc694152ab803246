"""Progress output of batch runs: plain lines off a terminal, a rich bar on one, nothing quiet."""

import io

from rich.console import Console

from logicparse.batch.progress import PlainProgress, Progress, RichProgress, make_progress


def test_plain_lines_with_rates_and_eta():
    buf = io.StringIO()
    p = PlainProgress(buf, interval=0)
    p.start(10)
    p.skip(4)
    p.advance(2, 30, 1)
    p.close()
    lines = buf.getvalue().splitlines()
    # The models load before the first documents; close() does not repeat an unchanged line.
    assert len(lines) == 2 and lines[0] == "annotate: loading models…"
    line = lines[1]
    assert line.startswith("annotate: 6/10 documents (60%), 4 resumed, ")
    assert "docs/s" in line and "sentences/s" in line and "1 failed" in line and "ETA" in line


def test_rich_bar_on_a_terminal():
    buf = io.StringIO()
    p = RichProgress(Console(file=buf, force_terminal=True, width=150))
    p.start(10)
    p._bar.refresh()
    assert "loading models…" in buf.getvalue()  # until the first documents are done
    p.skip(2)
    p.advance(3, 40, 0)
    p.close()
    out = buf.getvalue()
    assert "3/8" in out and "docs/s" in out and "sent/s" in out and "ETA" in out


def test_choice_of_view():
    assert type(make_progress(quiet=True)) is Progress
    assert isinstance(make_progress(stream=io.StringIO()), PlainProgress)


def test_plain_lines_keep_coming_while_the_models_load():
    """No document finishes while the workers load their models: a line still comes every
    interval, saying so (the docs promise one every 10 s)."""
    import time

    buf = io.StringIO()
    p = PlainProgress(buf, interval=0.05)
    p.start(10)
    deadline = time.monotonic() + 10
    while len(buf.getvalue().splitlines()) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    p.close()
    lines = buf.getvalue().splitlines()
    assert lines[0] == "annotate: loading models…"
    assert len(lines) >= 3 and all(l.startswith("annotate: loading models… (") for l in lines[1:3])
