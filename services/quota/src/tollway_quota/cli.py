"""``tollway-admin``: the admin CLI (typer + rich) over the admin API.

Reads ``TOLLWAY_ADMIN_URL`` (default ``http://127.0.0.1:8082``) and
``TOLLWAY_ADMIN_TOKEN`` (also ``--url``/``--token``). Exit codes: 0 ok,
1 the API refused (its message is printed), 2 usage error.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import httpx
import orjson
import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table
from tenacity import Retrying, retry_if_result, stop_after_delay, wait_fixed

from tollway_contracts.admin import (
    KeyCreate,
    LimitList,
    LimitSet,
    ReportingTokenCreate,
    TeamCreate,
    TenantCreate,
    TenantUpdate,
    UserCreate,
)
from tollway_contracts.redaction import RedactionPolicy, encode, parse_policy
from tollway_quota.client import AdminApiError, AdminClient

_T = TypeVar("_T")

app = typer.Typer(help="Administer Tollway principals through the quota admin API.", no_args_is_help=True)
tenant_app = typer.Typer(help="Tenants.", no_args_is_help=True)
team_app = typer.Typer(help="Teams.", no_args_is_help=True)
user_app = typer.Typer(help="Users.", no_args_is_help=True)
key_app = typer.Typer(help="API keys.", no_args_is_help=True)
limit_app = typer.Typer(help="Limits and budgets per scope (key, user, team, tenant).", no_args_is_help=True)
app.add_typer(tenant_app, name="tenant")
app.add_typer(team_app, name="team")
app.add_typer(user_app, name="user")
app.add_typer(key_app, name="key")
app.add_typer(limit_app, name="limit")
reporting_token_app = typer.Typer(
    help="Tenant-scoped read tokens of the reporting API.", no_args_is_help=True
)
app.add_typer(reporting_token_app, name="reporting-token")

out = Console()
POLICY_HELP = (
    'e.g. {"mode": "redact"}; {"mode": "redact", "answers": "block"} also scans the provider\'s answers '
    "(answers: off | redact | block)"
)
err = Console(stderr=True)

DEMO = "demo"
DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"


class _Conn:
    url: str = "http://127.0.0.1:8082"
    token: str = ""


_conn = _Conn()


@app.callback()
def _main(
    url: Annotated[
        str, typer.Option("--url", envvar="TOLLWAY_ADMIN_URL", help="quota admin API base URL")
    ] = "http://127.0.0.1:8082",
    token: Annotated[
        str, typer.Option("--token", envvar="TOLLWAY_ADMIN_TOKEN", help="admin token", show_default=False)
    ] = "",
) -> None:
    _conn.url = url
    _conn.token = token


def _client() -> AdminClient:
    if not _conn.token:
        err.print("[red]TOLLWAY_ADMIN_TOKEN is not set (or pass --token)[/red]")
        raise typer.Exit(2)
    return AdminClient(_conn.url, _conn.token)


def _fail(exc: Exception) -> typer.Exit:
    if isinstance(exc, AdminApiError):
        err.print(f"[red]error {exc.status} ({exc.code}): {exc.message}[/red]")
    else:
        err.print(f"[red]cannot reach the admin API at {_conn.url}: {type(exc).__name__}[/red]")
    return typer.Exit(1)


def _invalid(exc: ValidationError) -> typer.Exit:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    err.print(f"[red]invalid {where or 'arguments'}: {first.get('msg', 'invalid')}[/red]")
    return typer.Exit(2)


def _body(contract: Callable[..., _T], /, **fields: Any) -> _T:
    """``contract(**fields)``, a request body (positional-only ``contract``: a body
    may have a field named ``model``); invalid arguments exit 2 naming the field."""
    try:
        return contract(**fields)
    except ValidationError as exc:
        raise _invalid(exc) from None


def _call(op: Callable[[AdminClient], _T]) -> _T:
    """``op`` on a client of the admin API; an API error or an unreachable API
    exits 1 with the reason (``_fail``)."""
    try:
        with _client() as c:
            return op(c)
    except (AdminApiError, httpx.HTTPError) as exc:
        raise _fail(exc) from None


# --- tenant ------------------------------------------------------------------------


@tenant_app.command("create")
def tenant_create(name: str, time_zone: Annotated[str, typer.Option(help="IANA time zone")] = "UTC") -> None:
    """Create a tenant; prints its id."""
    body = _body(TenantCreate, name=name, time_zone=time_zone)
    t = _call(lambda c: c.create_tenant(body))
    out.print(f"tenant {t.name} [bold]{t.id}[/bold]")


@tenant_app.command("list")
def tenant_list() -> None:
    """List tenants."""
    tenants = _call(lambda c: c.list_tenants())
    table = Table("id", "name", "time zone", "alert webhook", "created")
    for t in tenants:
        table.add_row(t.id, t.name, t.time_zone, t.alert_webhook_url or "", t.created_at.isoformat())
    out.print(table)


def _update_tenant(tenant_id: str, **fields: Any) -> None:
    body = _body(TenantUpdate, **fields)
    t = _call(lambda c: c.update_tenant(tenant_id, body))
    out.print(f"tenant {t.id} time zone {t.time_zone} alert webhook {t.alert_webhook_url or '(none)'}")


@tenant_app.command("set-timezone")
def tenant_set_timezone(
    tenant_id: str, time_zone: Annotated[str, typer.Argument(help="IANA name, e.g. Europe/Paris")]
) -> None:
    """Set the tenant's time zone (budget periods follow it)."""
    _update_tenant(tenant_id, time_zone=time_zone)


