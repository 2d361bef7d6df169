"""A typed program over the scoreboard's generated stubs (mypy --strict accepts it)."""
from scoreboard_types import ScoreboardState, ScoreboardStore

with ScoreboardStore("scoreboard") as store:
    store.send({"score": {"team": "home", "points": 3}})
    store.send({"saved": {"id": "game-1", "rank": 2}})
    state: ScoreboardState = store.state
    home: int = state["home"]
    assert (home, state["log"]) == (3, ["home +3", "saved as game-1"]), state
print("typed scoreboard program ok")
