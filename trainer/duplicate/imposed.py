"""Imposed draws (docs/rules.md §6.18): a game played from a list of draws, one line a round, instead of its seed.

A club plays a federation simultaneous or a published game from its list of draws, written as §6.3 writes a
round's draw: ``RELIQUAT+NEW``, each rejected rack first with a ``-`` (``-EEIO+AAB AEILRRR``).

Documented choices:

- **Reading.** One draw a line; blank lines and ``#`` comments are left out, letters are read in any case, a
  blank is ``?``. A line may start with its round number (``12 ER+AEINT``, ``12. ER+AEINT``), which must then be
  the round it is. A GCG record made by Tirage (§5.5) is read too: its ``#note round N, draw …`` lines are the
  draws, and its play lines (``>Top: …``) are left out. What :func:`round_list` writes reads back the same.
- **Checked before the game starts** by drawing the list from a full bag of the game's tile set, round by round:
  every tile drawn is still in the bag; a rack holds at most a rack's tiles, and as many as the bag can give
  (7, or the reliquat and all the bag when fewer are left); a reliquat is part of the last rack, less at least one
  tile (two after the first move, which places two); the tiles of the last rack not kept are on the board; a rack
  that fails the draw requirement of its round is written as a rejet, and a rack written as a rejet fails it; after
  a rejet the whole rack is back in the bag and the next rack has no reliquat; and the game is not over before a
  line (§6.5: two tiles or more left, and some rack of them can meet the requirement).
- **Not checked before the start**: whether the top the engine places leaves the line's reliquat. Nobody knows
  the tops before the rounds are played (and the engine's lexicon may find another top than the list's).
- **During play** round N's rack is line N's last rack, whatever the top placed before it left: the room plays
  the published draws. Among a round's tops, those that leave the next line's reliquat come first
  (:meth:`ImposedDraws.published_top_first`), so the board follows the published game whenever the engine finds
  its top. The game ends after the last line, or before by the usual rules (no legal play, the number of rounds,
  the director).

Every refusal names the line and the problem (:class:`Problem`, a code and its parameters, so that the pages can
say it in the reader's language); :class:`ImposedDrawsError` carries them all.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from trainer.engine.rules import BLANK, Ruleset

from .draw import (
    MIN_TILES,
    Balance,
    Draw,
    DrawRule,
    EndReason,
    GameOverError,
    Requirement,
    Tirage,
    can_satisfy,
    reliquat_after,
)
from .errors import RuleError
from .joker import CLASSIC, check_not_imposed
from .mode import Analysis

DRAWS = "draws"  # the field of a new game's request (the API's JSON, the director's form) that holds the list
MAX_TEXT = 50_000  # characters: a GCG record of a long game is some 4,000
MAX_PROBLEMS = 20  # lines named in one refusal; the rest wait until these are fixed
DRAWS_ERROR = "bad_draws"
DASHES = str.maketrans({"–": "-", "—": "-", "−": "-"})  # a word processor's dashes are a rejet's minus
_NUMBERED = re.compile(r"^(\d+)(?:\s*[.):]\s*|\s+)(\S.*)$")
_GCG_NOTE = re.compile(r"^#note\s+round\s+(\d+),\s*draw\s+(.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    """Why a line of the list is refused: ``code`` names it, ``params`` fill the message (``line`` among them)."""

    line: int | None  # the line of the text, from 1; None for the list as a whole
    code: str
    message: str  # in English, for the API and the logs
    params: dict[str, object] = field(default_factory=dict)

    def as_params(self) -> dict[str, object]:
        return {"code": self.code, "line": self.line, **self.params}

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"


class ImposedDrawsError(RuleError):
    """A list of draws refused: every problem found (``params["problems"]``), each naming its line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        shown = list(problems[:MAX_PROBLEMS])
        super().__init__(
            DRAWS_ERROR,
            "the imposed draws are refused: " + "; ".join(str(p) for p in shown),
            problems=[p.as_params() for p in shown],
        )
        self.problems = tuple(shown)


def _problem(line: int | None, code: str, message: str, **params: object) -> Problem:
    return Problem(line, code, message, params)


@dataclass(frozen=True)
class _Attempt:
    """One rack as the line writes it: kept + new tiles (sorted), and whether it is a rejet."""

    kept: str
    new: str
    rejected: bool

    @property
    def rack(self) -> str:
        return self.kept + self.new

    @property
    def tirage(self) -> Tirage:
        return Tirage(self.kept, self.new)


