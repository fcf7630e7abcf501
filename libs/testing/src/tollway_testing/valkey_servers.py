"""Private ``redis-server`` processes for tests that need a server of their own:
TLS, a unix socket, a password, or a three-node cluster.

Each server runs in a directory the caller owns (pytest's ``tmp_path``), with
no persistence, on free ports, and is stopped by the caller
(:meth:`PrivateServers.stop`). The stack's Valkey is never touched.

Cluster: three masters, no replicas, created as the Redis Cluster tutorial
does (``redis-server --cluster-enabled yes`` on each port, then
``redis-cli --cluster create h:p1 h:p2 h:p3 --cluster-replicas 0 --cluster-yes``);
each node also listens on its cluster bus port (port + 10000).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PrivateServers", "free_port", "make_self_signed_cert"]


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(bus: bool = False) -> int:
    """A free TCP port on 127.0.0.1 (with ``bus``: port + 10000 free too, for a cluster node)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if not bus or (port + 10000 < 65536 and _port_free(port + 10000)):
            return port
    raise RuntimeError("no free port")


def make_self_signed_cert(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``127.0.0.1``/``localhost`` (``openssl``);
    returns ``(cert.pem, key.pem)``; the certificate is its own CA."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@dataclass
class PrivateServers:
    """Starts and stops private ``redis-server`` processes under ``workdir``."""

    workdir: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, *args: str, port: int | None = None, name: str = "node") -> int:
        """Start one server with extra ``args``; returns its TCP port (0 when
        ``--port 0`` is among ``args``). Waits until it accepts connections."""
        port = free_port() if port is None else port
        d = self.workdir / f"{name}-{port}"
        d.mkdir(parents=True, exist_ok=True)
        cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        cmd += ["--dir", str(d), "--protected-mode", "no", "--logfile", str(d / "server.log"), *args]
        self.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return port

    def wait(self, *cli_args: str, timeout: float = 10.0) -> None:
        """Wait until ``redis-cli <cli_args> PING`` answers PONG."""
        deadline = time.monotonic() + timeout
        while True:
            out = subprocess.run(["redis-cli", *cli_args, "PING"], capture_output=True, text=True)
            if "PONG" in out.stdout:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"redis-server not answering ({cli_args}): {out.stdout}{out.stderr}")
            time.sleep(0.05)

    def cluster(self, nodes: int = 3) -> list[int]:
        """Start a cluster of ``nodes`` masters (no replicas); returns their
        ports once every slot is served (``cluster_state:ok`` on every node)."""
        if shutil.which("redis-cli") is None:
            raise RuntimeError("redis-cli not found")
        ports = []
        for _ in range(nodes):
            port = free_port(bus=True)
            self.start(
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                f"nodes-{port}.conf",
                "--cluster-node-timeout",
                "5000",
                port=port,
                name="cluster",
            )
            ports.append(port)
        for port in ports:
            self.wait("-p", str(port))
        subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports)]
            + ["--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            capture_output=True,
        )
        deadline = time.monotonic() + 30
        for port in ports:
            while True:
                info = subprocess.run(
                    ["redis-cli", "-p", str(port), "CLUSTER", "INFO"], capture_output=True, text=True
                ).stdout
                if "cluster_state:ok" in info:
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"cluster node {port} not ok: {info}")
                time.sleep(0.1)
        return ports

    def stop(self) -> None:
        """Stop every server started here (SIGTERM, then SIGKILL)."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)
        self.procs.clear()
