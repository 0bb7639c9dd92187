"""The catalogs: complete, up to date with the sources, compiled from their .po; the command
line in the system locale's language; the cockpit's language at start."""

from __future__ import annotations

import argparse
import gettext
import io
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from babel.messages.extract import extract, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from panel.core import i18n, i18n_extract
from panel.tools.argparse_words import ARGPARSE
from panel.tools.cli import build_parser, main
from panel.storage.store import Store
from service_helpers import two_mistakes
from test_scenario import SCENARIO

ROOT = Path(__file__).resolve().parents[1]
POT = i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot"
PO_FILES = sorted(i18n.LOCALE_DIR.glob(f"*/LC_MESSAGES/{i18n.DOMAIN}.po"))
FIX = ("run the three pybabel commands of the guide's \"Languages\" page (docs/languages.md) "
       "(extract, update, compile) and translate what they mark")


def read(path: Path):
    with path.open("rb") as f:
        return read_po(f)


def key(message_id, context) -> tuple:
    return (message_id if isinstance(message_id, str) else tuple(message_id), context or None)


def extracted() -> set[tuple]:
    """Every message the sources mark, found the way `pybabel extract -F babel.cfg` finds them."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    return {key(msg, ctx) for _file, _line, msg, _comments, ctx in extract_from_dir(str(ROOT), method_map, options_map)}


def active(catalog) -> set[tuple]:
    return {key(m.id, m.context) for m in catalog if m.id}


def test_there_is_a_spanish_catalog():
    assert [p.parent.parent.name for p in PO_FILES] == ["es"]
    assert i18n.languages() == ["en", "es"]
    assert i18n.language_name("es") == "Español" and i18n.language_name("en") == "English"


def test_the_template_holds_exactly_the_messages_of_the_sources():
    in_sources, in_pot = extracted(), active(read(POT))
    assert ("Press START to play", None) in in_sources  # the pages' scripts
    assert ("Control tower: scan this", None) in in_sources  # the pages' HTML (data-t)
    assert ("Rookie", None) in in_sources and ("English", "language name") in in_sources  # Python
    assert in_sources - in_pot == set(), f"not in {POT.name}: {FIX}"
    assert in_pot - in_sources == set(), f"no longer in the sources: {FIX}"


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.parent.parent.name)
def test_every_message_is_translated(po):
    catalog = read(po)
    assert active(catalog) == active(read(POT)), f"{po} is behind the template: {FIX}"
    untranslated = [m.id for m in catalog if m.id and not (all(m.string) if isinstance(m.string, tuple) else m.string)]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert untranslated == [], f"{po}: untranslated"
    assert fuzzy == [], f"{po}: fuzzy (check the translation, then remove the fuzzy flag)"


PERCENT = re.compile(r"%(?:\([^)]*\))?[sdr%]")  # a %-format placeholder, as argparse fills them


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.parent.parent.name)
def test_translations_keep_the_placeholders(po):
    """A translation that loses or renames {team} would raise, or show a hole, on a page;
    one that loses argparse's %s or %(prog)s (a python-format message) would raise in argparse."""
    for m in read(po):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for s in strings:
            assert fields(s) == fields(ids[-1]), (m.id, s)
            if m.python_format:
                assert sorted(PERCENT.findall(s)) == sorted(PERCENT.findall(ids[-1])), (m.id, s)


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: p.parent.parent.name)
def test_the_compiled_catalog_is_the_po(po):
    """The committed .mo (what the Pi reads) says what its .po says, message by message."""
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: pybabel compile -d panel/locale"
    with mo.open("rb") as f:
        tr = gettext.GNUTranslations(f)
    samples = {}  # one n for each plural form
    for n in [*range(200), 10**6]:
        samples.setdefault(tr.plural(n), n)
    stale = []
    for m in read(po):
        if not m.id:
            continue
        if isinstance(m.id, tuple):
            got = tuple(tr.ngettext(m.id[0], m.id[1], samples[i]) for i in range(len(m.string)))
        else:
            got = tr.pgettext(m.context, m.id) if m.context else tr.gettext(m.id)
        if got != m.string:
            stale.append(m.id)
    assert stale == [], f"{mo} is older than {po.name}: pybabel compile -d panel/locale"


