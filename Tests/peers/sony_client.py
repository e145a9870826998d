"""pybravia (the library behind Home Assistant's braviatv integration, a client nobody here
wrote) against Photon's emulated Sony Bravia.

Usage: sony_client.py PORT pin PIN | sony_client.py PORT psk KEY
pybravia has no port argument: its base URL is pointed at the emulator's port, and its MAC
is cleared so that turn_on sends no Wake-on-LAN packet. Prints one JSON line of what it read,
then presses Home, switches to HDMI 2, launches YouTube, sets the volume to 25, mutes,
turns the TV off and on again, and prints DONE.
"""
import asyncio
import json
import sys

from pybravia import BraviaClient
from yarl import URL


async def main(port: int, mode: str, secret: str) -> None:
    client = BraviaClient("127.0.0.1")
    client._base_url = URL.build(scheme="http", host="127.0.0.1", port=port)
    try:
        if mode == "pin":
            await client.pair("pybravia-interop", "pybravia")
            await client.connect(pin=secret, clientid="pybravia-interop", nickname="pybravia")
        else:
            await client.connect(psk=secret)
        client.mac = None
        info = await client.get_system_info()
        power = await client.get_power_status()
        volume = await client.get_volume_info()
        inputs = await client.get_external_status()
        apps = await client.get_app_list()
        commands = await client.get_command_list()
        print(json.dumps({
            "model": info.get("model"), "serial": info.get("serial"), "power": power, "volume": volume.get("volume"),
            "inputs": [i.get("title") for i in inputs], "apps": [a.get("title") for a in apps],
            "has_home": "Home" in commands,
        }), flush=True)
        assert await client.send_command("Home")
        assert await client.set_play_content("extInput:hdmi?port=2")
        youtube = next(a["uri"] for a in apps if a["title"] == "YouTube")
        assert await client.set_active_app(youtube)
        assert await client.volume_level(25)
        assert await client.volume_mute(True)
        await client.turn_off()
        print(json.dumps({"power_after_off": await client.get_power_status()}), flush=True)
        await client.turn_on()
        print(json.dumps({"power_after_on": await client.get_power_status()}), flush=True)
    finally:
        await client.disconnect()
    print("DONE", flush=True)


asyncio.run(main(int(sys.argv[1]), sys.argv[2], sys.argv[3]))
