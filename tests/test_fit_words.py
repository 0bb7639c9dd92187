"""What the pages and drawings say about the panel, checked without a browser (issue 23,
items 7 and 9): where the crew puts the tokens back, the words beside a card's switches and
big lever (readable on the tower's phone, never under the handle), the list of stored
matches saying how a mission came out, and the Spanish catalog's plurals and words."""

from __future__ import annotations

import asyncio
import re
import xml.etree.ElementTree as ET

import pytest

from panel.core.i18n import translations
from panel.core.layout_file import load_layout
from panel.games.airlines.card_drawing import W, card_svg
from panel.games.airlines.cards import Card

NS = "{http://www.w3.org/2000/svg}"
# The tower's page draws the card about 370 px wide on a 390 px phone (tests/test_browser_fit.py measures it).
PHONE_CARD_PX = 370


def test_the_crew_is_told_where_every_token_starts():
    layout = load_layout()
    words = layout.start_words()
    assert words == ("the switches down, the big lever up, the clicks off, the sliders at 0, "
                     "the round levers at 1, the rotating knob at 1")
    for t in layout.tokens.values():  # each kind said once, at its start
        assert t.start in words
    spanish = layout.start_words(translations("es"))
    assert "switches" not in spanish and " at " not in spanish and "arriba" in spanish


def test_tokens_of_a_kind_that_start_apart_are_said_one_by_one():
    layout = load_layout()
    tokens = dict(layout.tokens)
    lever = tokens["round_lever.red"]
    tokens["round_lever.red"] = type(lever)(**{**lever.__dict__, "start": "2"})
    moved = type(layout)(**{**layout.__dict__, "tokens": tokens})
    words = moved.start_words()
    assert "the round levers" not in words
    assert "the red round lever at 2" in words and "the blue round lever at 1" in words


@pytest.mark.parametrize("cards", [
    [Card("simple", set=(("lever.big", pos),)) for pos in ("up", "down")],
    [Card("simple", set=(("lever.big", pos), ("switch.left", pos))) for pos in ("up", "down")],
    # three sections: the smallest cells a simple card draws
    [Card("simple", press=("alarm.red", "grid.r1c1"), set=(("lever.big", pos), ("slider.red", "3"), ("switch.middle", pos)))
     for pos in ("up", "down")],
])
def test_a_cards_switch_and_lever_words_read_on_a_phone_below_the_handle(cards):
    layout = load_layout()
    for card in cards:
        root = ET.fromstring(card_svg(card, layout))
        slots = [g for g in root.iter(f"{NS}g") if (g.get("data-control") or "").split(".")[0] in ("lever", "switch")
                 and "token" in (g.get("class") or "")]
        assert slots
        for g in slots:
            handle = list(g.iter(f"{NS}circle"))[-1]
            word = next(t for t in g.iter(f"{NS}text") if t.get("class") == "position-word")
            size = float(word.get("font-size"))
            assert word.text == g.get("data-position")
            assert size * PHONE_CARD_PX / W >= 12, f"{g.get('data-control')}: {size * PHONE_CARD_PX / W:.1f} px"
            # the word's top (its centre less half its height) below the handle's bottom
            assert float(word.get("y")) - size / 2 >= float(handle.get("cy")) + float(handle.get("r")) - 0.5


