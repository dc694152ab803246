"""Values a user passes that logicparse cannot use are refused with a code and the fix: a parser
or senses value that names nothing is refused at once, with the choices, wherever it is given
(Python API, spaCy config, command line, service settings), before any model loads and without
touching the network; ``annotate`` names the type it got."""

import socket

import pytest
from typer.testing import CliRunner

from logicparse.errors import LogicparseError, OptionError


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("tried the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def no_model_loads(monkeypatch):
    """Loading the parser or an encoder fails the test: a bad value must be refused before."""
    import logicparse.parser
    import logicparse.senses.features

    def refuse(*args, **kwargs):
        raise AssertionError("a model was loaded before the value was checked")

    monkeypatch.setattr(logicparse.parser, "load_parser", refuse)
    monkeypatch.setattr(logicparse.senses.features.Encoder, "__init__", refuse)


def _is_e218(error, value):
    msg = str(error)
    assert error.code == "E218", msg
    assert repr(value) in msg
    for choice in ("'default'", "'rules'", "'mpnet'", "'none'", "directory"):
        assert choice in msg, msg


def test_senses_typo_is_refused_at_once_with_the_choices(no_network, no_model_loads):
    import logicparse

    with pytest.raises(OptionError) as e:
        logicparse.Annotator(senses="rule")
    _is_e218(e.value, "rule")
    assert "Did you mean 'rules'?" in str(e.value)


@pytest.mark.parametrize("value", ["rule", "Default", "minilm", "", "42", 42, 1.5])
def test_senses_spec_refuses_what_names_nothing(no_network, value):
    from logicparse.resources import senses_spec
    from logicparse.senses import load_senses

    for call in (senses_spec, load_senses):
        with pytest.raises(OptionError) as e:
            call(value)
        _is_e218(e.value, value)


def test_senses_spec_accepts_the_known_values_and_what_exists(no_network, tmp_path, monkeypatch):
    import huggingface_hub.constants

    from logicparse.resources import senses_spec

    for value in ("default", "rules", "mpnet"):
        assert senses_spec(value) == value
    for value in (None, "none", " None ", "NONE"):
        assert senses_spec(value) is None
    assert senses_spec(str(tmp_path)) == str(tmp_path)
    assert senses_spec(tmp_path) == tmp_path
    # An encoder in the local Hugging Face cache, looked up offline.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(OptionError):
        senses_spec("albert-base-v2")
    snap = tmp_path / "hub" / "models--albert-base-v2" / "snapshots" / "abc"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    (snap.parent.parent / "refs").mkdir()
    (snap.parent.parent / "refs" / "main").write_text("abc")
    assert senses_spec("albert-base-v2") == "albert-base-v2"


def test_parser_typo_is_refused_with_the_choices(no_network):
    from logicparse.parser import check_parser

    with pytest.raises(LogicparseError) as e:
        check_parser("defualt")
    msg = str(e.value)
    assert e.value.code == "E021" and "'defualt'" in msg
    assert "Did you mean 'default'?" in msg and "'default'" in msg and "directory" in msg
    assert "benepar.download('defualt')" not in msg  # a typo is no model to install
    with pytest.raises(LogicparseError) as e:
        check_parser("models/no-such-parser")
    assert e.value.code == "E100"
    for value in ("default", None):
        check_parser(value)


def test_annotator_checks_the_parser_before_loading_anything(no_network, no_model_loads):
    import logicparse

    with pytest.raises(LogicparseError) as e:
        logicparse.Annotator(parser="defualt", senses="rules")
    assert e.value.code == "E021"


def test_spacy_component_config_is_checked(no_network, no_model_loads):
    import spacy

    import logicparse.spacy_component  # noqa: F401 - registers the factory

    nlp = spacy.blank("en")
    with pytest.raises(OptionError) as e:
        nlp.add_pipe("logicparse", config={"senses": "rule"})
    _is_e218(e.value, "rule")
    with pytest.raises(LogicparseError) as e:
        nlp.add_pipe("logicparse", config={"parser": "defualt", "senses": None})
    assert e.value.code == "E021"


@pytest.mark.parametrize("args,code", [(["--senses", "rule"], "E218"),
                                       (["--parser", "defualt"], "E021")])
def test_annotate_command_refuses_before_starting_workers(tmp_path, no_network, args, code):
    from logicparse.cli import _register, app

    _register()
    (tmp_path / "a.txt").write_text("It rained, so we stayed in.")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["annotate", str(tmp_path / "a.txt"), "--out", str(out),
                                      "--quiet", *args])
    assert result.exit_code == 2, result.output
    assert f"error: [{code}] " in result.stderr
    assert not out.exists(), "nothing is written for a refused command"


def test_service_settings_are_checked():
    from pydantic import ValidationError

    from logicparse.service.settings import Settings

    with pytest.raises(ValidationError, match=r"\[E218\]"):
        Settings(senses="rule")
    with pytest.raises(ValidationError, match=r"\[E021\]"):
        Settings(parser="defualt")
    assert Settings(senses="rules", parser="default").parser == "default"


@pytest.mark.parametrize("value,type_name", [(42, "int"), (None, "NoneType"), (3.5, "float"),
                                             ({"text": "a"}, "dict")])
def test_annotate_names_the_type_it_got(lexicon_annotator, value, type_name):
    from logicparse.errors import InputTextError

    with pytest.raises(InputTextError) as e:
        lexicon_annotator.annotate(value)
    msg = str(e.value)
    assert e.value.code == "E001" and f"got {type_name}" in msg
    assert "Decode" not in msg  # nothing to do with bytes


@pytest.mark.parametrize("value", [["one text", "another"], ("a",), iter(["a"]),
                                   (t for t in ["a"])])
def test_annotate_points_a_list_of_texts_to_pipe(lexicon_annotator, value):
    from logicparse.errors import InputTextError

    with pytest.raises(InputTextError) as e:
        lexicon_annotator.annotate(value)
    assert e.value.code == "E004" and ".pipe(" in str(e.value)
    assert type(value).__name__ in str(e.value)


@pytest.mark.parametrize("value", ["one text", b"one text"])
def test_pipe_refuses_one_text_instead_of_annotating_its_characters(lexicon_annotator, value):
    from logicparse.errors import InputTextError

    with pytest.raises(InputTextError) as e:
        list(lexicon_annotator.pipe(value))
    assert e.value.code == "E005" and "annotate(text)" in str(e.value)


def test_pipe_still_records_a_bad_item_in_its_document(lexicon_annotator):
    docs = list(lexicon_annotator.pipe(["It rained.", 42]))
    assert docs[0].error is None and docs[1].error.startswith("[E001] ")


def test_the_annotators_senses_value_is_checked_once_where_it_enters(monkeypatch):
    """The Annotator checks its ``senses`` before any model loads; the loader below trusts it."""
    import logicparse
    from logicparse import resources

    calls = []
    check = resources.senses_spec

    def counted(value):
        calls.append(value)
        return check(value)

    monkeypatch.setattr(resources, "senses_spec", counted)
    annotator = logicparse.Annotator(parser=_NoParser(), senses="rules")
    assert calls == ["rules"] and annotator.senses.name == "rules"


class _NoParser:
    def parse(self, sentences):  # never called: the Annotator only needs a parser object
        raise AssertionError
