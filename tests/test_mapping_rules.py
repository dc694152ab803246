"""Algorithm 1 and the default mapping's rules, case by case, on small hand-built trees.

Each case is a sentence (after "It rained .") whose tree puts one rule of docs/mapping.md to work;
the expected α and β are what that rule says, worked out by hand. Trees are bracketed strings, so
no parser is loaded (the cases run once per mutant under `make mutate`).
"""

import pytest

from logicparse import annotate_trees, arguments
from logicparse.mapping import _index, find_keywords
from logicparse.taxonomy import keywords

FIRST = "(S (NP (PRP It)) (VP (VBD rained)) (. .))"


def relation(tree, keyword, mapping="default", first=FIRST):
    doc = annotate_trees([first, tree] if first else [tree], mapping=mapping)
    return doc, next(r for r in doc.relations if r.keyword == keyword)


def mapped(tree, keyword, mapping="default"):
    """α and β of ``keyword`` in ``tree`` (the sentence after FIRST), as words."""
    doc, rel = relation(tree, keyword, mapping)
    words = lambda ranges: " ".join(doc.tokens[t] for a, b in ranges for t in range(a, b))  # noqa: E731
    return words(rel.alpha), words(rel.beta)


# --- Detection ------------------------------------------------------------------------------

def test_keyword_index_holds_every_keyword_under_its_first_word_longest_first():
    index = _index()
    assert sorted(kw.text for kws in index.values() for kw in kws) == sorted(keywords())
    for first, kws in index.items():
        assert {kw.words[0] for kw in kws} == {first}
        assert [len(kw.words) for kw in kws] == sorted((len(kw.words) for kw in kws), reverse=True)
    assert [kw.text for kw in index["as"]][-1] == "as" and len(index["as"][0].words) == 3
    # the default annotator's index adds the extensions ("whereas" is one) to the paper's lists
    extended = _index(extended=True)
    assert sorted(kw.text for kws in extended.values() for kw in kws) == sorted(keywords(True))
    assert "whereas" in [kw.text for kw in extended["whereas"]] and "whereas" not in index


def test_detection_at_the_sentence_end_and_after_a_first_word_that_matches_nothing():
    # A phrase ending on the last token is found ('as well', not the shorter 'as').
    assert [(m.keyword.text, m.start, m.end) for m in find_keywords("It was late as well".split())] \
        == [("as well", 3, 5)]
    # 'rather' starts only 'rather than': without it, the next token is still read.
    assert [m.keyword.text for m in find_keywords("We would rather not go".split())] == ["not"]


# --- Algorithm 1 (mapping="paper") ----------------------------------------------------------

@pytest.mark.parametrize("mapping", ["paper", "default"])
def test_keyword_that_is_the_whole_sentence(mapping):
    # No pa(n): the keyword node is the root (depth 0). An extrinsic keyword takes the previous
    # sentence as α under both mappings (the default mapping without its full stop), a coordinator
    # only under the default mapping, a unary keyword never.
    linked = {"However": True, "But": mapping == "default", "No": False}
    previous = [[0, 3]] if mapping == "paper" else [[0, 2]]
    for tree, keyword in (("(ADVP (RB However))", "However"), ("(CC But)", "But"),
                          ("(INTJ (UH No))", "No")):
        _, rel = relation(tree, keyword, mapping)
        assert rel.depth == 0 and rel.beta == []
        assert rel.alpha == (previous if linked[keyword] else []), keyword


def test_paper_multiword_keyword_split_across_its_parents_last_children():
    # 'as well' is no constituent: pa(n) is the VP, the lowest node covering both words, even
    # though the VP ends where the keyword does; depth is the VP's + 1.
    tree = "(S (NP (PRP We)) (VP (VBD sang) (RB as) (RB well)) (. .))"
    _, rel = relation(tree, "as well", "paper")
    assert rel.depth == 2 and rel.key == [[5, 7]]
    assert mapped(tree, "as well", "paper") == ("We .", "sang")


