"""Overlapping windows over long text (pure).

spaCy refuses texts over ``nlp.max_length`` (E088, 1,000,000 characters) and
its cost per call grows with the text; the detector therefore analyses a long
text as windows of at most ``size`` characters that overlap by ``overlap``
characters, and keeps each detection from exactly one window:

Each window *owns* the part of the text between the middles of its overlaps
with its neighbours. A detection is kept from the window that owns its start.
Any entity of at most ``overlap // 2`` characters that starts in a window's
owned part ends inside that window (the owned part stops ``overlap // 2``
before the window's end), so it is seen whole — no entity at a window's edge
is missed or cut. Window edges are moved back to a whitespace character when
one is near, so a word is rarely split.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Window:
    """``text[start:end]`` is analysed; detections starting in ``[own_start, own_end)`` are kept."""

    start: int
    end: int
    own_start: int
    own_end: int


def plan_windows(length: int, size: int, overlap: int, text: str | None = None) -> list[Window]:
    """Windows covering ``[0, length)``; one window when ``length <= size``.

    Args:
        length: text length in code points.
        size: maximum window length (> 2 * overlap).
        overlap: characters shared by neighbouring windows (>= 2).
        text: if given, window ends move back to whitespace within
            ``overlap // 4`` characters.

    Raises:
        ValueError: ``size <= 2 * overlap`` or ``overlap < 2``.
    """
    if overlap < 2 or size <= 2 * overlap:
        raise ValueError("window size must exceed twice the overlap, overlap >= 2")
    if length <= size:
        return [Window(0, length, 0, length)]
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(length, start + size)
        if end < length and text is not None:
            for k in range(end, end - overlap // 4, -1):
                if text[k - 1].isspace():
                    end = k
                    break
        spans.append((start, end))
        if end >= length:
            break
        start = end - overlap
    windows = []
    for i, (a, b) in enumerate(spans):
        own_start = 0 if i == 0 else (spans[i - 1][1] + a) // 2
        own_end = length if i == len(spans) - 1 else (b + spans[i + 1][0]) // 2
        windows.append(Window(a, b, own_start, own_end))
    return windows
