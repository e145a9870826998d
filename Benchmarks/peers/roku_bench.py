"""rokuecp 0.19.5 as the Python baseline for `make bench`, against Photon's emulated Roku.
Prints one JSON object.

  roku_bench.py cold  HOST PORT
  roku_bench.py warm  HOST PORT COUNT
  roku_bench.py burst HOST PORT COUNT
"""
import asyncio
import json
import sys
import time

from rokuecp import Roku


async def main() -> None:
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    result = {}
    async with Roku(host, port=port) as roku:
        if mode == "cold":
            await roku.remote("home")
        elif mode == "warm":
            times = []
            for _ in range(int(sys.argv[4])):
                times.append(time.monotonic())
                await roku.remote("up")
                await asyncio.sleep(0.004)
            result["send_times"] = times
        elif mode == "burst":
            result["start"] = time.monotonic()
            for _ in range(int(sys.argv[4])):
                await roku.remote("down")
    print(json.dumps(result), flush=True)


asyncio.run(main())
