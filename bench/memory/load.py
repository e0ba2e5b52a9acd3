#!/usr/bin/env python3
"""The client of bench/memory (python3 asyncio, stdlib only): python3 load.py HOST PORT

Holds client connections to Kodiak in one state at a time, on commands read from stdin (one answer
line each on stdout):
  open N PATH MODE   close what is held, then open N connections, and on each send GET PATH once
                     (requests sent 1,000 at a time, 0.2 s apart: the connects Kodiak makes upstream
                     stay under the backend's listen queue). MODE says what follows:
                       idle   read the answer whole, then keep the connection open, idle (keep-alive)
                       wait   no answer is expected; one that comes, or a close, counts as failed
                       stream read the body as it comes (the backend trickles it)
                       stall  read nothing at all (a client that stopped reading)
                     Answers "ready opened=O sent=S done=D failed=F bytes=B" once every connection is
                     in its state (idle: answered; stream: first body bytes read; wait, stall: sent),
                     or after 60 s with what it reached.
  status             the same counters now
  close              close every connection held; answers "closed"
  quit               close and exit
"""
import asyncio
import sys
import time

BATCH, GAP = 1000, 0.2


class Held:
    def __init__(self):
        self.conns, self.tasks = [], []
        self.opened = self.sent = self.done = self.failed = self.bytes = 0

    def line(self, word):
        return f"{word} opened={self.opened} sent={self.sent} done={self.done} failed={self.failed} bytes={self.bytes}"

    async def close(self):
        for t in self.tasks:
            t.cancel()
        for _, w in self.conns:
            w.close()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.__init__()
        await asyncio.sleep(1.0)  # let Kodiak see the closes


async def head_of(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for h in head.split(b"\r\n")[1:]:
        if h.lower().startswith(b"content-length:"):
            length = int(h.split(b":", 1)[1])
    return status, length


async def follow(h, reader, mode):
    try:
        if mode == "wait":
            await reader.read(1)
            h.failed += 1   # an answer (503, 504...) or a close, where neither should come yet
            return
        if mode == "stall":
            return
        status, length = await head_of(reader)
        if status != 200:
            h.failed += 1
            return
        if mode == "idle":
            await reader.readexactly(length)
            h.done += 1
            return
        first = True
        while True:  # stream: read as it comes
            data = await reader.read(65536)
            if not data:
                h.failed += 1
                return
            h.bytes += len(data)
            if first:
                h.done += 1
                first = False
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError, IndexError):
        h.failed += 1


async def open_n(h, host, port, n, path, mode):
    await h.close()
    sem = asyncio.Semaphore(200)

    async def one():
        async with sem:
            try:
                r, w = await asyncio.wait_for(asyncio.open_connection(host, port, limit=4096 if mode == "stall" else 65536), 20)
                h.conns.append((r, w))
                h.opened += 1
            except (OSError, asyncio.TimeoutError):
                h.failed += 1
    await asyncio.gather(*(one() for _ in range(n)))
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: bench-memory\r\n\r\n".encode()
    for i, (r, w) in enumerate(h.conns):
        w.write(request)
        h.sent += 1
        h.tasks.append(asyncio.create_task(follow(h, r, mode)))
        if (i + 1) % BATCH == 0:
            await asyncio.sleep(GAP)
    deadline = time.monotonic() + 60
    target = h.opened if mode in ("idle", "stream") else 0
    while h.done + h.failed < target and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return h.line("ready")


async def main(host, port):
    h = Held()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        raw = await reader.readline()
        words = raw.decode().split()
        if not words or words[0] == "quit":
            await h.close()
            return
        if words[0] == "open":
            out = await open_n(h, host, port, int(words[1]), words[2], words[3])
        elif words[0] == "status":
            out = h.line("status")
        elif words[0] == "close":
            await h.close()
            out = "closed"
        else:
            out = "error unknown command"
        print(out, flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
