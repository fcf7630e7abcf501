// Tollway dashboard: reads /v1/reporting with the token the user pastes or
// passes in the URL fragment (#token=...&start=YYYY-MM-DD&end=YYYY-MM-DD; a
// fragment never reaches the server or its logs). Money arrives in micro-USD
// and is shown in USD. No CDN: Chart.js is served from /dashboard/static.
(function () {
  "use strict";
  const charts = {};
  const $ = (id) => document.getElementById(id);
  const usd = (micro) => Number(micro) / 1e6;
  const day = (d) => d.toISOString().slice(0, 10);

  function defaults() {
    const end = new Date(); end.setUTCHours(0, 0, 0, 0); end.setUTCDate(end.getUTCDate() + 1);
    const start = new Date(end); start.setUTCDate(start.getUTCDate() - 30);
    return { start: day(start), end: day(end) };
  }

  function fromFragment() {
    const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    const d = defaults();
    $("token").value = params.get("token") || $("token").value || "";
    $("start").value = params.get("start") || $("start").value || d.start;
    $("end").value = params.get("end") || $("end").value || d.end;
  }

  function setStatus(text, isError) {
    $("status").textContent = text;
    $("status").className = isError ? "error" : "";
  }

  async function api(path, params) {
    const url = "/v1/reporting/" + path + "?" + new URLSearchParams(params).toString();
    const resp = await fetch(url, { headers: { Authorization: "Bearer " + $("token").value.trim() } });
    const body = await resp.json();
    if (!resp.ok) throw new Error((body.error && body.error.message) || ("HTTP " + resp.status));
    return body;
  }

  function table(id, rows) {
    const t = $(id);
    t.replaceChildren();
    for (const [label, value] of rows) {
      const tr = document.createElement("tr");
      const a = document.createElement("td"); a.textContent = label; a.className = "label";
      const b = document.createElement("td"); b.textContent = "$" + value.toFixed(6); b.className = "num";
      tr.append(a, b); t.append(tr);
    }
  }

  function draw(name, type, labels, values, extra) {
    if (charts[name]) charts[name].destroy();
    const palette = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#dd4477", "#66aa00"];
    charts[name] = new Chart($("chart-" + name), {
      type,
      data: { labels, datasets: [{ label: "USD", data: values,
        backgroundColor: type === "line" ? "rgba(51,102,204,.2)" : labels.map((_, i) => palette[i % palette.length]),
        borderColor: type === "line" ? "#3366cc" : undefined, fill: type === "line", tension: 0.2 }] },
      options: Object.assign({ animation: false, responsive: true, maintainAspectRatio: false,
        plugins: { legend: { display: type === "doughnut" } } }, extra || {}),
    });
    $("chart-" + name).dataset.points = String(values.length);
  }

  async function load() {
    document.body.dataset.state = "loading";
    setStatus("Loading…", false);
    const range = { start: $("start").value, end: $("end").value };
    try {
      const [series, teams, models] = await Promise.all([
        api("usage", Object.assign({ granularity: "day" }, range)),
        api("top", Object.assign({ by: "team", limit: 20 }, range)),
        api("top", Object.assign({ by: "model", limit: 20 }, range)),
      ]);
      // One point per UTC day of the range, days without calls at 0.
      const byDay = new Map(series.data.map((r) => [r.bucket_start.slice(0, 10), usd(r.cost_micro_usd)]));
      const timeRows = [];
      for (let d = new Date(range.start + "T00:00:00Z"); d < new Date(range.end + "T00:00:00Z");
           d.setUTCDate(d.getUTCDate() + 1)) {
        timeRows.push([day(d), byDay.get(day(d)) || 0]);
      }
      draw("time", "line", timeRows.map((r) => r[0]), timeRows.map((r) => r[1]));
      table("table-time", timeRows.filter((r) => r[1] > 0));
      const teamRows = teams.data.map((r) => [r.team_id === null ? "(no team)" : r.team_id, usd(r.cost_micro_usd)]);
      draw("team", "bar", teamRows.map((r) => r[0]), teamRows.map((r) => r[1]));
      table("table-team", teamRows);
      const modelRows = models.data.map((r) => [r.model, usd(r.cost_micro_usd)]);
      draw("model", "doughnut", modelRows.map((r) => r[0]), modelRows.map((r) => r[1]));
      table("table-model", modelRows);
      const total = timeRows.reduce((s, r) => s + r[1], 0);
      setStatus("Total $" + total.toFixed(6) + " from " + range.start + " to " + range.end + " (UTC)", false);
      document.body.dataset.state = "ready";
    } catch (err) {
      setStatus(String(err.message || err), true);
      document.body.dataset.state = "error";
    }
  }

  $("controls").addEventListener("submit", (ev) => { ev.preventDefault(); load(); });
  window.addEventListener("hashchange", () => { fromFragment(); load(); });
  fromFragment();
  if ($("token").value) load();
})();
