"""What the operating system says a set of processes spent: CPU from /proc/<pid>/stat, memory from RSS.

A *process group* here is a named set of pids that is re-resolved at every reading
(workers fork, a supervisor respawns). It is found either from a root pid we started
(the root and all its descendants) or from a TCP port someone else's process listens
on (the listeners, their descendants, and a supervising parent such as `uv run`).

CPU is utime+stime+cutime+cstime in clock ticks (the c* fields hold children that
exited and were reaped), summed over the set, converted to seconds with SC_CLK_TCK.
A process that exits between two readings takes its ticks with it unless a member
reaps it; gateways under steady load don't lose workers, so this is a known, small
under-count rather than a bias between peers.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

# Parents that only supervise a server process; their CPU is counted with it.
_SUPERVISORS = {"uv", "python", "python3", "python3.11", "node", "gunicorn", "uvicorn", "litellm"}


@dataclass(slots=True)
class Stat:
    pid: int
    comm: str
    ppid: int
    sid: int
    ticks: int  # utime+stime+cutime+cstime
    rss_bytes: int


def read_stat(pid: int) -> Stat | None:
    """Parse /proc/<pid>/stat; None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # comm may contain spaces and parentheses: split at the last ')'.
    lpar, rpar = raw.index("("), raw.rindex(")")
    comm = raw[lpar + 1 : rpar]
    rest = raw[rpar + 2 :].split()
    # rest[0] is field 3 (state); field n is rest[n-3].
    ppid, sid = int(rest[1]), int(rest[3])
    utime, stime, cutime, cstime = (int(rest[i]) for i in (11, 12, 13, 14))
    rss_pages = int(rest[21])
    return Stat(pid, comm, ppid, sid, utime + stime + cutime + cstime, rss_pages * PAGE)


def all_pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def children_map() -> dict[int, list[int]]:
    """ppid -> [pid] for every live process."""
    out: dict[int, list[int]] = {}
    for pid in all_pids():
        st = read_stat(pid)
        if st is not None:
            out.setdefault(st.ppid, []).append(pid)
    return out


def descendants(roots: Iterable[int], cmap: dict[int, list[int]] | None = None) -> set[int]:
    """The roots and every process below them."""
    cmap = cmap if cmap is not None else children_map()
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        stack.extend(cmap.get(pid, ()))
    return seen


def _listen_inodes(port: int) -> set[str]:
    inodes: set[str] = set()
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    local, state, inode = parts[1], parts[3], parts[9]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        inodes.add(inode)
        except FileNotFoundError:
            continue
    return inodes


def listeners(port: int) -> list[int]:
    """Pids holding a listening TCP socket on `port` (any local address)."""
    inodes = _listen_inodes(port)
    if not inodes:
        return []
    targets = {f"socket:[{i}]" for i in inodes}
    found: list[int] = []
    for pid in all_pids():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except (FileNotFoundError, PermissionError, ProcessLookupError):
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") in targets:
                    found.append(pid)
                    break
            except OSError:
                continue
    return found


def port_group_pids(port: int) -> set[int]:
    """Listeners on `port`, their descendants, and supervising parents (uv run, a master)."""
    roots = set(listeners(port))
    if not roots:
        return set()
    extra: set[int] = set()
    for pid in roots:
        st = read_stat(pid)
        while st is not None and st.ppid > 1:
            parent = read_stat(st.ppid)
            if parent is None or parent.comm not in _SUPERVISORS:
                break
            extra.add(parent.pid)
            st = parent
    return descendants(roots | extra)


@dataclass
class ProcGroup:
    """A named set of processes, re-resolved at each reading."""

    name: str
    resolve: Callable[[], set[int]]
    note: str = ""
    port: int | None = None  # from_port: the listeners on it are the group's workers

    @classmethod
    def from_pid(cls, name: str, pid: int, note: str = "") -> ProcGroup:
        return cls(name, lambda: descendants([pid]), note)

    @classmethod
    def from_port(cls, name: str, port: int, note: str = "") -> ProcGroup:
        return cls(name, lambda: port_group_pids(port), note, port)

    def per_process(self) -> list[dict]:
        """Each live process of the group: pid, comm, RSS bytes, and whether it listens on the
        group's port (a *worker*: the edge's SO_REUSEPORT processes; the rest supervise)."""
        workers = set(listeners(self.port)) if self.port is not None else set()
        out = []
        for pid in sorted(self.resolve()):
            st = read_stat(pid)
            if st is not None:
                out.append({"pid": pid, "comm": st.comm, "rss_bytes": st.rss_bytes, "worker": pid in workers})
        return out

    def reading(self) -> Reading:
        ticks = rss = 0
        pids = self.resolve()
        alive = 0
        for pid in pids:
            st = read_stat(pid)
            if st is None:
                continue
            alive += 1
            ticks += st.ticks
            rss += st.rss_bytes
        return Reading(ticks, rss, alive)


