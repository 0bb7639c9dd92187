"""A CPU budget for a benchmark's process: a share of one core, held by a cgroup's CPU quota,
standing in for a smaller processor (a Raspberry Pi Zero 2 W's core runs this project's
Python roughly 8 times slower than one core of a desktop x86: 0.125 of a core).

The quota is the kernel's own (CFS bandwidth control), set the way the machine allows:

  systemd    where systemd runs: the process started in a transient scope,
             `systemd-run --scope -p CPUQuota=... -p CPUQuotaPeriodSec=...`
  cgroup v2  a writable cgroup2 mount with the cpu controller: a child group's `cpu.max`
  cgroup v1  a writable v1 `cpu` controller: a child group's cfs_quota_us / cfs_period_us

The group also gets a large CPU weight (v1 cpu.shares, v2 cpu.weight; systemd's CPUWeight):
on a shared machine (a desk's other work, a CI runner's) the budgeted process is served
first whenever it is runnable, as a Pi's cockpit is, its own quota the only limit.
`elevate()` gives the processes outside the budget (the emulated Pico) the same priority.

Every thread of the budgeted process runs on one CPU (the last one this process may use),
a share of *one* core, as the cockpit's Python has on a Pi (one interpreter lock): spread
over two CPUs, the kernel hands the whole 1 ms quota to the first CPU that asks (a CFS
bandwidth slice, kept while its thread sleeps) and a thread on the other one (gpiozero's
callback, the co-processor link's reader) waits for the next period though the quota is
unspent, a pause no Pi has. The processes outside the budget (`elevate`) run on the others.

The period is the shortest the kernel takes for the share (a quota is at least 1 ms):
when the process has spent its quota it waits for the next period, so a short period
keeps those pauses short (0.125 of a core: 1 ms of CPU every 8 ms, at most 7 ms of pause).

    with CpuBudget(0.125) as budget:
        if budget.why_not: print(budget.why_not)
        subprocess.Popen(budget.command(cmd), preexec_fn=budget.enter, pass_fds=...)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

MIN_QUOTA_US = 1000  # the kernel refuses a quota or a period under 1 ms
MAX_PERIOD_US = 1_000_000
WEIGHT_V1 = 8192   # cpu.shares: 8 times a task's default (1024)
WEIGHT_V2 = 800    # cpu.weight: 8 times the default (100)


def quota_and_period(share: float) -> tuple[int, int]:
    """(quota, period) in microseconds for `share` of one core, the period as short as the
    kernel allows for that share."""
    if not 0 < share <= 1:
        raise ValueError(f"a CPU budget is a share of one core, above 0 and at most 1 (got {share})")
    period = max(MIN_QUOTA_US, round(MIN_QUOTA_US / share))
    if period > MAX_PERIOD_US:
        raise ValueError(f"a share of {share} needs a period over the kernel's 1 s")
    return round(period * share), period


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _v2_root() -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == "cgroup2":
            root = Path(fields[1])
            controllers = root / "cgroup.controllers"
            if controllers.exists() and "cpu" in controllers.read_text().split() and _writable(root):
                return root
    return None


def _v1_cpu() -> Path | None:
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "cgroup" and "cpu" in fields[3].split(","):
            root = Path(fields[1])
            if (root / "cpu.cfs_quota_us").exists() and _writable(root):
                return root
    return None


def _cpus() -> set[int]:
    return set(os.sched_getaffinity(0))


def budget_cpu() -> int:
    """The one CPU the budgeted process runs on."""
    return max(_cpus())


class CpuBudget:
    """`share` of one core for the processes started with `command()` and `enter`; `how`
    says which mechanism holds it, `why_not` (one line) why none could (they then run
    unbudgeted). Removes its cgroup on exit."""

    def __init__(self, share: float | None):
        self.share = share
        self.how: str | None = None
        self.why_not: str | None = None
        self._group: Path | None = None
        self._prefix: list[str] = []
        if share is None:
            return
        self.quota_us, self.period_us = quota_and_period(share)

    def __enter__(self) -> "CpuBudget":
        if self.share is None:
            return self
        name = f"penguin-bench-{os.getpid()}"
        if Path("/run/systemd/system").is_dir() and shutil.which("systemd-run"):
            percent = self.quota_us / self.period_us * 100
            self._prefix = ["systemd-run", "--scope", "--quiet", "--collect", f"--unit={name}",
                            "-p", f"CPUQuota={percent:g}%", "-p", f"CPUQuotaPeriodSec={self.period_us}us",
                            "-p", f"CPUWeight={WEIGHT_V2}", "--"]
            self.how = "a systemd scope"
        elif (root := _v2_root()) is not None:
            try:
                (root / "cgroup.subtree_control").write_text("+cpu")
                group = root / name
                group.mkdir()
                (group / "cpu.max").write_text(f"{self.quota_us} {self.period_us}")
                (group / "cpu.weight").write_text(str(WEIGHT_V2))
                self._group, self.how = group, "a cgroup v2 group"
            except OSError as e:
                self.why_not = f"no CPU budget: the cgroup v2 cpu controller refused a group ({e.strerror})"
        elif (root := _v1_cpu()) is not None:
            try:
                group = root / name
                group.mkdir()
                (group / "cpu.cfs_period_us").write_text(str(self.period_us))
                (group / "cpu.cfs_quota_us").write_text(str(self.quota_us))
                (group / "cpu.shares").write_text(str(WEIGHT_V1))
                self._group, self.how = group, "a cgroup v1 cpu group"
            except OSError as e:
                self.why_not = f"no CPU budget: the cgroup v1 cpu controller refused a group ({e.strerror})"
        else:
            self.why_not = ("no CPU budget: neither systemd nor a writable cgroup cpu controller is here "
                            "(run as root, or where systemd runs)")
        return self

    def __exit__(self, *exc) -> None:
        if self._group is not None:
            try:
                self._group.rmdir()
            except OSError:  # a process still in it (killed benchmark): left for the next boot
                pass

    @property
    def held(self) -> bool:
        return self.how is not None

    def describe(self) -> str:
        if self.share is None:
            return "no CPU budget (the machine's full speed)"
        if not self.held:
            return self.why_not or "no CPU budget"
        return (f"CPU budget {self.share:g} of one core: {self.quota_us / 1000:g} ms of CPU every "
                f"{self.period_us / 1000:g} ms on one CPU, held by {self.how}")

    def throttled(self) -> str:
        """How often the quota paused the group so far (the kernel's cpu.stat), one phrase."""
        if self._group is None:
            return ""
        try:
            stat = dict(line.split() for line in (self._group / "cpu.stat").read_text().splitlines())
        except (OSError, ValueError):
            return ""
        if "throttled_usec" in stat:  # cgroup v2
            paused = int(stat["throttled_usec"]) / 1e6
        else:
            paused = int(stat.get("throttled_time", 0)) / 1e9
        return (f"the quota paused it in {stat.get('nr_throttled', '?')} of {stat.get('nr_periods', '?')} "
                f"periods, {paused:.2f} s in all")

    def command(self, cmd: list[str]) -> list[str]:
        """`cmd` started inside the budget (systemd's scope wraps it; a cgroup takes it in `enter`)."""
        return self._prefix + cmd if self._prefix else cmd

    def elevate(self) -> None:
        """Run in a process outside the budget (Popen's preexec_fn) that stands for another
        processor (the Pico): served first on a shared machine, as its own chip would be.
        Nothing when no budget is held (the machine's full speed: nothing to compare)."""
        if self.held:
            try:
                os.nice(-10)
            except OSError:  # not allowed here: it runs at the normal priority
                pass
            others = _cpus() - {budget_cpu()}
            if others:
                os.sched_setaffinity(0, others)

    def enter(self) -> None:
        """Run in the new process before it starts (Popen's preexec_fn): it joins the group,
        and every thread and child it makes stays in it."""
        if self._group is not None:
            (self._group / "cgroup.procs").write_text(str(os.getpid()))
        if self.held:
            os.sched_setaffinity(0, {budget_cpu()})
