"""The one build step pyproject.toml cannot declare: the guide (docs/, mkdocs.yml) built by
MkDocs into panel/web/help, so every wheel and every editable install carries the site the
cockpit serves at /help/ (a café's phone reads it with no internet). Built at install time,
not committed: the site is ~4 MB of generated files that would go stale with every page
edited; MkDocs and Material are in [build-system] requires for it. The strict build (a broken
link fails) is the tests' job (tests/test_docs_site.py): installing never stops on a warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
HELP = Path("panel", "web", "help")


class build_py_and_guide(build_py):
    def run(self) -> None:
        super().run()
        # An editable install runs the package from the checkout: the guide goes there
        # (panel/web/help, ignored by git); a wheel's goes into what the wheel is made of.
        out = ROOT / HELP if self.editable_mode else Path(self.build_lib) / HELP
        env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
        subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--clean",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)], cwd=ROOT, env=env, check=True)


setup(cmdclass={"build_py": build_py_and_guide})