def test_the_html_extractor_reads_marked_texts_and_refuses_markup_inside():
    page = b'<p data-t>Press\n   START  </p><i data-t-attrs="title aria-label" title="A" aria-label="B">x</i><p>no</p>'
    got = [(line, text) for line, _, text, _ in i18n_extract.extract_html(io.BytesIO(page), [], [], {})]
    assert got == [(1, "Press START"), (2, "A"), (2, "B")]
    with pytest.raises(ValueError, match="inside an element marked data-t"):
        list(i18n_extract.extract_html(io.BytesIO(b"<p data-t>Code <b>X</b></p>"), [], [], {}))


def test_the_pages_catalog():
    es = i18n.catalog("es")
    assert es["language"] == "es" and es["name"] == "Español"
    assert es["messages"]["Press START to play"] == "Pulsad START para jugar"  # the board speaks to the crew (vosotros)
    assert es["messages"]["language name\x04English"] == "Español"
    forms = es["messages"]["{control}: {n} position, {positions}"]
    assert isinstance(forms, list) and forms[0] == "{control}: {n} posición, {positions}"
    assert re.fullmatch(r"[n0-9\s()!=<>&|?:%+*/-]+", es["plural"])
    assert i18n.catalog("en") == {"language": "en", "name": "English", "plural": "n != 1", "messages": {}}


# ---------------------------------------------------------------------------- the system locale

@pytest.fixture
def locale_env(monkeypatch):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.mark.parametrize("env, lang", [
    ({}, "en"), ({"LANG": "C.UTF-8"}, "en"), ({"LANG": "es_ES.UTF-8"}, "es"), ({"LANG": "es_MX.UTF-8"}, "es"),
    ({"LC_ALL": "es_ES.UTF-8", "LANG": "en_GB.UTF-8"}, "es"), ({"LANGUAGE": "fr:es", "LANG": "en_GB.UTF-8"}, "es"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
])
def test_the_command_line_follows_the_system_locale(locale_env, env, lang):
    for var, value in env.items():
        locale_env.setenv(var, value)
    assert i18n.system_language() == lang
    assert i18n._("Captain") == {"en": "Captain", "es": "Capitán"}[lang]


def test_a_cooperative_landing_in_both_languages(tmp_path, capsys, locale_env):
    """`demo` plays a cooperative match and writes its log; `replay` of it says how the crew
    landed in the system locale's language."""
    scenario = tmp_path / "coop.toml"
    assert main(["demo", "--mode", "cooperative", "--seed", "3", "--scenario-out", str(scenario)]) == 0
    english = capsys.readouterr().out.splitlines()[-1]
    m = re.fullmatch(r"landing: ([A-Za-z ]+): (.+)", english)
    assert m, english
    tier, outcome = m.groups()
    locale_env.setenv("LANG", "es_ES.UTF-8")
    assert main(["replay", str(scenario)]) == 0
    spanish = capsys.readouterr().out.splitlines()[-1]
    es = i18n.translations("es")
    assert spanish == f"aterrizaje: {es.gettext(tier)}: {es.gettext(outcome)}"
    assert es.gettext(tier) != tier and es.gettext(outcome) != outcome


def test_the_replay_log_in_the_system_locales_language(tmp_path, capsys, locale_env):
    """`replay`'s text log says the engine's refusal, the mistaken control and the summary
    in Spanish under LANGUAGE=es; its JSON, for scripts, stays in English."""
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO + '[[input]]\nt = 6\naction = "challenge"\nteam = "Ice"\n')
    locale_env.setenv("LANGUAGE", "es")
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert "    6.00s  rechazado        challenge (team=Ice): team: Ice no puede desafiar su propio turno" in text
    assert any(" mistake " in line and "name=el botón de alarma rojo," in line for line in text), text
    assert text[-2:] == ["puntuaciones: Ice 1, Snow 0", "partida sin terminar (ronda 1)"]
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["refused"][0]["reason"] == "team: Ice cannot challenge its own turn"
    assert [e["name"] for e in out["events"] if e["type"] == "mistake"] == ["the red alarm"]