def test_paper_extrinsic_whose_grandparent_is_the_sentence():
    # pa(pa(n)) is the root: α is the sentence minus pa(n), not the previous sentence.
    tree = ("(S (NP (PRP We)) (VP (VBD left)) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained)))) "
            "(. .))")
    assert mapped(tree, "because", "paper") == ("We left .", "it rained")


@pytest.mark.parametrize("mapping", ["paper", "default"])
def test_coordinator_at_the_end_of_its_parent(mapping):
    # pa(n) = A + n + B with B empty (no range at all), or B = the final period only (which the
    # default mapping trims: no range either).
    _, rel = relation("(S (S (NP (PRP It)) (VP (VBD rained))) (CC but))", "but", mapping, first=None)
    assert (rel.alpha, rel.beta) == ([[0, 2]], [])
    _, rel = relation("(S (S (NP (PRP It)) (VP (VBD rained))) (CC but) (. .))", "but", mapping,
                        first=None)
    assert (rel.alpha, rel.beta) == ([[0, 2]], [[3, 4]] if mapping == "paper" else [])


# --- The default mapping, rule by rule ------------------------------------------------------

CASES = [  # (id, second sentence's tree, keyword, (α, β) under the default mapping)
    # vp_subject: coordinated VPs take the clause's subject into α; β runs over the conjuncts
    # after the coordinator (a flat VP: the verb and its object) up to the next coordinator.
    ("vp_subject flat VP", "(S (NP (PRP He)) (VP (VBD came) (CC and) (VBD saw) (NP (PRP her))) (. .))",
     "and", ("He came", "saw her")),
    # ... but a reduced relative or an imperative has no subject: α is the VP conjunct alone.
    ("vp_subject reduced relative", "(S (NP (NP (DT The) (NNS goods)) (VP (VP (VBN made)) (CC and) "
     "(VP (VBN sold)) (ADVP (RB here)))) (VP (VBP sell)) (. .))", "and", ("made", "sold here")),
    ("vp_subject imperative", "(S (VP (VP (VB Come)) (CC and) (VP (VB see))) (. .))", "and",
     ("Come", "see")),
    # next_conjunct_beta: a CONJP is a coordinator too.
    ("next_conjunct_beta CONJP", "(S (NP (PRP We)) (VP (VBD ate) (NP (NNS apples) (CC and) (NNS pears) "
     "(CONJP (RB as) (RB well) (IN as)) (NNS plums))) (. .))", "and", ("apples", "pears")),
    # initial_rest_beta: a coordinator opening an inner clause after words keeps its parent's rest
    # (and, by empty_alpha, its α is what that clause is attached to).
    ("initial_rest_beta inner clause", "(S (NP (PRP He)) (VP (VBD said) (: :) (`` ``) (S (CC And) "
     "(NP (PRP we)) (VP (VBD stayed)))) (. .) ('' ''))", "And", ("He said", "we stayed")),
    # adjunct_clause: α is the clause the adjunct attaches to, subject included.
    ("adjunct_clause PP", "(S (NP (PRP We)) (VP (VBD left) (PP (IN after) (NP (DT the) (NN game)))) "
     "(. .))", "after", ("We left", "the game")),
    # (the subordinator of the clause it attaches to opens α: adjunct_complementizer)
    ("adjunct_clause embedded", "(S (NP (PRP We)) (VP (VBD said) (SBAR (IN that) (S (NP (PRP they)) "
     "(VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained)))))))) (. .))", "because",
     ("that they left", "it rained")),
    ("adjunct_clause fragment", "(SBAR (IN Because) (S (NP (PRP it)) (VP (VBD rained))) (. .))",
     "Because", ("It rained", "it rained")),
    # skip_parentheticals: on either side of the adjunct, and beside an adjunct of the sentence.
    ("skip_parentheticals after", "(S (NP (PRP We)) (VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) "
     "(VP (VBD rained)))) (PRN (, ,) (S (NP (PRP I)) (VP (VBP think))))) (. .))", "because",
     ("We left", "it rained")),
    ("skip_parentheticals under the sentence", "(S (NP (PRP We)) (VP (VBD left)) (PRN (, ,) (S (NP "
     "(PRP I)) (VP (VBP think))) (, ,)) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained)))) (. .))",
     "because", ("We left", "it rained")),
    # conjunct_stop: the conjunct with its coordinator (CC or CONJP, punctuation aside).
    ("conjunct_stop CONJP", "(S (NP (PRP We)) (VP (CONJP (RB not) (RB only)) (VP (VBD ate)) (CONJP "
     "(CC but) (RB also)) (VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained)))))) "
     "(. .))", "because", ("but also left", "it rained")),
    ("conjunct_stop comma", "(S (NP (PRP We)) (VP (VP (VBD ate)) (CC and) (, ,) (VP (VBD left) (SBAR "
     "(IN because) (S (NP (PRP it)) (VP (VBD rained)))))) (. .))", "because", ("and , left", "it rained")),
    ("conjunct_stop dash", "(S (NP (PRP We)) (VP (VP (VBD ate)) (CC and) (: --) (VP (VBD left) (SBAR "
     "(IN because) (S (NP (PRP it)) (VP (VBD rained)))))) (. .))", "because", ("and -- left", "it rained")),
    # ... a coordinator alone before the VP is no conjunct: the clause stands.
    ("conjunct_stop one coordinator", "(S (CC But) (VP (VB wait) (SBAR (IN until) (S (NP (PRP it)) "
     "(VP (VBZ stops))))) (. .))", "until", ("But wait", "it stops")),
    # flat_adjunct: a subordinator (IN or WRB) beside its clause, or beside an SBAR, or with
    # punctuation between; inside a clause, α stays in that clause.
    ("flat_adjunct WRB", "(S (NP (PRP We)) (VP (VBD left) (WHADVP (WRB when)) (S (NP (PRP it)) "
     "(VP (VBD rained)))) (. .))", "when", ("We left", "it rained")),
    ("flat_adjunct SBAR", "(S (NP (DT The) (NN plan)) (VP (VBZ differs) (IN in) (SBAR (IN that) (S "
     "(NP (PRP it)) (VP (VBZ costs) (ADJP (JJR less)))))) (. .))", "in",
     ("The plan differs", "that it costs less")),
    ("flat_adjunct quote", "(S (NP (PRP We)) (VP (VBD stayed) (IN because) (`` ``) (S (NP (PRP it)) "
     "(VP (VBD rained)))) (. .))", "because", ("We stayed", "it rained")),
    ("flat_adjunct in a clause", "(S (NP (PRP We)) (VP (VBD said) (S (S (NP (PRP they)) (VP (VBD left))) "
     "(IN because) (S (NP (PRP it)) (VP (VBD rained))))) (. .))", "because", ("they left", "it rained")),
    # flat_preposition: what follows the keyword in its phrase (of any label), punctuation and
    # phrases of any label, is the adjunct; a keyword opening or closing its phrase is not flat.
    ("flat_preposition comma", "(S (NP (NN Government)) (VP (MD should) (VP (VB refrain) (IN unless) "
     "(, ,) (PP (IN in) (NP (NNS emergencies))) (, ,) (NP (DT the) (NN public)) (VP (VBZ requires) (NP "
     "(PRP it))))) (. .))", "unless", ("Government should refrain", "in emergencies , the public requires it")),
    ("flat_preposition NP", "(S (NP (NP (DT The) (NN meeting)) (IN before) (NP (NN lunch))) (VP (VBD "
     "ran) (ADVP (RB long))) (. .))", "before", ("The meeting ran long", "lunch")),
    ("flat_preposition first", "(S (NP (PRP We)) (VP (VBD waited) (VP (IN until) (NP (NN noon)))) (. .))",
     "until", ("waited", "noon")),
    ("flat_preposition last", "(S (NP (PRP We)) (VP (MD will) (VP (VB stay) (IN because))) (. .))",
     "because", ("will", "stay")),
    # split_keyword: a two-word keyword too.
    ("split_keyword two words", "(S (NP (PRP We)) (VP (VBD left) (ADVP (RB early)) (ADVP (RB so)) "
     "(SBAR (IN that) (S (NP (PRP we)) (VP (MD could) (VP (VB rest)))))) (. .))", "so that",
     ("We left early", "we could rest")),
    # adverbial_clause between two conjuncts: α the conjunct before (a VP: with its clause's
    # subject), β the rest up to the conjunct after; a clause before needs no coordinator.
    ("adverbial between VPs", "(S (NP (PRP He)) (VP (VP (VBD ate)) (ADVP (RB then)) (VP (VBD left))) "
     "(. .))", "then", ("He ate", "left")),
    ("adverbial after a clause", "(S (S (NP (PRP We)) (VP (VBD ate))) (: ;) (S (NP (PRP we)) (ADVP "
     "(RB also)) (VP (VBD left))) (. .))", "also", ("We ate", "we left")),
    # ... a conjunct of another label counts when a coordinator (CC or CONJP) precedes the
    # adverbial, commas and dashes aside.
    ("adverbial after a coordinator and comma", "(S (NP (JJR More) (NNS jobs)) (, ,) (CC and) (, ,) "
     "(ADVP (RB consequently)) (, ,) (NP (JJR more) (NNS taxes)) (. .))", "consequently",
     ("More jobs", "and more taxes")),
    ("adverbial after a coordinator and dash", "(S (NP (JJR More) (NNS jobs)) (, ,) (CC and) (: --) "
     "(ADVP (RB consequently)) (: --) (NP (JJR more) (NNS taxes)) (. .))", "consequently",
     ("More jobs", "and more taxes")),
    ("adverbial after a CONJP", "(S (NP (JJR More) (NNS jobs)) (, ,) (CONJP (CC but) (RB also)) (, ,) "
     "(ADVP (RB therefore)) (, ,) (NP (JJR more) (NNS taxes)) (. .))", "therefore",
     ("More jobs", "but also more taxes")),
    # ... in a subordinate or relative clause (adverbial_sbar): β the whole SBAR, its subordinator
    # or relative pronoun included, α the clause around it; an SBAR that opens the sentence is
    # its first clause, so α is the previous sentence and β the sentence.
    ("adverbial embedded", "(S (NP (PRP We)) (VP (VBP know) (SBAR (IN that) (S (NP (PRP it)) (ADVP "
     "(RB also)) (VP (VBD rained))))) (. .))", "also", ("We know", "that it rained")),
    ("adverbial embedded twice", "(S (NP (PRP I)) (VP (VBP think) (SBAR (S (NP (PRP we)) (VP (VBP know) "
     "(SBAR (IN that) (S (NP (PRP it)) (ADVP (RB also)) (VP (VBD rained)))))))) (. .))", "also",
     ("we know", "that it rained")),
    ("adverbial in a fragment", "(FRAG (NP (NP (DT the) (NN day)) (SBAR (WHADVP (WRB when)) (S (NP "
     "(PRP it)) (ADVP (RB also)) (VP (VBD rained))))) (. .))", "also", ("the day", "when it rained")),
    ("adverbial in an adjunct of the sentence", "(S (SBAR (IN Although) (S (NP (PRP it)) (ADVP (RB also)) "
     "(VP (VBD rained)))) (, ,) (NP (PRP we)) (VP (VBD left)) (. .))", "also",
     ("It rained", "Although it rained , we left")),
    # coordinated_any: a clause after a coordinator, the conjunct before a VP.
    ("coordinated_any VP", "(S (NP (PRP He)) (VP (VP (VBD ate)) (CC and) (S (ADVP (RB then)) (NP (PRP we)) "
     "(VP (VBD left)))) (. .))", "then", ("ate", "and we left")),
    # vp_conjunct: also for VPs right under the sentence, with no subject.
    ("vp_conjunct imperative", "(S (VP (VB Stop)) (CC and) (VP (ADVP (RB then)) (VB go)) (. .))", "then",
     ("Stop", "and go")),
    # adverbs_only: 'however' is an adverbial even when tagged WRB.
    ("adverbs_only however WRB", "(S (NP (PRP It)) (VP (VBD was) (, ,) (WHADVP (WRB however)) (, ,) "
     "(ADJP (JJ late))) (. .))", "however", ("It rained", "It was late")),
]


