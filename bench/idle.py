"""What ``make run`` costs while nobody plays: the CPU its processes use when idle.

A club's laptop runs ``make run`` all evening, mostly between moves. One server as
``make run`` starts it (``cardledger serve``: gunicorn, the jobs' Celery workers and beat
on their SQLite broker, the supervisor), on a fresh database and broker in a temporary
folder, is left alone for ``--settle`` seconds; then the CPU time each of its processes
uses over ``--seconds`` is read from Linux's ``/proc`` (its processes are those whose
environment names that folder's database). The jobs' workers look at their empty queues
five times a second (``workers.broker``), and beat sends its heartbeats.

``python bench/idle.py [--quick] [--seconds 30] [--settle 10]``; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live_updates import cpu_seconds, server  # noqa: E402


def processes(marker: bytes) -> dict[int, str]:
    """The processes whose environment holds ``marker``, by pid: what each one is."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with suppress(OSError):
            if marker in (entry / "environ").read_bytes():
                found[int(entry.name)] = role((entry / "cmdline").read_bytes())
    return found


def role(cmdline: bytes) -> str:
    words = cmdline.decode(errors="replace").split("\0")
    if any(w.endswith("gunicorn") for w in words[:3]):
        return "gunicorn (master and workers)"
    if "beat" in words:
        return "celery beat"
    if "worker" in words:
        return "celery workers (live and simulations)"
    return "cardledger serve (the supervisor)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--settle", type=float, default=10.0)
    args = parser.parse_args()
    seconds = args.seconds or (10.0 if args.quick else 30.0)
    with tempfile.TemporaryDirectory() as tmp, server(tmp):
        time.sleep(args.settle)  # the workers and beat have started and found their queues
        marker = f"sqlite:///{tmp}/live.db".encode()
        roles = processes(marker)
        before = {pid: cpu_seconds(pid) for pid in roles}
        start = time.perf_counter()
        time.sleep(seconds)
        elapsed = time.perf_counter() - start
        used: dict[str, float] = defaultdict(float)
        for pid, what in roles.items():
            used[what] += cpu_seconds(pid) - before[pid]
    total = sum(used.values())
    print(f"make run, idle for {elapsed:.0f} s ({len(roles)} processes):")
    for what, spent in sorted(used.items()):
        print(f"  {what:<40} {spent / elapsed:6.1%} of one core")
    print(f"  {'in all':<40} {total / elapsed:6.1%} of one core")
    shares = {what: round(spent / elapsed, 4) for what, spent in used.items()}
    print(json.dumps({"seconds": round(elapsed, 1), "total": round(total / elapsed, 4),
                      "by_process": shares}))  # fmt: skip


if __name__ == "__main__":
    main()
