"""Fixtures of the deployment checks (helpers in deploy_support.py).

`infra/deploy-check.sh` runs these tests with TOLLWAY_REQUIRE_HELM=1 (a
missing helm fails instead of skipping) and TOLLWAY_IMAGE_SMOKE=1 (the image
smoke tests run; without it they skip, so `bash infra/test.sh` never starts
stale images left from an earlier build).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest's importlib mode does not put test folders on sys.path; the tests
# here share deploy_support.py.
sys.path.insert(0, str(Path(__file__).parent))

from deploy_support import SERVICES, VALUES_FILES, Rendered, image_ref, podman, render  # noqa: E402


@pytest.fixture(params=sorted(VALUES_FILES), scope="session")
def rendered(request: pytest.FixtureRequest) -> Rendered:
    """The chart rendered with one values file (default, then each example)."""
    return render(request.param)


@pytest.fixture(scope="session")
def images_required() -> None:
    """Skip the image smoke tests unless infra/deploy-check.sh asked for them."""
    if os.environ.get("TOLLWAY_IMAGE_SMOKE") != "1":
        pytest.skip("image smoke tests run in `bash infra/deploy-check.sh images` (TOLLWAY_IMAGE_SMOKE=1)")


@pytest.fixture(scope="session")
def mounted_images(images_required: None) -> Iterator[dict[str, Path]]:
    """Each service's image root filesystem (`podman image mount`: read-only)."""
    mounts = {s: Path(podman("image", "mount", image_ref(s)).strip()) for s in SERVICES}
    try:
        yield mounts
    finally:
        for s in SERVICES:
            try:
                podman("image", "unmount", image_ref(s))
            except RuntimeError:
                pass
