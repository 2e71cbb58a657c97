"""Jobs: bots' autoplay, simulations, the sweep, the reaper, heartbeats and the verifier,
run by Celery workers off the request path (workers/ holds the tasks)."""
