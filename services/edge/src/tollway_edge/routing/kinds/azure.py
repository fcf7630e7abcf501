"""``kind: azure``: Azure OpenAI (deployment URLs, ``api-version``, ``api-key``).

``base_url`` is the resource endpoint (``https://<resource>.openai.azure.com``);
the route's ``upstream_model`` is the Azure deployment name. URLs:
``{base_url}/openai/deployments/<deployment><path>?api-version=<v>`` for chat,
completions and embeddings; ``{base_url}/openai/responses?api-version=<v>``
for responses (Azure names the deployment in the body's ``model``). ``v`` is
the provider's ``api_version`` (default :data:`DEFAULT_API_VERSION`).
Credential: the ``api-key`` header. Azure serves no moderations.
"""

from __future__ import annotations

from yarl import URL

from tollway_contracts.catalogue import Provider

DEFAULT_API_VERSION = "2024-10-21"
_DEPLOYMENT_PATHS = frozenset({"/chat/completions", "/completions", "/embeddings"})


class AzureKind:
    """The Azure OpenAI wire protocol (module doc)."""

    name = "azure"

    def serves(self, path: str) -> bool:
        """Chat, legacy completions, embeddings (deployment URLs) and responses."""
        return path in _DEPLOYMENT_PATHS or path == "/responses"

    def headers(self, provider: Provider, key: str | None) -> dict[str, str]:
        """``api-key: <key>`` when there is a key."""
        return {"api-key": key} if key else {}

    def url(self, base_url: str, provider: Provider, path: str, upstream_model: str) -> URL:
        """The deployment URL (or ``/openai/responses``) with ``api-version``."""
        version = provider.api_version or DEFAULT_API_VERSION
        if path in _DEPLOYMENT_PATHS:
            url = URL(base_url + "/openai/deployments/") / upstream_model
            url = URL(str(url) + path)
        else:
            url = URL(base_url + "/openai" + path)
        return url.with_query({"api-version": version})


AZURE = AzureKind()
