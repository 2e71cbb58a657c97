"""The HTTP edge: API routes, pages, schemas, auth, problem+json and headers. Parses and
checks the caller, then calls the application."""
