"""The HTTP server: a REST API, a SPARQL 1.1 Protocol endpoint and the owner's review page.

Modules, one job each: ``config`` (the TOML file: keys, scopes, limits), ``auth`` (API keys to
scopes), ``errors`` (one JSON error shape), ``app`` (the app factory), ``rest`` (the JSON API),
``sparql`` with ``results``, ``checker`` and ``runner`` (the endpoint, its formats, the
query check in worker processes, the timeout and the limits per scope), ``review``
with ``timeline`` and ``templates/`` (the owner's page), ``command`` (``doxa serve``).
Nothing here imports FastAPI until a server is built, so the CLI starts fast.
"""
