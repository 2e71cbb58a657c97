"""Celery configuration and tasks: thin loops over the same command path a request takes."""
