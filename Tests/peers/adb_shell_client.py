"""adb-shell 0.4.4 (the library Home Assistant's Android TV / Fire TV integration uses)
driving a device over ADB on TCP, for Photon's interop tests against its emulated Fire TV.

    adb_shell_client.py HOST PORT KEYDIR COMMAND...

Makes an RSA key in KEYDIR the first time (adb-shell's own keygen), connects, runs each
COMMAND with shell() and prints one JSON line per command: {"command": ..., "output": ...}.
Exits 1 with {"error": ...} when connecting or a command fails.
"""
import json
import os
import sys

from adb_shell.adb_device import AdbDeviceTcp
from adb_shell.auth.keygen import keygen
from adb_shell.auth.sign_pythonrsa import PythonRSASigner


def main() -> int:
    host, port, keydir, commands = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    key = os.path.join(keydir, "adbkey")
    if not os.path.exists(key):
        keygen(key)
    with open(key) as private, open(key + ".pub") as public:
        signer = PythonRSASigner(public.read(), private.read())
    device = AdbDeviceTcp(host, port, default_transport_timeout_s=5.0)
    try:
        device.connect(rsa_keys=[signer], auth_timeout_s=5.0)
        for command in commands:
            output = device.shell(command, timeout_s=5.0)
            print(json.dumps({"command": command, "output": output}), flush=True)
        device.close()
    except Exception as error:  # report any failure as a line the test can read
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
