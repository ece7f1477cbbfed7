#!/usr/bin/env python3
# startup.py: CPU time and peak resident memory of one `gpmc eval` per shipped machine/app pair (and `gpmc check`).
"""Usage: python3 bench/startup.py GPMC [RUNS]

For every pair of machines/*.gpm and apps/*.gpm that evaluates, runs `GPMC eval MACHINE APP` RUNS times (default 11)
and prints the median CPU time (user + system, from the kernel's rusage of the child, microsecond resolution) and the
median peak resident set size. CPU time, not wall time: on a shared machine the wall time includes waiting for a core.
"""
import os
import statistics
import subprocess
import sys
from pathlib import Path


def measure(argv):
    """Runs argv once; returns (exit status, CPU seconds, peak RSS in MB)."""
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(argv, stdout=null, stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    return os.waitstatus_to_exitcode(status), cpu, usage.ru_maxrss / 1024.0  # ru_maxrss is in KiB on Linux


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gpmc = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    root = Path(__file__).resolve().parent.parent
    os.chdir(root)
    rows = []
    for machine in sorted(Path("machines").glob("*.gpm")):
        for app in sorted(Path("apps").glob("*.gpm")):
            argv = [gpmc, "eval", str(machine), str(app)]
            if measure(argv)[0] != 0:
                continue  # pairs that do not fit each other
            samples = [measure(argv) for _ in range(runs)]
            rows.append((f"eval {machine.stem} {app.stem}", samples))
    for machine in sorted(Path("machines").glob("*.gpm")):
        argv = [gpmc, "check", str(machine)]
        rows.append((f"check {machine.stem}", [measure(argv) for _ in range(runs)]))
    print(f"load average before the last run: {open('/proc/loadavg').read().split()[:3]}")
    print()
    print("| command | median CPU (ms) | max CPU (ms) | median peak RSS (MB) |")
    print("|---|---|---|---|")
    cpus, rsss = [], []
    for name, samples in rows:
        cpu = statistics.median(s[1] for s in samples) * 1000
        rss = statistics.median(s[2] for s in samples)
        cpus.append(cpu)
        rsss.append(rss)
        print(f"| {name} | {cpu:.1f} | {max(s[1] for s in samples) * 1000:.1f} | {rss:.1f} |")
    print()
    print(f"{len(rows)} commands: median CPU {min(cpus):.1f} to {max(cpus):.1f} ms, "
          f"peak RSS {min(rsss):.1f} to {max(rsss):.1f} MB")


if __name__ == "__main__":
    main()
