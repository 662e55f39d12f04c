"""Word study: drill types (anagrams, bingo stems, twos) and their spaced-repetition schedule.

The drill types and the scheduling arrive with the word-study issue; they build on
:mod:`trainer.engine.lexicon` (word lists and graphs) and nothing above it.
"""
