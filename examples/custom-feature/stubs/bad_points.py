# expect: incompatible type
from scoreboard_types import ScoreboardStore

with ScoreboardStore("scoreboard") as store:
    store.send({"score": {"team": "home", "points": "3"}})