def test_the_self_test_in_the_system_locales_language(capsys, locale_env):
    """`check --sim` (the scripted maker on the shipped map) prompts and sums up in Spanish."""
    locale_env.setenv("LANGUAGE", "es")
    assert main(["check", "--sim"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.endswith("  pulsa el botón de alarma rojo una vez") for line in out), out
    assert any("  gira la rueda giratoria hasta " in line for line in out)
    header = next(line for line in out if line.startswith("control "))
    assert header.split() == ["control", "clave", "del", "mapa", "resultado", "detalle"]
    assert any(line.startswith("el botón de alarma rojo ") and line.split()[-1] == "bien" for line in out)
    assert any(re.fullmatch(r"\d+ bien", line) for line in out) and out[-1] == "todo bien", out[-5:]
    assert any(re.fullmatch(r"coprocesador: conectado; firmware \S+; errores de trama 0 \(placa \w+ en /dev/\S+\)",
                            line) for line in out), out


# ---------------------------------------------------------------------------- the command line's help

@pytest.fixture
def wide(locale_env):
    """The system locale unset and a wide terminal: argparse wraps nothing, a help is a line."""
    locale_env.setenv("COLUMNS", "400")
    return locale_env


def help_of(argv: list[str], capsys) -> list[str]:
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    return capsys.readouterr().out.splitlines()


def error_of(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


def test_the_help_in_the_system_locales_language(wide, capsys):
    """argparse's own words (from our catalog) and each command's, in Spanish under
    LANG=es_ES.UTF-8, in English under LANG=C.UTF-8; no line of the English help is left."""
    wide.setenv("LANG", "C.UTF-8")
    english = help_of([], capsys)
    assert english[0] == "usage: penguin-panel [-h] [--version] COMMAND ..."
    assert {"positional arguments:", "options:"} <= set(english)
    assert "  -h, --help     show this help message and exit" in english
    assert any(line.split() == ["deck", "make", "or", "check", "a", "flight", "instruction", "deck"] for line in english)
    english_generate = help_of(["deck", "generate"], capsys)
    assert english_generate[0].startswith("usage: penguin-panel deck generate [-h] [--layout FILE] ")
    assert any(line.split()[:2] == ["--seed", "SEED"] and "same seed, same layout" in line for line in english_generate)

    wide.setenv("LANG", "es_ES.UTF-8")
    spanish = help_of([], capsys)
    assert spanish[0] == "uso: penguin-panel [-h] [--version] ORDEN ..."
    assert {"Cabina de Penguin Airlines", "argumentos posicionales:", "opciones:"} <= set(spanish)
    assert "  -h, --help     muestra este mensaje de ayuda y termina" in spanish
    assert any(line.split() == ["deck", "crea", "o", "comprueba", "un", "mazo", "de", "instrucciones", "de", "vuelo"]
               for line in spanish), spanish
    generate = help_of(["deck", "generate"], capsys)
    assert generate[0].startswith("uso: penguin-panel deck generate [-h] [--layout ARCHIVO] "), generate[0]
    assert any(line.split()[:2] == ["--seed", "SEMILLA"] and "misma semilla, misma disposición" in line
               for line in generate), generate
    for en, es in ((english, spanish), (english_generate, generate)):  # a lone word is a name ("broker-config")
        left = [line for line in en if len(line.split()) > 1 and line in es]
        assert left == [], f"still in English: {left}"


def test_argparses_errors_in_the_system_locales_language(wide, capsys):
    """A missing argument, a wrong choice and a wrong number: one line in the locale's language."""
    wide.setenv("LANG", "es_ES.UTF-8")
    assert error_of(["wiring", "reference"], capsys) == "penguin-panel wiring: faltan estos argumentos obligatorios: --out\n"
    assert error_of(["wiring", "reference", "--out", "x", "--side", "green"], capsys).startswith(
        "penguin-panel wiring: argumento --side: valor no válido: 'green' (elige entre ")
    assert error_of(["demo", "--seed", "x"], capsys) == "penguin-panel demo: argumento --seed: valor int no válido: 'x'\n"
    assert error_of(["demo", "--bogus"], capsys) == "penguin-panel: argumentos no reconocidos: --bogus\n"
    wide.setenv("LANG", "C.UTF-8")
    assert (error_of(["wiring", "reference"], capsys)
            == "penguin-panel wiring: the following arguments are required: --out\n")
    assert error_of(["demo", "--seed", "x"], capsys) == "penguin-panel demo: argument --seed: invalid int value: 'x'\n"


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command and sub-command of the parser, as the words that name it."""
    for action in parser._actions:  # argparse keeps no public list of a parser's arguments
        if isinstance(action.choices, dict):  # a sub-command's: its name -> its parser
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from commands(sub, (*path, name))


@pytest.mark.parametrize("lang", ["C.UTF-8", "es_ES.UTF-8"])
def test_every_commands_help_in_both_languages(wide, capsys, lang):
    """Each --help is said whole (a translation's stray %% would make argparse raise), in its
    language: the usage heading, every option's text."""
    wide.setenv("LANG", lang)
    found = list(commands(build_parser()))
    assert ("deck", "generate") in found and ("service", "install") in found and len(found) > 20
    heading = {"C.UTF-8": "usage: penguin-panel ", "es_ES.UTF-8": "uso: penguin-panel "}[lang]
    for path in found:
        out = help_of(list(path), capsys)
        assert out[0].startswith(heading + " ".join(path)), (path, out[0])
        assert len(out) > 3, path


def test_the_argparse_words_are_argparses_own():
    """Each argparse message marked for the catalog is one this Python's argparse says, byte
    for byte (else it is never looked up, and stays English)."""
    with open(argparse.__file__, "rb") as f:
        said = {msg for _line, msg, _comments, _ctx in extract("python", f)}
    assert set(ARGPARSE) - said == set(), "argparse no longer says these: mark its new words in panel/tools/argparse_words.py"


# ---------------------------------------------------------------------------- the service

def start_service(tmp_path: Path, env: dict[str, str]) -> str:
    """`penguin-panel play --sim` until it serves; then the language its pages get; stopped."""
    import json
    import urllib.request

    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0",
                          "--db", str(tmp_path / "p.db")],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**clean, **env})
    try:
        for line in p.stdout:
            m = re.search(r"(http://\S+?)/  \(", line)  # "serving on", in the locale's language
            if m:
                with urllib.request.urlopen(m.group(1) + "/api/i18n", timeout=20) as r:
                    return json.load(r)["language"]
        pytest.fail("the service did not start")
    finally:
        p.terminate()
        p.wait(20)
        p.stdout.close()