# The rules found last on GDTB train (interjection_opening, adverbial_sbar, phrase_adverbial), at
# their edges.
EDGE_CASES = [
    # interjection_opening: an interjection tagged UH with no INTJ above it, or right before the
    # coordinator, opens β all the same ...
    ("bare UH before the coordinator", "(S (UH Um) (, ,) (CC but) (S (NP (PRP we)) (VP (VBD stayed))) "
     "(. .))", "but", ("It rained", "Um we stayed")),
    ("interjection right before the coordinator", "(S (INTJ (UH Um)) (CC but) (S (NP (PRP we)) (VP "
     "(VBD stayed))) (. .))", "but", ("It rained", "Um we stayed")),
    # ... but not when a conjunct follows the interjection, or words come before its clause.
    ("interjection, then a first conjunct", "(S (INTJ (UH Well)) (, ,) (NP (PRP we)) (VP (VBD ate)) "
     "(CC but) (S (NP (PRP they)) (VP (VBD left))) (. .))", "but", ("Well , we ate", "they left")),
    ("interjection inside a reported clause", "(S (NP (PRP We)) (VP (VBD said) (SBAR (S (INTJ (UH um)) "
     "(, ,) (CC but) (S (NP (PRP it)) (VP (VBD rained)))))) (. .))", "but", ("um", "it rained")),
    # adverbial_sbar, where the SBAR is the whole sentence (its root)
    ("adverbial in a sentence that is an SBAR", "(SBAR (IN Although) (S (NP (PRP it)) (ADVP (RB also)) "
     "(VP (VBD rained))))", "also", ("It rained", "Although it rained")),
    # phrase_adverbial: a two-word key phrase that is a whole PP is an adverbial; one that only
    # opens a longer PP (`as a result of …`) stays a preposition with its object as β.
    ("two-word key phrase that is a whole PP", "(S (PP (IN In) (NP (NN addition))) (, ,) (NP (PRP we)) "
     "(VP (VBD stayed)) (. .))", "In addition", ("It rained", "we stayed")),
    ("two-word key phrase between two clauses", "(S (S (NP (PRP We)) (VP (VBD stayed))) (, ,) (PP (IN in) "
     "(NP (NN addition))) (, ,) (S (NP (PRP we)) (VP (VBD ate))) (. .))", "in addition",
     ("We stayed", "we ate")),
    ("key phrase opening a longer PP", "(S (NP (PRP We)) (VP (VBD left) (PP (IN as) (NP (NP (DT a) "
     "(NN result)) (PP (IN of) (NP (DT the) (NN rain)))))) (. .))", "as a result",
     ("We left", "of the rain")),
]


