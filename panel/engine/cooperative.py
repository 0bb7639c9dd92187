"""The cooperative mode's table from the rulebook: rounds and final tiers by player count."""

from __future__ import annotations

# players: (rounds, [(tier, lowest score, highest score), ...])
TABLE: dict[int, tuple[int, list[tuple[str, int, int]]]] = {
    2: (4, [("Rookie", 0, 10), ("Cadet", 11, 15), ("Commander", 16, 20), ("Captain", 21, 28), ("Captain General", 29, 36)]),
    3: (6, [("Rookie", 0, 14), ("Cadet", 15, 21), ("Commander", 22, 28), ("Captain", 29, 40), ("Captain General", 41, 54)]),
    4: (4, [("Rookie", 0, 10), ("Cadet", 11, 15), ("Commander", 16, 20), ("Captain", 21, 28), ("Captain General", 29, 36)]),
    5: (5, [("Rookie", 0, 12), ("Cadet", 13, 18), ("Commander", 19, 24), ("Captain", 25, 34), ("Captain General", 35, 45)]),
    6: (6, [("Rookie", 0, 14), ("Cadet", 15, 21), ("Commander", 22, 28), ("Captain", 29, 40), ("Captain General", 41, 54)]),
}

OUTCOMES = {
    "Rookie": "That was a close one! It's a miracle you landed that thing...look at it! There's smoke everywhere! "
              "There are so many pale faces and sick sacks filled to the rim in the passenger area...so many children "
              "crying their eyes out...you could have done better.",
    "Cadet": "That was a miracle! That landing was one of the most terrifying things anyone here has ever witnessed. "
             "The cabin is full of poker faces. The airline is even considering holding you accountable for the "
             "damages caused to the aircraft.",
    "Commander": "You did it! I can't deny everyone cringed as the plane got erratically closer and closer. We all "
                 "gasped when the wheels finally hit the runway. There was a brief, apprehensive applause. The company "
                 "is starting to wonder if it's a good idea for a few penguins to pilot the aircraft.",
    "Captain": "Congratulations on your landing! The media covered the whole thing and the entire country has "
               "witnessed your achievement in awe. What's next? A bunch of snails handling a spaceship? What a "
               "breathtaking experience! You've got the next few months fully booked to tour the country from talk "
               "show to talk show. Everyone wants to talk to the first penguins to have ever piloted a commercial "
               "flight.",
    "Captain General": "You are heroes! And what about that acrobatic loop! Wow!! A government entourage awaits you to "
                       "recognize you for your great achievement. It's a standing ovation all over the airport. The "
                       "flight commission has even decided to rename the airport after you. The duty-free stores are "
                       "filled with souvenirs with your faces on them. You will forever be remembered as part of the "
                       "history of modern aviation.",
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
