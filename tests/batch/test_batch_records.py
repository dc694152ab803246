"""Records of `.jsonl` inputs: ids as the input wrote them, every record one row."""

import json

from logicparse.batch.inputs import ReadOptions, count_documents, read_documents, resolve_inputs


def read(paths, **opts):
    o = ReadOptions(**opts)
    specs = resolve_inputs([str(p) for p in paths])
    return [d for _, d in read_documents(specs, o, None)], count_documents(specs, o)


def test_an_id_over_the_limit_is_a_row_with_a_short_id_and_its_error(tmp_path):
    from logicparse.batch.records import MAX_ID_CHARS

    p = tmp_path / "ids.jsonl"
    long_ids = ["x" * (MAX_ID_CHARS + 1), "x" * (MAX_ID_CHARS + 2)]
    p.write_text("".join(json.dumps({"id": i, "text": "It rained."}) + "\n"
                         for i in [*long_ids, "x" * MAX_ID_CHARS]))
    docs, n = read([p])
    assert n == len(docs) == 3
    assert all(d.text is None and d.error.startswith("[E354]") and "ids.jsonl, line" in d.error
               for d in docs[:2])
    assert f"is {MAX_ID_CHARS + 1:,} characters long" in docs[0].error
    assert len({d.id for d in docs}) == 3 and all(len(d.id) < 200 for d in docs[:2])
    assert docs[0].id.startswith("x" * 100 + "…")
    assert docs[2].error is None and docs[2].id == "x" * MAX_ID_CHARS


def test_json_numbers_as_ids_are_kept_as_written(tmp_path):
    """As floats, 1e400 and 2e400 would both be the id 'inf' and 1.10 would be '1.1'; as decimals
    1e0 would be '1' and an exponent of 10^20 would stop the run (decimal refuses it)."""
    lines = ['{"id": 1e400, "text": "A."}', '{"id": 2e400, "text": "B."}',
             '{"id": 1.10, "text": "C."}', '{"id": 1e0, "text": "D."}', '{"id": 1, "text": "E."}',
             '{"id": 1e99999999999999999999, "text": "F."}', '{"id": -0, "text": "G."}',
             '{"id": 8, "text": 1.5}', '{"id": 9, "text": ' + "9" * 5000 + '}',
             '{"id": NaN, "text": "H."}', '{"id": 11, "text": -Infinity}']
    (tmp_path / "n.jsonl").write_text("\n".join(lines) + "\n")
    docs, n = read([tmp_path / "n.jsonl"])
    assert [d.id for d in docs] == ["1e400", "2e400", "1.10", "1e0", "1", "1e99999999999999999999",
                                    "-0", "8", "9", "NaN", "11"] and n == 11
    assert docs[9].text == "H." and "of type float" in docs[10].error
    assert all(type(d.id) is str for d in docs)  # plain strings, whatever the reader kept
    assert all(d.error is None for d in docs[:7]) and docs[5].text == "F."
    assert "the text field 'text' is of type float, not a string" in docs[7].error
    assert "the text field 'text' is of type int, not a string" in docs[8].error
    # The first record is read before the run (its fields checked): a huge exponent there too.
    (tmp_path / "first.jsonl").write_text('{"text": "Fine.", "n": 1e-99999999999999999999}\n')
    docs, n = read([tmp_path / "first.jsonl"])
    assert n == 1 and docs[0].text == "Fine." and docs[0].error is None


def test_json_ids_that_are_not_strings_are_written_as_the_input_wrote_them(tmp_path):
    """Python's str() gave `True`, `{'a': 1}` and `[1, 2]`: ids the input never held."""
    lines = ['{"id": true, "text": "A."}', '{"id": false, "text": "B."}',
             '{"id": {"a": 1.10, "b": [null, "\\u00e9", 1e400]}, "text": "C."}',
             '{"id": [1, 2], "text": "D."}', '{"id": null, "text": "E."}',
             '{"id": ' + "[" * 900 + "]" * 900 + ', "text": "F."}']
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    docs, n = read([tmp_path / "j.jsonl"])
    assert [d.id for d in docs] == ["true", "false", '{"a":1.10,"b":[null,"\u00e9",1e400]}',
                                    "[1,2]", "j:5", "j:6"] and n == 6
    assert all(d.error is None for d in docs) and docs[5].text == "F."


def test_every_jsonl_record_is_one_row_whatever_a_json_parser_makes_of_it(tmp_path):
    p = tmp_path / "v.jsonl"
    p.write_text("\n".join([
        '{"id": "big", "text": "Fine.", "n": %s}' % ("9" * 5000),
        '{"id": %s, "text": "Fine too."}' % ("7" * 5000),
        '{"id": "s", "text": "broken \\ud800 here"}',
        '{"id": "x\\udc80", "text": "Fine."}',
        '{"id": "long", "text": "%s"}' % ("a" * 30_000),
        '{"id": "longer", "text": "%s"}' % ("a" * 1_100_000),  # over 12 x 2,000 + 1 MiB bytes
        '{"id": "ok", "text": "End."}']) + "\n")
    docs, n = read([p], max_chars=2_000)
    assert n == len(docs) == 7
    assert [d.id for d in docs] == ["big", "7" * 5000, "s", "x\\udc80", "long", "v:6", "ok"]
    assert docs[0].error is None and docs[1].text == "Fine too."
    assert docs[2].error.startswith("[E340]") and "'text'" in docs[2].error
    assert "lone surrogate at character 7" in docs[2].error
    assert docs[3].error.startswith("[E340]") and "'id'" in docs[3].error
    assert docs[4].error.startswith("[E333]") and docs[4].text == "a" * 1000
    assert docs[5].error.startswith("[E341]") and "line 6" in docs[5].error
    assert docs[6].text == "End."
