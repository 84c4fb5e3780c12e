"""The rules: reading an answer against a question's options, one step per module.

The flow of one row, in the order the modules run::

    options        the question's two options ("left or right kidney?" -> left / right kidney)
    final_answer   the part of the answer that was read (final answer, conclusion)
    text           canonical tokens (case, plurals, spellings, the lexicons' synonyms)
    reading        the option-independent reading of an answer (tokens, clauses, cues)
    mentions       where the answer names an option, and which mentions do not count
    negation       which mentions are denied ("not the left", "no effusion")
    comparison     comparatives ("the spleen is smaller than the liver")
    decide         mentions and cues -> A, B, both, none, or abstain
    answer         the labelling entry points (`label_answer`, `label_reading`)
    polar          yes/no questions: the proposition a polar question asks about
    yes_no         yes/no answers: explicit ("Yes.", "No,") or restating the proposition
    memo           bounded memo tables and the per-row loop over them

Every module here is compiled with mypyc when the package is built (see hatch_build.py).
A new kind of question adds its question reader and its answer reader here, as yes/no
did (`polar`, `yes_no`), and one branch in `memo`, which keys everything by the question.
"""
