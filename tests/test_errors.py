"""Every error a user meets carries its code, and every command ends one the same way."""

import re

from typer.testing import CliRunner

from logicparse.cli import _register, app
from logicparse.errors import Errors, InputTextError, LogicparseError

_register()


def test_every_message_starts_with_its_own_code():
    names = [n for n in vars(Errors) if re.fullmatch(r"[EW]\d{3}", n)]
    assert len(names) > 50
    for name in names:
        assert getattr(Errors, name).startswith(f"[{name}] "), name


def test_error_code_attribute():
    assert InputTextError(Errors.E001.format(type="int")).code == "E001"
    assert LogicparseError("no code here").code is None


def test_commands_end_errors_with_code_and_exit_2_without_traceback(tmp_path):
    runner = CliRunner()
    for args in (["parser", "eval", "--treebank", str(tmp_path / "missing.mrg")],
                 ["mapping", "eval", "--gdtb", str(tmp_path)],
                 ["shards", "stats", str(tmp_path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert re.search(r"^error: \[E\d{3}\] ", result.stderr, re.M), (args, result.stderr)
        assert "Traceback" not in result.output
        assert not isinstance(result.exception, LogicparseError)


def test_verbose_keeps_the_traceback(tmp_path):
    result = CliRunner().invoke(app, ["--verbose", "mapping", "eval", "--gdtb", str(tmp_path)])
    assert isinstance(result.exception, LogicparseError)
    assert result.exception.code == "E030"
