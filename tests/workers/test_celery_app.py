"""Celery runs tasks in-process without a broker, and through Redis or a SQLite file with
one; live tables and simulations go to queues of their own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from kombu import Connection, Exchange, Queue

from service.core.config import Config
from workers.broker import TRANSPORT
from workers.celery_app import SWEEP_ENTRY, make_celery, sqlite_transport_options
from workers.tasks import ping


def test_without_redis_tasks_run_eagerly() -> None:
    app = make_celery(None)
    assert app.conf.task_always_eager and app.conf.task_eager_propagates
    assert app.tasks[ping.name].delay().get(timeout=1) == "pong"


def test_reliability_settings() -> None:
    conf = make_celery("redis://127.0.0.1:6379/0").conf
    assert conf.broker_url == conf.result_backend == "redis://127.0.0.1:6379/0"
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert not conf.task_always_eager
    assert conf.task_serializer == "json"


@pytest.mark.integration
def test_ping_through_redis_and_a_worker(redis_url: str) -> None:
    app = make_celery(redis_url)
    app.conf.worker_hijack_root_logger = False
    app.control.purge()
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        assert app.tasks[ping.name].delay().get(timeout=10) == "pong"


def test_the_sqlite_broker_needs_no_server(tmp_path: Path) -> None:
    """`make run`'s default: kombu's SQLAlchemy transport on a SQLite file (our variant,
    ``workers.broker``), no results, and the bots' sweep on beat's schedule."""
    path = tmp_path / "broker.sqlite"
    url = f"sqla+sqlite:///{path}"
    conf = make_celery(Config(database_url="sqlite://", jobs="sqlite", broker_url=url)).conf
    assert (conf.broker_url, conf.broker_transport) == (f"sqlite:///{path}", TRANSPORT)
    assert not conf.task_always_eager
    assert conf.task_ignore_result and not conf.result_backend
    assert SWEEP_ENTRY in conf.beat_schedule


@pytest.mark.parametrize("mode", ["redis", "sqlite"])
def test_simulations_have_a_queue_of_their_own(mode: str, tmp_path: Path) -> None:
    """A simulation's start and chunks, and the verifier's background checks, go to
    ``simulations``; everything else (the bots of tables in play, the sweep, the reaper)
    to ``live``. One task per process at a time."""
    config = Config(database_url="sqlite://", redis_url="redis://127.0.0.1:6379/0", jobs=mode,
                    broker_url=f"sqla+sqlite:///{tmp_path / 'b.sqlite'}")  # fmt: skip
    app = make_celery(config)
    route = app.amqp.router.route
    queue_of = {name: route({}, name)["queue"].name for name in app.tasks if
                name.startswith("cardledger.")}  # fmt: skip
    assert queue_of == {
        "cardledger.simulate": "simulations", "cardledger.simulate_chunk": "simulations",
        "cardledger.verify_streams": "simulations", "cardledger.autoplay": "live",
        "cardledger.resume_bots": "live", "cardledger.reap_jobs": "live",
        "cardledger.heartbeat": "live", "cardledger.ping": "live",
    }  # fmt: skip
    assert app.conf.worker_prefetch_multiplier == 1


def test_the_sqlite_broker_keeps_nothing_it_delivered(tmp_path: Path) -> None:
    """kombu's own transport keeps every delivered message (invisible): ours deletes
    them as it takes the next, so the broker's table holds only what waits."""
    sqlite_transport_options()  # silences kombu's SQLAlchemy 2.1 warning, as a worker does
    path = tmp_path / "broker.sqlite"
    queue = Queue("live", Exchange("live"), routing_key="live")
    received: list[int] = []
    with Connection(f"sqlite:///{path}", transport=TRANSPORT) as connection:
        with connection.Producer() as producer:
            for i in range(40):
                producer.publish({"i": i}, exchange=queue.exchange, routing_key="live",
                                 declare=[queue])  # fmt: skip
        assert rows(path) == (40, 40)
        with connection.Consumer(queue, callbacks=[lambda body, m: (received.append(
                body["i"]), m.ack())]):  # fmt: skip
            while len(received) < 40:
                connection.drain_events(timeout=5)
    assert received == list(range(40))
    assert rows(path) == (0, 0)


def rows(path: Path) -> tuple[int, int]:
    """(messages, of which waiting) in the SQLite broker."""
    with sqlite3.connect(path) as db:
        count, visible = db.execute("SELECT count(*), sum(visible) FROM kombu_message").fetchone()
    return count, visible or 0
