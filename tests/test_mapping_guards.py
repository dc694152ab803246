"""The conditions inside the default mapping's rules, one hand-built tree each.

test_mapping_rules.py and test_mapping_spans.py put each rule of docs/mapping.md to work; these
trees hold each rule to its edges: every label a rule lists (WRB beside IN, CONJP beside CC, a dash
beside a comma, SBAR, ADJP and VP beside a clause), punctuation between the words a rule reads, a
node right at its parent's start or end, the root in the place of a parent. α and β are worked out
by hand from docs/mapping.md (the sentence follows "It rained ." unless the case says `first=None`).
No parser is loaded: the cases run once per mutant under `make mutate`.
"""

import pytest

from logicparse import annotate_trees, arguments

FIRST = "(S (NP (PRP It)) (VP (VBD rained)) (. .))"


def mapped(tree, keyword, first=FIRST):
    """α and β of ``keyword`` in ``tree`` under the default mapping, as words."""
    doc = annotate_trees([first, tree] if first else [tree])
    rel = next(r for r in doc.relations if r.keyword.lower() == keyword.lower())
    words = lambda ranges: " ".join(doc.tokens[t] for a, b in ranges for t in range(a, b))  # noqa: E731
    return words(rel.alpha), words(rel.beta)


STIR = ("(S (VP (VB Stir) (NP (DT the) (NN sauce)) (SBAR (SBAR (IN until) (S (NP (PRP it)) (VP (VBZ "
        "thickens)))) {between} (VP (VB do) (RB not) (VP (VB let) (S (NP (PRP it)) (VP (VB boil))))))) (. .))")
TAKE = ("(S (VP (VP (VB Take) (NP (DT the) (NN medicine)) (PP (IN after) (NP (NNS meals)))) {between} "
        "(SBAR {opener} (S (NP (PRP$ your) (NN doctor)) (VP (VBZ says) (ADVP (RB so)))))) (. .))")
RESULTS = ("(S (NP (DT The) (NNS results)) (, ,) (ADVP (RB though) {after}) (, ,) (VP (VB suggest) (NP (DT "
           "an) (NN effect))) (. .))")
WHEN = ("(S (S (NP (PRP We)) (VP (VBD ate))) {before} (S (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP "
        "(VBD rained)))) (, ,) (NP (PRP we)) (VP (VBD left))) (. .))")