@dataclass(frozen=True)
class _Line:
    number: int  # in the text
    attempts: tuple[_Attempt, ...]


@dataclass(frozen=True)
class ImposedDraws:
    """The draws of a game's rounds, checked (:func:`parse`): round N plays ``draws[N - 1].rack``.

    It is the game's source of racks (:class:`~.draw.DrawSource`) in place of a bag drawn from the seed.
    """

    draws: tuple[Draw, ...]

    def __len__(self) -> int:
        return len(self.draws)

    @property
    def text(self) -> str:
        """The list as the game keeps it: each round's draw as §6.3 writes it, one a line."""
        return round_list(draw.record for draw in self.draws)

    def end_reason(self, reliquat: str, round_number: int) -> EndReason | None:
        """``LAST_DRAW`` once every line is played; the reliquat has no say (the list's rack is played)."""
        return EndReason.LAST_DRAW if round_number > len(self.draws) else None

    def draw(self, reliquat: str, round_number: int) -> Draw:
        """Line ``round_number``'s draw, whatever the top placed before it left."""
        if round_number > len(self.draws):
            raise GameOverError(EndReason.LAST_DRAW)
        return self.draws[round_number - 1]

    def published_reliquat(self, round_number: int) -> str | None:
        """What the list keeps of round ``round_number``'s rack for the next round; None after the last line."""
        return self.draws[round_number].reliquat if round_number < len(self.draws) else None

    def published_top_first(self, analysis: Analysis, round_number: int, rack: str) -> Analysis:
        """``analysis`` with the tops that leave the next line's reliquat first (each group in tie-break order):
        the first top is placed by default, and this one keeps the board on the published game."""
        published = self.published_reliquat(round_number)
        if published is None:
            return analysis
        tops = analysis.tops
        keeping = [i for i, move in enumerate(tops) if reliquat_after(rack, move) == published]
        if not keeping or keeping[0] == 0:
            return analysis
        order = keeping + [i for i in range(len(tops)) if i not in keeping]
        reordered = tuple(tops[i] for i in order)
        best = (*reordered, *analysis.best[len(tops) :]) if analysis.best else ()
        return replace(analysis, tops=reordered, best=best)


def round_list(records: Iterable[str], header: Sequence[str] = ()) -> str:
    """Draws written one a line (§6.3's written form), after ``header`` lines as ``#`` comments."""
    return "".join([*(f"# {line}\n" for line in header), *(f"{record}\n" for record in records)])


# --- reading the text ---------------------------------------------------------------------------


