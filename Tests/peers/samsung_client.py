"""samsungtvws (a client nobody here wrote) against Photon's emulated Samsung TV.

Usage: samsung_client.py HOST PORT TOKEN_FILE
samsungtvws chooses TLS only when the port is 8002; the emulator's WSS port is a free
port in tests, so this subclass says "TLS" for it — nothing else is changed.
"""
import sys

from samsungtvws import SamsungTVWS


class AnyPortTLS(SamsungTVWS):
    def _is_ssl_connection(self) -> bool:
        return True


host, port, token_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tv = AnyPortTLS(host=host, port=port, token_file=token_file, name="samsungtvws interop", timeout=10, key_press_delay=0)
tv.open()
print("TOKEN", open(token_file).read().strip() != "", flush=True)
tv.send_key("KEY_HOME")
tv.send_key("KEY_VOLUP")
tv.hold_key("KEY_RIGHT", 0.1)
tv.close()
# Again with the stored token: no new prompt.
tv = AnyPortTLS(host=host, port=port, token_file=token_file, name="samsungtvws interop", timeout=10, key_press_delay=0)
tv.open()
tv.send_key("KEY_ENTER")
tv.close()
print("DONE", flush=True)
