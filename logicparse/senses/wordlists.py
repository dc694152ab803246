"""The word lists the tree rules (``rules.py``) read: question-taking verbs, time nouns, verbs of
saying and knowing, perception verbs and the like. Kept apart from the rules so that each rule
reads as its logic."""

from __future__ import annotations

# Words after which a wh-clause or an if-clause is a question ("know when", "ask if").
_QUESTION_TAKERS = frozenset("""
know knew known knows knowing ask asked asks asking wonder wondered wonders wondering tell told
telling sure unsure idea decide decided decides deciding remember remembered forget forgot
understand understood explain explained figure figured learn learned see saw seen check checked
checking doubt doubted determine determined clear unclear matter matters care question predict
guess guessed notice noticed realize realized find found say said whether upon about on of
idk dunno
""".split())
# Nouns after which `when` opens a relative clause ("the day when").
_TIME_NOUNS = frozenset("""
time times day days moment moments year years period periods point age ages era night nights
morning mornings week weeks month months season seasons occasion occasions hour hours minute
minutes decade decades century centuries instance instances case cases stage stages date
""".split())
# Events a relative `when` can follow after a comma ("amid the Civil War , when the Union …").
_EVENT_NOUNS = frozenset("war wars revolution depression crisis".split())
_BE = frozenset("be am is are was were been being 's 're 'm".split())
_HAVE = frozenset("have has had 've 'd".split())
_NEG = frozenset({"not", "n't", "never", "no"})
_SAY_KNOW = frozenset("""know knows knew known said say says saying recall recalls recalled
remember mentioned noted note suggested suggests imagine imagined see saw seen expected expect
reported described pointed explained stated stressed shown put discussed told tell indicated
mentions argued wrote written observed observes notes reviews reviewed illustrates illustrated
summarized summarizes describes understood designated termed""".split())
# Comment clauses also say what someone assumes, reviews or calls something.
_COMMENT_VERBS = _SAY_KNOW | frozenset("""assume assumes assumed believe believes believed think
thinks thought review reviews call calls called put puts understand understands understood""".split())
_WH = frozenset({"how", "what", "where", "why", "who", "whom", "which", "whether"})
# Time words that are adverbs, not heads a relative can follow ("today when I came in").
_TIME_ADVERBS = frozenset("""today tomorrow yesterday recent early late earlier later past future
advance half halves""".split())
# Participles of a comment clause: "as shown in figure 1", "as recommended by me".
# ("as promised", "as measured by" are left to the classifier: GDTB has them causal.)
_COMMENT_PARTICIPLES = frozenset("""shown seen noted mentioned discussed described recommended
stated indicated suggested reported explained outlined illustrated presented announced""".split())
# After such a participle, where the source is: "as shown in figure 1", "as stated above".
_SOURCE_PLACES = frozenset("in by above below before earlier previously on at elsewhere".split())
# Time adverbs a relative `when` can follow after a comma ("tomorrow , when we go over",
# "a year ago , when I met with you").
_RELATIVE_ADVERBS = frozenset("today tomorrow yesterday tonight ago".split())
# Verbs between a time noun and its extraposed relative ("the time comes when").
_COME = frozenset("comes came come arrives arrived".split())
# Prepositions whose object a `when` clause is (a free relative: "from when", "than when").
_FREE_RELATIVE = frozenset({"from", "than", "to", "until", "till", "since"})
# Verbs of a comment clause that also take an object ("as I recall the high hopes": a time).
_RECALL_SEE = frozenset("recall recalled remember see saw seen imagine".split())
_SUBJECTS = frozenset("i we you he she they it there".split())
_PRONOUNS = frozenset("that this these those it them him her me us you what which".split())
# Verbs of seeming: "it sounds as if something broke" = it seems that.
_SEEM = frozenset("looks look looked seems seem seemed sounds sound sounded".split())
# After these, `like` is evidential (it seems) or a resemblance (looks like a resort).
_PERCEPTION = _SEEM | frozenset("feels feel felt smells smell smelled tastes taste tasted".split())
# Before these, `before` is "in the presence of", not "earlier than" ("testified before
# Congress", "equal before the law", "an address before a joint session").
_PRESENCE_NOUNS = frozenset("""congress senate house committee committees subcommittee session
sessions court courts tribunal bar altar throne god lord heaven world mankind nation nations law
conference assembly body chamber jury judge bench people public audience parliament legislature
council eyes man""".split())
# Verbs that put something before someone: "laid before you", "stand before you", "pales before".
_PRESENT_VERBS = frozenset("""lay laid lays laying place placed places placing put puts putting
set sets setting bring brings brought bringing stand stands stood standing appear appears
appeared appearing testify testifies testified testifying pending kneel kneels knelt bow bows
bowed pale pales paled lie lies lying present presents presented submit submits submitted
tremble trembles trembled trembling cower cowers cowered cowering""".split())
# Before "before us" these make it "earlier than us": "generations before us", "those who came".
_BEFORE_US_EARLIER = frozenset("""came come gone went lived served died walked those others
generations generation americans men women predecessors ones leaders presidents fathers
ancestors forebears pioneers long shortly just soon""".split())
# Verbs whose `after` is their particle: "going after the killers", "named after", "look after".
_AFTER_VERBS = frozenset("""go goes going went gone look looks looking looked seek seeks
seeking sought name names named inquire inquires inquired chase chases chasing chased run runs
ran running lust lusts hanker hankers""".split())
# Nouns owed to someone: "the respect due to the office", "the credit is due to them".
_OWED = frozenset("""respect gratitude honor honour homage thanks credit deference allegiance
obedience reverence tribute loyalty praise""".split())
# Degree words after `however` that make it "no matter how" ("however much", "however hard").
_DEGREE = frozenset("""much many long hard far often few little great small large strongly
deeply carefully badly well""".split())
# Participles after "have thus" that draw a conclusion ("have thus shown that"), not a manner.
_CONCLUDE = frozenset("shown showed proved proven demonstrated concluded found established".split())
# Quantities of a time unit after `in`: "in tens of seconds", "in a matter of minutes".
_SPANS = frozenset("tens hundreds thousands millions dozens couple matter space span".split())
