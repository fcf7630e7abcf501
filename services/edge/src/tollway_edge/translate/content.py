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


def document_of_file_part(part: Any, param: str) -> dict[str, Any]:
    """Anthropic's ``document`` block for an OpenAI ``file`` content part holding a PDF as
    ``file_data`` (``data:application/pdf;base64,<data>``; OpenAI: "File inputs"; Anthropic:
    "PDF support", ``Base64PDFSourceParam``); ``filename`` becomes ``title``.

    Raises:
        TranslationError: (400) an uploaded ``file_id`` (OpenAI's Files API) or data that is
            not a base64 PDF data URL.
    """
    file = part.get("file") if isinstance(part, dict) else None
    if not isinstance(file, dict) or not isinstance(file.get("file_data"), str):
        raise unsupported(f"{param}.file", "only PDFs given inline as file_data are translated")
    head, sep, data = file["file_data"].partition(",")
    if head != "data:application/pdf;base64" or not sep:
        raise unsupported(f"{param}.file.file_data", "only data:application/pdf;base64 data is translated")
    block: dict[str, Any] = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
    }
    if isinstance(file.get("filename"), str):
        block["title"] = file["filename"]
    return block


def file_part_of_document(block: dict[str, Any], param: str) -> dict[str, Any]:
    """OpenAI's ``file`` content part for an Anthropic ``document`` block with a base64 PDF
    source (the inverse of :func:`document_of_file_part`).

    Raises:
        TranslationError: (400) another source (text, content, URL, Files API).
    """
    source = block.get("source")
    if (
        not isinstance(source, dict)
        or source.get("type") != "base64"
        or source.get("media_type") != "application/pdf"
    ):
        raise unsupported(f"{param}.source", "only base64 PDF documents are translated")
    file = {"file_data": f"data:application/pdf;base64,{source.get('data')}"}
    if isinstance(block.get("title"), str):
        file["filename"] = block["title"]
    return {"type": "file", "file": file}