def test_the_list_of_matches_says_a_mission_was_lost(tmp_path, capsys):
    from panel.games.kaboom.mapping_file import load_mapping
    from panel.service.cockpit import Cockpit
    from panel.storage.store import Store
    from panel.tools.cli import main
    from waiting import until

    mapping = load_mapping()
    db = tmp_path / "panel.db"

    now = [1000.0]  # the cockpit's clock, moved by the test: the alert is due when it says

    async def play():
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True, clock=lambda: now[0])
            await cockpit.start()
            try:
                await cockpit.create_match({"mode": "kaboom", "players": ["green"], "mission": "custom",
                                            "custom": {"time_per_player": 300, "alert_seconds": 5, "alerts": 1,
                                                       "alerts_face_up": 0}})
                await cockpit.action("start", {})
                now[0] += 6
                await until(lambda: cockpit.match.snapshot(cockpit.now())["alerts"]["sounded"])
                await cockpit.input(mapping.alert_flipped, True)  # the one alert card face up: the last
                await until(lambda: cockpit.match.finished)
                return cockpit.match.outcome
            finally:
                await cockpit.close()

    assert asyncio.run(play()) == "failed"
    assert main(["matches", "list", "--db", str(db)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert " failed " in line and "finished" not in line


# ---------------------------------------------------------------- the Spanish catalog

def spanish():
    from babel.messages.pofile import read_po

    from panel.core import i18n

    with (i18n.LOCALE_DIR / "es" / "LC_MESSAGES" / f"{i18n.DOMAIN}.po").open("rb") as f:
        return [m for m in read_po(f) if m.id]


# Who reads each page (docs/languages.md, "Who a text speaks to"): the room's screens speak
# to the crew (vosotros), the others to one person (tú); what both show speaks to nobody.
STATIC = "panel/web/static/"
ROOM = ("board.js", "board.html", "sim.js", "sim.html", "sound.js", "venue.js", "venue.html",
        "games/airlines/board.js", "games/airlines/sim.js", "games/kaboom/board.js", "games/kaboom/sim.js")
SHARED = ("common.js", "games/index.js", "games/kaboom/common.js")
# The rulebook's landing texts, told to the crew wherever they are shown.
QUOTED = ("panel/games/airlines/engine/cooperative.py",)
# Tú: an order at the start of a clause ("Pulsa START", "...: escanea"), or a word only tú uses.
TU_ORDERS = ("pulsa", "pon", "mueve", "escanea", "elige", "mantén", "devuelve", "deja", "levanta", "toca", "lee",
             "recoloca", "gira", "coloca", "usa", "haz", "mira", "comprueba", "abre", "cierra", "escribe", "prueba",
             "inténtalo", "añade", "introduce", "cambia", "arrastra", "revisa", "prepara", "prepárala", "consulta",
             "ejecuta", "instala", "conecta", "arranca", "voltea", "asegúrate", "únete")
TU_WORDS = ("tu", "tus", "tienes", "puedes", "quieres", "debes")
TU = re.compile(r"(?:^|[:;.!¡?¿(—]\s*|,\s+)(?:" + "|".join(TU_ORDERS) + r")\b|\b(?:" + "|".join(TU_WORDS) + r")\b",
                re.IGNORECASE)
VOS = re.compile(r"\b(?:\w+(?:ad|ed|id)(?:la|lo|las|los)?|vuestr[oa]s?|os|\w+[áé]is)\b", re.IGNORECASE)
# Words that end like a vosotros order but are none.
NOT_VOS = {"id", "red", "ciudad", "verdad", "unidad", "mitad", "edad", "usted", "pared", "velocidad", "cantidad",
           "posibilidad", "prioridad", "seguridad", "capacidad", "actividad", "sed", "sid", "david", "madrid",
           "dificultad", "duplicidad", "facilidad", "integridad", "paridad", "propiedad", "validez", "claridad",
           "continuidad", "intensidad", "sensibilidad", "estabilidad", "identidad", "variedad", "humedad", "wifi",
           "mayoría", "ad", "ed", "totalidad", "fidelidad", "puntualidad", "autoridad", "caducidad", "localidad",
           "probabilidad", "utilidad", "realidad", "comunidad", "novedad", "oportunidad", "necesidad",
           "calidad", "visibilidad", "legibilidad", "compatibilidad", "privacidad", "disponibilidad", "modalidad",
           "linealidad", "exactitud", "resolución", "falsedad", "suciedad", "soledad", "bondad", "maldad",
           "sobriedad", "antigüedad", "vanidad", "libertad", "voluntad", "amistad", "lealtad", "salud", "profundidad",
           # English words kept in a Spanish text: a section's kind, a file's key, a system's own word
           "keypad", "led", "connected", "grid"}


def strings(m) -> list[str]:
    return [s for s in (m.string if isinstance(m.string, tuple) else (m.string,)) if s]


def vosotros(text: str) -> set[str]:
    text = re.sub(r"\{\w+\}|`[^`]*`|'[^']*'|https?://\S+|--[\w-]+", " ", text)
    return {w.lower() for w in VOS.findall(text)} - NOT_VOS


def tu(text: str) -> set[str]:
    text = re.sub(r"\{\w+\}|`[^`]*`|'[^']*'|https?://\S+", " ", text)
    return {w.strip(" :;.!¡?¿(—,").lower() for w in TU.findall(text)}


def test_the_room_screens_speak_to_the_crew_and_the_others_to_one_person():
    """One form of address on each screen: no tú on the board, the simulator and the venue's
    board; no vosotros on the phones, the game master's and the educator's pages, the command
    line; neither in a text both kinds of screen show."""
    wrong = []
    for m in spanish():
        places = {p.removeprefix(STATIC) for p, _ in m.locations}
        room = places <= set(ROOM)
        shared = bool(places & set(SHARED)) or (places & set(ROOM) and places - set(ROOM))
        for s in strings(m):
            if not room and not places <= set(QUOTED) and vosotros(s):
                wrong.append((sorted(places), m.id, s, "vosotros", vosotros(s)))
            if (room or shared) and tu(s):
                wrong.append((sorted(places), m.id, s, "tú", tu(s)))
    assert wrong == []


def test_what_the_board_shows_from_the_engines_speaks_to_nobody():
    """The walk-up problems and the refusals the players meet (said on /board and /sim as well
    as on /admin) say what is needed, to nobody in particular."""
    from panel.core.i18n import translations

    es = translations("es")
    for text in ("START could not set up a match ({why}): set it up on the game master's page, or name the teams "
                 "and players in the settings file", "lift the mission button's cover first",
                 "the mission has not started: press START"):
        said = es.gettext(text)
        assert said != text and not tu(said) and not vosotros(said), said


@pytest.mark.parametrize(("singular", "plural", "n", "expected"), [
    ("{n} waiting", "{n} waiting", 1, "1 pendiente"),
    ("{n} waiting", "{n} waiting", 2, "2 pendientes"),
    ("{n} alert card ({up} face up)", "{n} alert cards ({up} face up)", 1, "1 carta de alerta (0 boca arriba)"),
    ("{n} alert card ({up} face up)", "{n} alert cards ({up} face up)", 3, "3 cartas de alerta (0 boca arriba)"),
    ("match {id}: {n} input written to {file}", "match {id}: {n} inputs written to {file}", 1,
     "partida 4: 1 entrada escrita en f.toml"),
])
def test_counted_words_agree_with_their_number_in_spanish(singular, plural, n, expected):
    from panel.core.i18n import translations

    assert translations("es").ngettext(singular, plural, n).format(n=n, up=0, id=4, file="f.toml") == expected


def test_the_kaboom_numbers_and_the_clicks_are_spanish_words():
    from panel.core.i18n import translations

    es = translations("es")
    assert es.gettext("may go above the start") == "puede superar el tiempo inicial"
    assert es.gettext("never above the start") != "never above the start"
    layout = load_layout()
    assert layout.plain_name("click.red", es) == "el pulsador rojo"
    assert "clic" not in layout.start_words(es)
    for m in spanish():  # a click on the panel is a "pulsador"; "clic" is the mouse's
        if "click" in str(m.id).lower() and "clic" in " ".join(strings(m)):
            assert "click to" in str(m.id) or "click it" in str(m.id), (m.id, strings(m))


def test_the_pages_scripts_word_every_text_for_the_catalog():
    """A t() inside another call's arguments never reached the catalog ("may go above the
    start" stayed English in Spanish): every page's t("...") text is a message of the catalog."""
    from pathlib import Path

    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in spanish()}
    missing = []
    for path in Path(STATIC).rglob("*.js"):
        for text in re.findall(r"\bt\(\"((?:[^\"\\]|\\.)*)\"", path.read_text()):
            if text not in ids:
                missing.append((str(path), text))
    assert missing == []


def test_the_venue_says_its_start_in_the_systems_language(tmp_path):
    """A Spanish venue computer with its broker not up yet: every line of its start in Spanish
    (the broker's line was English)."""
    import os
    import subprocess
    import sys
    import threading

    port = 1  # tcpmux: nothing listens there, a connection is refused at once (the broker is down)
    settings = tmp_path / "venue.toml"
    settings.write_text(f'[venue]\npin = "1234"\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\n')
    env = {**os.environ, "LANGUAGE": "es", "LANG": "es_ES.UTF-8"}
    p = subprocess.Popen([sys.executable, "-m", "panel", "venue", "--settings", str(settings), "--port", "0",
                          "--db", str(tmp_path / "venue.db")], stderr=subprocess.PIPE, text=True, env=env)
    guard = threading.Timer(60, p.kill)  # a bound against a hang, not a wait: the lines end the loop
    guard.start()
    try:
        lines = []
        for line in p.stderr:
            lines.append(line)
            if "Errno" in line or "refused" in line.lower():
                break  # the broker's line (the start-up line may come before or after it)
    finally:
        guard.cancel()
        p.terminate()
        p.wait(10)
        p.stderr.close()
    said = "".join(lines)
    assert "se vuelve a intentar" in said and "trying again" not in said, said
