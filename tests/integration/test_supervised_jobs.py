"""Issue 18, items 5 and 6, against the real ``make run`` (``cardledger serve``: gunicorn,
a worker process of the live queue, two of the simulations queue, and the beat, on a
SQLite broker), over HTTP, killing its processes as an operator's mistake or the kernel
would:

- a big simulation does not stall a live table's bots, and ``DELETE /jobs/{job}`` stops it;
- ``POST /simulations`` above ``CARDLEDGER_MAX_SIMULATION_MATCHES`` is 422 ``too_large``;
- ``kill -9`` of every simulations worker mid-job: `cardledger serve` restarts them,
  `/health` says ``jobs: "down"`` meanwhile, the server keeps serving, the job is resumed;
- ``kill -9`` of the one process playing a chunk: its chunk is played again while the
  other worker goes on;
- ``kill -9`` of the live worker: a person's action and two requests meanwhile queue one
  autoplay, with one job, which the restarted worker runs;
- ``kill -9`` of the beat: restarted, `/health` says so meanwhile;
- the broker's file keeps no delivered message, however many jobs ran.

One server for the module (its heartbeat period one second, so the reaper and `/health`
react within seconds), each test waiting first for every part to be up; every wait is
bounded, and whatever the server started is killed in teardown.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from domain.bots.simulate import Simulation, result, run_chunk
from tests.helpers import wait_for
from tests.integration.test_embedded_jobs import EmbeddedServer

pytestmark = pytest.mark.integration

LIMIT = 5000
SIMULATION_WORKERS = ("worker-simulations-1", "worker-simulations-2")
#: A few SQLite pages: a second burst of jobs may wait a message or two more than the first.
SLACK = 16 * 1024
RANDOM = {"game": "bottle-imp", "seats": ["random", "random", "random"], "max_deals": 1}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    started = EmbeddedServer(
        tmp_path_factory.mktemp("supervised"),
        CARDLEDGER_HEARTBEAT_SECONDS="1",
        CARDLEDGER_MAX_SIMULATION_MATCHES=str(LIMIT),
        LIVE_WORKERS="1",
    )
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def up(server: EmbeddedServer) -> EmbeddedServer:
    """The server, once its workers and beat are all heard from."""
    wait_for(server.jobs_running, 60, "every job part to be up")
    return server


# --- helpers ------------------------------------------------------------------------------------


def pid_of(server: EmbeddedServer, child: str) -> int:
    """The pid `cardledger serve` last started ``child`` with (it says so)."""
    found = re.findall(rf"cardledger serve: {child} pid (\d+)", server.served.output())
    assert found, server.served.output()[-3000:]
    return int(found[-1])


def simulate(server: EmbeddedServer, spec: dict[str, Any]) -> str:
    status, created = server.request("POST", "/simulations", spec)
    assert status == 202, created
    return str(created["job"])


def finished(server: EmbeddedServer, job_id: str, seconds: float) -> dict[str, Any]:
    job = wait_for(lambda: (j := server.job(job_id))["state"] not in ("queued", "running") and j,
                   seconds, f"job {job_id} to end")  # fmt: skip
    return dict(job)


def in_process(spec: dict[str, Any]) -> dict[str, Any]:
    sim = Simulation.of(spec)
    return result(sim, run_chunk(sim, range(sim.matches)))


def broker_rows(server: EmbeddedServer) -> tuple[int, int, list[str]]:
    """(messages in the broker's file, of which waiting, the waiting ones' payloads)."""
    with contextlib.closing(sqlite3.connect(server.broker, timeout=10)) as db:
        rows = db.execute("SELECT visible, payload FROM kombu_message").fetchall()
    waiting = [payload for visible, payload in rows if visible]
    return len(rows), len(waiting), waiting


def logged(server: EmbeddedServer, task: str, what: str) -> set[str]:
    return set(re.findall(rf"Task {task}\[([0-9a-f-]+)\] {what}", server.served.output()))


def down_then_up(server: EmbeddedServer, part: str, killed: dict[str, int]) -> None:
    """`/health` says ``part`` is down (the server still answering), then `cardledger
    serve` has started each killed child again and every part is up again."""
    health = wait_for(lambda: (h := server.health())["jobs"] == "down" and h, 30,
                      f"/health to say {part} is down")  # fmt: skip
    assert health["ok"] is True and health["workers"][part] == "down", health
    assert server.request("GET", "/tables")[0] == 200  # everything else answers
    wait_for(server.jobs_running, 60, f"{', '.join(killed)} to be restarted and heard from")
    for child, pid in killed.items():
        assert pid_of(server, child) != pid
        assert f"cardledger serve: {child} exited (code -9); restarting it" in (
            server.served.output()
        )


# --- the tests ------------------------------------------------------------------------------------


def test_live_bots_move_beside_a_big_simulation_which_is_then_cancelled(
    up: EmbeddedServer,
) -> None:
    """Both simulation processes busy with a big simulation; a person deals at a table of
    bots and they answer within seconds (their own queue and worker). Cancelled, the
    simulation stays cancelled and its chunks stop: none waits, none is taken after."""
    big = {**RANDOM, "seats": ["heuristic"] * 3, "matches": LIMIT, "seed": "big"}
    big.pop("max_deals")
    job_id = simulate(up, big)
    wait_for(lambda: up.job(job_id)["state"] == "running", 30, "the simulation to start")
    wait_for(lambda: len(logged(up, r"cardledger\.simulate_chunk", "received")) >= 2, 30,
             "chunks to be played")  # fmt: skip
    body = {"game": "bottle-imp", "seed": "beside", "max_deals": 1,
            "seats": [{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "random"}]}  # fmt: skip
    status, table = up.request("POST", "/tables", body)
    assert status == 201, table
    ann = {"Authorization": f"Bearer {table['seats'][0]['token']}"}
    path = f"/tables/{table['id']}"
    status, dealt = up.served.request("POST", f"{path}/actions", {"type": "deal"}, ann)
    assert status == 201, dealt

    def bots_answered() -> bool:
        state = up.served.request("GET", f"{path}/state", headers=ann)[1]
        return bool(state["version"] >= dealt["version"] + 4 and state["to_act"] == [0])

    wait_for(bots_answered, 15, "the live table's bots, beside the simulation")
    running = up.job(job_id)
    assert running["state"] == "running" and running["progress"]["done"] < LIMIT
    status, cancelled = up.request("DELETE", f"/jobs/{job_id}")
    assert (status, cancelled["state"]) == (200, "cancelled")
    done_then = cancelled["progress"]["done"]

    def chunks_stopped() -> bool:
        waiting = [p for p in broker_rows(up)[2] if "simulate_chunk" in p]
        taken = logged(up, r"cardledger\.simulate_chunk", "received")
        ended = logged(up, r"cardledger\.simulate_chunk", r"succeeded")
        return not waiting and taken <= ended

    wait_for(chunks_stopped, 30, "the cancelled simulation's chunks to stop")
    after = up.job(job_id)
    assert (after["state"], after["progress"]["done"]) == ("cancelled", done_then)
    taken = logged(up, r"cardledger\.simulate_chunk", "received")
    assert len(taken) < LIMIT // 10  # most of it never ran


def test_a_simulation_above_the_limit_is_too_large(up: EmbeddedServer) -> None:
    status, refused = up.request("POST", "/simulations", {**RANDOM, "matches": LIMIT + 1,
                                                          "seed": 1})  # fmt: skip
    assert (status, refused["code"], refused["limit"]) == (422, "too_large", LIMIT)


def test_killed_simulations_workers_are_restarted_and_their_job_resumed(
    up: EmbeddedServer,
) -> None:
    """SIGKILL of every simulations worker mid-job: serve sees them exit, says so in
    `/health` and starts them again; the chunks they held were lost with them, and the
    reaper sends them again: the job ends done, with the result of one undisturbed run."""
    spec = {**RANDOM, "matches": 300, "seed": "killed-workers"}
    job_id = simulate(up, spec)
    wait_for(lambda: up.job(job_id)["progress"]["done"] >= 20, 60, "some chunks stored")
    killed = {name: pid_of(up, name) for name in SIMULATION_WORKERS}
    for pid in killed.values():
        os.kill(pid, signal.SIGKILL)
    down_then_up(up, "simulations", killed)
    done = finished(up, job_id, 90)
    assert done["state"] == "done", done
    assert done["result"] == in_process(spec)


def test_a_process_killed_mid_chunk_has_its_chunk_played_again(up: EmbeddedServer) -> None:
    """SIGKILL of the process playing a chunk while the other worker goes on with the
    job's other chunks: the reaper sends the lost chunk again; the job ends done, the
    same."""
    spec = {**RANDOM, "matches": 300, "seed": "killed-mid-chunk"}
    job_id = simulate(up, spec)
    wait_for(lambda: up.job(job_id)["progress"]["done"] >= 20, 60, "some chunks stored")
    victim = SIMULATION_WORKERS[0]
    os.kill(pid_of(up, victim), signal.SIGKILL)
    done = finished(up, job_id, 90)
    assert done["state"] == "done", done
    assert done["result"] == in_process(spec)
    assert f"cardledger serve: {victim} exited (code -9)" in up.served.output()


def test_triggers_while_the_live_worker_is_down_queue_one_autoplay(up: EmbeddedServer) -> None:
    """With the live worker killed (serve starts it again after a second), a person's
    action and two requests wake one table: one task waits in the broker and both
    requests get the one job it carries; the restarted worker runs it to its end."""
    body = {"game": "bottle-imp", "seed": "pending", "max_deals": 1,
            "seats": [{"name": "Ann"}, {"bot": "heuristic"}, {"bot": "random"}]}  # fmt: skip
    status, table = up.request("POST", "/tables", body)
    assert status == 201, table
    ann = {"Authorization": f"Bearer {table['seats'][0]['token']}"}
    path = f"/tables/{table['id']}"
    killed = pid_of(up, "worker-live-1")
    os.kill(killed, signal.SIGKILL)
    wait_for(lambda: "worker-live-1 exited (code -9)" in up.served.output(), 10, "serve to see it")
    status, dealt = up.served.request("POST", f"{path}/actions", {"type": "deal"}, ann)
    assert status == 201, dealt
    first = up.request("POST", f"{path}/autoplay")
    second = up.served.request("POST", f"{path}/autoplay", headers=ann)
    assert (first[0], second[0]) == (202, 202)
    assert first[1]["job"] == second[1]["job"]
    waiting = [p for p in broker_rows(up)[2] if "cardledger.autoplay" in p and table["id"] in p]
    assert len(waiting) == 1
    down_then_up(up, "live", {"worker-live-1": killed})
    done = finished(up, first[1]["job"], 60)
    assert done["state"] == "done" and done["result"]["stopped"] == "waiting_for_person", done
    state = up.served.request("GET", f"{path}/state", headers=ann)[1]
    assert state["to_act"] == [0] and state["version"] >= dealt["version"] + 4


def test_a_killed_beat_is_restarted(up: EmbeddedServer) -> None:
    killed = pid_of(up, "beat")
    os.kill(killed, signal.SIGKILL)
    down_then_up(up, "beat", {"beat": killed})


def test_the_broker_keeps_no_finished_job(up: EmbeddedServer) -> None:
    """Hundreds of tasks went through the broker in this module (chunks, bots, sweeps,
    and two heartbeats a second, which the logs leave out); its table holds only what
    waits (kombu's own transport would keep every one), and ten more jobs leave its
    file no larger than it was."""
    jobs = [simulate(up, {**RANDOM, "matches": 20, "seed": i}) for i in range(10)]
    for job_id in jobs:
        assert finished(up, job_id, 60)["state"] == "done"
    ran = len(logged(up, r"cardledger\.[a-z_]+", "received"))  # heartbeats not counted
    assert ran > 100, ran
    count, waiting, _ = broker_rows(up)
    assert count == waiting < 10
    size = os.path.getsize(up.broker)
    jobs = [simulate(up, {**RANDOM, "matches": 20, "seed": 100 + i}) for i in range(10)]
    for job_id in jobs:
        assert finished(up, job_id, 60)["state"] == "done"
    count, waiting, _ = broker_rows(up)  # the rows went as each message was taken
    assert count == waiting < 10
    assert os.path.getsize(up.broker) <= size + SLACK
