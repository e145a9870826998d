"""samsungtvws 3.0.6's art API (SamsungTVArt, a client nobody here wrote) against Photon's
emulated Frame.

Usage: samsung_art_client.py HOST WSS_PORT TOKEN_FILE
samsungtvws chooses TLS only when the port is 8002; the emulator's WSS port is a free port
in tests, so these subclasses say "TLS" for it (the art channel and its REST check) —
nothing else is changed, but its 1 s pause after every send (meant for key bursts) is 0. It asks whether the
set is a Frame, the art API version and art mode, switches art mode, lists the artworks,
reads the current one, uploads a PNG (over the D2D socket, or in one binary frame on art
API 0.97), shows it, fetches two thumbnails, sets the brightness, provokes an error and
deletes the upload; one JSON line, then DONE.
"""
import json
import struct
import sys
import zlib

from samsungtvws import exceptions
from samsungtvws.art import SamsungTVArt
from samsungtvws.rest import SamsungTVRest


class AnyPortTLSRest(SamsungTVRest):
    def _is_ssl_connection(self) -> bool:
        return True


class AnyPortTLSArt(SamsungTVArt):
    def _is_ssl_connection(self) -> bool:
        return True

    def _get_rest_api(self) -> SamsungTVRest:
        return AnyPortTLSRest(self.host, self.port, self.timeout)


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


host, port, token_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
art = AnyPortTLSArt(host, port=port, token_file=token_file, name="samsungtvws art interop", timeout=10, key_press_delay=0)
result = {"supported": art.supported(), "version": art.get_api_version(), "artmode": art.get_artmode()}
art.set_artmode("off")
result["artmode_after"] = art.get_artmode()
result["artworks"] = [item["content_id"] for item in art.available()]
result["current"] = art.get_current()["content_id"]
uploaded = art.upload(png(), file_type="png", matte="none")
result["uploaded"] = uploaded
art.select_image(uploaded)
result["current_after"] = art.get_current()["content_id"]
thumbnails = art.get_thumbnail_list([uploaded, "SAM-S10001"])
result["thumbnails"] = sorted(thumbnails)
art.set_brightness(7)
result["brightness"] = art.get_brightness()
try:
    art.select_image("NOT-THERE")
    result["error"] = None
except exceptions.ResponseError as error:
    result["error"] = str(error)
result["deleted"] = art.delete(uploaded)
result["artworks_after"] = [item["content_id"] for item in art.available()]
art.close()
print(json.dumps(result), flush=True)
print("DONE", flush=True)
