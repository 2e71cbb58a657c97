"""Storage: the event store and its guard, the streams read back and checked, the
projections, signatures and the database tables. Knows no HTTP and no commands."""
