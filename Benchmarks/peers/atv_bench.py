"""androidtvremote2 as the Python baseline for `make bench`, against Photon's emulated
Android TV. The client certificate is one the TV already trusts. Prints one JSON object.

  atv_bench.py cold  HOST PORT CERT KEY           connect, send HOME, disconnect
  atv_bench.py warm  HOST PORT CERT KEY COUNT     one key at a time, send times printed
  atv_bench.py burst HOST PORT CERT KEY COUNT     COUNT keys back to back
"""
import asyncio
import json
import sys
import time

from androidtvremote2 import AndroidTVRemote


async def main():
    mode, host, port, cert, key = sys.argv[1:6]
    remote = AndroidTVRemote("bench", cert, key, host, api_port=int(port), pair_port=int(port) + 1)
    await remote.async_connect()
    result = {}
    if mode == "cold":
        remote.send_key_command("HOME")
    elif mode == "warm":
        times = []
        for _ in range(int(sys.argv[6])):
            times.append(time.monotonic())
            remote.send_key_command("DPAD_UP")
            await asyncio.sleep(0.004)
        result["send_times"] = times
    elif mode == "burst":
        result["start"] = time.monotonic()
        for _ in range(int(sys.argv[6])):
            remote.send_key_command("DPAD_DOWN")
        await asyncio.sleep(0)
    # Let the transport flush before closing.
    transport = remote._transport
    while transport is not None and transport.get_write_buffer_size() > 0:
        await asyncio.sleep(0.001)
    remote.disconnect()
    print(json.dumps(result), flush=True)


asyncio.run(main())