def test_the_cockpit_starts_in_the_chosen_language_else_the_system_locale(tmp_path):
    assert start_service(tmp_path, {"LANG": "es_ES.UTF-8"}) == "es"  # nothing chosen yet
    with Store(tmp_path / "p.db") as store:
        store.set_setting("language", "en")  # as /admin Settings keeps it
    assert start_service(tmp_path, {"LANG": "es_ES.UTF-8"}) == "en"


# ---------------------------------------------------------------------------- the API in the cockpit's language

def is_error(status_body, code) -> str:
    status, body = status_body
    assert status == code, (status, body)
    return body["error"]


def test_the_api_answers_in_the_cockpits_language(svc, gm):
    """With Spanish chosen on /admin, what the service words itself comes in Spanish: the
    engine's refusals (409, and 400 for a parameter at fault), the service's own errors,
    the controls' plain names (state, layout, tower, debrief) and the settings' words."""
    es = i18n.translations("es")
    public = svc.client()
    assert is_error(gm.act("start_turn"), 409) == "no match: set one up first"  # English until chosen
    assert gm.post("/api/admin/settings", {"language": "es"})[0] == 200
    assert is_error(gm.act("start_turn"), 409) == "no hay partida: prepara una primero"
    assert is_error(gm.post("/api/admin/action", []), 400) == "el cuerpo debe ser un objeto JSON"
    assert is_error(public.post("/api/admin/login", {"pin": "0000"}), 403) == "PIN incorrecto"
    assert is_error(gm.post("/api/admin/settings", {"turn_seconds": 2}), 400) == \
        "turn_seconds: debe ser un número de 5 a 600, no 2"
    assert is_error(gm.post("/api/admin/match", {"teams": [{"name": "Gulls", "players": ["Ana"]}]}), 400) == \
        "teams[0].players: el equipo 'Gulls' necesita al menos 2 jugadores (una torre y una tripulación), " \
        "o ninguno con nombre"
    code = gm.new_match()["code"]
    assert is_error(gm.act("rule", upheld=True), 409) == "no hay ningún turno en curso: empieza uno primero"
    assert is_error(public.post("/api/sim/input", {"control": "grid.r9c9", "value": True}), 400) == \
        "control: 'grid.r9c9' no es un control del panel por el lado azul"
    layout = svc.cockpit.match.layout
    plain = {c["id"]: c["plain"] for c in public.get("/api/layout")[1]["controls"]}  # as the pages draw it
    assert plain["beacon.white"] == "el botón de baliza blanco" and plain["cross.ok"] == "OK en la cruz de dirección"
    assert plain["round_lever.red"] == "la palanca redonda de color rojo"
    assert plain == {cid: layout.plain_name(cid, es) for cid in plain}
    # Two mistakes end the turn: the stuck finger and the debrief's controls in Spanish.
    _card, wrong = two_mistakes(svc, gm, code)
    last = public.state()["last_turn"]
    assert last["reason"] == "mistakes" and last["stuck_name"] == layout.plain_name(last["stuck"], es)
    assert last["stuck_name"] != layout.plain_name(last["stuck"])
    controls = gm.get("/api/admin/debrief")[1]["tables"]["controls"]
    assert {r["control"] for r in controls} == {layout.plain_name(w, es) for w in wrong}
    # The next team's turn: the tower's card in plain words, a challenge of one's own turn.
    assert gm.act("start_turn")[0] == 200
    lines = public.get(f"/api/tower?code={code}")[1]["lines"]
    assert lines and all(line.startswith(("Pulsa ", "Pon ", "En ")) for line in lines), lines
    assert is_error(gm.act("challenge", team="Puffins"), 400) == "team: Puffins no puede desafiar su propio turno"
    assert is_error(gm.act("challenge"), 400) == "team: indica el equipo que pide el desafío (Gulls o Puffins)"
    # The settings as the game master's page builds its forms from them.
    settings = {st["name"]: st for st in gm.get("/api/admin/status")[1]["settings"]}
    assert settings["mode"]["label"] == "Modo" and settings["mode"]["choice_names"] == ["Competitivo", "Cooperativo"]
    assert settings["side"]["choice_names"] == ["Azul", "Gris"]
    assert settings["turn_seconds"]["help"] == "el temporizador de un turno (35 o 40 para una primera partida)"
    # Penguin Kaboom: its settings' problems and its engine's refusals, colours in words.
    assert gm.act("abandon")[0] == 200
    assert is_error(gm.post("/api/admin/match", {"mode": "kaboom", "players": ["red", "red"]}), 400) == \
        "players[1].colour: dos jugadores tienen el pingüino rojo"
    assert gm.post("/api/admin/match", {"mode": "kaboom", "players": ["red"]})[0] == 200
    assert is_error(gm.act("join", colour="red"), 409) == "el pingüino rojo ya se ha unido"


