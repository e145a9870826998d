"""pyvizio 0.1.64 as the Python baseline for `make bench`, against Photon's emulated Vizio
SmartCast TV, with the token the benchmark paired for. Prints one JSON object.

  vizio_bench.py cold  HOST:PORT TOKEN
  vizio_bench.py warm  HOST:PORT TOKEN COUNT
  vizio_bench.py burst HOST:PORT TOKEN COUNT
"""
import asyncio
import json
import sys
import time

from aiohttp import ClientSession
from pyvizio import VizioAsync


async def main() -> None:
    mode, address, token = sys.argv[1], sys.argv[2], sys.argv[3]
    result = {}
    # One aiohttp session for the run, as Home Assistant gives pyvizio (else it opens one per call).
    async with ClientSession() as session:
        tv = VizioAsync("bench", address, "bench", token, "tv", session=session)
        if mode == "cold":
            await tv.remote("HOME")
        elif mode == "warm":
            times = []
            for _ in range(int(sys.argv[4])):
                times.append(time.monotonic())
                await tv.remote("UP")
                await asyncio.sleep(0.004)
            result["send_times"] = times
        elif mode == "burst":
            result["start"] = time.monotonic()
            for _ in range(int(sys.argv[4])):
                await tv.remote("DOWN")
    print(json.dumps(result), flush=True)


asyncio.run(main())