# Rules for the arguments' own edges (empty_alpha … punct_edges), each case with the rule that
# decides it: switched off, the case maps otherwise.
OWN_EDGE_CASES = [
    # empty_alpha: only punctuation before the coordinator in its parent, words before that parent:
    # α as for an adjunct (its clause minus the phrase) ...
    ("coordinator in a parenthetical", "empty_alpha", "(S (NP (NP (DT The) (NN value)) (PRN (-LRB- -LRB-) "
     "(CC or) (NP (NN min)) (-RRB- -RRB-))) (VP (VBZ rises)) (. .))", "or", ("The value rises", "min")),
    ("as well as heading its own phrase", "empty_alpha", "(S (NP (PRP She)) (VP (VBZ speaks) (NP (NNP "
     "English)) (ADVP (RB as) (RB well) (IN as) (NP (NNP French)))) (. .))", "as well as",
     ("She speaks English", "French")),
    # ... and with only punctuation before it in the sentence, the previous sentence.
    ("quote before an opening coordinator", "empty_alpha", "(S (`` “) (CC But) (NP (PRP he)) (VP (VBD "
     "left)) (. .))", "But", ("It rained", "he left")),
    # complementizer_alpha: the subordinator or relative pronoun of the coordinated clauses opens α,
    # in an SBAR or beside the clause ...
    ("coordinated clauses of an SBAR", "complementizer_alpha", "(S (NP (PRP We)) (VP (VBD said) (SBAR "
     "(IN that) (S (S (NP (PRP they)) (VP (VBD left))) (CC and) (S (NP (PRP it)) (VP (VBD rained)))))) "
     "(. .))", "and", ("that they left", "it rained")),
    ("subordinator beside the clauses", "complementizer_alpha", "(S (NP (PRP We)) (VP (VBD said) (IN "
     "that) (S (S (NP (PRP they)) (VP (VBD left))) (CC and) (S (NP (PRP it)) (VP (VBD rained))))) (. .))",
     "and", ("that they left", "it rained")),
    ("coordinated VPs of a relative clause", "complementizer_alpha", "(NP (NP (DT the) (NN map)) (SBAR "
     "(WHNP (WDT which)) (S (NP (PRP we)) (VP (VP (VBD found)) (CC and) (VP (VBD lost))))))", "and",
     ("which we found", "lost")),
    # adjunct_complementizer: the subordinator beside the clause the adjunct attaches to.
    ("adjunct in a clause after a flat subordinator", "adjunct_complementizer", "(S (NP (PRP We)) (VP "
     "(VBD said) (IN that) (S (NP (PRP they)) (VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) (VP "
     "(VBD rained))))))) (. .))", "because", ("that they left", "it rained")),
    # conjunct_coordinator: the coordinator of the conjunct α stops at (a conjunct before it).
    ("adjunct opening a coordinated clause", "conjunct_coordinator", "(S (S (NP (PRP We)) (VP (VBD ate))) "
     "(, ,) (CC and) (S (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we)) "
     "(VP (VBD left))) (. .))", "when", ("and we left", "it rained")),
    # subjectless_clause: an infinitive with no subject is climbed past ...
    ("adjunct in an infinitive", "subjectless_clause", "(S (NP (PRP We)) (VP (VBD tried) (S (VP (TO to) "
     "(VP (VB dance) (SBAR (IN until) (S (NP (PRP it)) (VP (VBD stopped)))))))) (. .))", "until",
     ("We tried to dance", "it stopped")),
]

