"""The database tables. Event rows are append-only: no code path updates or deletes them, and
the database itself refuses to (triggers of migration 0008, ``service.storage.guard``).
Projection rows (players, tournaments, standings) are read models: any of them can be
deleted and recomputed from the streams (``flask --app service cardledger rebuild-projections``).

``streams`` holds each stream's head (version and hash) so an append can check its
expected version with one guarded UPDATE; ``events`` holds the immutable log.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from service.storage.db import metadata

streams = Table(
    "streams",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("version", Integer, nullable=False),
    Column("head", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    #: The first fault found in the stream's stored rows (JSON ``{"version", "code",
    #: "detail"}``), set by whichever process or verifier found it, so every process
    #: refuses the stream at once; null while the rows check (``service.storage.streams``).
    Column("damage", Text),
)

events = Table(
    "events",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("stream", String(64), ForeignKey("streams.id"), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("recorded_at", String(32), nullable=False),
    Column("hash", String(64), nullable=False),
    Column("actor", String(40)),
    #: The server's Ed25519 signature of the stream's head at this version, stored with
    #: the last row of each append (``service.core.signing``); null on the rows before it.
    Column("signature", String(88)),
    Column("key_id", String(16)),  # the key that signed it
    UniqueConstraint("stream", "version"),
)

# When the background verifier (``service.jobs.verifier``) last re-checked each stream.
stream_checks = Table(
    "stream_checks",
    metadata,
    Column("stream", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("checked_at", String(32), nullable=False),
    Column("version", Integer, nullable=False),
    Index("ix_stream_checks_oldest", "checked_at"),
)

seat_tokens = Table(
    "seat_tokens",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    PrimaryKeyConstraint("table_id", "seat"),
)

# Each tournament entry's personal link (``service.storage.entry_tokens``): only the token's
# hash is stored, with the random nonce the server's key turns into the token again, so a
# reprinted slip shows the same link; a new nonce (a re-issue) stops the old one at once.
entry_tokens = Table(
    "entry_tokens",
    metadata,
    Column("tournament_id", String(64), ForeignKey("streams.id"), nullable=False),
    Column("entry", Integer, nullable=False),
    Column("nonce", String(32), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    PrimaryKeyConstraint("tournament_id", "entry"),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("stream", String(64), ForeignKey("streams.id"), nullable=False),
    Column("key", String(200), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("status", Integer, nullable=False),
    Column("response", Text, nullable=False),
    PrimaryKeyConstraint("stream", "key"),
)

# How an imported table came here (``POST /tables/import``): beside the log, never in it.
table_imports = Table(
    "table_imports",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("signed", Boolean, nullable=False),  # by a key this server trusts
    Column("key_id", String(16)),  # that key; null for an unsigned import
    Column("imported_at", String(32), nullable=False),
    #: This server's signature of the mark itself (``service.storage.import_marks``), so a table
    #: cannot be passed off as an unsigned import in the database to escape the checks.
    Column("attestation", String(88)),
)

# --- projections: read models rebuilt from the streams (``service/storage/projections/``) --

players = Table(
    "players",
    metadata,
    Column("id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rated_tables", Integer, nullable=False),
    Index("ix_players_newest", "created_at", "id"),  # GET /players pages newest first
)

# One row per table: what its public summary shows that changes as it is played (the rest
# is its ``TableOpened``), so ``GET /tables`` lists and filters without folding a table.
# Written only when one of these changes, never for a mere move.
table_summaries = Table(
    "table_summaries",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("created_at", String(32), nullable=False),
    Column("status", String(24), nullable=False),  # waiting_for_deal | in_deal | finished
    Column("deal", Integer, nullable=False),
    Column("totals", Text, nullable=False),  # JSON list
    Column("ranking", Text),  # JSON list, null until the match ends
    Index("ix_table_summaries_newest", "created_at", "table_id"),
    Index("ix_table_summaries_status", "status", "created_at", "table_id"),
)

tournaments = Table(
    "tournaments",
    metadata,
    Column("id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("name", String(120), nullable=False),
    Column("game", String(32), nullable=False),
    Column("status", String(16), nullable=False),
    Column("rounds_played", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", String(32), nullable=False),
    Index("ix_tournaments_newest", "created_at", "id"),  # GET /tournaments
)

tournament_tables = Table(
    "tournament_tables",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("tournament_id", String(64), ForeignKey("streams.id"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("number", Integer, nullable=False),
    Index("ix_tournament_tables_round", "tournament_id", "round", "number"),
)

standings = Table(
    "standings",
    metadata,
    Column("tournament_id", String(64), ForeignKey("streams.id"), nullable=False),
    Column("entry", Integer, nullable=False),
    Column("position", Integer, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("name", String(80), nullable=False),
    Column("player_id", String(64)),
    Column("withdrawn", Boolean, nullable=False),
    Column("match_points", BigInteger, nullable=False),  # in UNITs (domain.tournament.standings)
    Column("score", BigInteger, nullable=False),
    Column("tables", Integer, nullable=False),
    Column("byes", Integer, nullable=False),
    Column("buchholz", BigInteger, nullable=False),
    Column("head_to_head", Integer),
    PrimaryKeyConstraint("tournament_id", "entry"),
    Index("ix_standings_position", "tournament_id", "position"),
)

# One row per table that waits on a bot (a bot seat among those to act, match not over):
# what the sweep (``service/jobs/sweep.py``) resumes when the broker lost the bots' task.
bot_turns = Table(
    "bot_turns",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), primary_key=True),
)

# --- jobs: bot autoplay and simulations, run by Celery workers (``service/jobs/queue.py``) ---

jobs = Table(
    "jobs",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("kind", String(16), nullable=False),  # autoplay | simulation
    # queued | running | done | failed | cancelled (``service.jobs.queue``: only forward)
    Column("state", String(16), nullable=False),
    Column("params", Text, nullable=False),  # JSON: what was asked
    Column("done", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("result", Text),  # JSON
    Column("error", Text),
    Column("table_id", String(64)),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    # who may cancel it besides the organiser: "organiser", "seat N", or None (the service)
    Column("started_by", String(32)),
    Column("alive_at", String(32)),  # its last sign of life (``service.jobs.reaper``)
    Column("dispatched", Integer, nullable=False, server_default="0"),  # chunks sent
    Column("resumed", Integer, nullable=False, server_default="0"),  # by the reaper
    Index("ix_jobs_state", "state"),
)

job_chunks = Table(
    "job_chunks",
    metadata,
    Column("job_id", String(32), ForeignKey("jobs.id"), nullable=False),
    Column("chunk", Integer, nullable=False),
    Column("result", Text, nullable=False),  # JSON: [totals, ranking] per match, in order
    PrimaryKeyConstraint("job_id", "chunk"),
)

# Each chunk of a simulation that began (``service.jobs.simulations``): how often (a chunk
# whose worker dies every time it plays it fails its job instead of being retried
# forever) and its last sign of life (the reaper sends again a chunk whose worker died).
job_chunk_starts = Table(
    "job_chunk_starts",
    metadata,
    Column("job_id", String(32), ForeignKey("jobs.id"), nullable=False),
    Column("chunk", Integer, nullable=False),
    Column("starts", Integer, nullable=False),
    Column("alive_at", String(32), nullable=False),
    PrimaryKeyConstraint("job_id", "chunk"),
)

# A table's one pending autoplay (``service.jobs.autoplays``): queued, not yet taken by a
# worker; the job it carries, if anyone asked for one.
pending_autoplays = Table(
    "pending_autoplays",
    metadata,
    Column("table_id", String(64), ForeignKey("streams.id"), primary_key=True),
    Column("job_id", String(32), ForeignKey("jobs.id")),
    Column("queued_at", String(32), nullable=False),
)

# The jobs' signs of life (``service.jobs.heartbeats``): one row per queue ("live",
# "simulations") and one for the beat, whatever the number of workers.
job_heartbeats = Table(
    "job_heartbeats",
    metadata,
    Column("name", String(16), primary_key=True),
    Column("seen_at", String(32)),  # last sign of life; NULL: known to be down
    Column("sent_at", String(32)),  # when the beat sent the newest heartbeat a worker ran
)

# --- the organiser's console (``service/web/pages/console.py``): sessions, form keys, names ---

# An organiser's browser session (``service.storage.organiser_sessions``): the console link's
# token is exchanged for a random session id, and the cookie holds only that id. Stored
# hashed, with its expiry and the hash of the organiser token that opened it (a new token
# ends every session); logging out deletes the row.
organiser_sessions = Table(
    "organiser_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),  # SHA-256 of the cookie's session id
    Column("token_hash", String(64), nullable=False),  # SHA-256 of the organiser token
    Column("created_at", String(32), nullable=False),
    Column("expires_at", String(32), nullable=False),
    Index("ix_organiser_sessions_expiry", "expires_at"),
)

# Each console form carries a one-time key (``service.web.pages.formkeys``): the first post
# records it with what it answered, so a second post of the same form does nothing and
# answers the same. ``outcome`` is null while its work is still under way.
form_keys = Table(
    "form_keys",
    metadata,
    Column("key_hash", String(64), primary_key=True),  # SHA-256 of the form's key
    Column("form", String(200), nullable=False),  # the path it was posted to
    Column("outcome", Text),  # JSON: {"redirect": path} | {"shown": what}
    Column("created_at", String(32), nullable=False),
    Index("ix_form_keys_created", "created_at"),
)

# The TR39 skeleton of every registered player's name (``domain.names``, held by
# ``service.application.players``), unique: two players whose names look alike cannot both register,
# however close together they ask.
player_skeletons = Table(
    "player_skeletons",
    metadata,
    Column("skeleton", String(64), primary_key=True),  # SHA-256 of the skeleton
    Column("player_id", String(64), ForeignKey("streams.id"), nullable=False),
)
