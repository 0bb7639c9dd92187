import sys
from pathlib import Path

# Test helpers (engine_helpers.py ...) sit beside the tests.
sys.path.insert(0, str(Path(__file__).parent))


import pytest

# Every test this run collected, before `-m` leaves some out: tests/test_markers.py reads
# their markers without collecting the suite again.
COLLECTED = pytest.StashKey[list]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    config.stash[COLLECTED] = list(items)


@pytest.fixture(autouse=True)
def _calibration_in_tmp(tmp_path, monkeypatch):
    # The service and the knob keep state beside the calibration file: never in the
    # home folder of whoever runs the tests.
    monkeypatch.setenv("PENGUIN_PANEL_CALIBRATION", str(tmp_path / "state" / "calibration.toml"))


# The real service on a free port (service_helpers.ServiceThread), and a game master signed
# in to it: the API tests of both games use them.
@pytest.fixture
def svc(tmp_path):
    from service_helpers import ServiceThread

    with ServiceThread(tmp_path / "panel.db") as s:
        yield s


@pytest.fixture
def gm(svc):
    c = svc.client()
    c.login()
    return c


@pytest.fixture
def rig():
    """A loop, its queue, an InputHub on a settable clock and recording mock pins (pin_tools.Rig)."""
    from pin_tools import Rig

    r = Rig()
    yield r
    r.close()
