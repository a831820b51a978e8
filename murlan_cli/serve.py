"""``murlan serve``: play, replay and compare bots in the browser (the ``murlan_web`` app).

``murlan serve [--host 127.0.0.1] [--port 8000] [--open] [--bots SPEC,...] [--records DIR]
[--allowed-host NAME ...]``

The server binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise, and then
warns loudly: it has no login and no encryption. Either way it answers only to requests whose
``Host`` is this machine's loopback name or address, or (on a LAN) any IP address, or a name
given with ``--allowed-host``, so a web page cannot reach it through a DNS name of its own
(DNS rebinding). ``--bots`` adds bots to the menu, the only way a ``bundle:DIR`` or
``ckpt:PATH`` gets in (the browser never names a path).

It binds before the app starts and prints the address it listens on (the port it got, for
``--port 0``; for 0.0.0.0, 127.0.0.1 and this machine's LAN addresses), and says in words when
the address is not this machine's or the port is taken.

Building the parser imports neither the web framework nor torch: they load when the server
starts.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import os
import socket
import sys
import threading
import webbrowser
from pathlib import Path

from murlan_cli.terminal import UsageError

# murlan is not on PyPI yet: the extra is installed from a checkout or a wheel (docs/install.md),
# and naming the two packages works wherever murlan came from.
INSTALL_HINT = "python -m pip install fastapi uvicorn (in a checkout: pip install '.[serve]')"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan serve`` options."""
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens the "
        "server to the network, without login or encryption)",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default 8000; 0: a free one, printed)"
    )
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument(
        "--bots",
        action="append",
        default=[],
        metavar="SPEC[,SPEC...]",
        help="extra bots for the menu, e.g. ckpt:runs/x or bundle:bundles/quick (repeatable)",
    )
    parser.add_argument(
        "--records",
        default="murlan-records",
        metavar="DIR",
        help="folder for saved match records, the only folder the pages can read "
        "(default ./murlan-records)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name people use to reach the server, e.g. murlan.lan or mypc.local "
        "(repeatable; loopback names and, with --host 0.0.0.0, IP addresses are always allowed; "
        "'*' turns the host check off)",
    )
    parser.add_argument(
        "--game-hours",
        type=float,
        default=6.0,
        metavar="HOURS",
        help="a game, replay or finished tournament idle this long is forgotten (default 6)",
    )
    parser.add_argument(
        "--tournament-seconds",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="a tournament still running after this long is stopped (default 300)",
    )
    parser.add_argument(
        "--max-upload",
        type=int,
        default=1 << 20,
        metavar="BYTES",
        help="largest request body, e.g. an uploaded record (default 1 MiB)",
    )


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1 or localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, where others on its network reach it:
    the one its traffic to other networks leaves from (found by routing a UDP socket, which
    sends nothing) and those its host name resolves to; empty when it has none."""
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 1))
        found.append(probe.getsockname()[0])
    with contextlib.suppress(OSError):
        found += [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    usable = [ipaddress.ip_address(a) for a in dict.fromkeys(found)]
    return [str(a) for a in usable if not (a.is_loopback or a.is_unspecified)]


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (port 0: a free one), made before the app
    starts, so that the address printed is the one bound and a failure is said in words."""
    name = host.strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    try:
        return socket.create_server((name, port), family=family)
    except OSError as err:
        why = os.strerror(err.errno) if err.errno else str(err)
        if err.errno == errno.EADDRNOTAVAIL:
            ours = ", ".join(["127.0.0.1", *lan_addresses(), "0.0.0.0 (all of them)"])
            why += f": not an address of this machine (its addresses: {ours})"
        elif err.errno == errno.EADDRINUSE:
            why += ": pick another --port, or 0 for a free one"
        raise UsageError(f"cannot listen on {host} port {port}: {why}") from err


def url_of(host: str, port: int) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def where_to_open(host: str, port: int) -> tuple[str, str]:
    """The page's address on this machine, and a line saying where people open the server
    bound to ``host``:``port``: that address, or for every address (0.0.0.0, ::) the loopback
    one here and this machine's LAN addresses from other machines."""
    name = host.strip("[]")
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(name).is_unspecified:
            here = url_of("::1" if ":" in name else "127.0.0.1", port)
            lan = " or ".join(url_of(a, port) for a in (lan_addresses() if ":" not in name else []))
            elsewhere = lan or (
                f"this machine's address, port {port} (none found: see `ip addr` or `ipconfig`)"
            )
            return here, f"{here} on this machine, {elsewhere} from others"
    return url_of(name, port), url_of(name, port)


def open_warning(host: str, port: int) -> str:
    line = "!" * 78
    return (
        f"{line}\n"
        f"WARNING: murlan serve is listening on {host}:{port}, not just on this machine.\n"
        "Anyone who can reach this address can play, read and upload records and run\n"
        "tournaments here: there is no login and no encryption. Use --host 127.0.0.1\n"
        "unless you mean it. Reach it by IP address, or name the host names people use\n"
        "with --allowed-host NAME.\n"
        f"{line}"
    )


def run(args: argparse.Namespace) -> int:
    """Start the server from parsed arguments; returns the exit status."""
    try:
        import uvicorn

        from murlan_web.app import LOOPBACK_HOSTS, Settings, create_app
    except ImportError as err:
        raise UsageError(f"{err.name} is not installed: {INSTALL_HINT}") from err
    specs = [s.strip() for chunk in args.bots for s in chunk.split(",") if s.strip()]
    loopback = is_loopback(args.host)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port takes 0-65535, got {args.port}")
    if args.max_upload < 1024:
        raise UsageError("--max-upload must be at least 1024 bytes")
    if args.game_hours <= 0 or args.tournament_seconds <= 0:
        raise UsageError("time limits must be above 0")
    names = [n.strip() for n in args.allowed_host if n.strip()]
    settings = Settings(
        records_dir=Path(args.records),
        bots=tuple(specs),
        max_upload_bytes=args.max_upload,
        idle_seconds=args.game_hours * 3600,
        tournament_seconds=args.tournament_seconds,
        allowed_hosts=None if "*" in names else (*LOOPBACK_HOSTS, *names),
        allow_ip_hosts=not loopback,
    )
    try:
        app = create_app(settings)
    except (ValueError, OSError) as err:
        raise UsageError(str(err)) from err
    with listen(args.host, args.port) as sock:
        port = sock.getsockname()[1]
        if not loopback:
            print(open_warning(args.host, port), file=sys.stderr, flush=True)
        url, where = where_to_open(args.host, port)
        print(f"murlan serve: {where}  (records in {settings.records_dir}; Ctrl+C stops)")
        sys.stdout.flush()
        if args.open:
            threading.Timer(1.0, webbrowser.open, (url,)).start()
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    return 0
