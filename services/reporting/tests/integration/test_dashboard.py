"""The dashboard in headless Chromium (Debian's ``chromium`` package, driven by
Playwright through its executable path; never ``playwright install``): the
charts render with the tenant's data, and a bad token shows an error.

Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``, in the install
script). Not skipped when absent: CI must have it.
"""

from __future__ import annotations

import tempfile

import asyncpg
import pytest
from playwright.async_api import async_playwright

from ..conftest import MODELS, ReportingEnv

pytestmark = pytest.mark.integration

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]

CANVAS_STATS = """
(id) => {
  const c = document.getElementById(id);
  const chart = Chart.getChart(c);
  const ctx = c.getContext('2d');
  const px = ctx.getImageData(0, 0, c.width, c.height).data;
  let painted = 0;
  for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
  return {painted, width: c.width, height: c.height, cssHeight: c.clientHeight, labels: chart ? chart.data.labels : null,
          values: chart ? chart.data.datasets[0].data : null};
}
"""


async def test_dashboard_renders_charts_with_the_tenants_data(reporting_env: ReportingEnv) -> None:
    env = reporting_env
    tenant = env.tenants[0]
    conn = await asyncpg.connect(env.dsn)
    try:
        total = await conn.fetchval(
            "SELECT sum(cost_micro_usd)::bigint FROM ledger.usage_records WHERE tenant_id = $1", tenant
        )
        days = await conn.fetchval(
            "SELECT count(DISTINCT date_trunc('day', ts_start AT TIME ZONE 'UTC')) FROM ledger.usage_records "
            "WHERE tenant_id = $1",
            tenant,
        )
    finally:
        await conn.close()
    with tempfile.TemporaryDirectory(prefix="tw-chromium-") as profile:
        async with async_playwright() as pw:
            context = await pw.chromium.launch_persistent_context(
                profile,
                executable_path=CHROMIUM,
                headless=True,
                args=FLAGS,
                viewport={"width": 1400, "height": 1000},
            )
            try:
                page = await context.new_page()
                external: list[str] = []
                page.on(
                    "request",
                    lambda r: external.append(r.url) if not r.url.startswith(env.reporting_url) else None,
                )
                await page.goto(
                    f"{env.reporting_url}/dashboard#token={env.tokens[tenant]}"
                    "&start=2026-09-01&end=2026-12-01"
                )
                await page.wait_for_selector("body[data-state=ready]", timeout=20_000)
                time_chart = await page.evaluate(CANVAS_STATS, "chart-time")
                team_chart = await page.evaluate(CANVAS_STATS, "chart-team")
                model_chart = await page.evaluate(CANVAS_STATS, "chart-model")
                status = await page.inner_text("#status")
                team_table = await page.inner_text("#table-team")

                # Wrong token: the page says so instead of drawing.
                await page.goto(
                    f"{env.reporting_url}/dashboard#token=twr_zzzzzzzzzzzz_{'a' * 32}"
                    "&start=2026-09-01&end=2026-12-01"
                )
                await page.reload()
                await page.wait_for_selector("body[data-state=error]", timeout=20_000)
                error = await page.inner_text("#status")
            finally:
                await context.close()
    for chart in (time_chart, team_chart, model_chart):
        # A drawn chart paints a real share of its canvas (axes, bars, lines).
        assert chart["painted"] > 0.01 * chart["width"] * chart["height"], chart
        assert 100 <= chart["cssHeight"] <= 300, chart["cssHeight"]  # sized by its box, not growing
    # one point per UTC day of the range (91 days), the days with calls non-zero
    assert len(time_chart["labels"]) == 91
    assert time_chart["labels"][0] == "2026-09-01" and time_chart["labels"][-1] == "2026-11-30"
    assert sum(1 for v in time_chart["values"] if v > 0) == days
    assert sum(time_chart["values"]) == pytest.approx(total / 1e6)
    assert set(team_chart["labels"]) == {"team-a", "team-b", "(no team)"}
    assert set(model_chart["labels"]) == set(MODELS)
    assert sum(model_chart["values"]) == pytest.approx(total / 1e6)
    assert f"${total / 1e6:.6f}" in status
    assert "team-a" in team_table and "(no team)" in team_table
    assert "invalid reporting token" in error
    assert external == []  # no CDN, nothing fetched from elsewhere
