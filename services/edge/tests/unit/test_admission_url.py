"""The edge refuses a Valkey URL it cannot use at start, with a clear error."""

from __future__ import annotations

import pytest

from tollway_edge.admission import EdgeAdmission


@pytest.mark.unit
@pytest.mark.parametrize(
    ("url", "says"),
    [("valkey://u:topsecret@127.0.0.1:6379", "'valkey'"), ("redis://:topsecret@h?db=x", "db")],
)
async def test_a_url_it_cannot_use_stops_the_start(url: str, says: str) -> None:
    adm = EdgeAdmission(valkey_url=url)
    with pytest.raises(ValueError, match="Valkey URL") as info:
        await adm.start()
    assert says in str(info.value) and "topsecret" not in str(info.value)


@pytest.mark.integration  # connects (to a closed port)
async def test_a_cluster_url_runs_without_the_pipelined_client() -> None:
    adm = EdgeAdmission(valkey_url="redis+cluster://127.0.0.1:1", timeout_seconds=0.2)
    await adm.start()  # unreachable: the cluster client's own error type also starts it degraded
    try:
        assert adm.fast is None and adm.mode == "local"
    finally:
        await adm.stop()
