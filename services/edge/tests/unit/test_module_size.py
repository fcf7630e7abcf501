"""Every module of the edge stays readable: at most 350 lines (issue 9, "The
edge, reshaped"). A module that grows past it is split along the request's
way (cohesive pieces with clear names), not trimmed of its docstrings."""

from __future__ import annotations

from pathlib import Path

MAX_LINES = 350
SRC = Path(__file__).resolve().parents[2] / "src"


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_the_edge_has_modules_to_measure() -> None:
    modules = list(SRC.rglob("*.py"))
    assert (SRC / "tollway_edge" / "pipeline").is_dir()
    assert len(modules) > 50, f"found only {len(modules)} modules under {SRC}"


def test_no_edge_module_is_over_350_lines() -> None:
    over = sorted(
        (
            f"{path.relative_to(SRC)}: {n} lines"
            for path in SRC.rglob("*.py")
            if (n := _lines(path)) > MAX_LINES
        ),
    )
    assert not over, (
        f"edge modules over {MAX_LINES} lines (split them along the request's way): " + "; ".join(over)
    )