CASES = [  # (id, tree, keyword, (α, β), previous sentence or None)
    # --- adjunct_sisters: another adverbial clause after the adjunct leaves α, also right beside
    # it (no comma between) and when a WRB opens it.
    ("adverbial clause right after the adjunct", TAKE.format(between="", opener="(IN unless)"), "after",
     ("Take the medicine", "meals"), FIRST),
    ("adverbial clause opened by WRB", TAKE.format(between="(, ,)", opener="(WHADVP (WRB when))"), "after",
     ("Take the medicine", "meals"), FIRST),
    # --- conjunct_end: a CONJP and a dash before the coordinator, an adverb after the adjunct ...
    ("CONJP after the adjunct", STIR.format(between="(, ,) (CONJP (CC but) (RB also))"), "until",
     ("Stir the sauce", "it thickens"), FIRST),
    ("dash before the coordinator", STIR.format(between="(: --) (CC but)"), "until",
     ("Stir the sauce", "it thickens"), FIRST),
    ("coordinator right after the adjunct", STIR.format(between="(CC but)"), "until",
     ("Stir the sauce", "it thickens"), FIRST),
    ("coordinated prepositional phrases", "(S (VP (VB Take) (NP (PRP it)) (PP (PP (IN after) (NP (NNS meals))) "
     "(CC and) (PP (IN before) (NP (NN bed))))) (. .))", "after", ("Take it", "meals"), FIRST),
    ("adverb after the adjunct is no conjunct", "(S (NP (PRP We)) (VP (VBD left) (SBAR (IN because) (S (NP "
     "(PRP it)) (VP (VBD rained)))) (, ,) (ADVP (RB apparently))) (. .))", "because",
     ("We left apparently", "it rained"), FIRST),
    # ... the adjunct under a clause after a word that ends where it starts (a conjunct) and after
    # punctuation only (none: the conjunct after it stays in α)
    ("adjunct right after a word of its clause", "(S (VP (VB Stop)) (SBAR (IN because) (S (NP (PRP it)) (VP "
     "(VBZ rains)))) (, ,) (CC and) (S (NP (PRP we)) (VP (VBP stay))) (. .))", "because",
     ("Stop", "it rains"), FIRST),
    ("adjunct after a quote only", "(S (NP (PRP We)) (VP (VBD said) (SBAR (IN that) (S (`` ``) (SBAR (IN if) (S "
     "(NP (PRP it)) (VP (VBZ rains)))) (CC and) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ snows)))) (, ,) "
     "(NP (PRP we)) (VP (VBP stay))))) (. .))", "if", ("that and if it snows , we stay", "it rains"), FIRST),
    # ... and the later conjunct stays where α holds no word without it, though words come
    # before α in the sentence; also when the conjunct_stop climb ends at a coordinator that is
    # no word.
    ("only a quote beside the adjunct in its clause", "(S (NP (PRP He)) (VP (VBD asked) (S (`` ``) (FRAG "
     "(SBAR (WHADVP (WRB when)) (S (NP (PRP he)) (VP (MD will)))) (, ,) (CC and) (SBAR (WHNP (WP whom)) (S "
     "(NP (PRP he)) (VP (MD will))))))) (. .))", "when", ("and whom he will", "he will"), FIRST),
    ("ampersand before the conjunct", "(S (NP (PRP We)) (VP (VP (VBD ate)) (CC &) (VP (SBAR (WHADVP (WRB "
     "when)) (S (NP (PRP he)) (VP (MD would)))) (, ,) (CC and) (SBAR (WHNP (WP whom)) (S (NP (PRP he)) (VP "
     "(MD would)))))) (. .))", "when", ("and whom he would", "he would"), FIRST),
    # --- conjunct_stop: one coordinator (a CONJP) before the VP is no conjunct: the clause stands.
    ("CONJP alone before the VP", "(S (NP (PRP We)) (VP (CONJP (RB not) (RB only)) (VP (VBD left) (SBAR (IN "
     "because) (S (NP (PRP it)) (VP (VBD rained)))))) (. .))", "because", ("We not only left", "it rained"),
     FIRST),
    # --- conjunct_coordinator: the coordinator before the clause, past a comma or a dash after it,
    # after two conjuncts, and a CONJP.
    ("comma after the coordinator", WHEN.format(before="(CC and) (, ,)"), "when",
     ("and we left", "it rained"), FIRST),
    ("dash after the coordinator", WHEN.format(before="(CC and) (: --)"), "when",
     ("and we left", "it rained"), FIRST),
    ("third conjunct", WHEN.format(before="(, ,) (S (NP (PRP they)) (VP (VBD sang))) (, ,) (CC and)"), "when",
     ("and we left", "it rained"), FIRST),
    ("CONJP before the clause", WHEN.format(before="(, ,) (CONJP (CC but) (RB also))"), "when",
     ("but also we left", "it rained"), FIRST),
    # --- subjectless_clause: an infinitive that is the sentence's subject is climbed past, and one
    # with an adverb before its VP; a clause before its VP (if possible), or a question clause,
    # stops the climb.
    ("infinitive as the subject", "(S (S (VP (TO To) (VP (VB wait) (SBAR (IN until) (S (NP (PRP it)) (VP (VBZ "
     "stops))))))) (VP (VBZ is) (ADJP (JJ wise))) (. .))", "until", ("To wait is wise", "it stops"), FIRST),
    ("adverb before the infinitive", "(S (NP (PRP We)) (VP (VBD tried) (S (ADVP (RB again)) (VP (TO to) (VP "
     "(VB dance) (SBAR (IN until) (S (NP (PRP it)) (VP (VBD stopped)))))))) (. .))", "until",
     ("We tried again to dance", "it stopped"), FIRST),
    ("clause before the infinitive", "(S (NP (PRP We)) (VP (VBD wanted) (S (SBAR (IN if) (S (ADJP (JJ "
     "possible)))) (, ,) (VP (TO to) (VP (VB leave) (SBAR (IN before) (S (NP (PRP it)) (VP (VBD "
     "rained)))))))) (. .))", "before", ("if possible , to leave", "it rained"), FIRST),
    ("question clause", "(S (NP (PRP He)) (VP (VBD asked) (, ,) (SQ (VBD did) (NP (PRP we)) (VP (VB leave) "
     "(SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained))))))) (. .))", "because",
     ("did we leave", "it rained"), FIRST),
    # --- complementizer_alpha: a subordinator beside clauses under the sentence opens α; a
    # preposition before coordinated noun phrases does not (they are no clause).
    ("subordinator beside clauses under the sentence", "(FRAG (IN That) (S (S (NP (PRP they)) (VP (VBD left))) "
     "(CC and) (S (NP (PRP it)) (VP (VBD rained)))) (. .))", "and", ("That they left", "it rained"), FIRST),
    ("preposition before coordinated nouns", "(S (NP (PRP We)) (VP (VBD talked) (PP (IN about) (NP (NNS cats) "
     "(CC and) (NNS dogs)))) (. .))", "and", ("cats", "dogs"), FIRST),
    # --- predicate_coordination: a comma after the coordinator; an infinitive after it is a
    # conjunct of its phrase; nothing after it, no predicate either.
    ("comma after the coordinator before a VP", STIR.format(between="(, ,) (CC but) (, ,)"), "but",
     ("Stir the sauce until it thickens", "do not let it boil"), FIRST),
    ("infinitive after a prepositional phrase", "(S (NP (PRP It)) (VP (VBZ helps) (PP (PP (IN in) (S (VP (VBG "
     "saving) (NP (NN time))))) (CC and) (VP (TO to) (VP (VB cut) (NP (NNS costs)))))) (. .))", "and",
     ("in saving time", "to cut costs"), FIRST),
    ("nothing after the coordinator", "(S (NP (PRP We)) (VP (VBD saw) (NP (NP (NNS cats)) (CC and))) (. .))",
     "and", ("cats", ""), FIRST),
    # --- headed_phrase: an ADJP, a VP or an SBAR after the keyword, or a clause past a comma; not
    # for a keyword inside its phrase, nor for a phrase that is the whole sentence.
    ("ADJP after the keyword", RESULTS.format(after="(ADJP (JJ preliminary))"), "though",
     ("The results suggest an effect", "preliminary"), FIRST),
    ("VP after the keyword", RESULTS.format(after="(VP (VBN delayed))"), "though",
     ("The results suggest an effect", "delayed"), FIRST),
    ("SBAR after the keyword", RESULTS.format(after="(SBAR (S (NP (PRP we)) (VP (VBD checked))))"), "though",
     ("The results suggest an effect", "we checked"), FIRST),
    ("comma between the keyword and its clause", RESULTS.format(after="(, ,) (S (VP (RB preliminary)))"),
     "though", ("The results suggest an effect", "preliminary"), FIRST),
    ("keyword inside its phrase", "(S (NP (DT The) (NNS results)) (, ,) (ADVP (RB even) (RB though) (S (VP (RB "
     "preliminary)))) (, ,) (VP (VB suggest) (NP (DT an) (NN effect))) (. .))", "though",
     ("It rained", "The results , even preliminary , suggest an effect"), FIRST),
    ("phrase that is the whole sentence", "(ADVP (RB Though) (S (ADJP (JJ preliminary))))", "Though",
     ("It rained", "preliminary"), FIRST),
    # --- phrase_adverbial: a two-word key phrase that is a whole PP inside a VP is an adverbial.
    ("two-word key phrase in a VP", "(S (NP (PRP We)) (VP (VBD ate) (PP (IN in) (NP (NN addition)))) (. .))",
     "in addition", ("It rained", "We ate"), FIRST),
    # ... but one spread over its parent's children (a flat parse), whose first word is a
    # preposition, stays a preposition (adverbs_only): with the rest of its VP, an adjunct
    # (flat_preposition).
    ("key phrase spread over its parent's children", "(S (NP (PRP We)) (VP (VBD left) (IN in) (NP (NN spite)) "
     "(IN of) (NP (DT the) (NN rain))) (. .))", "in spite of", ("We left", "the rain"), FIRST),
    # --- adverbial_clause in a relative clause of the sentence's first phrase: α is the clause
    # around it (the sentence), not that phrase.
    ("adverbial in a relative clause of the subject", "(S (NP (NP (DT The) (NN map)) (SBAR (WHNP (WDT which)) "
     "(S (NP (PRP we)) (ADVP (RB also)) (VP (VBD lost))))) (VP (VBD was) (ADJP (JJ old))) (. .))", "also",
     ("The map was old", "which we lost"), FIRST),
    # --- opening_adjunct: a WRB opens the adjunct too; and the rule reads the clause directly under
    # the sentence (sentence_beta) as it reads the sentence, in a first sentence only.
    ("opening adjunct opened by WRB", "(S (SBAR (WHADVP (WRB When)) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) "
     "(NP (PRP we)) (ADVP (RB also)) (VP (VBD left)) (. .))", "also", ("When it rained", "we left"), None),
    ("opening adjunct of a clause under the sentence", "(S (S (SBAR (IN As) (S (NP (DT the) (NN temperature)) "
     "(VP (VBZ increases)))) (, ,) (NP (DT the) (NN rate)) (ADVP (RB also)) (VP (VBZ increases))) (. .))",
     "also", ("As the temperature increases", "the rate increases"), None),
    ("... after a previous sentence", "(S (S (SBAR (IN As) (S (NP (DT the) (NN temperature)) (VP (VBZ "
     "increases)))) (, ,) (NP (DT the) (NN rate)) (ADVP (RB also)) (VP (VBZ increases))) (. .))", "also",
     ("It rained", "As the temperature increases , the rate increases"), FIRST),
]


