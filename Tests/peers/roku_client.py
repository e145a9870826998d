"""rokuecp (the library behind Home Assistant's Roku integration, a client nobody here
wrote) against Photon's emulated Roku.

Usage: roku_client.py PORT
Prints one JSON line of what update() read (with the TV's channels), then presses Home,
types "hi", launches Netflix, tunes channel 9.1 and switches to HDMI 2 (as Home Assistant
does: launching tvinput.hdmi2), then prints DONE.
"""
import asyncio
import json
import sys

from rokuecp import Roku


async def main(port: int) -> None:
    async with Roku("127.0.0.1", port=port) as roku:
        device = await roku.update()
        print(json.dumps({
            "name": device.info.name, "serial": device.info.serial_number, "vendor": device.info.brand,
            "standby": device.state.standby, "apps": sorted(app.name for app in device.apps),
            "channels": [channel.number for channel in device.channels],
        }), flush=True)
        await roku.remote("home")
        await roku.literal("hi")
        await roku.launch("12", {"contentId": "80057281", "mediaType": "movie"})
        device = await roku.update()
        print(json.dumps({"active": device.app.name if device.app else None}), flush=True)
        await roku.tune("9.1")
        await roku.launch("tvinput.hdmi2")
    print("DONE", flush=True)


asyncio.run(main(int(sys.argv[1])))
