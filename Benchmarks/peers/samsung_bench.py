"""samsungtvws as the Python baseline for `make bench`, against Photon's emulated Samsung
TV, with its inter-key delay set to zero. TLS is forced for the emulator's port (the
library only chooses TLS for port 8002). Prints one JSON object.

  samsung_bench.py cold  HOST PORT TOKEN_FILE
  samsung_bench.py warm  HOST PORT TOKEN_FILE COUNT
  samsung_bench.py burst HOST PORT TOKEN_FILE COUNT
"""
import json
import sys
import time

from samsungtvws import SamsungTVWS


class AnyPortTLS(SamsungTVWS):
    def _is_ssl_connection(self) -> bool:
        return True


mode, host, port, token_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
tv = AnyPortTLS(host=host, port=port, token_file=token_file, name="bench", timeout=10, key_press_delay=0)
tv.open()
result = {}
if mode == "cold":
    tv.send_key("KEY_HOME")
elif mode == "warm":
    times = []
    for _ in range(int(sys.argv[5])):
        times.append(time.monotonic())
        tv.send_key("KEY_UP")
        time.sleep(0.004)
    result["send_times"] = times
elif mode == "burst":
    result["start"] = time.monotonic()
    for _ in range(int(sys.argv[5])):
        tv.send_key("KEY_DOWN")
tv.close()
print(json.dumps(result), flush=True)
