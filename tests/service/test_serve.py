"""`cardledger serve` keeps what it starts running (``service.running.serve.supervise``), with
real child processes (small shell commands) and the backoff shortened: a child that dies
is started again, one that keeps dying at once stops everything, and a stop leaves no
process behind. What it starts (``commands``): gunicorn, a worker process per queue and
slot, and the beat; the jobs' processes only where jobs go through the SQLite broker."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from service.core.config import Config
from service.running import serve
from tests.helpers import wait_for

CONFIG = Config(database_url="sqlite://", jobs="sqlite", broker_url="sqla+sqlite://")


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serve, "FIRST_BACKOFF", 0.05)
    monkeypatch.setattr(serve, "POLL_SECONDS", 0.02)


def child(name: str, script: str) -> serve.Child:
    return serve.Child(name, serve.Command(["sh", "-c", script]))


def test_a_child_that_dies_is_started_again_and_a_stop_leaves_nothing(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    dying = child("worker-live-1", f"echo started >> {starts}; sleep 0.2")
    steady = child("beat", "sleep 60 & wait")  # a grandchild too: its group goes with it
    stopping: list[int] = []
    supervising = threading.Thread(
        target=lambda: serve.supervise([dying, steady], CONFIG, stopping), daemon=True
    )
    for each in (dying, steady):
        each.start()
    supervising.start()
    wait_for(lambda: starts.exists() and len(starts.read_text().split()) >= 3, 10, "restarts")
    stopping.append(15)
    supervising.join(timeout=10)
    assert steady.process is not None
    group = steady.process.pid
    serve.stop([dying, steady])
    wait_for(lambda: not in_group(group), 10, "the beat's group to be gone")


def in_group(group: int) -> list[int]:
    """The live processes (not zombies) of a process group."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == group:
            found.append(int(entry))
    return found


def test_a_child_that_keeps_dying_at_once_stops_everything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A port in use, a broken configuration: after ``GIVE_UP`` quick deaths, exit 1."""
    broken = child("gunicorn", "exit 3")
    broken.start()
    assert serve.supervise([broken], CONFIG, []) == 1
    said = capsys.readouterr().err
    assert "gunicorn exited (code 3); restarting it" in said
    assert f"gunicorn exited (code 3) {serve.GIVE_UP} times in a row" in said


def test_what_serve_and_workers_start() -> None:
    options = serve.Options(live_workers=1, job_workers=2)
    started = serve.commands(options, CONFIG)
    assert list(started) == ["gunicorn", "worker-live-1", "worker-simulations-1",
                             "worker-simulations-2", "beat"]  # fmt: skip
    assert [c.part for c in started.values()] == [None, "live", "simulations", "simulations",
                                                  "beat"]  # fmt: skip
    live = started["worker-live-1"].argv
    assert live[live.index("-Q") + 1] == "live" and live[live.index("-P") + 1] == "solo"
    redis = Config(database_url="sqlite://", redis_url="redis://127.0.0.1:6379/0")
    assert list(serve.commands(options, redis)) == ["gunicorn"]  # make worker runs the rest
    workers = serve.Options(web=False, jobs=True, beat=False)
    assert list(serve.commands(workers, redis)) == ["worker-live-1", "worker-live-2",
                                                    "worker-simulations-1",
                                                    "worker-simulations-2"]  # fmt: skip
    eager = Config(database_url="sqlite://", jobs="eager")
    assert list(serve.commands(serve.Options(web=False, jobs=True), eager)) == []
