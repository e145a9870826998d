"""aiowebostv 0.10.0 as the Python baseline for `make bench`, against Photon's emulated
LG TV. aiowebostv has no port argument: WS_PORT points at a closed port (so it falls back
to TLS, as against a 2023+ TV) and WSS_PORT at the emulator. The first run pairs (the
emulator accepts) and keeps the client key. Prints one JSON object.

  lg_bench.py cold  HOST WSS_PORT CLOSED_PORT KEY_FILE
  lg_bench.py warm  HOST WSS_PORT CLOSED_PORT KEY_FILE COUNT
  lg_bench.py burst HOST WSS_PORT CLOSED_PORT KEY_FILE COUNT
"""
import asyncio
import json
import os
import sys
import time

from aiowebostv import WebOsClient, webos_client

mode, host, wss_port, closed_port, key_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
webos_client.WSS_PORT = wss_port
webos_client.WS_PORT = closed_port


async def main() -> dict:
    key = open(key_file).read() if os.path.exists(key_file) else None
    client = WebOsClient(host, client_key=key)
    await client.connect()
    if key is None:
        with open(key_file, "w") as f:
            f.write(client.client_key)
    result = {}
    if mode == "cold":
        await client.button("HOME")
    elif mode == "warm":
        times = []
        for _ in range(int(sys.argv[6])):
            times.append(time.monotonic())
            await client.button("UP")
            await asyncio.sleep(0.004)
        result["send_times"] = times
    elif mode == "burst":
        result["start"] = time.monotonic()
        for _ in range(int(sys.argv[6])):
            await client.button("DOWN")
    await client.disconnect()
    return result


print(json.dumps(asyncio.run(main())), flush=True)
