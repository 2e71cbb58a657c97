"""Marshmallow schemas: the JSON shapes of the API, also the source of `openapi.yaml`."""

from service.web.schemas.common import HealthSchema, ProblemSchema

__all__ = ["HealthSchema", "ProblemSchema"]