@tenant_app.command("set-webhook")
def tenant_set_webhook(
    tenant_id: str,
    url: Annotated[str | None, typer.Argument(help="http(s) URL; omit with --clear")] = None,  # noqa: UP007
    clear: Annotated[bool, typer.Option("--clear", help="remove the webhook")] = False,
) -> None:
    """Set (or --clear) the URL budget alerts are POSTed to."""
    if (url is None) != clear:
        err.print("[red]give a URL or --clear[/red]")
        raise typer.Exit(2)
    _update_tenant(tenant_id, alert_webhook_url=url)


# --- limit --------------------------------------------------------------------------------


@limit_app.command("set")
def limit_set(
    scope: Annotated[str, typer.Argument(help="key | user | team | tenant")],
    scope_id: Annotated[str, typer.Argument(help="the key id, user id, team id or tenant id")],
    model: Annotated[str | None, typer.Option(help="narrow to one model")] = None,  # noqa: UP007
    rpm: Annotated[int | None, typer.Option("--rpm", help="requests per minute")] = None,  # noqa: UP007
    tpm: Annotated[int | None, typer.Option("--tpm", help="tokens per minute")] = None,  # noqa: UP007
    max_concurrent: Annotated[int | None, typer.Option(help="calls in flight")] = None,  # noqa: UP007
    budget_micro_usd: Annotated[int | None, typer.Option(help="budget, micro-USD per period")] = None,  # noqa: UP007
    period: Annotated[str | None, typer.Option(help="day | week | month")] = None,  # noqa: UP007
    threshold: Annotated[
        list[int] | None, typer.Option("--threshold", help="alert at this percent (repeat)")
    ] = None,  # noqa: UP007
    shadow: Annotated[bool, typer.Option("--shadow", help="report only, never refuse")] = False,
) -> None:
    """Create or replace the limit of one scope (and model)."""
    fields: dict[str, Any] = dict(
        scope=scope,
        scope_id=scope_id,
        model=model,
        requests_per_minute=rpm,
        tokens_per_minute=tpm,
        max_concurrent=max_concurrent,
        budget_micro_usd=budget_micro_usd,
        budget_period=period,
        shadow=shadow,
    )
    if threshold:
        fields["thresholds_percent"] = threshold
    body = _body(LimitSet, **fields)
    lim = _call(lambda c: c.set_limit(body))
    out.print(
        f"limit [bold]{lim.id}[/bold] on {lim.scope} {lim.scope_id}"
        + (f" model {lim.model}" if lim.model else "")
    )


@limit_app.command("list")
def limit_list(
    tenant_id: str,
    as_json: Annotated[bool, typer.Option("--json", help="print the API's JSON (LimitList)")] = False,
) -> None:
    """List a tenant's limits."""
    limits = _call(lambda c: c.list_limits(tenant_id))
    if as_json:
        print(LimitList(data=limits).model_dump_json())
        return
    table = Table()
    for name in (
        "id",
        "scope",
        "scope id",
        "model",
        "rpm",
        "tpm",
        "concurrent",
        "budget micro-USD",
        "period",
        "thresholds %",
        "shadow",
    ):
        table.add_column(name, overflow="fold")  # ids must stay copyable in narrow terminals

    def n(v: int | None) -> str:
        return "" if v is None else str(v)

    for lim in limits:
        table.add_row(
            lim.id,
            lim.scope,
            lim.scope_id,
            lim.model or "*",
            n(lim.requests_per_minute),
            n(lim.tokens_per_minute),
            n(lim.max_concurrent),
            n(lim.budget_micro_usd),
            lim.budget_period or "",
            ",".join(map(str, lim.thresholds_percent)),
            "yes" if lim.shadow else "",
        )
    out.print(table)


@limit_app.command("delete")
def limit_delete(limit_id: str) -> None:
    """Delete a limit."""
    lim = _call(lambda c: c.delete_limit(limit_id))
    out.print(f"limit {lim.id} deleted")


