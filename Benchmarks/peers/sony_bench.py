"""pybravia 0.5.3 as the Python baseline for `make bench`, against Photon's emulated Sony
Bravia, connected with the TV's pre-shared key. Prints one JSON object.

  sony_bench.py cold  HOST PORT PSK
  sony_bench.py warm  HOST PORT PSK COUNT
  sony_bench.py burst HOST PORT PSK COUNT
"""
import asyncio
import json
import sys
import time

from pybravia import BraviaClient
from yarl import URL


async def main() -> None:
    mode, host, port, psk = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    result = {}
    client = BraviaClient(host)
    client._base_url = URL.build(scheme="http", host=host, port=port)
    try:
        await client.connect(psk=psk)
        if mode == "cold":
            await client.send_command("Home")
        elif mode == "warm":
            times = []
            for _ in range(int(sys.argv[5])):
                times.append(time.monotonic())
                await client.send_command("Up")
                await asyncio.sleep(0.004)
            result["send_times"] = times
        elif mode == "burst":
            result["start"] = time.monotonic()
            for _ in range(int(sys.argv[5])):
                await client.send_command("Down")
    finally:
        await client.disconnect()
    print(json.dumps(result), flush=True)


asyncio.run(main())
