"""`make run`'s broker: kombu's SQLAlchemy transport on a SQLite file, keeping nothing
it delivered.

kombu's transport marks a delivered message invisible and never deletes it, so its file
grows with every task ever sent (bots' moves, simulation chunks, heartbeats every few
seconds). Nothing reads a delivered row again: kombu keeps an unacknowledged message in
the worker's memory and, when it must go back (a worker stopping, a pool process lost),
publishes it again as a new row. So this channel deletes the row it takes, in the
transaction that takes it: the broker's table holds exactly the messages waiting, and
its file stays the size of its largest backlog (SQLite reuses the freed pages).

``make_celery`` uses it for a ``sqla+`` broker URL (``Config.broker_url``), through
Celery's ``broker_transport``; the URL's database part (``sqlite:///…``) is the
transport's hostname, as kombu's own ``sqla+`` alias would pass it. ``polling_interval``
(seconds between looks at an empty queue) is the transport's, not the engine's.

Every worker looks at its empty queue five times a second, all evening: a look is one
plain read (is anything waiting?) on the queue's id, found once, and only a queue with a
message waiting is locked and taken from. kombu's own look found the queue's row again
and took the broker's write lock every time (an idle ``make run`` used 6.1% of a core in
all, 3.8% with this look: ``bench/idle.py``).
"""

from __future__ import annotations

from json import loads
from queue import Empty
from typing import Any

from kombu.transport import sqlalchemy
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import create_engine, false, select, text, true

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
    _tidied = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queue_ids: dict[str, int] = {}

    def _engine_from_config(self) -> Any:
        """kombu's engine, from the transport options that are ``create_engine``'s."""
        client = self.connection.client
        options = {k: v for k, v in client.transport_options.items() if k not in NOT_ENGINE}
        return create_engine(client.hostname, **options)

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        """kombu's ``_get``, deleting the row it takes instead of hiding it, in the same
        transaction (a file written by kombu's own transport loses its hidden rows at the
        first take)."""
        message_cls = self.message_cls
        queue_id = self._queue_ids.get(queue)
        if queue_id is None:  # a queue's row is never deleted: its id stays its own
            queue_id = self._queue_ids[queue] = self._get_or_create(queue).id
        elif self._tidied and not self._waiting(queue_id):
            raise Empty()  # nothing to take: no write lock taken
        if self.session.bind.name == "sqlite":
            self.session.execute(text("BEGIN IMMEDIATE TRANSACTION"))
        try:
            if not self._tidied:
                hidden = self.session.query(message_cls).filter(message_cls.visible == false())
                hidden.delete(synchronize_session=False)
                self._tidied = True
            message = (
                self.session.query(message_cls)
                .with_for_update()
                .filter(message_cls.queue_id == queue_id, message_cls.visible == true())
                .order_by(message_cls.sent_at, message_cls.id)
                .limit(1)
                .first()
            )
            if message is None:
                raise Empty()
            payload = message.payload
            self.session.delete(message)
            return loads(bytes_to_str(payload))
        finally:
            self.session.commit()

    def _waiting(self, queue_id: int) -> bool:
        """Whether a message waits on the queue: a read, which takes no lock."""
        table = self.message_cls.__table__
        with self.session.bind.connect() as connection:
            found = connection.execute(
                select(table.c.id).where(table.c.queue_id == queue_id).limit(1)
            ).first()
        return found is not None


class Transport(sqlalchemy.Transport):
    Channel = Channel
