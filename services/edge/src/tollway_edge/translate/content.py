"""Content pieces shared by the request translators: images and text parts.

OpenAI carries an image as ``{"type": "image_url", "image_url": {"url": ...}}``
where the URL is ``https://...`` or a ``data:<media type>;base64,<data>`` URL
(OpenAI: "Images and vision"). Anthropic carries it as an ``image`` block
whose ``source`` is ``{"type": "base64", "media_type", "data"}`` or
``{"type": "url", "url"}`` (Anthropic: "Vision"; ``Base64ImageSourceParam``,
``URLImageSourceParam``), for the media types jpeg, png, gif and webp only.
"""

from __future__ import annotations

from typing import Any

from tollway_edge.translate.errors import invalid, unsupported

IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def image_source_of_url(url: Any, param: str) -> dict[str, Any]:
    """Anthropic's image ``source`` for an OpenAI image URL.

    Raises:
        TranslationError: (400) not an http(s) or base64 data URL, or a media type
            Anthropic does not read.
    """
    if not isinstance(url, str):
        raise invalid(param, "must be a string")
    if url.startswith(("https://", "http://")):
        return {"type": "url", "url": url}
    if url.startswith("data:"):
        head, sep, data = url[5:].partition(",")
        media_type, _, encoding = head.partition(";")
        if not sep or encoding != "base64":
            raise invalid(param, "a data URL must be base64 (data:<media type>;base64,<data>)")
        if media_type not in IMAGE_MEDIA_TYPES:
            raise unsupported(param, f"Anthropic reads {', '.join(sorted(IMAGE_MEDIA_TYPES))} images only")
        return {"type": "base64", "media_type": media_type, "data": data}
    raise invalid(param, "an image URL must be https://, http:// or a base64 data: URL")


def url_of_image_source(source: Any, param: str) -> str:
    """OpenAI's image URL for an Anthropic image ``source`` (a data URL for base64).

    Raises:
        TranslationError: (400) a ``file`` source (Anthropic's Files API) or an unknown one.
    """
    if not isinstance(source, dict):
        raise invalid(param, "must be an object")
    kind = source.get("type")
    if kind == "base64":
        return f"data:{source.get('media_type')};base64,{source.get('data')}"
    if kind == "url" and isinstance(source.get("url"), str):
        return str(source["url"])
    raise unsupported(f"{param}.type", f"image source '{kind}' has no OpenAI equivalent")


def text_of_parts(content: Any, param: str, *, allowed: tuple[str, ...] = ("text",)) -> str:
    """The text of a content that must be text only: a string, or a list of text parts
    (``{"type": "text", "text"}``; OpenAI's ``refusal`` parts when allowed), joined.

    Raises:
        TranslationError: (400) a non-text part.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise invalid(param, "must be a string or a list of content parts")
    out: list[str] = []
    for i, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in allowed:
            raise unsupported(f"{param}[{i}].type", f"only {'/'.join(allowed)} parts are accepted here")
        value = part.get(kind) if kind != "text" else part.get("text")
        if not isinstance(value, str):
            raise invalid(f"{param}[{i}].{kind}", "must be a string")
        out.append(value)
    return "".join(out)


def text_blocks(content: Any, param: str) -> list[dict[str, Any]]:
    """Text-only content as a list of Anthropic/OpenAI ``{"type": "text", "text"}`` parts
    (one per part; a string is one part). Other keys (``cache_control``...) are dropped.

    Raises:
        TranslationError: (400) a non-text part.
    """
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise invalid(param, "must be a string or a list of text parts")
    out: list[dict[str, Any]] = []
    for i, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") != "text":
            raise unsupported(f"{param}[{i}].type", "only text parts are accepted here")
        if not isinstance(part.get("text"), str):
            raise invalid(f"{param}[{i}].text", "must be a string")
        out.append({"type": "text", "text": part["text"]})
    return out
