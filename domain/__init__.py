"""Card Ledger's domain: pure rules engines, events, matches and the shuffle.

Nothing here imports Flask, SQLAlchemy, Celery or any transport: a rules test is
"given these events, when this action, then these events (or this error)".
"""

import os as _os

if _os.environ.get("CARDLEDGER_ENGINE") == "pure":  # the compiled engine's opt-out
    from domain._pure import use_pure

    use_pure()
