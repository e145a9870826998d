"""A small fake systemd-logind on a private bus, for `photon follow` tests (dbus-next, a
library nobody here wrote, speaking the real D-Bus wire protocol).

Usage: DBUS_SYSTEM_BUS_ADDRESS=unix:path=... fake_logind.py
Owns org.freedesktop.login1 and serves Manager (GetSession, GetSessionByPID, Inhibit with a
real file descriptor whose closing it notices) and one Session (/org/freedesktop/login1/
session/c1: Lock, Unlock, the IdleHint property). Reads commands on stdin, one a line:
sleep, resume, shutdown, lock, unlock, idle, active. Prints READY, INHIBIT <who> <mode>
when a lock is taken, RELEASED when its holder closed it, and each signal it sent.
"""
import asyncio
import os
import sys

from dbus_next import BusType, Variant
from dbus_next.aio import MessageBus
from dbus_next.service import ServiceInterface, dbus_property, method, signal, PropertyAccess

SESSION = "/org/freedesktop/login1/session/c1"


def say(text: str) -> None:
    print(text, flush=True)


class Manager(ServiceInterface):
    def __init__(self, loop):
        super().__init__("org.freedesktop.login1.Manager")
        self.loop = loop

    @method()
    def GetSession(self, session_id: "s") -> "o":
        return SESSION

    @method()
    def GetSessionByPID(self, pid: "u") -> "o":
        return SESSION

    @method()
    def Inhibit(self, what: "s", who: "s", why: "s", mode: "s") -> "h":
        read_end, write_end = os.pipe()
        say(f"INHIBIT {who} {mode} {what}")

        def closed():
            if os.read(read_end, 1) == b"":
                self.loop.remove_reader(read_end)
                os.close(read_end)
                say("RELEASED")

        self.loop.add_reader(read_end, closed)
        # Our copy of the holder's end goes once the reply (which carries a duplicate) is out.
        self.loop.call_later(0.5, os.close, write_end)
        return write_end

    @signal()
    def PrepareForSleep(self, start) -> "b":
        return start

    @signal()
    def PrepareForShutdown(self, start) -> "b":
        return start


class Session(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.login1.Session")
        self.idle = False

    @signal()
    def Lock(self):
        pass

    @signal()
    def Unlock(self):
        pass

    @dbus_property(access=PropertyAccess.READ)
    def IdleHint(self) -> "b":
        return self.idle


async def main() -> None:
    loop = asyncio.get_running_loop()
    bus = await MessageBus(bus_type=BusType.SYSTEM, negotiate_unix_fd=True).connect()
    manager, session = Manager(loop), Session()
    bus.export("/org/freedesktop/login1", manager)
    bus.export(SESSION, session)
    await bus.request_name("org.freedesktop.login1")
    say("READY")
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := (await reader.readline()).decode().strip():
        if line == "sleep":
            manager.PrepareForSleep(True)
        elif line == "resume":
            manager.PrepareForSleep(False)
        elif line == "shutdown":
            manager.PrepareForShutdown(True)
        elif line == "lock":
            session.Lock()
        elif line == "unlock":
            session.Unlock()
        elif line in ("idle", "active"):
            session.idle = line == "idle"
            session.emit_properties_changed({"IdleHint": session.idle})
        say(f"SENT {line}")


asyncio.run(main())
