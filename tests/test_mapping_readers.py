"""Sentences from contracts, patient leaflets and chat, each with the α and β a reader expects.

Through the bundled parser, as a user gets them. Where today's labels are wrong the test is a
strict xfail saying why: a parser tree no rule can read right (then a second test gives the right
tree and shows it maps right), or a mapping that has no rule for the case yet.
"""

import pytest
from test_mapping_spans import mapped, spans

from logicparse import Annotator, annotate_trees


@pytest.fixture(scope="module")
def rules_annotator():
    """The bundled parser with the tree rules' keyword decisions and the extended keyword lists
    (``dont``), but no encoder."""
    return Annotator(parser="default", senses="rules")


def parser_tree(reason):
    return pytest.mark.xfail(strict=True, reason=f"the bundled parser's tree: {reason}")


def no_rule(reason):
    return pytest.mark.xfail(strict=True, reason=f"no mapping rule yet: {reason}")


READERS = [  # (sentence, keyword, (α, β))
    ("im not sure whether its a bug or a feature", "or", ("a bug", "a feature")),
    ("Tell your doctor if you are pregnant.", "if", ("Tell your doctor", "you are pregnant")),
    pytest.param("Notwithstanding clause 4, the Customer may terminate this Agreement on 30 days' "
                 "notice.", "Notwithstanding",
                 ("the Customer may terminate this Agreement on 30 days ' notice", "clause 4"),
                 marks=parser_tree("'Notwithstanding' an adjective inside the NP 'Notwithstanding "
                                   "clause 4'"), id="notwithstanding, opening"),
    pytest.param("The Customer may terminate this Agreement on 30 days' notice, notwithstanding "
                 "clause 4.", "notwithstanding",
                 ("The Customer may terminate this Agreement on 30 days ' notice", "clause 4"),
                 marks=parser_tree("'notwithstanding clause 4' an NP coordinated with the PP "
                                   "before it"), id="notwithstanding, closing"),
    pytest.param("Keep this medicine out of the sight and reach of children.", "and",
                 ("sight", "reach"),
                 marks=parser_tree("'reach of children' a VP coordinated with 'Keep …'"),
                 id="and: sight and reach"),
    pytest.param("Tell your doctor if you are pregnant before you start taking this medicine.", "if",
                 ("Tell your doctor", "you are pregnant"),
                 marks=parser_tree("the 'before' clause inside the 'if' clause, not on 'Tell'"),
                 id="if: before on Tell"),
    pytest.param("Do not drive or operate machinery while you feel drowsy.", "or",
                 ("drive", "operate machinery"),
                 marks=parser_tree("'drive or operate machinery while …' one flat VP, the 'while' "
                                   "clause a sister of the verbs"), id="or: drive or operate"),
    # float32's tree put the VP 'apply it …' directly under the sentence; int8's is right.
    pytest.param("The cream works like a barrier, so apply it before you go outside.", "before",
                 ("apply it", "you go outside"), id="before: apply it"),
    pytest.param("tried reinstalling but still nothing happens lol", "nothing",
                 ("still happens", ""),
                 marks=parser_tree("one flat S for both clauses"), id="nothing: its clause"),
    pytest.param("If you forget a dose, take it as soon as you remember, but do not take two doses "
                 "at the same time.", "at the same time", ("take two doses", ""),
                 marks=no_rule("a key phrase closing its VP is read as a discourse adverbial "
                               "linking the conjuncts"), id="at the same time: inside its VP"),
    ("same here, also the app crashes", "also", ("same here", "the app crashes")),
]


@pytest.mark.parametrize("text,keyword,expected", READERS)
def test_readers_sentences(lexicon_annotator, text, keyword, expected):
    assert spans(lexicon_annotator.annotate(text), keyword) == expected


def test_a_negating_determiner_negates_its_clause(rules_annotator):
    # `neither` is one of the keywords the default annotator adds to the paper's lists.
    doc = rules_annotator.annotate("Neither party shall assign its rights without consent.")
    assert spans(doc, "Neither") == ("party shall assign its rights without consent", "")


@parser_tree("'i dont know it broke everything' read as 'know (that) it broke everything'; a "
             "reader of chat reads two sentences run together")
def test_a_run_on_sentence_in_chat(rules_annotator):
    assert spans(rules_annotator.annotate("i dont know it broke everything"), "nt") == ("do know", "")


