"""The CPU budget the latency and CPU benchmarks run the cockpit under (a Pi Zero 2 W's
stand-in): the quota and its period, and the one line said when no budget can be held."""

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import budget as budget_module  # noqa: E402
from benchmarks.budget import CpuBudget, quota_and_period  # noqa: E402


def test_the_period_is_the_shortest_the_kernel_takes_for_the_share():
    assert quota_and_period(0.125) == (1000, 8000)  # 1 ms of CPU every 8 ms
    assert quota_and_period(0.5) == (1000, 2000)
    assert quota_and_period(1.0) == (1000, 1000)
    quota, period = quota_and_period(0.3)
    assert quota >= 1000 and abs(quota / period - 0.3) < 0.01


@pytest.mark.parametrize("share", [0, -0.1, 1.5])
def test_a_share_outside_one_core_is_refused(share):
    with pytest.raises(ValueError, match="share of one core"):
        quota_and_period(share)


def test_without_a_budget_nothing_changes():
    with CpuBudget(None) as b:
        assert not b.held and b.command(["x"]) == ["x"]
        assert b.describe() == "no CPU budget (the machine's full speed)"
        b.enter()  # a no-op


def test_with_no_way_to_hold_a_budget_it_says_so_in_one_line(monkeypatch):
    monkeypatch.setattr(budget_module, "_v2_root", lambda: None)
    monkeypatch.setattr(budget_module, "_v1_cpu", lambda: None)
    monkeypatch.setattr(budget_module.shutil, "which", lambda name: None)
    with CpuBudget(0.125) as b:
        assert not b.held and b.command(["x"]) == ["x"]
        assert b.describe().startswith("no CPU budget:") and "\n" not in b.describe()


def test_a_held_budget_holds_the_process_started_in_it():
    with CpuBudget(0.125) as b:
        if not b.held:
            pytest.skip(b.why_not)  # not root, or no cpu controller on this machine: nothing to hold
        group = b._group
        out = subprocess.run(b.command([sys.executable, "-c", "import os; print(open('/proc/self/cgroup').read());"
                                        "print('cpus', sorted(os.sched_getaffinity(0)))"]),
                             preexec_fn=b.enter, capture_output=True, text=True, check=True).stdout
        assert f"cpus [{budget_module.budget_cpu()}]" in out  # a share of one core: every thread on one CPU
        if group is not None:
            assert group.name in out
            assert "8000" in ((group / "cpu.cfs_period_us").read_text() if (group / "cpu.cfs_period_us").exists()
                              else (group / "cpu.max").read_text())
