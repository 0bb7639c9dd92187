"""The teams the tests play with, written once.

TEAMS plays the cockpit (the service, its API, the hardware, the link, MQTT, the venue);
ENGINE_TEAMS plays the engine and its scenarios, whose tests read the names back
("Ice 1, Snow 0"). Tests whose names are part of what they check (a page in Spanish, a
screen's fit, a score asserted by name) keep their own.
"""

TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]
ENGINE_TEAMS = [{"name": "Ice", "players": ["ann", "bob"]}, {"name": "Snow", "players": ["cid", "dee"]}]
