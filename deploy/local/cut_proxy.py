#!/usr/bin/env python3
"""A TCP proxy whose link a test can cut: the local cluster puts it between
the instances and PostgreSQL, and the cluster test cuts it.

    cut_proxy.py LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT CONTROL_SOCKET

Listens on 127.0.0.1:LISTEN_PORT and forwards each connection to
UPSTREAM_HOST:UPSTREAM_PORT. A line on the Unix socket CONTROL_SOCKET
commands it; each is answered with one line of JSON:

    cut       blackhole the link, as a network partition would: every open
              connection stops forwarding (nothing read is passed on, not
              even a close), and a new connection is accepted but never
              answered
    restore   heal it: open connections forward again, what was held
              included; the connections accepted during the cut are closed
              (their client has given up on them by then)
    stats     {"cut": bool, "connections": accepted so far, "open": open now}

A blackhole, not a refusal, is the harder case for a client: nothing tells
it the link is down, only its own deadlines do.
"""
import asyncio
import json
import os
import sys


class CutProxy:
    def __init__(self, upstream_host, upstream_port):
        self.upstream = (upstream_host, upstream_port)
        self.link = asyncio.Event()  # set: the link is up
        self.link.set()
        self.accepted = 0
        self.open = 0

    async def pump(self, reader, writer):
        """Copies reader to writer while the link is up; whatever arrives
        during a cut (data or the end) waits for the restore."""
        try:
            while True:
                await self.link.wait()
                data = await reader.read(65536)
                await self.link.wait()
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def client(self, reader, writer):
        self.accepted += 1
        self.open += 1
        upstream_writer = None
        try:
            if not self.link.is_set():
                # Accepted during the cut: never answered; closed at the restore.
                await self.link.wait()
                return
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
            await asyncio.gather(self.pump(reader, upstream_writer), self.pump(upstream_reader, writer))
        except (ConnectionError, OSError):
            pass
        finally:
            self.open -= 1
            writer.close()
            if upstream_writer is not None:
                upstream_writer.close()

    async def control(self, reader, writer):
        try:
            while line := await reader.readline():
                command = line.decode().strip()
                if command == "cut":
                    self.link.clear()
                elif command == "restore":
                    self.link.set()
                elif command != "stats":
                    writer.write(json.dumps({"error": f"unknown command {command!r}"}).encode() + b"\n")
                    await writer.drain()
                    continue
                state = {"cut": not self.link.is_set(), "connections": self.accepted, "open": self.open}
                writer.write(json.dumps(state).encode() + b"\n")
                await writer.drain()
        finally:
            writer.close()


async def main():
    listen_port, host, port, control_path = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    proxy = CutProxy(host, port)
    server = await asyncio.start_server(proxy.client, "127.0.0.1", listen_port)
    if os.path.exists(control_path):
        os.remove(control_path)
    control = await asyncio.start_unix_server(proxy.control, control_path)
    async with server, control:
        await asyncio.gather(server.serve_forever(), control.serve_forever())


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