RIGHT_TREES = [  # (id, tree, keyword, (α, β)): the trees the parser should have given
    ("notwithstanding, opening", "(S (PP (IN Notwithstanding) (NP (NN clause) (CD 4))) (, ,) (NP (DT the) "
     "(NN Customer)) (VP (MD may) (VP (VB terminate) (NP (DT this) (NN Agreement)))) (. .))",
     "Notwithstanding", ("the Customer may terminate this Agreement", "clause 4")),
    ("notwithstanding, closing", "(S (NP (DT The) (NN Customer)) (VP (MD may) (VP (VB terminate) (NP (DT "
     "this) (NN Agreement)) (, ,) (PP (IN notwithstanding) (NP (NN clause) (CD 4))))) (. .))",
     "notwithstanding", ("The Customer may terminate this Agreement", "clause 4")),
    ("and: sight and reach", "(S (VP (VB Keep) (NP (DT this) (NN medicine)) (PP (IN out) (PP (IN of) (NP (NP "
     "(DT the) (NX (NN sight) (CC and) (NN reach))) (PP (IN of) (NP (NNS children))))))) (. .))", "and",
     ("sight", "reach")),
    ("if: before on Tell", "(S (VP (VB Tell) (NP (PRP$ your) (NN doctor)) (SBAR (IN if) (S (NP (PRP you)) (VP "
     "(VBP are) (ADJP (JJ pregnant))))) (SBAR (IN before) (S (NP (PRP you)) (VP (VBP start))))) (. .))",
     "if", ("Tell your doctor", "you are pregnant")),
    ("or: drive or operate", "(S (VP (VB Do) (RB not) (VP (VP (VP (VB drive)) (CC or) (VP (VB operate) (NP (NNS "
     "machinery)))) (SBAR (IN while) (S (NP (PRP you)) (VP (VBP feel) (ADJP (JJ drowsy))))))) (. .))", "or",
     ("drive", "operate machinery")),
    ("before: apply it", "(S (S (NP (DT The) (NN cream)) (VP (VBZ works))) (, ,) (RB so) (S (VP (VB apply) (NP "
     "(PRP it)) (SBAR (IN before) (S (NP (PRP you)) (VP (VBP go) (ADVP (RB outside))))))) (. .))",
     "before", ("apply it", "you go outside")),
    ("nothing: its clause", "(S (S (VP (VBD tried) (S (VP (VBG reinstalling))))) (CC but) (S (ADVP (RB still)) "
     "(NP (NN nothing)) (VP (VBZ happens))) (NN lol))", "nothing", ("still happens", "")),
]


@pytest.mark.parametrize("tree,keyword,expected", [c[1:] for c in RIGHT_TREES],
                         ids=[c[0] for c in RIGHT_TREES])
def test_the_right_tree_maps_right(tree, keyword, expected):
    assert mapped(tree, keyword, first=None) == expected


def test_a_run_on_sentence_maps_right_on_a_right_tree():
    trees = ["(S (NP (PRP i)) (VP (VBP do) (RB nt) (VP (VB know))))",
             "(S (NP (PRP it)) (VP (VBD broke) (NP (NN everything))))"]
    doc = annotate_trees(trees, senses="rules")
    assert spans(doc, "nt") == ("do know", "")


@pytest.fixture(scope="module")
def learned_annotator():
    return Annotator(parser="default", senses=None, mapping="learned")


def learned_wrong(reason):
    return pytest.mark.xfail(strict=True, reason=f"the learned choice: {reason}")


def _learned(case, why=None):
    """A READERS case for the learned choice: its spans expected, or a strict xfail saying why."""
    values, old_id = (case.values, case.id) if hasattr(case, "values") else (case, None)
    return pytest.param(*values, marks=[learned_wrong(why)] if why else [], id=old_id)


# The learned choice on the same sentences: right on the two `notwithstanding` ones the rules
# cannot read, wrong on one the rules get right.
LEARNED = [
    _learned(READERS[0]),  # a coordinator joining phrases keeps the rules' spans
    _learned(READERS[1]),
    _learned(READERS[2]),
    _learned(READERS[3]),
    _learned(READERS[4], "the parser's tree, as for the rules"),
    _learned(READERS[5], "the parser's tree, as for the rules"),
    _learned(READERS[6], "the parser's tree, as for the rules"),
    _learned(READERS[7], "α from the sentence's start ('The cream works like a barrier , so "
                         "apply it')"),
    _learned(READERS[8], "the parser's tree, as for the rules"),
    _learned(READERS[9], "no candidate inside the VP"),
    _learned(READERS[10]),  # β without 'same here': the best β shared α's tokens
]


@pytest.mark.parametrize("text,keyword,expected", LEARNED)
def test_readers_sentences_learned(learned_annotator, text, keyword, expected):
    assert spans(learned_annotator.annotate(text), keyword) == expected
