"""The firmware folder at the top of the repository is the Pi's package panel.firmware:
the mapping in pyproject.toml, and the explicit package list it needs, stay complete."""

import tomllib
from pathlib import Path

import panel.firmware
from panel.tools.commands.firmware import FIRMWARE_DIR

ROOT = Path(__file__).resolve().parent.parent


def test_panel_firmware_is_the_top_level_firmware_folder():
    assert Path(panel.firmware.__file__).resolve().parent == ROOT / "firmware"
    assert FIRMWARE_DIR == ROOT / "firmware"
    assert not (ROOT / "panel" / "firmware").exists()   # no second copy for a maker to find


def test_the_package_list_names_every_python_package_under_panel():
    # A mapped package cannot be found by setuptools' packages.find, so the list is
    # written out; a package left out of it would be missing from wheels.
    st = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert st["package-dir"] == {"panel.firmware": "firmware"}
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "panel").rglob("__init__.py")}
    assert sorted(st["packages"]) == sorted(found | {"panel.firmware"})
