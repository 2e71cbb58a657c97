"""`GET /openapi.yaml`: the committed API description, so clients see what was reviewed."""

from __future__ import annotations

from flask import Blueprint, Response, current_app

from service.openapi import SPEC_PATH, render_spec

blueprint = Blueprint("spec", __name__)


@blueprint.get("/openapi.yaml")
def openapi_yaml() -> Response:
    """Serve the committed `openapi.yaml`, or build it when running from an install without it.
    ---
    get:
      summary: The OpenAPI description of this API
      operationId: getOpenApi
      tags: [meta]
      security: []
      responses:
        "200":
          description: The OpenAPI document, as YAML (this very document, parsed).
          content:
            application/yaml:
              schema:
                type: object
                required: [openapi, info, paths, components]
                properties:
                  openapi: {type: string, pattern: '^3[.]0[.][0-9]+$'}
                  info: {type: object, required: [title, version]}
                  paths: {type: object}
                  components: {type: object}
    """
    if SPEC_PATH.is_file():
        document = SPEC_PATH.read_text(encoding="utf-8")
    else:
        document = render_spec(current_app._get_current_object())  # type: ignore[attr-defined]
    return Response(document, mimetype="application/yaml")