# ---------------------------------------------------------------------------- a file's problems

BAD_FILES = {  # what a maker may get wrong: the command, the file, and the line it gets in each language
    "hardware map": (["hardware", "check"], '[controls.alarm]\nred = { gpio = 1 }\n', "controls.alarm.red.gpio",
                     "GPIO1 is reserved for the HAT ID EEPROM (ID_SD/ID_SC); use GPIO2-27",
                     "GPIO1 está reservado para la EEPROM de identificación del HAT (ID_SD/ID_SC); usa GPIO2-27"),
    "settings file": (["play", "--sim", "--settings"], '[service]\nport = "x"\n', "service.port",
                      "must be a port number 0-65535, not 'x'", "debe ser un número de puerto 0-65535, no 'x'"),
    "layout": (["layout", "show", "--layout"], 'name = "mine"\nmodules = []\n', "modules",
               "a layout needs at least one module", "una disposición necesita al menos un módulo"),
    "deck": (["deck", "check"], 'side = "green"\n', "side",
             "'green' is not a side (blue or gray)", "'green' no es un lado (blue o gray)"),
    "scenario": (["replay"], SCENARIO + '[[input]]\nt = 50\npress = "grid.r9c9"\n', "input[5].press",
                 "'grid.r9c9' is not a button on the blue side", "'grid.r9c9' no es un botón del lado azul"),
    "missing file": (["replay"], None, None, "file not found", "no se encuentra el archivo"),
}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("what", sorted(BAD_FILES))
def test_a_bad_file_is_one_line_in_the_system_locales_language(tmp_path, capsys, locale_env, what, lang):
    """Through the real command line: each problem of a file is one line naming the file and
    the key, in Spanish under LANG=es_ES.UTF-8 and in English otherwise."""
    argv, text, key, english, spanish = BAD_FILES[what]
    path = tmp_path / "bad.toml"
    if text is not None:
        path.write_text(text)
    if lang == "es":
        locale_env.setenv("LANG", "es_ES.UTF-8")
    assert main([*argv, str(path)]) == 2
    where = ": ".join(p for p in (str(path), key) if p)
    expected = f"error: {where}: {english if lang == 'en' else spanish}"
    assert expected in capsys.readouterr().err.splitlines()