# --- team / user -------------------------------------------------------------------------


@team_app.command("create")
def team_create(tenant_id: str, name: str) -> None:
    """Create a team in a tenant; prints its id."""
    body = _body(TeamCreate, tenant_id=tenant_id, name=name)
    t = _call(lambda c: c.create_team(body))
    out.print(f"team {t.name} [bold]{t.id}[/bold]")


@team_app.command("set-policy")
def team_set_policy(team_id: str, policy_json: Annotated[str, typer.Argument(help=POLICY_HELP)]) -> None:
    """Set a team's redaction policy (JSON of tollway_contracts.redaction.RedactionPolicy)."""
    policy = _parse_policy(policy_json)
    t = _call(lambda c: c.set_team_policy(team_id, policy))
    out.print(f"team {t.id} policy {encode(t.redaction_policy).decode() if t.redaction_policy else 'off'}")


@user_app.command("create")
def user_create(
    tenant_id: str,
    name: str,
    team_id: Annotated[str | None, typer.Option(help="team of the user")] = None,  # noqa: UP007
    email: Annotated[str | None, typer.Option()] = None,  # noqa: UP007
) -> None:
    """Create a user; prints its id."""
    body = _body(UserCreate, tenant_id=tenant_id, team_id=team_id, name=name, email=email)
    u = _call(lambda c: c.create_user(body))
    out.print(f"user {u.name} [bold]{u.id}[/bold]")


# --- key -----------------------------------------------------------------------------------


@key_app.command("create")
def key_create(
    tenant_id: str,
    name: str,
    team_id: Annotated[str | None, typer.Option()] = None,  # noqa: UP007
    user_id: Annotated[str | None, typer.Option()] = None,  # noqa: UP007
    model: Annotated[
        list[str] | None, typer.Option("--model", help="allowed model (repeat); none = all")
    ] = None,  # noqa: UP007
    expires_at: Annotated[datetime | None, typer.Option(help="UTC expiry")] = None,  # noqa: UP007
) -> None:
    """Mint an API key and print it ONCE."""
    if expires_at is not None and expires_at.tzinfo is None:
        expires_at = expires_at.replace(tzinfo=UTC)
    body = _body(
        KeyCreate,
        tenant_id=tenant_id,
        team_id=team_id,
        user_id=user_id,
        name=name,
        allowed_models=model or None,
        expires_at=expires_at,
    )
    k = _call(lambda c: c.create_key(body))
    out.print(f"key id [bold]{k.key_id}[/bold]")
    out.print(k.key, highlight=False, soft_wrap=True)
    err.print("[yellow]Store this key now: it will not be shown again.[/yellow]")


@key_app.command("list")
def key_list(tenant_id: Annotated[str | None, typer.Option()] = None) -> None:  # noqa: UP007
    """List keys (never secrets)."""
    keys = _call(lambda c: c.list_keys(tenant_id))
    table = Table("key id", "tenant", "team", "user", "name", "models", "policy", "expires", "revoked")
    for k in keys:
        table.add_row(
            k.key_id,
            k.tenant_id,
            k.team_id or "",
            k.user_id or "",
            k.name,
            ",".join(k.allowed_models) if k.allowed_models is not None else "*",
            k.redaction_policy.mode if k.redaction_policy else "(team)",
            k.expires_at.isoformat() if k.expires_at else "",
            k.revoked_at.isoformat() if k.revoked_at else "",
        )
    out.print(table)


@key_app.command("revoke")
def key_revoke(key_id: str) -> None:
    """Revoke a key (in force on every edge within a second)."""
    k = _call(lambda c: c.revoke_key(key_id))
    out.print(f"key {k.key_id} revoked at {k.revoked_at.isoformat() if k.revoked_at else '?'}")


# --- reporting tokens ---------------------------------------------------------------


@reporting_token_app.command("create")
def reporting_token_create(tenant_id: str, name: str) -> None:
    """Mint a reporting token for a tenant; the full token is printed this once."""
    body = _body(ReportingTokenCreate, tenant_id=tenant_id, name=name)
    t = _call(lambda c: c.create_reporting_token(body))
    out.print(f"reporting token {t.id} for tenant {t.tenant_id} ({t.name})")
    out.print("token (shown once, store it now):")
    print(t.token)


@reporting_token_app.command("list")
def reporting_token_list(tenant_id: Annotated[str | None, typer.Option()] = None) -> None:  # noqa: UP007
    """List reporting tokens (never secrets or hashes)."""
    tokens = _call(lambda c: c.list_reporting_tokens(tenant_id))
    table = Table("token id", "tenant", "name", "created", "revoked")
    for t in tokens:
        table.add_row(
            t.id,
            t.tenant_id,
            t.name,
            t.created_at.isoformat(),
            t.revoked_at.isoformat() if t.revoked_at else "",
        )
    out.print(table)


