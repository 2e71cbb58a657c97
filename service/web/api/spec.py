"""`GET /openapi.yaml`: the committed API description, so clients see what was reviewed."""

from __future__ import annotations

from flask import Response, current_app

from service.web.api.base import NO_TOKEN, Blueprint
from service.web.openapi import SPEC_PATH, render_spec

blp = Blueprint("meta", __name__, description="This API's own description.")
#: ``GET /openapi.yaml`` answers an OpenAPI 3.0 document.
DOCUMENT = {
    "type": "object",
    "required": ["openapi", "info", "paths", "components"],
    "properties": {
        "openapi": {"type": "string", "pattern": "^3[.]0[.][0-9]+$"},
        "info": {"type": "object", "required": ["title", "version"]},
        "paths": {"type": "object"},
        "components": {"type": "object"},
    },
}


@blp.get("/openapi.yaml", operation_id="getOpenApi", security=NO_TOKEN)
@blp.response(
    200,
    DOCUMENT,
    content_type="application/yaml",
    description="The OpenAPI document, as YAML (this very document, parsed).",
)
def openapi_yaml() -> Response:
    """The OpenAPI description of this API

    The committed `openapi.yaml`, or one built when running from an install without it.
    """
    if SPEC_PATH.is_file():
        document = SPEC_PATH.read_text(encoding="utf-8")
    else:
        document = render_spec(current_app._get_current_object())  # type: ignore[attr-defined]
    return Response(document, mimetype="application/yaml")
