"""Client-facing endpoints: each a thin adapter over ``tollway_edge.pipeline``
(``chat``: ``POST /v1/chat/completions``; ``models``: ``GET /v1/models``)."""