@reporting_token_app.command("revoke")
def reporting_token_revoke(token_id: str) -> None:
    """Revoke a reporting token (the reporting API refuses it within its cache TTL)."""
    t = _call(lambda c: c.revoke_reporting_token(token_id))
    out.print(f"reporting token {t.id} revoked at {t.revoked_at.isoformat() if t.revoked_at else '?'}")


def _parse_policy(policy_json: str) -> RedactionPolicy:
    try:
        return parse_policy(orjson.loads(policy_json))
    except ValueError as exc:
        err.print(f"[red]invalid policy: {exc}[/red]")
        raise typer.Exit(2) from None


@key_app.command("set-policy")
def key_set_policy(key_id: str, policy_json: Annotated[str, typer.Argument(help=POLICY_HELP)]) -> None:
    """Set a key's redaction policy (JSON of tollway_contracts.redaction.RedactionPolicy)."""
    policy = _parse_policy(policy_json)
    k = _call(lambda c: c.set_key_policy(key_id, policy))
    out.print(f"key {k.key_id} policy {encode(k.redaction_policy).decode() if k.redaction_policy else 'off'}")


# --- bootstrap-demo ---------------------------------------------------------------------------


def write_env_file(path: Path, lines: dict[str, str]) -> None:
    """Write ``NAME=value`` lines to ``path`` with mode 0600 (also when it existed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, "".join(f"{k}={v}\n" for k, v in lines.items()).encode())
    finally:
        os.close(fd)


@app.command("bootstrap-demo")
def bootstrap_demo(
    env_file: Annotated[Path, typer.Option("--env-file", help="env file to write (mode 0600)")],
    base_url: Annotated[
        str, typer.Option("--base-url", help="the edge's OpenAI base URL")
    ] = DEFAULT_BASE_URL,
    wait_seconds: Annotated[
        float, typer.Option(help="wait this long for the quota service to be ready")
    ] = 30.0,
) -> None:
    """Ensure tenant/team/user `demo`, mint a FRESH key for all models, and write
    OPENAI_BASE_URL, OPENAI_API_KEY and TOLLWAY_ADMIN_TOKEN to the env file."""
    try:
        with _client() as c:
            ready = Retrying(
                stop=stop_after_delay(wait_seconds),
                wait=wait_fixed(0.5),
                retry=retry_if_result(lambda answered: not answered),
                retry_error_callback=lambda _: False,
            )(c.ready)
            if not ready:
                err.print(f"[red]the admin API at {_conn.url} is not ready[/red]")
                raise typer.Exit(1)
            tenant = next((t for t in c.list_tenants() if t.name == DEMO), None)
            if tenant is None:
                tenant = _create_or_find(
                    lambda: c.create_tenant(TenantCreate(name=DEMO)),
                    lambda: next(t for t in c.list_tenants() if t.name == DEMO),
                )
            team = next((t for t in c.list_teams(tenant.id) if t.name == DEMO), None)
            if team is None:
                team = _create_or_find(
                    lambda: c.create_team(TeamCreate(tenant_id=tenant.id, name=DEMO)),
                    lambda: next(t for t in c.list_teams(tenant.id) if t.name == DEMO),
                )
            user = next((u for u in c.list_users(tenant.id) if u.name == DEMO), None)
            if user is None:
                user = _create_or_find(
                    lambda: c.create_user(UserCreate(tenant_id=tenant.id, team_id=team.id, name=DEMO)),
                    lambda: next(u for u in c.list_users(tenant.id) if u.name == DEMO),
                )
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            key = c.create_key(
                KeyCreate(
                    tenant_id=tenant.id,
                    team_id=team.id,
                    user_id=user.id,
                    name=f"demo-{stamp}",
                    allowed_models=None,
                )
            )
    except (AdminApiError, httpx.HTTPError) as exc:
        raise _fail(exc) from None
    write_env_file(
        env_file,
        {
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": key.key,
            "TOLLWAY_ADMIN_TOKEN": _conn.token,
        },
    )
    out.print(f"demo tenant {tenant.id}, team {team.id}, user {user.id}, key {key.key_id}", soft_wrap=True)
    out.print(f"wrote {env_file} (mode 0600)")


def _create_or_find(create: Callable[[], _T], find: Callable[[], _T]) -> _T:
    """``create()``, or ``find()`` when it conflicts (409): a race with another
    bootstrap is fine."""
    try:
        return create()
    except AdminApiError as exc:
        if exc.status != 409:
            raise
        return find()


def main() -> None:
    """Console script entry point (``tollway-admin``)."""
    app()
