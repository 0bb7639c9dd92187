"""Every text a person reads, in their language: GNU gettext catalogs, made with Babel.

Texts are written in English where they are used and marked there:
- Python: `_("...")` for the command line, which follows the system locale (LANGUAGE,
  LC_ALL, LC_MESSAGES, LANG); `translations(lang).gettext("...")` where the language is
  the cockpit's (what the pages show, chosen on /admin); `N_("...")` marks a text kept in a
  table and translated where it is shown (`NC_(context, "...")` with a context).
- a layer that knows no language (the engine, the store, a request's checks) hands on a
  `Text` (an engine's `Refusal` is one): the message marked N_() and its named values,
  said in a language by whoever shows it (`text(tr)`); `Word` marks a value that is itself
  a word to translate (a colour), `Either` alternatives ("Ice or Fire"), `Several` a list
  ("a; b"). A file's `Problem` (panel.core.errors) holds its reason as a Text: the command line
  says it in the system locale's language, the service in the cockpit's (`text_of`).
- the layout files' words (module names, section nouns, controls' own names, shapes) are
  read by `extract_layout` (panel.core.i18n_extract, babel.cfg), each in its context:
  `Layout.plain_name(id, tr)`.
- pages: `t("...")`, `tn(...)` and `tp(...)` in common.js, and the `data-t` attribute on an
  element whose text is a message (`data-t-attrs="title aria-label"` for attributes).
Placeholders are named, `{team}`, in both.

`pybabel extract -F babel.cfg` collects the marked texts into panel/locale/messages.pot;
panel/locale/<lang>/LC_MESSAGES/messages.po holds a language's translations, compiled to
messages.mo beside it. The .mo files are committed (a test checks they match the .po):
the Pi and the wheel need only Python's own gettext, never Babel.
"""

from __future__ import annotations

import gettext
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"
SOURCE = "en"  # the language the texts are written in
_PLURAL = re.compile(r"plural\s*=\s*([n0-9\s()!=<>&|?:%+*/-]+?)\s*;?\s*$")


def N_(message: str) -> str:
    """Marks a text for the catalog where it is defined; it is translated where shown."""
    return message


def NC_(context: str, message: str) -> str:
    """N_() for a text with a context (babel.cfg); translated where shown with pgettext."""
    return message


class Word(str):
    """A value put into a message that is itself a word to translate (a colour, a direction),
    not a name: `render` translates it with the message."""


class Either(tuple):
    """Values put into a message as alternatives ("Ice or Fire", "pause, restart or link"),
    joined in the message's language."""


class Several(tuple):
    """Values put into a message one after the other, "a; b" (a file's problems), each said
    in the message's language."""


def text_of(value: Any, tr: gettext.NullTranslations | None = None) -> str:
    """A value a person reads, in the language of `tr`: a Text (a Problem, a Refusal: whatever
    has `text(tr)`) said in it, anything else as it is."""
    say = getattr(value, "text", None)
    return say(tr) if callable(say) else str(value)


def render(tr: gettext.NullTranslations | None, message: str, values: dict[str, Any] | None = None) -> str:
    """A message marked N_() with its named values, in the language of `tr` (None: as written).
    The one way a text kept untranslated (an engine's refusal, a service's error) is shown."""
    tr = tr or translations(SOURCE)
    out = {}
    for k, v in (values or {}).items():
        if isinstance(v, Word):
            v = tr.gettext(v)
        elif isinstance(v, Several):
            v = "; ".join(text_of(x, tr) for x in v)
        elif callable(getattr(v, "text", None)):  # a Text, a Problem
            v = v.text(tr)
        elif isinstance(v, Either):
            items = [tr.gettext(x) if isinstance(x, Word) else text_of(x, tr) for x in v]
            # Translators: joins the last two alternatives, as in "pause, restart or link"; keep the spaces.
            v = ", ".join(items[:-1]) + tr.gettext(" or ") + items[-1] if len(items) > 1 else "".join(items)
        out[k] = v
    return tr.gettext(message).format(**out) if out else tr.gettext(message)


class Text:
    """A message marked N_() with its named values, said in a language only when shown
    (`text(tr)`; `str()` is English): what a layer that knows no language hands on."""

    __slots__ = ("message", "values")

    def __init__(self, message: str, **values: Any):
        self.message, self.values = message, values

    def text(self, tr: gettext.NullTranslations | None = None) -> str:
        return render(tr, self.message, self.values)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text()!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.message, self.values) == (other.message, other.values)

    __hash__ = None  # type: ignore[assignment]


# What a request naming a language this cockpit has no catalog for is told (the settings, the pages' catalog).
NOT_A_LANGUAGE = N_("{param}: {value} is not one of this cockpit's languages ({languages})")


def languages() -> list[str]:
    """The cockpit's languages: English, then each language with a compiled catalog."""
    found = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
    return [SOURCE] + [lang for lang in found if lang != SOURCE]


@lru_cache(maxsize=None)
def translations(lang: str) -> gettext.NullTranslations:
    """One language's catalog (English: the texts as written). Unknown languages are English."""
    if lang == SOURCE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)


def language_name(lang: str) -> str:
    """A language's name in that language, from its own catalog ("Español")."""
    # Translators: the name of your language, written in your language, for the language menu.
    return translations(lang).pgettext("language name", "English")


def system_language() -> str:
    """The language the system locale asks for (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), by
    gettext's own rules, when there is a catalog for it; else English."""
    found = gettext.find(DOMAIN, LOCALE_DIR)
    return Path(found).parent.parent.name if found else SOURCE


def system() -> gettext.NullTranslations:
    return translations(system_language())


def bind_system_language() -> None:
    """Make our catalog the process's global gettext domain, in the system locale's language,
    for a library that says its own words through gettext.gettext (argparse: "usage:",
    "options", its error lines). The gettext module's GNU API, documented for an application
    whose language is the user's locale: one language for the whole process, which the
    command line is. The pages never use it (they take `translations(lang)`)."""
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)


# The command line's texts, in the system locale's language.
def _(message: str) -> str:
    return system().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return system().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return system().pgettext(context, message)


# ---------------------------------------------------------------------------- pages

def catalog(lang: str) -> dict[str, Any]:
    """A language's compiled catalog as the pages use it (GET /api/i18n): msgid -> msgstr,
    a plural msgid -> its forms, "context\\x04msgid" for a message with a context, and the
    catalog's own plural rule (a C expression of n, as in the catalog's header)."""
    tr = translations(lang)
    messages: dict[str, Any] = {}
    # gettext keeps a compiled catalog in _catalog (a stable part of the module for
    # decades): the one way to hand all of it to the pages without a second reader.
    for key, text in getattr(tr, "_catalog", {}).items():
        if key == "":
            continue  # the header
        if isinstance(key, tuple):
            msgid, index = key
            forms = messages.setdefault(msgid, [])
            forms.extend([""] * (index + 1 - len(forms)))
            forms[index] = text
        else:
            messages[key] = text
    m = _PLURAL.search(tr.info().get("plural-forms", ""))
    return {"language": lang, "name": language_name(lang), "plural": m.group(1) if m else "n != 1",
            "messages": messages}


# The layout file's words (Layout.plain_name, the simulator's headings), each in its context:
# a module's name with its article ("the direction cross"), a buttons section's noun
# ("beacon"), a control's own name ("left"), a button shape's first word ("big").
MODULE, SECTION, CONTROL_NAME, SHAPE = ("a panel module, with its article", "a panel section", "a control's name",
                                        "a button's shape")
MODULE_NAME = "a panel module"  # its name as a heading (the simulator's)
