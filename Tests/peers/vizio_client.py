"""pyvizio (the library behind Home Assistant's vizio integration, a client nobody here
wrote) against Photon's emulated Vizio SmartCast TV.

Usage: vizio_client.py PORT PIN
pyvizio takes the port in its address ("127.0.0.1:PORT") and does not check the TV's
certificate. Pairs with the PIN, prints one JSON line of what it read (power, volume, the
inputs, the current input and app), switches to HDMI 2, presses Up, launches Netflix from
an apps list given here (so it fetches nothing from the internet), sets the volume to 25
and the picture mode to Game, then prints DONE.
"""
import asyncio
import json
import sys

from pyvizio import VizioAsync

APPS = [{"name": "Netflix", "country": ["*"], "id": ["34"], "config": [{"NAME_SPACE": 3, "APP_ID": "1", "MESSAGE": None}]}]


async def main(port: int, pin: str) -> None:
    address = f"127.0.0.1:{port}"
    pairing = VizioAsync("pyvizio-interop", address, "pyvizio", "", "tv")
    start = await pairing.start_pair()
    assert start is not None, "start_pair failed"
    done = await pairing.pair(start.ch_type, start.token, pin)
    assert done is not None and done.auth_token, "pair failed"
    tv = VizioAsync("pyvizio-interop", address, "pyvizio", done.auth_token, "tv")
    inputs = await tv.get_inputs_list()
    app = await tv.get_current_app_config()
    print(json.dumps({
        "power": await tv.get_power_state(), "volume": await tv.get_current_volume(), "muted": await tv.is_muted(),
        "inputs": [i.name for i in inputs or []], "labels": [i.meta_name for i in inputs or []],
        "input": await tv.get_current_input(), "app": app.APP_ID if app else None,
        "model": await tv.get_model_name(), "serial": await tv.get_serial_number(),
    }), flush=True)
    assert await tv.set_input("HDMI-2"), "set_input failed"
    assert await tv.remote("UP"), "remote failed"
    assert await tv.launch_app("Netflix", apps_list=APPS), "launch_app failed"
    assert await tv.set_setting("audio", "volume", 25), "set volume failed"
    assert await tv.set_setting("picture", "picture_mode", "Game"), "set picture mode failed"
    app = await tv.get_current_app_config()
    print(json.dumps({"input_after": await tv.get_current_input(), "app_after": [app.NAME_SPACE, app.APP_ID]}), flush=True)
    print("DONE", flush=True)


asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
