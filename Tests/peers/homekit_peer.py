"""aiohomekit's side of HomeKit pairing (as an iOS controller pairs), for checks of Photon's
accessory side byte by byte and message by message.

    homekit_peer.py srp CODE SALT a b      SRP-6a as aiohomekit's SrpClient and SrpServer run it
                                           (A, B and S padded to 384 bytes): prints
                                           {"A", "B", "K", "M1", "M2"} (hex) for the salt and
                                           private values (hex)
    homekit_peer.py controller CODE ID [a] pair-setup then pair-verify as aiohomekit's
                                           controller, one message per line: prints each
                                           request as `send HEX` (TLV8), reads each answer as a
                                           line of hex on stdin; then prints `keys {"write":
                                           hex, "read": hex, "accessory": id}` (the Control
                                           keys) or `error NAME: text` and exits 1. `a` fixes
                                           the SRP private value (hex).
    homekit_peer.py session A2C C2A REQUEST... -- FRAMES
                                           aiohomekit's encrypted session (SecureHomeKitProtocol)
                                           with the keys (hex): seals each request (hex of the
                                           HTTP message), then reads FRAMES (hex, the accessory's
                                           bytes) as its answers and events: prints {"sent": [hex
                                           per request], "responses": [{"code", "body"}],
                                           "events": [{"code", "body"}]}
    homekit_peer.py search CODE SALT b     the first private values that give A, B or S a
                                           leading zero byte (S with this b), for tests of the
                                           padding: {"A": a, "B": b, "S": a} (hex)
"""

import asyncio
import json
import sys

from aiohomekit.crypto import srp as hksrp
from aiohomekit.protocol import get_session_keys, perform_pair_setup_part1, perform_pair_setup_part2
from aiohomekit.protocol.tlv import TLV


def fixed_client(code, salt, a, server_public):
    client = hksrp.SrpClient("Pair-Setup", code)
    client.a = a
    client.A = pow(client.g, a, client.n)
    client.A_b = hksrp.pad_left(hksrp.to_byte_array(client.A), hksrp.HK_KEY_LENGTH)
    client.set_salt(bytearray(salt))
    client.set_server_public_key(server_public)
    return client


def fixed_server(code, salt, b):
    server = hksrp.SrpServer("Pair-Setup", code)
    server.salt_b = hksrp.pad_left(bytes(salt), 16)
    server.salt = int.from_bytes(server.salt_b, "big")
    server.verifier = server._get_verifier()
    server.b = b
    server.B = server.get_public_key()
    server.B_b = server.get_public_key_bytes()
    return server


def srp(code, salt_hex, a_hex, b_hex):
    salt = bytes.fromhex(salt_hex)
    server = fixed_server(code, salt, int(b_hex, 16))
    client = fixed_client(code, salt, int(a_hex, 16), server.get_public_key_bytes())
    server.set_client_public_key(client.get_public_key_bytes())
    m1 = client.get_proof_bytes()
    assert server.verify_clients_proof_bytes(m1), "aiohomekit's server refused its own client's proof"
    m2 = server.digest(server.A_b, m1, server.get_session_key_bytes())
    assert client.verify_servers_proof_bytes(m2)
    print(json.dumps({
        "A": client.get_public_key_bytes().hex(),
        "B": server.get_public_key_bytes().hex(),
        "K": client.get_session_key_bytes().hex(),
        "M1": m1.hex(),
        "M2": m2.hex(),
    }))


def search(code, salt_hex, b_hex):
    """Private values a (counting up from 1) whose A, or whose S with the given b, starts
    with a zero byte."""
    salt = bytes.fromhex(salt_hex)
    server = fixed_server(code, salt, int(b_hex, 16))
    found = {}
    a = 1 << 255
    while len(found) < 2:
        a += 1
        client = fixed_client(code, salt, a, server.get_public_key_bytes())
        if "A" not in found and client.A < 1 << (8 * 383):
            found["A"] = format(a, "064x")
        if "S" not in found and client.get_shared_secret() < 1 << (8 * 383):
            found["S"] = format(a, "064x")
    b = 1 << 255
    while "B" not in found:
        b += 1
        if fixed_server(code, salt, b).B < 1 << (8 * 383):
            found["B"] = format(b, "064x")
    print(json.dumps(found))


def exchange(generator):
    """Runs one of aiohomekit's protocol generators over stdin and stdout."""
    request, expectations = next(generator)
    while True:
        print("send " + bytes(TLV.encode_list(request)).hex(), flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError("the accessory side closed")
        answer = TLV.decode_bytes(bytes.fromhex(line.strip()), expected=expectations)
        try:
            request, expectations = generator.send(answer)
        except StopIteration as done:
            return done.value


def controller(code, pairing_id, a_hex=None):
    if a_hex:
        hksrp.Srp.generate_private_key = staticmethod(lambda: int(a_hex, 16))
    salt, server_public = exchange(perform_pair_setup_part1())
    pairing = exchange(perform_pair_setup_part2(code, pairing_id, salt, server_public))
    _, derive = exchange(get_session_keys(pairing))
    print("keys " + json.dumps({
        "write": derive(b"Control-Salt", b"Control-Write-Encryption-Key").hex(),
        "read": derive(b"Control-Salt", b"Control-Read-Encryption-Key").hex(),
        "accessory": pairing["AccessoryPairingID"],
    }), flush=True)


async def session(a2c_hex, c2a_hex, *rest):
    from aiohomekit.controller.ip.connection import SecureHomeKitProtocol

    split = rest.index("--")
    requests, incoming = rest[:split], rest[split + 1:]
    events = []

    class Connection:
        def event_received(self, event):
            events.append(event)

        def _connection_lost(self, exception):
            pass

    class Transport:
        def __init__(self):
            self.writes = []

        def writelines(self, parts):
            self.writes.append(b"".join(parts))

        def is_closing(self):
            return False

        def write_eof(self):
            pass

        def close(self):
            pass

    protocol = SecureHomeKitProtocol(Connection(), bytes.fromhex(a2c_hex), bytes.fromhex(c2a_hex))
    transport = Transport()
    protocol.connection_made(transport)
    pending = []
    for request in requests:
        pending.append(asyncio.ensure_future(protocol.send_bytes(bytes.fromhex(request))))
        await asyncio.sleep(0)
    for frames in incoming:
        protocol.data_received(bytes.fromhex(frames))
    await asyncio.sleep(0)
    responses = [{"code": task.result().code, "body": bytes(task.result().body).hex()} for task in pending if task.done()]
    for task in pending:
        task.cancel()
    print(json.dumps({
        "sent": [write.hex() for write in transport.writes],
        "responses": responses,
        "events": [{"code": event.code, "body": bytes(event.body).hex()} for event in events],
    }))


def main():
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "srp":
        srp(*arguments)
    elif command == "session":
        asyncio.run(session(*arguments))
    elif command == "search":
        search(*arguments)
    elif command == "controller":
        try:
            controller(*arguments)
        except Exception as error:  # the test reads the reason
            print(f"error {type(error).__name__}: {error}", flush=True)
            sys.exit(1)
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