@dataclass(slots=True)
class Reading:
    ticks: int
    rss_bytes: int
    processes: int


def machine_busy_ticks() -> tuple[int, int]:
    """(busy, total) ticks over all cores from /proc/stat."""
    with open("/proc/stat") as f:
        cpu = f.readline().split()[1:]
    vals = [int(v) for v in cpu[:8]]
    idle = vals[3] + vals[4]  # idle + iowait
    total = sum(vals)
    return total - idle, total


@dataclass
class Window:
    """CPU seconds and peak RSS of each group over one measured window."""

    cpu_s: dict[str, float] = field(default_factory=dict)
    peak_rss_bytes: dict[str, int] = field(default_factory=dict)
    processes: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    machine_busy_cores: float = 0.0  # average busy cores on the whole machine (all users)


class Meter:
    """Take readings of several groups before/after a window; sample RSS in between.

    Usage::

        with Meter(groups) as m:
            run_load()
        m.window.cpu_s["edge"]  # CPU seconds the edge spent during the window
    """

    def __init__(self, groups: list[ProcGroup], sample_every_s: float = 0.25, settle_s: float = 0.0) -> None:
        self.groups = groups
        self.sample_every_s = sample_every_s
        self.settle_s = settle_s
        self.window = Window()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._before: dict[str, Reading] = {}

    def _sample(self) -> None:
        while not self._stop.wait(self.sample_every_s):
            for g in self.groups:
                r = g.reading()
                if r.rss_bytes > self.window.peak_rss_bytes.get(g.name, 0):
                    self.window.peak_rss_bytes[g.name] = r.rss_bytes

    def __enter__(self) -> Meter:
        self._before = {g.name: g.reading() for g in self.groups}
        for g in self.groups:
            self.window.peak_rss_bytes[g.name] = self._before[g.name].rss_bytes
        self._m0 = machine_busy_ticks()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.settle_s:
            time.sleep(self.settle_s)  # let asynchronous consumers (ledger, quota) catch up
        self._stop.set()
        if self._thread:
            self._thread.join()
        wall = time.monotonic() - self._t0
        m1 = machine_busy_ticks()
        for g in self.groups:
            after = g.reading()
            self.window.cpu_s[g.name] = max(0, after.ticks - self._before[g.name].ticks) / CLK_TCK
            self.window.processes[g.name] = after.processes
            self.window.peak_rss_bytes[g.name] = max(
                self.window.peak_rss_bytes.get(g.name, 0), after.rss_bytes
            )
        self.window.wall_s = wall
        busy = m1[0] - self._m0[0]
        self.window.machine_busy_cores = busy / CLK_TCK / wall if wall else 0.0


def rusage_cpu_s(ru: os.struct_rusage | None) -> float:
    """User+system CPU seconds from a wait4() rusage."""
    return 0.0 if ru is None else ru.ru_utime + ru.ru_stime


def valkey_commands_processed(port: int = 6379) -> int | None:
    """`total_commands_processed` from Valkey's INFO stats (a raw RESP call); None if unreachable.

    Counts every client's commands, other users' too: a delta per call well below 1 during a
    Tollway step means admission (one script call per request) is not on the path.
    """
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n")
            buf = b""
            while b"total_commands_processed:" not in buf or not buf.endswith(b"\r\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
                if len(buf) > 1_000_000:
                    break
    except OSError:
        return None
    for line in buf.split(b"\r\n"):
        if line.startswith(b"total_commands_processed:"):
            return int(line.split(b":", 1)[1])
    return None


def metric_total(url: str, name: str, timeout_s: float = 2.0) -> float | None:
    """The sum of every sample of metric `name` (all label sets) in the Prometheus text at `url`.

    None if the endpoint does not answer or does not export the metric (e.g. a service started
    from code that predates it), so a missing counter is reported, never read as zero.
    """
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as r:
            text = r.read().decode(errors="replace")
    except OSError:
        return None
    return parse_metric_total(text, name)


def parse_metric_total(text: str, name: str) -> float | None:
    """Sum of the samples named exactly `name` (with or without labels) in Prometheus text; None if absent."""
    total, seen = 0.0, False
    for line in text.splitlines():
        if not line.startswith(name):
            continue
        rest = line[len(name) :]
        if rest[:1] not in ("{", " "):
            continue  # a longer name with this prefix
        try:
            total += float(line.rsplit(" ", 1)[1])
            seen = True
        except (IndexError, ValueError):
            continue
    return total if seen else None
