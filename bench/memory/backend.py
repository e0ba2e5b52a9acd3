#!/usr/bin/env python3
"""The backend of bench/memory (python3 asyncio, stdlib only): python3 backend.py PORT

HTTP/1.1 keep-alive; what it does is chosen by the request's path (its last segment) and query:
  /fast?delay=MS                     200 with a 3-byte body after MS milliseconds (0: at once)
  /hold                              never answers; waits until the connection closes (a waiting exchange)
  /stream?size=B&chunk=C&every=MS    200 with Content-Length B, then C bytes every MS milliseconds
                                     (every=0: as fast as the connection drains: a bulk download)
Request bodies are not expected (the load sends GETs). Runs until SIGTERM.
"""
import asyncio
import signal
import sys


def params_of(query):
    out = {}
    for part in query.split("&"):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1")
            path, _, query = target.partition("?")
            p = params_of(query)
            name = path.rstrip("/").rsplit("/", 1)[-1]
            if name == "hold":
                while await reader.read(65536):
                    pass
                return
            if name == "stream":
                size, chunk, every = int(p.get("size", 1 << 30)), int(p.get("chunk", 1024)), int(p.get("every", 1000))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n" % size)
                data, sent = b"x" * chunk, 0
                while sent < size:
                    n = min(chunk, size - sent)
                    writer.write(data[:n])
                    sent += n
                    await writer.drain()
                    if every:
                        await asyncio.sleep(every / 1000)
                continue
            delay = int(p.get("delay", 0))
            if delay:
                await asyncio.sleep(delay / 1000)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError, ValueError):
        pass
    finally:
        writer.close()


async def main(port):
    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    async with server:
        await stop


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
