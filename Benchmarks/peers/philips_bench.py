"""ha-philipsjs 3.3.0 as the Python baseline for `make bench`, against Photon's emulated
Philips TV, with the pairing (device id and auth key) the benchmark made. Prints one JSON
object. Its ports are module constants, set here to the emulator's.

  philips_bench.py cold  HTTPS_PORT:HTTP_PORT USER PASSWORD
  philips_bench.py warm  HTTPS_PORT:HTTP_PORT USER PASSWORD COUNT
  philips_bench.py burst HTTPS_PORT:HTTP_PORT USER PASSWORD COUNT
"""
import asyncio
import json
import sys
import time

import haphilipsjs
from haphilipsjs import PhilipsTV


async def main() -> None:
    mode, ports, user, password = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    https_port, http_port = (int(p) for p in ports.split(":"))
    haphilipsjs.HTTPS_PORT = https_port
    haphilipsjs.HTTP_PORT = http_port
    tv = PhilipsTV("127.0.0.1", api_version=6, secured_transport=True, username=user, password=password)
    result = {}
    if mode == "cold":
        await tv.sendKey("Home")
    elif mode == "warm":
        times = []
        for _ in range(int(sys.argv[5])):
            times.append(time.monotonic())
            await tv.sendKey("CursorUp")
            await asyncio.sleep(0.004)
        result["send_times"] = times
    elif mode == "burst":
        result["start"] = time.monotonic()
        for _ in range(int(sys.argv[5])):
            await tv.sendKey("CursorDown")
    await tv.aclose()
    print(json.dumps(result), flush=True)


asyncio.run(main())
