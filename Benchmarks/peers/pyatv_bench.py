"""pyatv 0.18.0 (what Home Assistant's Apple TV integration uses) as the Python baseline for
`make bench`, against Photon's emulated Apple TV over Companion. Prints one JSON object.

  pyatv_bench.py pair  HOST PORT ID PIN           pairs once (before timing): {"credentials"}
  pyatv_bench.py cold  HOST PORT ID CREDENTIALS   connect (verify, session start), home, close
  pyatv_bench.py warm  HOST PORT ID CREDENTIALS COUNT   {"send_times"} of COUNT "up" presses
  pyatv_bench.py burst HOST PORT ID CREDENTIALS COUNT   {"start"} of COUNT "down" presses
"""
import asyncio
import json
import sys
import time

import pyatv
from pyatv.conf import AppleTV, ManualService
from pyatv.const import Protocol


def config(host, port, identifier, credentials=None):
    device = AppleTV(host, "bench")
    device.add_service(ManualService(identifier, Protocol.Companion, port, {}, credentials=credentials))
    return device


async def main():
    mode, host, port, identifier = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    loop = asyncio.get_running_loop()
    result = {}
    if mode == "pair":
        pairing = await pyatv.pair(config(host, port, identifier), Protocol.Companion, loop)
        await pairing.begin()
        pairing.pin(sys.argv[5])
        await pairing.finish()
        result["credentials"] = pairing.service.credentials
        await pairing.close()
        print(json.dumps(result), flush=True)
        return
    atv = await pyatv.connect(config(host, port, identifier, sys.argv[5]), loop)
    try:
        if mode == "cold":
            await atv.remote_control.home()
        elif mode == "warm":
            times = []
            for _ in range(int(sys.argv[6])):
                times.append(time.monotonic())
                await atv.remote_control.up()
                await asyncio.sleep(0.004)
            result["send_times"] = times
        elif mode == "burst":
            result["start"] = time.monotonic()
            for _ in range(int(sys.argv[6])):
                await atv.remote_control.down()
    finally:
        await asyncio.gather(*atv.close())
    print(json.dumps(result), flush=True)


asyncio.run(main())
