"""WebSocket echo server built on the `websockets` package: a peer nobody here wrote.

Usage: ws_echo_server.py PORT [MAX_SIZE]
Prints "READY <port>" once listening. Echoes every message, and obeys a few text
commands so Photon's client can be tested against it:
  "fragment:N"  -> sends one N-byte binary message in 1000-byte fragments
  "ping"        -> pings the client and answers "pong-received" once the pong arrives
  "close:CODE"  -> closes the connection with CODE
  "drop"        -> drops the TCP connection without a close frame
"""
import asyncio
import sys

import websockets


async def handler(ws):
    try:
        async for message in ws:
            if isinstance(message, str) and message.startswith("fragment:"):
                size = int(message.split(":", 1)[1])
                payload = bytes(i % 251 for i in range(size))
                await ws.send([payload[i:i + 1000] for i in range(0, size, 1000)])
            elif message == "ping":
                waiter = await ws.ping(b"photon")
                await asyncio.wait_for(waiter, 5)
                await ws.send("pong-received")
            elif isinstance(message, str) and message.startswith("close:"):
                await ws.close(int(message.split(":", 1)[1]), "bye")
                return
            elif message == "drop":
                ws.transport.abort()
                return
            else:
                await ws.send(message)
    except websockets.ConnectionClosed:
        pass


async def main():
    port = int(sys.argv[1])
    max_size = int(sys.argv[2]) if len(sys.argv) > 2 else 2**24
    async with websockets.serve(handler, "127.0.0.1", port, max_size=max_size):
        print(f"READY {port}", flush=True)
        await asyncio.Future()


asyncio.run(main())
