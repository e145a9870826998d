"""adb-shell 0.4.4 (what Home Assistant's Fire TV integration uses) as the Python baseline
for `make bench`, against Photon's emulated Fire TV. Prints one JSON object.

  adb_shell_bench.py cold  HOST PORT KEYDIR
  adb_shell_bench.py warm  HOST PORT KEYDIR COUNT
  adb_shell_bench.py burst HOST PORT KEYDIR COUNT

KEYDIR holds adb-shell's own key (made once, before timing: RSA key generation in pure
Python takes seconds and is not what is measured).
"""
import json
import os
import sys
import time

from adb_shell.adb_device import AdbDeviceTcp
from adb_shell.auth.keygen import keygen
from adb_shell.auth.sign_pythonrsa import PythonRSASigner


def main() -> None:
    mode, host, port, keydir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    key = os.path.join(keydir, "adbkey")
    if not os.path.exists(key):
        keygen(key)
    with open(key) as private, open(key + ".pub") as public:
        signer = PythonRSASigner(public.read(), private.read())
    device = AdbDeviceTcp(host, port, default_transport_timeout_s=5.0)
    device.connect(rsa_keys=[signer], auth_timeout_s=5.0)
    result = {}
    if mode == "cold":
        device.shell("input keyevent KEYCODE_HOME")
    elif mode == "warm":
        times = []
        for _ in range(int(sys.argv[5])):
            times.append(time.monotonic())
            device.shell("input keyevent KEYCODE_DPAD_UP")
            time.sleep(0.004)
        result["send_times"] = times
    elif mode == "burst":
        result["start"] = time.monotonic()
        for _ in range(int(sys.argv[5])):
            device.shell("input keyevent KEYCODE_DPAD_DOWN")
    device.close()
    print(json.dumps(result), flush=True)


main()
