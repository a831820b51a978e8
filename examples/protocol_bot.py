"""A bot in plain Python speaking murlan-bot/1 (docs/protocol.md): it makes the legal move of
lowest action id other than a pass, and passes only when nothing else is legal.

murlan arena proc:"python examples/protocol_bot.py" rule --boards 4 --max-hands 2
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "protocol": "murlan-bot/1", "name": "lowest-play"}
    elif message["type"] == "move":
        plays = [cards for cards in message["legal"] if cards] or [[]]
        answer = {"id": message["id"], "move": plays[0]}
    else:  # "bye"
        break
    print(json.dumps(answer), flush=True)
