"""The check of a round: every accepted play is in the round's results, as the server wrote it."""

from __future__ import annotations

from .records import RoundInfo
from .state import RunState


class Audit(RunState):
    """The check after each round."""

    async def audit(self, round_: RoundInfo) -> None:
        """Every accepted play in the round's results: each player's last accepted one, as written."""
        details = await self.ok("GET", f"/api/games/{self.game_id}/rounds/{round_.number}", token=self.director_token)
        results = {r["player_id"]: r for r in details["results"]}
        by_name = {r["name"]: r for r in details["results"]}  # a phone page does not know its player id
        lost = wrong = phantom = 0
        for player in self.players:
            accepted = player.accepted.get(round_.number)
            result = results.get(player.player_id) if player.player_id else by_name.get(player.name)
            shown = result.get("move") if result else None
            if accepted is None:
                if shown:
                    phantom += 1
                    self.error("results: a play never accepted", f"{player.name}: {shown!r}")
            elif shown is None:
                lost += 1
                self.error("results: accepted play missing", f"{player.name}: {accepted!r}")
            elif shown != accepted:
                wrong += 1
                self.error("results: another play than the last accepted", f"{player.name}: {accepted!r} -> {shown!r}")
        round_.audit = {
            "results": sum(1 for r in details["results"] if r.get("move")),
            "lost": lost + wrong,
            "missing": lost,
            "different": wrong,
            "phantom": phantom,
            "accepted_players": sum(1 for p in self.players if round_.number in p.accepted),
        }