# ... but not an infinitive with its own subject, nor a participle clause: α stops there. And a
# coordinator with no conjunct before its clause does not open α.
OWN_EDGE_STOPS = [
    ("(S (NP (PRP We)) (VP (VBD wanted) (S (NP (PRP them)) (VP (TO to) (VP (VB dance) (SBAR (IN until) "
     "(S (NP (PRP it)) (VP (VBD stopped)))))))) (. .))", "until", ("them to dance", "it stopped")),
    ("(S (NP (PRP We)) (VP (VBD sat) (, ,) (S (VP (VBG waiting) (SBAR (IN until) (S (NP (PRP it)) (VP "
     "(VBD stopped))))))) (. .))", "until", ("waiting", "it stopped")),
    ("(S (CC And) (S (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we)) "
     "(VP (VBD left))) (. .))", "when", ("we left", "it rained")),
]


@pytest.mark.parametrize("rule,tree,keyword,expected", [c[1:] for c in OWN_EDGE_CASES],
                         ids=[c[0] for c in OWN_EDGE_CASES])
def test_argument_edge_rules(rule, tree, keyword, expected, monkeypatch):
    assert mapped(tree, keyword) == expected
    monkeypatch.setattr(arguments, "ACTIVE", arguments.ACTIVE - {rule})
    assert mapped(tree, keyword) != expected


