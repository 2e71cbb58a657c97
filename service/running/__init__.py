"""Running it all: the app factory, `cardledger` (serve, cli), gunicorn's configuration,
the OpenAPI writer and the maintenance commands."""
