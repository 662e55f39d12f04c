"""Database rows of word walls: the wall and its alphagrams, the players who joined, the words found.

A find is a row of its own with a unique (wall, word) pair, so the database itself decides who
found a word first when two phones send it at the same moment: the second insert fails and that
player is told who beat them to it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..core.clock import utcnow
from ..core.codes import register_code_column
from ..core.database import Model


class Wall(Model):
    """A word wall: its alphagrams (anagram card keys of :mod:`drills`), its clock and its state."""

    __tablename__ = "wall"

    id: Mapped[int] = mapped_column(primary_key=True)
    director_id: Mapped[int] = mapped_column(ForeignKey("director.id"))
    join_code: Mapped[str] = mapped_column(String(12), unique=True)
    lexicon: Mapped[str] = mapped_column(String(40))
    alphagrams: Mapped[list[str]] = mapped_column(JSON)  # card keys, in the order shown on the wall
    # Every alphagram's words, taken from its anagram card when the wall is made: a word list
    # re-imported during the evening cannot change what counts on a wall already on the screen.
    answers: Mapped[dict[str, list[str]]] = mapped_column(JSON)
    seconds: Mapped[int] = mapped_column(default=300)
    status: Mapped[str] = mapped_column(String(16), default="lobby")  # lobby running finished
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    deadline: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    players: Mapped[list[WallPlayer]] = relationship(back_populates="wall", order_by="WallPlayer.id")


register_code_column(Wall.join_code)


class WallPlayer(Model):
    """Someone who joined a wall with its code; their token (hashed here) keeps them on their phone."""

    __tablename__ = "wall_player"
    __table_args__ = (UniqueConstraint("wall_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    wall_id: Mapped[int] = mapped_column(ForeignKey("wall.id"))
    name: Mapped[str] = mapped_column(String(40))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)

    wall: Mapped[Wall] = relationship(back_populates="players")


class WallFind(Model):
    """A word of the wall, found: the first finder is credited (append-only, one row per word)."""

    __tablename__ = "wall_find"
    __table_args__ = (UniqueConstraint("wall_id", "word"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    wall_id: Mapped[int] = mapped_column(ForeignKey("wall.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("wall_player.id"))
    word: Mapped[str] = mapped_column(String(15))
    alphagram: Mapped[str] = mapped_column(String(15))
    found_at: Mapped[datetime] = mapped_column(default=utcnow)
