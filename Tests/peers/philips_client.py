"""ha-philipsjs (the library behind Home Assistant's philips_js integration, a client
nobody here wrote) against Photon's emulated Philips Android TV.

Usage: philips_client.py HTTPS_PORT HTTP_PORT PIN
ha-philipsjs keeps its ports as module constants (1925 and 1926); they are set to the
emulator's before use. It does not check the TV's certificate. It reads system (plain HTTP,
fields decrypted with the shared key), pairs with the PIN (pair/request, then pair/grant
with Digest and the signed PIN), updates everything, prints one JSON line of what it read,
then presses CursorUp, launches Netflix, switches to HDMI 2, sets the volume, switches
Ambilight off, puts the TV in standby and back on, and waits in notifychange while a
VolumeUp is pressed; prints a second JSON line, then DONE.
"""
import asyncio
import json
import sys

import haphilipsjs
from haphilipsjs import PhilipsTV


async def main(https_port: int, http_port: int, pin: str) -> None:
    haphilipsjs.HTTPS_PORT = https_port
    haphilipsjs.HTTP_PORT = http_port
    tv = PhilipsTV("127.0.0.1", api_version=6)
    await tv.getSystem()
    await tv.setTransport(tv.secured_transport)
    state = await tv.pairRequest("ha-interop", "ha-philipsjs", "Interop", "Linux", "native")
    await tv.pairGrant(state, pin)
    assert await tv.update(), "update failed"
    netflix = next(app for app in tv.applications.values() if app["label"] == "Netflix")
    print(json.dumps({
        "serial": tv.system.get("serialnumber"), "model": tv.system.get("model"), "secured": tv.secured_transport,
        "power": tv.powerstate, "volume": tv.audio_volume, "apps": sorted(a["label"] for a in tv.applications.values()),
        "sources": [s["name"] for s in tv.sources.values()], "channels": len(tv.channels), "channel": tv.channel_id,
        "ambilight": tv.ambilight_power, "styles": sorted(tv.ambilight_styles), "notify": tv.notify_change_supported,
    }), flush=True)
    assert await tv.sendKey("CursorUp") is None
    assert await tv.setApplication(netflix["intent"]), "launch failed"
    hdmi2 = next(uri for uri, source in tv.sources.items() if source["name"] == "HDMI 2")
    assert await tv.setSource(hdmi2), "setSource failed"
    await tv.setVolume(0.5)
    assert await tv.setAmbilightPower("Off"), "ambilight off failed"
    assert await tv.setPowerState("Standby"), "standby failed"
    assert await tv.setPowerState("On"), "power on failed"
    await tv.getAudiodata()
    await tv.getPowerState()
    await tv.getApplication()
    before = tv.audio_volume["current"]

    async def press_later() -> None:
        await asyncio.sleep(0.3)
        other = PhilipsTV("127.0.0.1", api_version=6, secured_transport=True, username=state["device"]["id"], password=state["auth_key"])
        await other.sendKey("VolumeUp")
        await other.aclose()

    presser = asyncio.create_task(press_later())
    changed = await tv.notifyChange(timeout=20)
    await presser
    print(json.dumps({
        "notify_changed": changed, "volume_before": before, "volume_after": tv.audio_volume["current"],
        "power_after": tv.powerstate, "ambilight_after": (await tv.getAmbilightPower() or {}).get("power"),
    }), flush=True)
    await tv.aclose()
    print("DONE", flush=True)


asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]))
