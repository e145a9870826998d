"""WebSocket client built on the `websockets` package, run against Photon's server.

Usage: ws_client.py URL
Sends a text, a binary, a fragmented 200000-byte message, a ping, then an over-limit
message if asked, and closes with 4000. Prints one line per step, then "DONE".
"""
import asyncio
import sys

import websockets


async def main():
    url = sys.argv[1]
    async with websockets.connect(url, max_size=2**24) as ws:
        await ws.send("hello photon")
        print("text:", await ws.recv(), flush=True)
        await ws.send(bytes([0, 1, 2, 255]))
        reply = await ws.recv()
        print("binary:", reply.hex(), flush=True)
        big = bytes(i % 253 for i in range(200000))
        await ws.send([big[i:i + 7000] for i in range(0, len(big), 7000)])
        reply = await ws.recv()
        print("fragmented:", len(reply), reply == big, flush=True)
        waiter = await ws.ping(b"are you there")
        latency = await asyncio.wait_for(waiter, 5)
        print("pong: ok", flush=True)
        await ws.close(4000, "done")
        print("closed:", ws.close_code, flush=True)
    print("DONE", flush=True)


asyncio.run(main())
