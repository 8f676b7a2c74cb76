"""The production topology on one machine: nginx in front of several Daphne workers and one
scheduler, on the PostgreSQL and Redis that DATABASE_URL and REDIS_URL name.

docker/compose.yaml describes the same topology in containers; Docker is not on every machine,
so this starts it from the machine's own nginx (Debian's package), with docker/nginx.conf's
server block as it is, only its upstream pointed at local ports and its `listen` at ours.

    python -m gemsite.topology --port 8000 --workers 2      (or: make topology)

The test suite starts it on the test database (tests/core/test_topology.py) and the fan-out
benchmark can aim its spectators at it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE_CONF = ROOT / "docker" / "nginx.conf"
NGINX_CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx")


def find_nginx() -> str | None:
    found = shutil.which("nginx")
    return found or next((path for path in NGINX_CANDIDATES if os.access(path, os.X_OK)), None)


def site_config(conf: str, listen_port: int, worker_ports: Sequence[int]) -> str:
    """docker/nginx.conf's server block with its upstream on ``worker_ports`` and its listen
    on ``listen_port``, both on the loopback address."""
    servers = "".join(f"    server 127.0.0.1:{port};\n" for port in worker_ports)
    conf, upstreams = re.subn(
        r"(upstream daphne_workers \{\n)(.*?)(\})", rf"\g<1>{servers}\g<3>", conf, flags=re.S
    )
    conf, listens = re.subn(r"listen 80;", f"listen 127.0.0.1:{listen_port};", conf)
    if upstreams != 1 or listens != 1:
        raise ValueError("docker/nginx.conf no longer has one upstream block and one `listen 80`")
    return conf


def main_config(workdir: Path, site: Path) -> str:
    """A whole nginx configuration around the site's server block, every file it writes kept
    in ``workdir``; its access log names the worker each request went to."""
    temp = {kind: workdir / kind for kind in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    return f"""daemon off;
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 8192; }}
http {{
    log_format upstream '$connection $status $upstream_addr "$request"';
    access_log {workdir}/access.log upstream;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {site};
}}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, process: subprocess.Popen[bytes], name: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} did not listen on {port} in 120 s")


class Topology:
    """nginx on ``port`` in front of ``workers`` Daphne workers, and one scheduler process."""

    def __init__(
        self,
        *,
        port: int | None = None,
        workers: int = 2,
        env: Mapping[str, str] | None = None,
        python: str = sys.executable,
    ) -> None:
        if workers < 1:
            raise ValueError("the topology needs at least one worker")
        self.port = port or free_port()
        self.worker_ports = [free_port() for _ in range(workers)]
        self.env = dict(env if env is not None else os.environ)
        self.python = python
        self.workdir = Path(tempfile.mkdtemp(prefix="gem-arena-topology-"))
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen[bytes]:
        log = (self.workdir / f"{name}.log").open("ab")
        process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        self.processes[name] = process
        return process

    def start(self) -> Topology:
        nginx = find_nginx()
        if nginx is None:
            raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
        try:
            for index, port in enumerate(self.worker_ports, start=1):
                name = f"worker-{index}"
                serve = ["manage.py", "serve", "--port", str(port), "--no-scheduler"]
                wait_listening(port, self._spawn(name, [self.python, *serve]), name)
            self._spawn("scheduler", [self.python, "manage.py", "run_scheduler"])
            site = self.workdir / "site.conf"
            site.write_text(site_config(SITE_CONF.read_text(), self.port, self.worker_ports))
            conf = self.workdir / "nginx.conf"
            conf.write_text(main_config(self.workdir, site))
            proxy = self._spawn("nginx", [nginx, "-p", str(self.workdir), "-c", str(conf)])
            wait_listening(self.port, proxy, "nginx")
        except BaseException:
            self.stop()
            raise
        return self

    def requests_served(self) -> list[tuple[int, str, str]]:
        """(nginx's connection number, the worker's address, the request line) of every request
        nginx has logged so far, in the order their connections were opened (a websocket is
        logged when it closes)."""
        log = self.workdir / "access.log"
        entries = []
        for line in log.read_text().splitlines() if log.exists() else []:
            connection, _status, upstream, request = line.split(" ", 3)
            entries.append((int(connection), upstream, request.strip('"')))
        return sorted(entries)

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        # nginx first, so no request reaches a worker that is going away.
        for name in sorted(self.processes, key=lambda name: name != "nginx"):
            process = self.processes[name]
            if process.poll() is None:
                process.send_signal(signal.SIGTERM if name != "nginx" else signal.SIGQUIT)
        for process in self.processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args(argv)
    topology = Topology(port=options.port, workers=options.workers).start()
    print(
        f"Gem Arena is serving on {topology.url}/ through nginx, in front of "
        f"{len(topology.worker_ports)} Daphne workers (ports "
        f"{', '.join(map(str, topology.worker_ports))}) and a scheduler; logs in "
        f"{topology.workdir}. Ctrl-C stops them all.",
        flush=True,
    )
    try:
        while all(process.poll() is None for process in topology.processes.values()):
            time.sleep(0.5)
        stopped = [
            name for name, process in topology.processes.items() if process.poll() is not None
        ]
        print(f"stopping: {', '.join(stopped)} exited", file=sys.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        topology.stop()


if __name__ == "__main__":
    main()
