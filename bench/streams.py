#!/usr/bin/env python3
"""Holds N idle event streams open against one server and reports the
server's RSS before, with all N open, and after they idled for a while.

    bench/streams.py BASE_URL API_KEY SERVER_PID [N] [IDLE_S]

Each stream is a raw HTTP/1.1 GET /api/v1/events on its own connection;
the client reads the status line and headers, then nothing more (pings
arrive every 15 s and sit in the socket). Prints one STREAMS line.
"""
import asyncio
import sys
import urllib.parse


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def open_stream(host, port, key):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET /api/v1/events HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {key}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    status = await reader.readline()
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return status.split()[1].decode(), reader, writer


async def main():
    base, key, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    idle = float(sys.argv[5]) if len(sys.argv) > 5 else 20
    url = urllib.parse.urlsplit(base)
    before = rss_kib(pid)
    streams = []
    for _ in range(n // 50):
        streams += await asyncio.gather(*(open_stream(url.hostname, url.port, key) for _ in range(50)))
    statuses = {}
    for status, _, _ in streams:
        statuses[status] = statuses.get(status, 0) + 1
    opened = rss_kib(pid)
    await asyncio.sleep(idle)
    idled = rss_kib(pid)
    for _, _, writer in streams:
        writer.close()
    print(
        f"STREAMS n={n} statuses={statuses} rss_before_kib={before} rss_open_kib={opened} "
        f"rss_after_{idle:.0f}s_kib={idled} per_stream_kib={(opened - before) / n:.1f} "
        f"idle_growth_kib={idled - opened}"
    )
    return 0 if statuses == {"200": n} else 1


sys.exit(asyncio.run(main()))
