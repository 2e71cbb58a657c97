"""Read models kept beside the event streams, each a cache of a fold, never a source of
truth: table summaries and the tables waiting on a bot (``tables``), tournaments, their
tables and standings (``tournaments``), players and their ratings (``players``).

The unit of work (``service.application.unit_of_work``) updates them in the transaction
that appends the events they follow from; ``rebuild`` recomputes them all from the
streams alone (``flask --app service cardledger rebuild-projections``).
"""
