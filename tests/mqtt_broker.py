"""A real Mosquitto for the fleet tests: its own config file, a free loopback port, never the system service.

Persistence is on (in the test's directory), so a broker stopped and started again keeps its retained
messages and the sessions of subscribers that asked for one, as an event's broker would.
"""

from __future__ import annotations

import getpass
import socket
import subprocess
import time
from pathlib import Path

from conftest import need_tool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    def __init__(self, workdir: Path, port: int | None = None, *, tls: tuple[Path, Path, Path] | None = None,
                 password_file: Path | None = None, acl_file: Path | None = None, conf_text: str | None = None) -> None:
        """``conf_text``, if given, is the whole config file; ``{port}`` and ``{dir}`` in it are filled in."""
        # Debian puts the broker in /usr/sbin, which a non-root PATH may lack.
        sbin = Path("/usr/sbin/mosquitto")
        self.exe = str(sbin) if sbin.exists() else need_tool("mosquitto", "mosquitto")
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        lines = [f"listener {self.port} 127.0.0.1",
                 f"allow_anonymous {'false' if password_file else 'true'}",
                 "persistence true", f"persistence_location {self.dir}/",
                 "autosave_interval 1",  # saved every second too, so even a killed broker keeps its sessions
                 f"log_dest file {self.dir / 'mosquitto.log'}", "log_type all",
                 f"user {getpass.getuser()}"]  # as root it would switch to the user "mosquitto" otherwise
        if tls:
            ca, cert, key = tls
            lines += [f"cafile {ca}", f"certfile {cert}", f"keyfile {key}"]
        if password_file:
            lines.append(f"password_file {password_file}")
        if acl_file:
            lines.append(f"acl_file {acl_file}")
        self.conf = self.dir / "mosquitto.conf"
        if conf_text is not None:
            lines = [conf_text.replace("{port}", str(self.port)).replace("{dir}", str(self.dir)), *lines[2:]]
        self.conf.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> Mosquitto:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited {self.proc.returncode}: {self.proc.stderr.read().decode()} "
                                   f"{self.log(3000)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s: {self.log(3000)}")

    def stop(self) -> None:
        """SIGTERM, as a service stop does (Mosquitto saves its persistence file then)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc is not None and self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None

    def kill(self) -> None:
        """SIGKILL: the broker dies without a word (a power cut, a crash)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(5)
            if self.proc.stderr:
                self.proc.stderr.close()
            self.proc = None

    def log(self, tail: int | None = None) -> str:
        """The broker's log (``log_type all``: every packet), or its last ``tail`` characters."""
        p = self.dir / "mosquitto.log"
        text = p.read_text(errors="replace") if p.exists() else ""
        return text[-tail:] if tail else text

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