@pytest.mark.parametrize("tree,keyword,expected", OWN_EDGE_STOPS)
def test_argument_edge_rules_stop_at_their_edges(tree, keyword, expected):
    assert mapped(tree, keyword) == expected


@pytest.mark.parametrize("mapping", ["paper", "default"])
def test_punctuation_at_the_ends_of_arguments(mapping):
    # punct_edges: the full stop, the quotes and the comma before the adjunct leave α and β, a
    # range of punctuation only goes; inside an argument punctuation stays; Algorithm 1 keeps all.
    tree = ("(S (`` ``) (S (NP (PRP We)) (, ,) (NP (PRP all)) (, ,) (VP (VBD left))) (, ,) (SBAR (IN "
            "because) (S (NP (PRP it)) (VP (VBD rained)))) ('' '') (. .))")
    doc, rel = relation(tree, "because", mapping)
    words = lambda ranges: [" ".join(doc.tokens[a:b]) for a, b in ranges]  # noqa: E731
    if mapping == "paper":
        assert (words(rel.alpha), words(rel.beta)) == (["`` We , all , left ,", "'' ."], ["it rained"])
    else:
        assert (words(rel.alpha), words(rel.beta)) == (["We , all , left"], ["it rained"])
    _, but = relation("(S (CC But) (`` ``) (NP (PRP we)) (VP (VBD left)) (. .) ('' ''))", "But", mapping)
    assert but.alpha == ([[0, 2]] if mapping == "default" else [])  # It rained (.)
    assert but.beta == ([[5, 7]] if mapping == "default" else [[4, 9]])