def test_a_file_that_is_not_toml_says_so_in_the_system_locales_language(tmp_path, capsys, locale_env):
    path = tmp_path / "bad.toml"
    path.write_text("end = \n")
    locale_env.setenv("LANG", "es_ES.UTF-8")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}: no es TOML válido (")
    locale_env.setenv("LANG", "C.UTF-8")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {path}: not valid TOML (")


def test_a_maps_warnings_in_the_system_locales_language(capsys, locale_env, tmp_path):
    """`hardware check` on a map that wires one control: the others are warnings, in Spanish."""
    path = tmp_path / "one.toml"
    path.write_text('[controls.grid]\nr1c1 = { gpio = 5 }\n')
    locale_env.setenv("LANGUAGE", "es")
    assert main(["hardware", "check", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"aviso: {path}: controls.grid.r1c2: control de la disposición sin cablear (no está en el mapa)" in err


def test_saved_defaults_that_cannot_be_used_are_said_in_the_cockpits_language(tmp_path):
    """The start's warning about /admin's saved defaults names each problem, in the language
    of whoever reads it: the journal (English here) and /admin in Spanish."""
    from panel.run import stored_defaults

    with Store(tmp_path / "p.db") as store:
        store.set_setting("match_defaults", json.dumps({"turn_seconds": 2, "side": "green"}))
        defaults, problem = stored_defaults(store, {})
    assert defaults == {}
    assert str(problem).startswith("the defaults for new matches saved on /admin cannot be used (turn_seconds: "
                                   "must be a number from 5 to 600, not 2; side: 'green' is not a side")
    assert problem.text(i18n.translations("es")).startswith(
        "los valores por defecto para nuevas partidas guardados en /admin no se pueden usar (turn_seconds: "
        "debe ser un número de 5 a 600, no 2; side: 'green' no es un valor de side (blue o gray)")


def test_off_a_pi_the_self_test_says_so_in_the_system_locales_language(capsys, locale_env):
    locale_env.setenv("LANG", "es_ES.UTF-8")
    assert main(["check", "small"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: esta máquina no es una Raspberry Pi: ejecútalo con --sim para usar pines simulados"]
# ---------------------------------------------------------------------------- the tools around the game

def test_service_install_and_uninstall_in_the_system_locales_language(tmp_path, capsys, locale_env):
    """`service install` and `uninstall` say what they did and what is left to run in Spanish;
    the unit and the settings they write stay as they are, for systemd and whoever edits them."""
    from panel.tools.commands import service as service_cmd

    locale_env.setenv("LANG", "es_ES.UTF-8")
    locale_env.setattr(service_cmd.os, "geteuid", lambda: 1000)
    units, config, udev = tmp_path / "units", tmp_path / "etc", tmp_path / "udev"
    where = ["--unit-dir", str(units), "--config-dir", str(config)]
    assert main(["service", "install", *where]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "penguin-panel: instalar un servicio del sistema necesita root; ejecuta:"
    assert err[1].startswith("  sudo ") and err[1].endswith(" service install")

    locale_env.setattr(service_cmd.os, "geteuid", lambda: 0)  # root, into folders of our own
    assert main(["service", "install", *where]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:3] == [f"penguin-panel: escrito {units / service_cmd.UNIT_NAME}",
                       f"penguin-panel: ajustes en {config / 'settings.toml'}; copia tu mapa de hardware en "
                       f"{config / 'hardware.toml'}",
                       "penguin-panel: ahora ejecuta:"], out
    assert out[-1].endswith("| grep PIN    # el PIN del director de juego, mostrado en el primer arranque")
    assert "[match]" in (config / "settings.toml").read_text()  # the file written: English

    locale_env.setattr("panel.tools.kiosk.missing_programs", lambda: [])
    locale_env.setattr(service_cmd, "screen_connected", lambda unit: False)
    assert main(["service", "install", "--kiosk", "--udev-dir", str(udev), *where]) == 1
    assert capsys.readouterr().err.startswith("penguin-panel: no hay ninguna pantalla conectada (")

    locale_env.setattr(service_cmd, "SYSTEMD_RUNNING", tmp_path / "no-systemd")
    uninstall = ["service", "uninstall", "--unit-dir", str(units), "--udev-dir", str(udev)]
    assert main(uninstall) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"penguin-panel: quitado {units / service_cmd.UNIT_NAME}",
        "penguin-panel: systemd no está en marcha aquí: nada que parar",
        "penguin-panel: se conservan: los ajustes (/etc/penguin-panel), las partidas (/var/lib/penguin-panel) "
        "y los usuarios (userdel quita uno)"]
    assert main(uninstall) == 0
    assert capsys.readouterr().out == (f"penguin-panel: nada que quitar ({service_cmd.KIOSK_UNIT}, "
                                       f"{service_cmd.UNIT_NAME} no están en {units})\n")


def test_the_makers_tools_in_the_system_locales_language(tmp_path, capsys, locale_env):
    """`hardware check`, `wiring --check`, `layout show`, `deck generate`/`check` and
    `firmware install --dry-run` speak Spanish; what they write to files stays as it is."""
    locale_env.setenv("LANG", "es_ES.UTF-8")
    assert main(["hardware", "check", "small"]) == 0
    out, err = capsys.readouterr()
    warnings = err.splitlines()
    assert warnings and all(line.startswith("aviso: ") for line in warnings)
    assert out == f"small: correcto ({len(warnings)} avisos)\n"

    wiring = tmp_path / "wiring"
    assert main(["wiring", "small", "--out", str(wiring)]) == 0
    (wiring / "pinout.md").write_text("changed by hand\n")
    (wiring / "matrix.md").unlink()
    (wiring / "old.md").write_text("left from another map\n")
    capsys.readouterr()
    assert main(["wiring", "small", "--out", str(wiring), "--check"]) == 1
    assert sorted(capsys.readouterr().err.splitlines()) == sorted([
        f"{wiring}: pinout.md está desactualizado", f"{wiring}: falta matrix.md",
        f"{wiring}: old.md ya no se genera a partir de este mapa",
        f"ejecuta: penguin-panel wiring small --out {wiring}"])

    assert main(["layout", "show", "--side", "gray"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert re.fullmatch(r"Penguin Airlines: lado gris, sin la expansión: \d+ módulos, \d+ botones, \d+ fichas", first)

    deck = tmp_path / "deck.toml"
    assert main(["deck", "generate", "--expansion", "--seed", "5", "--out", str(deck)]) == 0
    assert main(["deck", "check", str(deck)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{deck}: 80 cartas para el lado azul con la expansión (semilla 5)",
        f"{deck}: 80 cartas, todas jugables en el lado azul con la expansión"]
    assert 'side = "blue"' in deck.read_text()
    from panel.games.airlines.deck_file import dump_deck, load_deck

    two = load_deck(deck)
    two.cards = two.cards[:2]
    (tmp_path / "two.toml").write_text(dump_deck(two))
    assert main(["deck", "print", "--deck", str(tmp_path / "two.toml"), "--out", str(tmp_path / "two.pdf")]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'two.pdf'}: 2 cartas en 1 página\n"

    assert main(["firmware", "install", "--dry-run", "--keep-config"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "pediría a la placa de <primera Pico encontrada> que entre en modo de mantenimiento (MAINT) y "
        "después ejecutaría:")


def test_an_unexpected_error_says_its_one_line_in_the_system_locales_language(capsys, locale_env):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk went away")

    locale_env.setenv("LANG", "es_ES.UTF-8")
    locale_env.delenv("PENGUIN_PANEL_DEBUG", raising=False)
    locale_env.setattr("panel.tools.commands.layout.load_layout", broken)
    assert main(["layout", "show"]) == 1
    assert capsys.readouterr().err == ("error: RuntimeError: the disk went away "
                                       "(define PENGUIN_PANEL_DEBUG=1 para ver los detalles)\n")


def test_the_firmware_emulator_talks_to_the_person_in_the_system_locales_language():
    """The emulator's lines for the person typing are Spanish; its typed commands and "ok"
    (what scripts drive it by) are its own words."""
    clean = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    r = subprocess.run([sys.executable, "-m", "panel", "firmware", "emulator"], input="fly\npress 9\npress 0 0\nquit\n",
                       capture_output=True, text=True, timeout=120, env={**clean, "LANG": "es_ES.UTF-8"})
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert re.fullmatch(r"placa emulada en /dev/\S+", lines[0]) and lines[1].startswith("órdenes: press R C | ")
    assert lines[2:] == ["orden desconocida 'fly'", "uso: press R C (números enteros, dentro de la configuración)",
                         "ok"]


def test_a_start_up_warning_in_the_system_locales_language_and_the_cockpits(tmp_path):
    """The saved defaults that cannot be used: `play` says so at start in the system locale's
    language, the game master's page in the cockpit's (one Text, said twice)."""
    from panel.run import stored_defaults

    with Store(tmp_path / "p.db") as store:
        store.set_setting("match_defaults", '{"turn_seconds": ')
        defaults, problem = stored_defaults(store, {"turn_seconds": 30})
    assert defaults == {"turn_seconds": 30}
    assert str(problem).startswith("the defaults for new matches saved on /admin cannot be used (not valid JSON (")
    spanish = problem.text(i18n.translations("es"))
    assert spanish.startswith("los valores por defecto para nuevas partidas guardados en /admin no se pueden "
                              "usar (no es JSON válido (")
    assert spanish.endswith("): se usan los del archivo de ajustes; guárdalos otra vez en /admin")
