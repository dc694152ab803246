"""`--help` of every command shows its help texts whole: rich markup must not eat bracketed words
such as the extra in `logicparse[mpnet]`; a mistake on the command line is a coded error naming
the option, what it got and its choices, as every other error is."""

import re

import pytest
import typer
from typer.testing import CliRunner

from logicparse.cli import _register, app


def _commands():
    _register()

    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, path + [name])

    return list(walk(typer.main.get_command(app), []))


def _bracketed(command) -> list[str]:
    texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
    # What the reader must see: the text as written, without rich's escaping backslash.
    return [m.group().replace("\\[", "[") for t in texts
            for m in re.finditer(r"\\?\[[^\]\s]*\]", t)]


def test_the_bracketed_words_are_found():
    words = {w for _, c in _commands() for w in _bracketed(c)}
    assert {"[mpnet]", "[model]", "[train]"} <= words


@pytest.mark.parametrize("path,command", _commands(), ids=lambda x: " ".join(x) if isinstance(x, list) else "")
def test_help_keeps_bracketed_words(path, command):
    res = CliRunner().invoke(app, path + ["--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    shown = " ".join(res.output.split())
    for word in _bracketed(command):
        assert word in shown, f"{' '.join(path)} --help lost {word}"


@pytest.mark.parametrize("args,says", [
    (["train", "--task", "bogus", "--out", "x"],
     "Invalid value for '--task': 'bogus' is not one of 'dream', 'logiqa', 'dialogsum'"),
    (["annotate", "x", "--out", "y", "--mapping", "lit"],
     "Invalid value for '--mapping': 'lit' is not one of 'default', 'paper'"),
    (["annotate", "x", "--out", "y", "--workers", "0"], "Invalid value for '--workers'"),
    (["annotate"], "Missing argument 'INPUT...'"),
    (["anotate"], "No such command 'anotate'. Did you mean 'annotate'?"),
    (["senses", "train", "--bogus"], "No such option: --bogus"),
])
def test_a_command_line_mistake_is_a_coded_error_with_the_fix(args, says):
    _register()
    r = CliRunner().invoke(app, args)
    command = "logicparse " + " ".join(a for a in args[:2] if a in ("train", "annotate",
                                                                     "senses"))
    assert r.exit_code == 2
    assert r.output.startswith(f"error: [E009] {says}"), r.output
    assert f"Run `{command.strip()} --help` for the options" in r.output
    assert "Value error" not in r.output and "Usage:" not in r.output
