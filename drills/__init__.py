"""Word study: drill types (anagrams, bingo stems, twos) and their spaced-repetition schedule.

Pure code on top of :mod:`trainer.engine` (lexicons and tile sets), with no web or database
import, so the pages, the command line, tests and benchmarks share it:

* :mod:`drills.probability`: probability order of alphagrams per lexicon and tile set;
* :mod:`drills.words`: anagrams of a rack, the twos and the hooks of a word, from the word graph;
* :mod:`drills.cards`: the drill types, their cards (stable ids) and the checking of answers;
* :mod:`drills.registry`: the drill types by name, and cards rebuilt from their ids;
* :mod:`drills.scheduling`: ratings from answers, study days, daily limits and the queue on fsrs;
* :mod:`drills.cardbox`: Zyzzyva cardbox import and export, and plain word list import.
"""
