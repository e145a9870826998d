"""pyatv's and srptools' side of Apple TV pairing, for byte-by-byte checks.

    hap_peer.py srp PIN SALT A B   SRP-6a (3072-bit, SHA-512, user Pair-Setup) as pyatv runs
                                   srptools: prints A, B, K, M1, M2 (hex) for the given
                                   salt and private values (hex)
    hap_peer.py opack              packs the sample values with pyatv's OPACK encoder and
                                   prints {name: hex}
    hap_peer.py unopack HEX...     unpacks each with pyatv's decoder and prints it as JSON
                                   (bytes as {"data": hex}, UUIDs as {"uuid": hex})
    hap_peer.py tlv HEX            pyatv's TLV8 reader: {tag: hex}
    hap_peer.py hkdf SECRET SALT INFO   pyatv's HKDF-SHA512 (32 bytes), text salt and info
    hap_peer.py chacha KEY NONCE AAD PLAIN   cryptography's ChaCha20-Poly1305 seal (hex)
    hap_peer.py plists             the sample property lists written by plistlib (binary):
                                   {name: hex}
    hap_peer.py unplist HEX...     reads each with plistlib and prints it as JSON (data as
                                   {"data": hex}, UIDs as {"uid": n}, reals as {"real": x})
    hap_peer.py rti UUID TEXT      pyatv's RTI payloads: {"insert": hex, "clear": hex}
    hap_peer.py tistart HEX        pyatv's reading of a _tiStart archive: [uuid hex, text]
    hap_peer.py dnsquery TYPE...   pyatv's unicast DNS-SD query for the types (hex, one per
                                   line: pyatv splits long lists)
    hap_peer.py dnsparse HEX       pyatv's reading of a DNS-SD answer: [[type, name,
                                   address, port, {txt}]...]
    hap_peer.py tic HEX            what pyatv's archive reader finds in a _tiC payload:
                                   [uuid hex, insertion text or null, text to assert or null]
"""

import hashlib
import json
import sys
import uuid

from srptools import SRPClientSession, SRPContext, SRPServerSession, constants


def srp(pin, salt, a, b):
    context = SRPContext("Pair-Setup", pin, prime=constants.PRIME_3072, generator=constants.PRIME_3072_GEN,
                         hash_func=hashlib.sha512)
    verifier = context.get_common_password_verifier(context.get_common_password_hash(bytes.fromhex(salt)))
    server = SRPServerSession(SRPContext("Pair-Setup", prime=constants.PRIME_3072, generator=constants.PRIME_3072_GEN,
                                         hash_func=hashlib.sha512), format(verifier, "x"), private=b)
    client = SRPClientSession(context, private=a)
    client.process(server.public, salt)
    server.process(client.public, salt)
    assert server.verify_proof(client.key_proof), "srptools' server refused its own client"
    print(json.dumps({"A": client.public, "B": server.public, "K": client.key.decode() if isinstance(client.key, bytes) else client.key,
                      "M1": client.key_proof.decode() if isinstance(client.key_proof, bytes) else client.key_proof,
                      "M2": server.key_proof_hash.decode() if isinstance(server.key_proof_hash, bytes) else server.key_proof_hash}))


def samples():
    return {
        "true": True, "false": False, "null": None, "zero": 0, "small": 39, "byte": 40, "short": 0x1234, "word": 0x12345678,
        "long": 0x123456789ABCDEF0, "double": 1.5, "empty-string": "", "string": "_hidC", "string-32": "a" * 32,
        "string-33": "b" * 33, "string-300": "c" * 300, "data": b"\x01\x02\x03", "data-40": bytes(range(40)),
        "data-300": bytes(300), "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "list": [1, "two", b"3"], "list-15": list(range(15)), "dict": {"_i": "_hidC", "_t": 2, "_x": 1234},
        "dict-15": {f"k{i}": i for i in range(15)},
        "message": {"_i": "_launchApp", "_x": 123456, "_t": 2, "_c": {"_bundleID": "com.netflix.Netflix"}},
        "repeat": ["same", "same", b"xyzw", b"xyzw", 1000, 1000],
        "pairing": {"_pd": bytes([0, 1, 0, 6, 1, 1]), "_pwTy": 1},
    }