@pytest.mark.parametrize("tree,keyword,expected", [c[1:] for c in EDGE_CASES],
                         ids=[c[0] for c in EDGE_CASES])
def test_newest_rules_at_their_edges(tree, keyword, expected):
    assert mapped(tree, keyword) == expected


@pytest.mark.parametrize("tree,keyword,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_default_mapping_rule_cases(tree, keyword, expected):
    assert mapped(tree, keyword) == expected


# Trees where no rule applies: Algorithm 1 stands.
NO_RULE = [
    # a subordinator with no clause (an unfinished sentence)
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN because))) (. .))", "because"),
    # a preposition outside a PP with nothing after it in its VP
    ("(S (NP (PRP We)) (VP (VBD sat) (IN in)) (. .))", "in"),
]


@pytest.mark.parametrize("tree,keyword", NO_RULE)
def test_where_no_rule_applies_the_default_mapping_is_algorithm_1(tree, keyword, monkeypatch):
    # (but for the punctuation at the arguments' ends, which punct_edges trims: ``We`` not ``We .``)
    assert mapped(tree, keyword) == ("We", {"in": "sat", "because": "left"}[keyword])
    monkeypatch.setattr(arguments, "ACTIVE", arguments.ACTIVE - {"punct_edges"})
    assert mapped(tree, keyword) == mapped(tree, keyword, "paper")


def test_with_every_rule_off_the_default_mapping_is_algorithm_1(monkeypatch):
    trees = [tree for _, tree, _, _ in CASES] + [tree for tree, _ in NO_RULE] + [
        "(S (NP (PRP We)) (VP (CC and) (VP (VBD stayed))) (. .))",  # a VP opening with a coordinator
        "(S (CC And) (NP (PRP we)) (VP (VBD stayed)) (. .))",
    ]
    monkeypatch.setattr(arguments, "ACTIVE", set())
    for tree in trees:
        default, paper = annotate_trees([FIRST, tree]), annotate_trees([FIRST, tree], mapping="paper")
        assert [(r.alpha, r.beta) for r in default.relations] == \
            [(r.alpha, r.beta) for r in paper.relations], tree
