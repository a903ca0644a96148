#!/usr/bin/env python3
"""A TCP proxy that adds one fixed latency to every request (scripts/bench.sh, docs/performance.md).

    bench/latency_proxy.py --upstream 127.0.0.1:PORT --delay-ms D [--listen-port 0]

Listens on 127.0.0.1. Every chunk of bytes from a client is forwarded to the upstream D ms after
it arrived; bytes from the upstream go back to the client at once. Deadlines are taken from the
arrival time, not from the end of the previous wait, so a body that arrives in many chunks costs
about D in all, not D per chunk; a connection's bytes keep their order. A request therefore
reaches the server D ms late and its answer is not delayed: each request costs one D on top of
the server's own time, requests one after another cost one D each, and requests in flight at the
same time on separate connections overlap. Wall time / D is thus the number of round trips on the
critical path (plus the server's and the client's own time: measure with --delay-ms 0 too).
Connection set-up is not delayed (a real TLS connection costs one or two round trips more).

Output on stdout: the port as the first line (useful with --listen-port 0), then a line
    requests N connections C GET g HEAD h PUT p POST q DELETE d OTHER o
on SIGUSR1 (the counts so far; the proxy goes on) and at exit (SIGTERM, SIGINT).

Counting requests: each connection's client bytes are framed as HTTP/1.1 requests: a request head
ends at the blank line, and its body is Content-Length bytes long (what libcurl sends for S3:
no pipelining, sized bodies). A request with "Transfer-Encoding: chunked", or bytes that do not
look like a request head, switch that connection to an approximation: every chunk that starts
with an HTTP method and a space counts as one request. The count is exact for the S3 client of
snapcommit; with other clients it is an estimate.

--trace: one line per request on stderr (ms since start, connection number, request line), to see
which requests wait for which.

Python 3 standard library only.
"""
import argparse
import asyncio
import signal
import sys
import time

METHODS = (b"GET", b"HEAD", b"PUT", b"POST", b"DELETE", b"OPTIONS", b"PATCH")
MAX_HEAD = 64 * 1024  # a longer head is not HTTP as we know it: fall back to the approximation


class Counts:
    def __init__(self, trace=None):
        self.trace = trace  # a file: one line per request (--trace)
        self.t0 = time.monotonic()
        self.requests = 0
        self.connections = 0
        self.by_method = {m.decode(): 0 for m in METHODS[:5]}
        self.other = 0

    def add(self, method, conn, line):
        self.requests += 1
        if self.trace:
            ms = (time.monotonic() - self.t0) * 1e3
            print(f"{ms:10.1f} c{conn} {line.decode('ascii', 'replace')}", file=self.trace, flush=True)
        m = method.decode("ascii", "replace")
        if m in self.by_method:
            self.by_method[m] += 1
        else:
            self.other += 1

    def line(self):
        per = " ".join(f"{m} {n}" for m, n in self.by_method.items())
        return f"requests {self.requests} connections {self.connections} {per} OTHER {self.other}"


class RequestFramer:
    """Counts the requests in one connection's client->server byte stream (see the module doc)."""

    def __init__(self, counts, conn):
        self.counts = counts
        self.conn = conn
        self.head = b""        # bytes of a request head seen so far
        self.body_left = 0     # bytes of the current body still to come
        self.exact = True      # False: the per-chunk approximation

    def feed(self, data):
        if not self.exact:
            self._approx(data)
            return
        while data:
            if self.body_left:
                n = min(self.body_left, len(data))
                self.body_left -= n
                data = data[n:]
                continue
            self.head += data
            data = b""
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                if len(self.head) > MAX_HEAD:
                    self._fallback()
                return
            head, data = self.head[:end], self.head[end + 4:]
            self.head = b""
            method = head.split(b" ", 1)[0]
            if method not in METHODS:
                self._fallback()
                return
            self.counts.add(method, self.conn, head.split(b"\r\n", 1)[0])
            length, chunked = 0, False
            for h in head.split(b"\r\n")[1:]:
                name, _, value = h.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        chunked = True  # unreadable: approximate from here on
                elif name == b"transfer-encoding" and b"chunked" in value.lower():
                    chunked = True
            if chunked:
                self._fallback()
                return
            self.body_left = length

    def _fallback(self):
        self.exact = False
        self.head = b""

    def _approx(self, data):
        method = data.split(b" ", 1)[0]
        if method in METHODS and len(data) > len(method):
            self.counts.add(method, self.conn, data.split(b"\r\n", 1)[0][:200])


async def pipe_delayed(reader, writer, delay, framer):
    """Client -> upstream: each chunk leaves `delay` seconds after it arrived, in order."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def sender():
        while True:
            due, chunk = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if chunk is None:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(chunk)
            await writer.drain()

    task = asyncio.ensure_future(sender())
    try:
        while True:
            chunk = await reader.read(65536)
            now = loop.time()
            if not chunk:
                queue.put_nowait((now + delay, None))
                break
            framer.feed(chunk)
            queue.put_nowait((now + delay, chunk))
        await task
    except (ConnectionError, OSError):
        task.cancel()


async def pipe_now(reader, writer):
    """Upstream -> client: at once."""
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass


async def handle(c_reader, c_writer, upstream, delay, counts):
    counts.connections += 1
    host, port = upstream
    try:
        u_reader, u_writer = await asyncio.open_connection(host, port)
    except OSError as e:
        print(f"latency_proxy: cannot connect to {host}:{port}: {e}", file=sys.stderr)
        c_writer.close()
        return
    up = asyncio.ensure_future(pipe_delayed(c_reader, u_writer, delay, RequestFramer(counts, counts.connections)))
    down = asyncio.ensure_future(pipe_now(u_reader, c_writer))
    try:
        # The server closing ends the connection; the client closing ends it once its last bytes
        # (and the server's answer to them) went through.
        await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        if up.done():
            await down
    except asyncio.CancelledError:
        pass  # the proxy is stopping: connections still open are simply closed
    finally:
        up.cancel()
        down.cancel()
        for w in (u_writer, c_writer):
            w.close()


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen-port", type=int, default=0, help="0: pick a free port (printed on stdout)")
    ap.add_argument("--upstream", required=True, help="host:port of the server")
    ap.add_argument("--delay-ms", type=float, required=True, help="latency added to each client->server chunk")
    ap.add_argument("--trace", action="store_true",
                    help="on stderr, one line per request: ms since start, connection number, request line")
    a = ap.parse_args()
    host, _, port = a.upstream.rpartition(":")
    if not host or not port.isdigit() or a.delay_ms < 0:
        ap.error("--upstream host:port and --delay-ms >= 0")
    counts = Counts(sys.stderr if a.trace else None)
    server = await asyncio.start_server(
        lambda r, w: handle(r, w, (host, int(port)), a.delay_ms / 1000.0, counts), "127.0.0.1", a.listen_port)
    print(server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGUSR1, lambda: print(counts.line(), flush=True))
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    async with server:
        await stop.wait()
    print(counts.line(), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
