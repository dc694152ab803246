"""Rules for keywords the lexicon used to decide alone: `before` of presence, `after` as a
particle or "net of", `thus far`, `a century hence`, `due to` = owed, `thanks` as a noun, `might
as well`, `twice as long as`, a predicative `contrary to`, `however` = no matter how. Each rule
has a sentence for each branch and each guard that keeps it from firing on the connective use;
the trees are the bundled parser's for these hand-written sentences (no parser, no encoder here).
Labels by docs/labelling.md."""

import pytest

from logicparse.annotator import annotate_trees
from logicparse.senses.decide import KeywordDecisions
from logicparse.senses.rules import UNDECIDED, decide
from logicparse.trees import read_tree


def rule(tree: str, keyword: str):
    t = read_tree(tree)
    words = [w.lower() for w in t.leaves]
    kw = keyword.split()
    start = next(i for i in range(len(words)) if words[i:i + len(kw)] == kw)
    return decide(keyword, t, start, start + len(kw))


@pytest.mark.parametrize("tree,keyword,expected", [
    # presence: I stand before you: I stand before you tonight to report on the state of our Union .
    ('(S (NP (PRP I)) (VP (VBP stand) (PP (IN before) (NP (PRP you))) (NP (NN tonight)) (S (VP (TO to) (VP (VB report) (PP (IN on) (NP (NP (DT the) (NN state)) (PP (IN of) (NP (PRP$ our) (NNP Union))))))))) (. .))',
     'before', None),
    # what the parser reads as a clause after "before you": the verb's object and what follows it
    ('(S (NP (NN Duty)) (VP (VBZ calls) (NP (PRP me)) (SBAR (IN before) (S (NP (PRP you)) (VP (TO to) (VP (VB take) (NP (DT the) (NN oath))))))) (. .))',
     'before', None),
    ('(S (NP (NP (DT The) (NN policy)) (SBAR (S (NP (PRP I)) (VP (VBP lay) (SBAR (IN before) (S (NP (PRP you)) (VP (VBZ has) (VP (TO to) (VP (VB do)))))))))) (. .))',
     'before', None),
    # guards: a clause after "before you" with no presenting verb; "before it" + a finite verb
    ('(S (NP (PRP He)) (VP (VBD told) (NP (PRP me)) (SBAR (IN before) (S (NP (PRP you)) (VP (VBD came))))) (. .))',
     'before', UNDECIDED),
    ('(S (NP (PRP We)) (VP (VBD left) (SBAR (IN before) (S (NP (PRP it)) (VP (VBD rained))))) (. .))',
     'before', UNDECIDED),
    # before man, trembling before: presence
    ('(S (NP (PRP All)) (VP (VBP are) (ADJP (JJ equal)) (PP (IN before) (NP (NN man)))) (. .))', 'before', None),
    ('(S (NP (NNS Nations)) (VP (VBP live) (PP (IN in) (S (VP (VBG trembling) (PP (IN before) (NP (DT the) (NN menace))))))) (. .))',
     'before', None),
    # the tasks before us (a verb after an object pronoun is no clause): The tasks before us are great .
    ('(S (NP (NP (DT The) (NNS tasks)) (PP (IN before) (NP (PRP us)))) (VP (VBP are) (ADJP (JJ great))) (. .))',
     'before', None),
    # you with a time after it, then the main verb: The agenda I have set before you tonight is worthy of a great nation .
    ('(S (NP (NP (DT The) (NN agenda)) (SBAR (S (NP (PRP I)) (VP (VBP have) (VP (VBN set) (IN before) (NP (NP (PRP you)) (NP (NN tonight)))))))) (VP (VBZ is) (ADJP (JJ worthy) (PP (IN of) (NP (DT a) (JJ great) (NN nation))))) (. .))',
     'before', None),
    # guard: before you know it (a clause): And before you know it , prices will fall .
    ('(S (CC And) (SBAR (IN before) (S (NP (PRP you)) (VP (VBP know) (NP (PRP it))))) (, ,) (NP (NNS prices)) (VP (MD will) (VP (VB fall))) (. .))',
     'before', UNDECIDED),
    # a participle inside the object: a freely elected Congress: A President will come before a freely elected Congress chosen by the people .
    ('(S (NP (DT A) (NN President)) (VP (MD will) (VP (VB come) (PP (IN before) (NP (NP (DT a) (ADJP (RB freely) (VBN elected)) (NNP Congress)) (VP (VBN chosen) (PP (IN by) (NP (DT the) (NNS people)))))))) (. .))',
     'before', None),
    # presence noun past a participle: the opening session: I laid before the opening session of this Congress six great goals .
    ('(S (NP (PRP I)) (VP (VBD laid) (PP (IN before) (NP (NP (DT the) (VBG opening) (NN session)) (PP (IN of) (NP (NP (DT this) (NNP Congress)) (NP (CD six) (JJ great) (NNS goals))))))) (. .))',
     'before', None),
    # an object pronoun is no subject: The problems before us may be different .
    ('(S (NP (DT The) (NNS problems)) (PP (IN before) (NP (PRP us))) (VP (MD may) (VP (VB be) (ADJP (JJ different)))) (. .))',
     'before', None),
    # guard: before it is too late: We will act before it is too late .
    ('(S (NP (PRP We)) (VP (MD will) (VP (VB act) (SBAR (IN before) (S (NP (PRP it)) (VP (VBZ is) (ADJP (RB too) (JJ late))))))) (. .))',
     'before', UNDECIDED),
    # guard: a clause whose subject holds a presence noun: We can not act before the Congress of the United States has acted .
    ('(S (NP (PRP We)) (VP (MD can) (RB not) (VP (VB act) (SBAR (IN before) (S (NP (NP (DT the) (NNP Congress)) (PP (IN of) (NP (DT the) (NNP United) (NNPS States)))) (VP (VBZ has) (VP (VBN acted))))))) (. .))',
     'before', UNDECIDED),
    # guard: a time before the presence noun: The bill was passed before the 1990 session .
    ('(S (NP (DT The) (NN bill)) (VP (VBD was) (VP (VBN passed) (PP (IN before) (NP (DT the) (CD 1990) (NN session))))) (. .))',
     'before', UNDECIDED),
    # guard: a time object after a verb that puts before: The deadline was set before the end of the year .
    ('(S (NP (DT The) (NN deadline)) (VP (VBD was) (VP (VBN set) (PP (IN before) (NP (NP (DT the) (NN end)) (PP (IN of) (NP (DT the) (NN year))))))) (. .))',
     'before', UNDECIDED),
    # guard: Americans before us = earlier than us: Like Americans before us , we will show that courage .
    ('(S (PP (IN Like) (NP (NP (NNPS Americans)) (PP (IN before) (NP (PRP us))))) (, ,) (NP (PRP we)) (VP (MD will) (VP (VB show) (NP (DT that) (NN courage)))) (. .))',
     'before', UNDECIDED),
    # guard: those who came before us: Those who came before us built this nation .
    ('(S (NP (NP (DT Those)) (SBAR (NP (WP who)) (S (VP (VBD came) (PP (IN before) (NP (PRP us))))))) (VP (VBD built) (NP (DT this) (NN nation))) (. .))',
     'before', UNDECIDED),
    # presence noun, with a time after it: The Chairman testified before Congress last week .
    ('(S (NP (DT The) (NN Chairman)) (VP (VBD testified) (SBAR (IN before) (S (NP (NNP Congress)) (NP (JJ last) (NN week))))) (. .))',
     'before', None),
    # equal before the law: We are all equal before the law .
    ('(S (NP (PRP We)) (VP (VBP are) (ADVP (RB all)) (ADJP (ADJP (JJ equal)) (PP (IN before) (NP (DT the) (NN law))))) (. .))',
     'before', None),
    # a verb that puts something before: pales before: The waste pales before the loss of human spirit .
    ('(S (NP (DT The) (NN waste)) (VP (VBZ pales) (PP (IN before) (NP (NP (DT the) (NN loss)) (PP (IN of) (NP (JJ human) (NN spirit)))))) (. .))',
     'before', None),
    # guard: a time object: We must act before the end of the year .
    ('(S (NP (PRP We)) (VP (MD must) (VP (VB act) (PP (IN before) (NP (NP (DT the) (NN end)) (PP (IN of) (NP (DT the) (NN year))))))) (. .))',
     'before', UNDECIDED),
    # guard: a clause read as a noun phrase (the presence noun is no head): We must act before the Congress adjourns .
    ('(S (NP (PRP We)) (VP (MD must) (VP (VB act) (PP (IN before) (NP (DT the) (NNP Congress) (NNS adjourns))))) (. .))',
     'before', UNDECIDED),
    # guard: no object: Higher education matters more than ever before .
    ('(S (NP (JJR Higher) (NN education)) (VP (VBZ matters) (ADVP (NP (RBR more)) (IN than) (ADVP (ADVP (RB ever)) (ADVP (RB before))))) (. .))',
     'before', UNDECIDED),
    # guard: an event noun: A few days before Christmas , a flight attendant spotted a passenger .
    ('(S (PP (NP (DT A) (JJ few) (NNS days)) (PP (IN before) (NP (NNP Christmas)))) (, ,) (NP (DT a) (JJ flight) (NNS attendant)) (VP (VBD spotted) (NP (DT a) (NN passenger))) (. .))',
     'before', UNDECIDED),
    # after all ,: After all , they are building our economy .
    ('(S (PP (IN After) (NP (DT all))) (, ,) (NP (PRP they)) (VP (VBP are) (VP (VBG building) (NP (PRP$ our) (NN economy)))) (. .))',
     'after', None),
    # guard: after all our struggles: After all our struggles , we will not turn back .
    ('(S (PP (IN After) (NP (DT all) (PRP$ our) (NNS struggles))) (, ,) (NP (PRP we)) (VP (MD will) (RB not) (VP (VB turn) (ADVP (RB back)))) (. .))',
     'after', UNDECIDED),
    # net of: after taxes: Personal income after taxes is at a record level .
    ('(S (NP (NP (JJ Personal) (NN income)) (PP (IN after) (NP (NNS taxes)))) (VP (VBZ is) (PP (IN at) (NP (DT a) (NN record) (NN level)))) (. .))',
     'after', None),
    # net of: after allowing for: Even after allowing for inflation , income has increased .
    ('(S (SBAR (RB Even) (IN after) (S (VP (VBG allowing) (PP (IN for) (NP (NN inflation)))))) (, ,) (NP (NN income)) (VP (VBZ has) (VP (VBN increased))) (. .))',
     'after', None),
    # issue after issue: We will make progress on issue after issue .
    ('(S (NP (PRP We)) (VP (MD will) (VP (VB make) (NP (NP (NN progress)) (PP (IN on) (NP (NN issue)))) (PP (IN after) (NP (NN issue))))) (. .))',
     'after', None),
    # guard: taxes heading a clause: After taxes were raised , revenue fell .
    ('(S (SBAR (IN After) (S (NP (NNS taxes)) (VP (VBD were) (VP (VBN raised))))) (, ,) (NP (NN revenue)) (VP (VBD fell)) (. .))',
     'after', UNDECIDED),
    # guard: year after year is a time: Year after year , Americans are burdened by the tax code .
    ('(S (NP (NP (NN Year)) (PP (IN after) (NP (NN year)))) (, ,) (NP (NNS Americans)) (VP (VBP are) (VP (VBN burdened) (PP (IN by) (NP (DT the) (NN tax) (NN code))))) (. .))',
     'after', UNDECIDED),
    # a verb's particle: going after: Our forces are going after the remaining killers .
    ('(S (NP (PRP$ Our) (NNS forces)) (VP (VBP are) (VP (VBG going) (PP (IN after) (NP (DT the) (VBG remaining) (NNS killers))))) (. .))',
     'after', None),
    # named after: The school was named after Lincoln .
    ('(S (NP (DT The) (NN school)) (VP (VBD was) (VP (VBN named) (PP (IN after) (NP (NNP Lincoln))))) (. .))',
     'after', None),
    # guard: arrived after the vote: They arrived after the vote .
    ('(S (NP (PRP They)) (VP (VBD arrived) (PP (IN after) (NP (DT the) (NN vote)))) (. .))',
     'after', UNDECIDED),
    # after - school: We fund summer school and after - school programs .
    ('(S (NP (PRP We)) (VP (VBP fund) (NP (NP (NN summer) (NN school)) (CC and) (NX (JJ after) (HYPH -) (NN school) (NNS programs)))) (. .))',
     'after', None),
    # thus far: Revenue sharing has thus far provided $ 23 billion .
    ('(S (NP (NN Revenue) (NN sharing)) (VP (VBZ has) (ADVP (RB thus) (RB far)) (VP (VBN provided) (NP (QP ($ $) (CD 23) (CD billion))))) (. .))',
     'thus', None),
    # thus created: in this way: The committee thus created has done much .
    ('(S (NP (NP (DT The) (NN committee)) (ADVP (RB thus)) (VP (VBN created))) (VP (VBZ has) (VP (VBN done) (NP (JJ much)))) (. .))',
     'thus', None),
    # guard: will thus create: The plan will thus create new jobs .
    ('(S (NP (DT The) (NN plan)) (VP (MD will) (ADVP (RB thus)) (VP (VB create) (NP (JJ new) (NNS jobs)))) (. .))',
     'thus', UNDECIDED),
    # guard: and thus forestall: We must be strong , and thus forestall any attack .
    ('(S (NP (PRP We)) (VP (VP (MD must) (VP (VB be) (ADJP (JJ strong)))) (, ,) (CC and) (S (ADVP (RB thus)) (VP (VB forestall) (NP (DT any) (NN attack))))) (. .))',
     'thus', UNDECIDED),
    # thus between an auxiliary and its participle, past an adverb, or after a gerund: in this way
    ('(S (NP (PRP They)) (VP (VBD were) (ADVP (RB thus)) (VP (VBN separated))) (. .))', 'thus', None),
    ("(S (NP (PRP They)) (VP (VBP 've) (ADVP (RB thus)) (VP (VBN decided))) (. .))", 'thus', None),
    ('(S (NP (PRP It)) (VP (VBZ has) (ADVP (RB thus)) (VP (VBN been) (VP (VBN met)))) (. .))', 'thus', None),
    ('(S (NP (NP (DT A) (NN task)) (ADVP (RB thus) (RB generally)) (VP (VBN delineated))) (VP (VBZ is) (ADJP (JJ hard))) (. .))',
     'thus', None),
    ('(S (S (VP (VBG Entering) (ADVP (RB thus) (RB solemnly)) (PP (IN into) (NP (NN covenant))))) (, ,) (NP (PRP we)) (VP (VBP pray)) (. .))',
     'thus', None),
    # guards: a conclusion drawn, a result, an aspect, no participle after the adverb
    ('(S (NP (NNS Scientists)) (VP (VBP have) (ADVP (RB thus)) (VP (VBN shown) (SBAR (IN that) (S (NP (PRP it)) (VP (VBZ works)))))) (. .))',
     'thus', UNDECIDED),
    ('(S (NP (DT The) (NN category)) (VP (VBZ is) (ADVP (RB thus)) (VP (VBG losing) (NP (PRP$ its) (NN character)))) (. .))',
     'thus', UNDECIDED),
    ('(S (NP (PRP It)) (VP (VBZ is) (ADVP (RB thus)) (ADJP (RB very) (JJ clear))) (. .))', 'thus', UNDECIDED),
    ('(S (NP (PRP We)) (VP (VBD saw) (NP (PRP it)) (ADVP (RB thus)) (ADVP (RB too)) (VP (VBN done))) (. .))',
     'thus', UNDECIDED),
    # act thus .: If you ask how we should act , we should act thus .
    ('(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP ask) (SBAR (WHADVP (WRB how)) (S (NP (PRP we)) (VP (MD should) (VP (VB act)))))))) (, ,) (NP (PRP we)) (VP (MD should) (VP (VB act) (ADVP (RB thus)))) (. .))',
     'thus', None),
    # a century hence: A century hence , our children will judge us .
    ('(S (ADVP (NP (DT A) (NN century)) (ADVP (RB hence))) (, ,) (NP (PRP$ our) (NNS children)) (VP (MD will) (VP (VB judge) (NP (PRP us)))) (. .))',
     'hence', None),
    # years hence: Many years hence , this day will be remembered .
    ('(S (NP (JJ Many) (NNS years)) (ADVP (RB hence)) (, ,) (NP (DT this) (NN day)) (VP (MD will) (VP (VB be) (VP (VBN remembered)))) (. .))',
     'hence', None),
    # from here: From hence , let the word go forth .
    ('(S (PP (IN From) (ADVP (RB hence))) (, ,) (VP (VB let) (S (NP (DT the) (NN word)) (VP (VB go) (ADVP (RB forth))))) (. .))',
     'hence', None),
    # guard: and hence: The bonds are short - term and hence will require refinancing .
    ('(S (S (NP (DT The) (NNS bonds)) (VP (VBP are) (ADJP (JJ short) (HYPH -) (NN term)))) (CC and) (S (ADVP (RB hence)) (VP (MD will) (VP (VB require) (S (VP (VBG refinancing)))))) (. .))',
     'hence', UNDECIDED),
    # owed: the respect due to: We owe the respect due to the office .
    ('(S (NP (PRP We)) (VP (VBP owe) (NP (DT the) (NN respect)) (ADJP (JJ due) (PP (IN to) (NP (DT the) (NN office))))) (. .))',
     'due to', None),
    # owed past a copula and an adverb: The credit is rightly due to them .
    ('(S (NP (DT The) (NN credit)) (VP (VBZ is) (ADVP (RB rightly)) (ADJP (JJ due) (PP (IN to) (NP (PRP them))))) (. .))',
     'due to', None),
    # guard: is due to the tax cuts: One third of the deficit is due to the tax cuts .
    ('(S (NP (NP (CD One) (NN third)) (PP (IN of) (NP (DT the) (NN deficit)))) (VP (VBZ is) (ADJP (JJ due) (PP (TO to) (NP (DT the) (NN tax) (NNS cuts))))) (. .))',
     'due to', UNDECIDED),
    # give thanks to God: Let us give thanks to God .
    ('(S (VP (VB Let) (S (NP (PRP us)) (VP (VB give) (NP (NNS thanks)) (PP (IN to) (NP (NNP God)))))) (. .))',
     'thanks to', None),
    # a word of thanks to: I want to say a word of thanks to our partners .
    ('(S (NP (PRP I)) (VP (VBP want) (S (VP (TO to) (VP (VB say) (NP (NP (NP (DT a) (NN word)) (PP (IN of) (NP (NNS thanks)))) (PP (IN to) (NP (PRP$ our) (NNS partners)))))))) (. .))',
     'thanks to', None),
    # Thanks to all of you .: Thanks to all of you .
    ('(FRAG (NNS Thanks) (PP (IN to) (NP (NP (DT all)) (PP (IN of) (NP (PRP you))))) (. .))',
     'thanks to', None),
    # guard: sentence-initial with a clause: Thanks to the Task Force , thousands of workers have been helped .
    ('(S (NP (NP (NNS Thanks)) (PP (IN to) (NP (DT the) (NNP Task) (NNP Force)))) (, ,) (NP (NP (NNS thousands)) (PP (IN of) (NP (NNS workers)))) (VP (VBP have) (VP (VBN been) (VP (VBN helped)))) (. .))',
     'thanks to', UNDECIDED),
    # guard: after a comma: Today , thanks to you , there are 1,700 .
    ('(S (NP (NN Today)) (, ,) (NP (NP (NNS thanks)) (PP (IN to) (NP (PRP you)))) (, ,) (NP (EX there)) (VP (VBP are) (NP (CD 1,700))) (. .))',
     'thanks to', UNDECIDED),
    # guard: after a copula: This progress is thanks to you .
    ('(S (NP (DT This) (NN progress)) (VP (VBZ is) (NP (NP (NNS thanks)) (PP (IN to) (NP (PRP you))))) (. .))',
     'thanks to', UNDECIDED),
    # guard: all thanks to (a cause): It was all thanks to you .
    ('(S (NP (PRP It)) (VP (VBD was) (NP (DT all) (NNS thanks)) (PP (IN to) (NP (PRP you)))) (. .))',
     'thanks to', UNDECIDED),
    # guard: a subordinator before it: We know that thanks to you , crime fell .
    ('(S (NP (PRP We)) (VP (VBP know) (SBAR (IN that) (S (NP (NP (NNS thanks)) (PP (IN to) (NP (PRP you)))) (, ,) (NP (NN crime)) (VP (VBD fell))))) (. .))',
     'thanks to', UNDECIDED),
    # as well + a participle or adjective: the equative "as well … as", no adding
    ('(S (NP (DT The) (NNS laws)) (VP (VBP are) (ADVP (RB as) (RB well)) (VP (VBN enforced) (PP (IN as) (NP (DT any) (NN law))))) (. .))',
     'as well', None),
    ('(S (NP (PRP They)) (VP (VBP are) (ADVP (RB as) (RB well)) (ADJP (JJ able) (PP (IN as) (NP (PRP we))))) (. .))',
     'as well', None),
    # guard: an adjective opening the next noun phrase ("as well [as]" with its `as` dropped)
    ('(S (NP (NP (NNS Items)) (ADVP (RB as) (RB well)) (NP (JJ real) (NN respect))) (VP (VBP count)) (. .))',
     'as well', UNDECIDED),
    # might as well: We might as well admit it .
    ('(S (NP (PRP We)) (VP (MD might) (ADVP (RB as) (RB well)) (VP (VB admit) (NP (PRP it)))) (. .))',
     'as well', None),
    # guard: as well = also: They need support as well .
    ('(S (NP (PRP They)) (VP (VBP need) (NP (NN support)) (ADVP (RB as) (RB well))) (. .))',
     'as well', UNDECIDED),
    # a third as long as: an equative: We have worked on missiles a third as long as the Soviets .
    ('(S (NP (PRP We)) (VP (VBP have) (VP (VBN worked) (PP (PP (IN on) (NP (NNS missiles))) (DT a) (JJ third)) (RB as) (RB long) (PP (IN as) (NP (DT the) (NNPS Soviets))))) (. .))',
     'as long as', None),
    # guard: stay as long as we are needed: We will stay as long as we are needed .
    ('(S (NP (PRP We)) (VP (MD will) (VP (VB stay) (ADVP (ADVP (RB as) (RB long)) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP are) (VP (VBN needed)))))))) (. .))',
     'as long as', UNDECIDED),
    # predicate: is contrary to: Discrimination is utterly contrary to our ideals .
    ('(S (NP (NN Discrimination)) (VP (VBZ is) (ADJP (RB utterly) (JJ contrary) (PP (IN to) (NP (PRP$ our) (NNS ideals))))) (. .))',
     'contrary to', None),
    # guard: Contrary to the charges , …: Contrary to the charges you have heard , we have not turned our back .
    ('(S (PP (JJ Contrary) (PP (IN to) (NP (NP (DT the) (NNS charges)) (SBAR (S (NP (PRP you)) (VP (VBP have) (VP (VBN heard)))))))) (, ,) (NP (PRP we)) (VP (VBP have) (RB not) (VP (VBN turned) (NP (PRP$ our) (NN back)))) (. .))',
     'contrary to', UNDECIDED),
    # however distant: We must stop every threat , however distant .
    ('(S (NP (PRP We)) (VP (MD must) (VP (VB stop) (NP (NP (DT every) (NN threat)) (, ,) (ADJP (RB however) (JJ distant))))) (. .))',
     'however', None),
    # However much we try: However much we try , it will take time .
    ('(S (ADVP (RB However) (RB much)) (S (NP (PRP we)) (VP (VBP try))) (, ,) (NP (PRP it)) (VP (MD will) (VP (VB take) (NP (NN time)))) (. .))',
     'however', None),
    # however well intended: no matter how well
    ('(S (NP (DT The) (NN idea)) (, ,) (ADJP (RB however) (RB well) (VBN intended)) (, ,) (VP (VBZ fails)) (. .))',
     'however', None),
    # guard: However ,: However , we know the danger .
    ('(S (ADVP (RB However)) (, ,) (NP (PRP we)) (VP (VBP know) (NP (DT the) (NN danger))) (. .))',
     'however', UNDECIDED),
    # guard: , however ,: They will , however , restore authority .
    ('(S (NP (PRP They)) (VP (MD will) (PRN (, ,) (ADVP (RB however)) (, ,)) (VP (VB restore) (NP (NN authority)))) (. .))',
     'however', UNDECIDED),
    # guard: the adverb inside its clause: It is however clear that we must act .
    ('(S (NP (NP (PRP It))) (VP (VBZ is) (ADVP (RB however)) (ADJP (JJ clear)) (SBAR (IN that) (S (NP (PRP we)) (VP (MD must) (VP (VB act)))))) (. .))',
     'however', UNDECIDED),
])
def test_lexicon_keyword_rules(tree, keyword, expected):
    assert rule(tree, keyword) is expected


STAND = ("(S (NP (PRP I)) (VP (VBP stand) (PP (IN before) (NP (PRP you))) (NP (NN tonight))"
         " (S (VP (TO to) (VP (VB report))))) (. .))")
ACT = ("(S (NP (PRP We)) (VP (MD must) (VP (VB act) (PP (IN before) (NP (DT the) (NN end)"
       " (PP (IN of) (NP (DT the) (NN year))))))) (. .))")


def test_decisions_default_annotator_only():
    rules = KeywordDecisions(None, rules=True)
    assert annotate_trees(STAND, senses=rules).relations == []  # presence: no relation
    assert [(r.keyword, r.relation) for r in annotate_trees(ACT, senses=rules).relations] == [
        ("before", "temporal")]
    # the lexicon (senses=None, the paper's literal behaviour) keeps its relation
    assert [(r.keyword, r.relation) for r in annotate_trees(STAND, senses=None).relations] == [
        ("before", "temporal")]
    assert [r.relation for r in annotate_trees(STAND, senses=rules, mapping="paper").relations] == []