@pytest.mark.parametrize("tree,keyword,expected,first", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule_conditions(tree, keyword, expected, first):
    assert mapped(tree, keyword, first) == expected


# With a rule switched off (the ablation benchmark's runs), the rules left still give what they
# say alone: the next rule down, or Algorithm 1 with an empty range left out.
# The ids are ASCII: pytest escapes "α" in an id, and a second collection in the same process
# (make mutate's fork server collects before each mutant's run) then no longer finds it (exit 4).
OFF_CASES = [  # (id, rules off, tree, keyword, (α, β))
    ("a quote before an opening coordinator, no previous sentence as alpha", {"initial_coordinator"},
     "(S (`` “) (CC But) (NP (PRP he)) (VP (VBD left)) (. .))", "But", ("", "he left")),
    ("a coordinator opening an inner clause keeps its parent's rest as beta", {"empty_alpha"},
     "(S (NP (PRP He)) (VP (VP (VBD said) (: :) (`` “) (S (CC And) (NP (PRP we)) (VP (VBD stayed))) (, ,) "
     "('' ”)) (CC and) (VP (VBD left))) (. .))", "And", ("It rained", "we stayed")),
]


@pytest.mark.parametrize("rules,tree,keyword,expected", [c[1:] for c in OFF_CASES],
                         ids=[c[0] for c in OFF_CASES])
def test_rules_left_when_one_is_off(rules, tree, keyword, expected, monkeypatch):
    monkeypatch.setattr(arguments, "ACTIVE", arguments.ACTIVE - rules)
    assert mapped(tree, keyword) == expected


def test_a_coordinator_at_the_end_of_its_parent_has_no_beta_range(monkeypatch):
    # Nothing after the coordinator: β is no range at all, not an empty one, also with the
    # punctuation rule (which drops empty ranges) switched off.
    monkeypatch.setattr(arguments, "ACTIVE", arguments.ACTIVE - {"punct_edges"})
    doc = annotate_trees(["(S (S (NP (PRP It)) (VP (VBD rained))) (CC but))"])
    assert [(r.alpha, r.beta) for r in doc.relations] == [([[0, 2]], [])]