def plist_samples():
    import plistlib
    return {
        "ints": [0, 1, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, -1, -2**63],
        "reals": [0.0, 1.5, -2.25, 1e300], "bools": [True, False],
        "strings": ["", "a", "fourteen chars", "fifteen chars!!", "x" * 300, "café", "日本語 ✓", "emoji 🙂"],
        "data": [b"", bytes(range(14)), bytes(range(15)), bytes(300)],
        "uids": [plistlib.UID(0), plistlib.UID(255), plistlib.UID(256), plistlib.UID(70000)],
        "nested": {"list": [1, [2, [3, {"deep": "yes"}]]], "dict": {f"k{i}": i for i in range(20)}},
        "archive": {"$version": 100000, "$archiver": "RTIKeyedArchiver", "$top": {"t": plistlib.UID(1)},
                    "$objects": ["$null", {"$class": plistlib.UID(2), "v": "x"},
                                 {"$classname": "C", "$classes": ["C", "NSObject"]}]},
        "many": list(range(300)),
    }


def plist_json(value):
    import plistlib
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return {"real": value}
    if isinstance(value, plistlib.UID):
        return {"uid": value.data}
    if isinstance(value, bytes):
        return {"data": value.hex()}
    if isinstance(value, list):
        return [plist_json(v) for v in value]
    if isinstance(value, dict):
        return [[k, plist_json(v)] for k, v in value.items()]
    return value


def to_json(value):
    if isinstance(value, bytes):
        return {"data": value.hex()}
    if isinstance(value, uuid.UUID):
        return {"uuid": value.bytes.hex()}
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return [[to_json(k), to_json(v)] for k, v in value.items()]
    return value


def main():
    mode = sys.argv[1]
    if mode == "srp":
        srp(*sys.argv[2:6])
    elif mode == "opack":
        from pyatv.support import opack
        print(json.dumps({name: opack.pack(value).hex() for name, value in samples().items()}))
    elif mode == "unopack":
        from pyatv.support import opack
        out = []
        for text in sys.argv[2:]:
            value, rest = opack.unpack(bytes.fromhex(text))
            assert not rest, f"{len(rest)} bytes left after {text}"
            out.append(to_json(value))
        print(json.dumps(out))
    elif mode == "tlv":
        from pyatv.auth.hap_tlv8 import read_tlv
        print(json.dumps({str(k): v.hex() for k, v in read_tlv(bytes.fromhex(sys.argv[2])).items()}))
    elif mode == "hkdf":
        from pyatv.auth.hap_srp import hkdf_expand
        print(hkdf_expand(sys.argv[3], sys.argv[4], bytes.fromhex(sys.argv[2])).hex())
    elif mode == "chacha":
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        key, nonce, aad, plain = (bytes.fromhex(x) for x in sys.argv[2:6])
        print(ChaCha20Poly1305(key).encrypt(nonce, plain, aad or None).hex())
    elif mode == "plists":
        import plistlib
        print(json.dumps({name: plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False).hex()
                          for name, value in plist_samples().items()}))
    elif mode == "unplist":
        import plistlib
        print(json.dumps([plist_json(plistlib.loads(bytes.fromhex(text))) for text in sys.argv[2:]]))
    elif mode == "rti":
        from pyatv.protocols.companion.plist_payloads import get_rti_clear_text_payload, get_rti_input_text_payload
        session = bytes.fromhex(sys.argv[2])
        print(json.dumps({"insert": get_rti_input_text_payload(session, sys.argv[3]).hex(),
                          "clear": get_rti_clear_text_payload(session).hex()}))
    elif mode == "tistart":
        from pyatv.protocols.companion import keyed_archiver
        session, text = keyed_archiver.read_archive_properties(
            bytes.fromhex(sys.argv[2]), ["sessionUUID"], ["documentState", "docSt", "contextBeforeInput"])
        print(json.dumps([session.hex(), text]))
    elif mode == "dnsquery":
        from pyatv.core.mdns import create_service_queries
        from pyatv.support.dns import QueryType
        for query in create_service_queries([t + ".local" for t in sys.argv[2:]], QueryType.PTR):
            print(bytes(query).hex())
    elif mode == "dnsparse":
        from pyatv.core.mdns import ServiceParser
        from pyatv.support.dns import DnsMessage
        services = ServiceParser().add_message(DnsMessage().unpack(bytes.fromhex(sys.argv[2]))).parse()
        print(json.dumps([[s.type, s.name, str(s.address) if s.address else None, s.port, dict(s.properties)]
                          for s in services]))
    elif mode == "tic":
        from pyatv.protocols.companion import keyed_archiver
        session, text, asserted = keyed_archiver.read_archive_properties(
            bytes.fromhex(sys.argv[2]), ["textOperations", "targetSessionUUID", "NS.uuidbytes"],
            ["textOperations", "keyboardOutput", "insertionText"], ["textOperations", "textToAssert"])
        print(json.dumps([session.hex(), text, asserted]))


if __name__ == "__main__":
    main()
