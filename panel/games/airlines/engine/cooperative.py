"""The cooperative mode's table from the rulebook: rounds and final tiers by player count."""

from __future__ import annotations

from panel.core.i18n import N_

# The tiers, lowest first. The engine keeps these English texts (in its events, snapshots
# and log); each page or command translates them where it shows them.
# Translators: the ranks a crew reaches at the end of a cooperative flight, lowest first.
ROOKIE, CADET, COMMANDER, CAPTAIN, GENERAL = (N_("Rookie"), N_("Cadet"), N_("Commander"), N_("Captain"),
                                              N_("Captain General"))

# players: (rounds, [(tier, lowest score, highest score), ...])
TABLE: dict[int, tuple[int, list[tuple[str, int, int]]]] = {
    2: (4, [(ROOKIE, 0, 10), (CADET, 11, 15), (COMMANDER, 16, 20), (CAPTAIN, 21, 28), (GENERAL, 29, 36)]),
    3: (6, [(ROOKIE, 0, 14), (CADET, 15, 21), (COMMANDER, 22, 28), (CAPTAIN, 29, 40), (GENERAL, 41, 54)]),
    4: (4, [(ROOKIE, 0, 10), (CADET, 11, 15), (COMMANDER, 16, 20), (CAPTAIN, 21, 28), (GENERAL, 29, 36)]),
    5: (5, [(ROOKIE, 0, 12), (CADET, 13, 18), (COMMANDER, 19, 24), (CAPTAIN, 25, 34), (GENERAL, 35, 45)]),
    6: (6, [(ROOKIE, 0, 14), (CADET, 15, 21), (COMMANDER, 22, 28), (CAPTAIN, 29, 40), (GENERAL, 41, 54)]),
}

# What the crew is told on landing, by tier.
OUTCOMES = {
    ROOKIE: N_("That was a close one! It's a miracle you landed that thing...look at it! There's smoke everywhere! "
               "There are so many pale faces and sick sacks filled to the rim in the passenger area...so many children "
               "crying their eyes out...you could have done better."),
    CADET: N_("That was a miracle! That landing was one of the most terrifying things anyone here has ever witnessed. "
              "The cabin is full of poker faces. The airline is even considering holding you accountable for the "
              "damages caused to the aircraft."),
    COMMANDER: N_("You did it! I can't deny everyone cringed as the plane got erratically closer and closer. We "
                  "all gasped when the wheels finally hit the runway. There was a brief, apprehensive applause. The "
                  "company is starting to wonder if it's a good idea for a few penguins to pilot the aircraft."),
    CAPTAIN: N_("Congratulations on your landing! The media covered the whole thing and the entire country has "
                "witnessed your achievement in awe. What's next? A bunch of snails handling a spaceship? What a "
                "breathtaking experience! You've got the next few months fully booked to tour the country from talk "
                "show to talk show. Everyone wants to talk to the first penguins to have ever piloted a commercial "
                "flight."),
    GENERAL: N_("You are heroes! And what about that acrobatic loop! Wow!! A government entourage awaits you to "
                "recognize you for your great achievement. It's a standing ovation all over the airport. The "
                "flight commission has even decided to rename the airport after you. The duty-free stores are "
                "filled with souvenirs with your faces on them. You will forever be remembered as part of the "
                "history of modern aviation."),
}

PLAYER_COUNTS = tuple(TABLE)


def rounds_for(players: int) -> int:
    return TABLE[players][0]


def tier_for(players: int, score: int) -> str:
    """The tier a final score reaches. A score above the table's top (possible only with
    house settings such as more time counters) stays in the top tier."""
    tiers = TABLE[players][1]
    for name, low, high in tiers:
        if low <= score <= high:
            return name
    return tiers[-1][0] if score > tiers[-1][2] else tiers[0][0]