def _entries(text: str) -> list[tuple[int, int | None, str]]:
    """(line number, round number written on it or None, the draw) for each line holding a draw."""
    entries: list[tuple[int, int | None, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith(">"):  # a GCG record's play: its draw is in the note that follows
            continue
        note = _GCG_NOTE.match(line)
        if note:
            entries.append((number, int(note.group(1)), note.group(2).strip()))
            continue
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        numbered = _NUMBERED.match(line)
        if numbered:
            entries.append((number, int(numbered.group(1)), numbered.group(2).strip()))
        else:
            entries.append((number, None, line))
    return entries


def _attempt(token: str, line: int, rules: Ruleset) -> _Attempt | Problem:
    rejected = token.startswith("-")
    body = token[1:] if rejected else token
    parts = body.split("+")
    if len(parts) > 2 or not body.replace("+", ""):
        return _problem(line, "draws_bad_token", f"{token!r} is not a draw: write RELIQUAT+NEW", text=token)
    letters = set(rules.tileset.letters)
    for ch in body.replace("+", ""):
        if ch != BLANK and ch.upper() not in letters:
            return _problem(
                line, "draws_not_a_tile", f"{ch!r} is not a tile of this game (letters, and ? for a blank)", tile=ch
            )
    kept, new = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    attempt = _Attempt("".join(sorted(kept.upper())), "".join(sorted(new.upper())), rejected)
    if len(attempt.rack) > rules.rack_size:
        return _problem(
            line,
            "draws_rack_too_big",
            f"{token} has {len(attempt.rack)} tiles: a rack holds {rules.rack_size}",
            rack=token,
            count=len(attempt.rack),
            size=rules.rack_size,
        )
    return attempt


def _line(number: int, written: str, rules: Ruleset) -> _Line | Problem:
    """One line's racks, in order: every one a rejet but the last, and only the first with a reliquat."""
    attempts: list[_Attempt] = []
    tokens = written.translate(DASHES).split()
    for token in tokens:
        read = _attempt(token, number, rules)
        if isinstance(read, Problem):
            return read
        attempts.append(read)
    *before, last = attempts
    if last.rejected:
        return _problem(
            number,
            "draws_ends_with_rejet",
            f"the line ends with a rejected rack ({tokens[-1]}): write the rack played instead after it, with a space"
            " between",
            rack=tokens[-1],
        )
    for token, attempt in zip(tokens, before, strict=False):
        if not attempt.rejected:
            return _problem(
                number,
                "draws_not_rejected",
                f"only a line's last rack is played: write the racks before it as rejets, with a - ({token})",
                rack=token,
            )
    for token, attempt in zip(tokens[1:], attempts[1:], strict=True):
        if attempt.kept:
            return _problem(
                number,
                "draws_reliquat_after_rejet",
                f"after a rejet every tile is back in the bag: the next rack has no reliquat ({token})",
                rack=token,
            )
    return _Line(number, tuple(attempts))


def _lines(text: str, rules: Ruleset) -> list[_Line]:
    """Every line holding a draw, read; refused with every line that cannot be read."""
    if len(text) > MAX_TEXT:
        raise ImposedDrawsError(
            [_problem(None, "draws_too_long", f"the list has more than {MAX_TEXT} characters", size=MAX_TEXT)]
        )
    lines: list[_Line] = []
    problems: list[Problem] = []
    for index, (number, given, written) in enumerate(_entries(text), 1):
        if given is not None and given != index:
            problems.append(
                _problem(
                    number,
                    "draws_round_number",
                    f"the line says round {given}, but it is the draw of round {index}",
                    given=given,
                    round=index,
                )
            )
            continue
        read = _line(number, written, rules)
        if isinstance(read, Problem):
            problems.append(read)
        else:
            lines.append(read)
    if problems:
        raise ImposedDrawsError(problems)
    if not lines:
        raise ImposedDrawsError([_problem(None, "draws_empty", "the list holds no draw")])
    return lines


# --- drawing the list from a full bag -----------------------------------------------------------


def _written(tiles: Counter[str]) -> str:
    return "".join(sorted(tiles.elements()))


def _rule_text(requirement: Requirement) -> str:
    return f"vowels ≥ {requirement.vowels}, consonants ≥ {requirement.consonants}"


def _requirement_params(requirement: Requirement) -> dict[str, object]:
    return {"vowels": requirement.vowels, "consonants": requirement.consonants}


class _Simulation:
    """The bag as the list draws it, round by round; the first line it cannot draw is refused."""

    def __init__(self, rules: Ruleset, rule: DrawRule) -> None:
        self.rules = rules
        self.rule = rule
        self.bag: Counter[str] = Counter(rules.tileset.bag())
        self.last_rack: Counter[str] = Counter()

    def balance(self, tiles: Iterable[str]) -> Balance:
        return Balance.of(tiles, self.rules.tileset, self.rule.blanks_either)

    def round(self, round_number: int, line: _Line) -> Draw:
        requirement = self.rule.requirement(round_number)
        first = line.attempts[0]
        self._check_reliquat(round_number, line.number, first)
        kept = Counter(first.kept)
        pool = self.bag + kept
        if pool.total() < MIN_TILES:
            raise self._refused(
                line.number,
                "draws_too_few_tiles",
                f"the game is over before round {round_number}: fewer than {MIN_TILES} tiles are left",
                round=round_number,
            )
        if not can_satisfy(self.balance(pool.elements()), requirement, self.rules.rack_size):
            raise self._refused(
                line.number,
                "draws_unreachable",
                f"the game is over before round {round_number}: no rack of the tiles left meets the draw rule "
                f"({_rule_text(requirement)})",
                round=round_number,
                **_requirement_params(requirement),
            )
        rejets: list[Tirage] = []
        for attempt in line.attempts:
            self._draw(round_number, line.number, attempt, requirement)
            if attempt.rejected:
                self.bag.update(attempt.rack)  # the whole rack, reliquat included, goes back to the bag
                rejets.append(attempt.tirage)
        final = line.attempts[-1]
        self.last_rack = Counter(final.rack)
        return Draw(round_number, first.kept, requirement, final.tirage, tuple(rejets))

    def _check_reliquat(self, round_number: int, line: int, first: _Attempt) -> None:
        kept = Counter(first.kept)
        if round_number == 1 and kept:
            raise self._refused(
                line, "draws_first_reliquat", f"the first round has no reliquat ({first.kept}+)", kept=first.kept
            )
        last = _written(self.last_rack)
        if kept - self.last_rack:
            raise self._refused(
                line,
                "draws_reliquat_not_kept",
                f"the reliquat {first.kept} is not part of the last rack {last}",
                kept=first.kept,
                rack=last,
            )
        placed = 2 if round_number == 2 else 1  # the first move places two tiles, every other at least one
        if round_number > 1 and self.last_rack.total() - kept.total() < placed:
            raise self._refused(
                line,
                "draws_reliquat_too_big",
                f"the reliquat {first.kept} keeps too much of the last rack {last}: the top placed before it uses"
                f" at least {placed} of its tiles",
                kept=first.kept,
                rack=last,
                placed=placed,
            )

    def _draw(self, round_number: int, line: int, attempt: _Attempt, requirement: Requirement) -> None:
        shown = f"{'-' if attempt.rejected else ''}{attempt.tirage.written}"
        missing = Counter(attempt.new) - self.bag
        if missing:
            raise self._refused(
                line,
                "draws_not_in_bag",
                f"{shown} takes tiles the bag no longer holds: {_written(missing)}",
                rack=shown,
                tiles=_written(missing),
            )
        size = min(self.rules.rack_size, len(attempt.kept) + self.bag.total())
        if len(attempt.rack) != size:
            raise self._refused(
                line,
                "draws_short_rack",
                f"{shown} has {len(attempt.rack)} tiles: the bag still holds enough for {size}",
                rack=shown,
                count=len(attempt.rack),
                size=size,
            )
        self.bag.subtract(attempt.new)
        passes = requirement.met_by(self.balance(attempt.rack))
        if attempt.rejected and passes:
            raise self._refused(
                line,
                "draws_needless_rejet",
                f"{attempt.tirage.written} meets the draw rule of round {round_number} ({_rule_text(requirement)}):"
                " it cannot be rejected",
                rack=attempt.tirage.written,
                round=round_number,
                **_requirement_params(requirement),
            )
        if not attempt.rejected and not passes:
            raise self._refused(
                line,
                "draws_requirement",
                f"{shown} does not meet the draw rule of round {round_number} ({_rule_text(requirement)}): write it"
                f" as a rejet, -{shown}, then the rack drawn instead",
                rack=shown,
                round=round_number,
                **_requirement_params(requirement),
            )

    @staticmethod
    def _refused(line: int, code: str, message: str, **params: object) -> ImposedDrawsError:
        return ImposedDrawsError([_problem(line, code, message, **params)])


def requested(
    data: Mapping[str, object], rules: Ruleset, rule: DrawRule, variant: str = CLASSIC
) -> ImposedDraws | None:
    """The imposed draws a new game's request gives in its ``draws`` field, checked for the game's rules, draw
    rule and variant; None when the field is left out, null or blank (the seed draws the racks).

    A seed given too is refused (``seed_and_draws``): it would draw nothing, and a director who gives one expects
    the racks it draws. So is a joker game (``joker_imposed``, docs/rules.md §6.24)."""
    text = data.get(DRAWS)
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    if not isinstance(text, str):
        raise RuleError("bad_setting", f"'{DRAWS}' must be text: one draw a line, RELIQUAT+NEW", setting=DRAWS)
    check_not_imposed(variant)
    if data.get("seed") not in (None, ""):
        raise RuleError(
            "seed_and_draws", "a game with imposed draws draws nothing from a seed: leave 'seed' out", setting="seed"
        )
    return parse(text, rules, rule)


def parse(text: str, rules: Ruleset, rule: DrawRule) -> ImposedDraws:
    """The list of draws in ``text``, checked for a game of these rules and draw rule (see the module's doc).

    Raises :class:`ImposedDrawsError`: every line that cannot be read, or else the first line that cannot be
    drawn (the lines after it are drawn from what it leaves, so they are checked once it is fixed).
    """
    simulation = _Simulation(rules, rule)
    return ImposedDraws(tuple(simulation.round(n, line) for n, line in enumerate(_lines(text, rules), 1)))
