"""androidtvremote2 (a client nobody here wrote) driving Photon's emulated Android TV.

Usage: atv_client.py HOST API_PORT PAIR_PORT WORKDIR
Prints one line per step. Reads the pairing code, when asked for it, as one line on stdin.
"""
import asyncio
import json
import os
import sys

from androidtvremote2 import AndroidTVRemote


async def main():
    host, api_port, pair_port, workdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    remote = AndroidTVRemote(
        "androidtvremote2 interop",
        os.path.join(workdir, "cert.pem"),
        os.path.join(workdir, "key.pem"),
        host,
        api_port=api_port,
        pair_port=pair_port,
        enable_ime=True,
    )
    await remote.async_generate_cert_if_missing()
    name, mac = await remote.async_get_name_and_mac()
    print("IDENTITY " + json.dumps({"name": name, "mac": mac}), flush=True)
    await remote.async_start_pairing()
    print("CODE?", flush=True)
    code = (await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)).strip()
    await remote.async_finish_pairing(code)
    print("PAIRED", flush=True)
    await remote.async_connect()
    await asyncio.sleep(0.3)
    print("STATE " + json.dumps({"is_on": remote.is_on, "current_app": remote.current_app,
                                  "volume": remote.volume_info}), flush=True)
    remote.send_key_command("HOME")
    remote.send_key_command("KEYCODE_DPAD_UP")
    remote.send_key_command(23, "START_LONG")
    remote.send_key_command(23, "END_LONG")
    remote.send_text("hello from python")
    remote.send_launch_app_command("https://www.youtube.com")
    await asyncio.sleep(0.5)
    remote.disconnect()
    print("DONE", flush=True)


asyncio.run(main())
