"""argparse's own words that a person meets on `penguin-panel`, marked for our catalog.

argparse says them through gettext.gettext (the process's global domain, which
`i18n.bind_system_language` makes ours), so they are translated only when our catalog
holds them: this module is where Babel finds them (`pybabel extract`), and nothing
imports it. Each text is argparse's message id, byte for byte, as in Lib/argparse.py of
Python 3.11 (the Pi's); tests/test_i18n.py checks them against the running Python's. A
Python that rewords one says that one in English until it is marked here again.
Only the words a person sees: the help's headings and -h, and the common error lines
(our parser prints an error as one line, without argparse's "error:" prefix).
"""

from __future__ import annotations

from panel.core.i18n import N_

ARGPARSE = (
    # --help
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    # errors
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ignored explicit argument %r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
)
