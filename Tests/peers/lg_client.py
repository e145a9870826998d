"""aiowebostv (Home Assistant's LG client, a library nobody here wrote) against Photon's
emulated LG TV.

Usage: lg_client.py HOST WSS_PORT CLOSED_PORT KEY_FILE

aiowebostv has no port argument: it reads the module constants WS_PORT and WSS_PORT when
it connects, trying ws:// first and wss:// when that fails. The test points WS_PORT at a
closed port, so the library falls back to TLS exactly as against a 2023+ TV, and WSS_PORT
at the emulator's TLS port. Nothing else is changed.
"""
import asyncio
import json
import sys

from aiowebostv import WebOsClient, webos_client
from aiowebostv import endpoints as ep

host, wss_port, closed_port, key_file = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
webos_client.WSS_PORT = wss_port
webos_client.WS_PORT = closed_port


async def main() -> None:
    client = WebOsClient(host)
    await client.connect()
    with open(key_file, "w") as f:
        f.write(client.client_key)
    print("KEY", bool(client.client_key), flush=True)
    print("MODEL", client.tv_info.system.get("modelName"), flush=True)
    print("VOLUME", client.tv_state.volume, flush=True)
    await client.set_volume(17)
    await client.launch_app("netflix")
    await client.request(ep.INSERT_TEXT, {"text": "hello lg", "replace": 0})
    await client.request(ep.SEND_ENTER)
    await client.button("HOME")
    # Inputs, channels, a toast and the screen, through aiowebostv's own calls.
    inputs = await client.get_inputs()
    print("INPUTS", json.dumps([i["label"] for i in inputs]), flush=True)
    await client.set_input("HDMI_2")
    channels = await client.get_channels()
    print("CHANNELS", json.dumps([c["channelNumber"] for c in channels]), flush=True)
    await client.set_channel(channels[1]["channelId"])
    await client.send_message("hello from aiowebostv")
    await client.set_screen_state(False)
    # Where the sound goes: aiowebostv reads it on connect (subscribed) and switches it.
    print("SOUND", await client.get_sound_output(), client.tv_state.sound_output, flush=True)
    await client.change_sound_output("external_arc")
    print("SOUND", await client.get_sound_output(), flush=True)
    await client.power_off()
    await client.disconnect()
    # Again with the stored key: no prompt.
    client = WebOsClient(host, client_key=open(key_file).read())
    await client.connect()
    await client.button("BACK")
    await client.disconnect()
    print("DONE", flush=True)


asyncio.run(main())
