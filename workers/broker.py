"""`make run`'s broker: kombu's SQLAlchemy transport on a SQLite file, keeping nothing
it delivered.

kombu's transport marks a delivered message invisible and never deletes it, so its file
grows with every task ever sent (bots' moves, simulation chunks, heartbeats every few
seconds). Nothing reads a delivered row again: kombu keeps an unacknowledged message in
the worker's memory and, when it must go back (a worker stopping, a pool process lost),
publishes it again as a new row. So this channel deletes delivered rows as it takes
each message: the broker's table holds exactly the messages waiting, and its file stays
the size of its largest backlog (SQLite reuses the freed pages).

``make_celery`` uses it for a ``sqla+`` broker URL (``Config.broker_url``), through
Celery's ``broker_transport``; the URL's database part (``sqlite:///…``) is the
transport's hostname, as kombu's own ``sqla+`` alias would pass it. ``polling_interval``
(seconds between looks at an empty queue) is the transport's, not the engine's.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import sqlalchemy
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

TRANSPORT = "workers.broker:Transport"
PREFIXES = ("sqla+", "sqlalchemy+")
#: Transport options that are kombu's or Celery's, not ``create_engine``'s.
NOT_ENGINE = {
    "queue_tablename", "message_tablename", "callback", "errback", "max_retries",
    "interval_start", "interval_step", "interval_max", "retry_errors", "polling_interval",
}  # fmt: skip


def database_url(broker_url: str) -> str | None:
    """The database of a ``sqla+`` broker URL, else None."""
    for prefix in PREFIXES:
        if broker_url.startswith(prefix):
            return broker_url[len(prefix) :]
    return None


class Channel(sqlalchemy.Channel):
    def _engine_from_config(self) -> Any:
        """kombu's engine, from the transport options that are ``create_engine``'s."""
        client = self.connection.client
        options = {k: v for k, v in client.transport_options.items() if k not in NOT_ENGINE}
        return create_engine(client.hostname, **options)

    def _get(self, queue: str) -> Any:
        payload = super()._get(queue)  # raises Empty when nothing waits
        try:
            self.session.query(self.message_cls).filter(
                self.message_cls.visible == False  # noqa: E712 (SQL, not Python)
            ).delete(synchronize_session=False)
            self.session.commit()
        except OperationalError:  # locked by another process: the next delivery tidies
            self.session.rollback()
        return payload


class Transport(sqlalchemy.Transport):
    Channel = Channel
