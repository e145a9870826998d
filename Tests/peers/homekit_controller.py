"""aiohomekit 4.0.1's IP controller (Home Assistant's homekit_controller) driving one HomeKit
accessory at 127.0.0.1:PORT by direct connect, no multicast: a hand-made description stands
in for the mDNS record.

    homekit_controller.py PORT DEVICE_ID

Reads one command a line on stdin and prints one JSON line per command:
    pair CODE                   pair-setup ({"paired": true} or {"error": "Name: text"})
    accessories                 {"services": [types], "characteristics": n}
    inputs                      {"inputs": [{"name", "identifier"}]} (the InputSource services)
    get AID.IID,...             {"AID.IID": {"value": v} or {"status": s}}
    put AID.IID=JSON ...        {"AID.IID": {"status": s}} for the items that failed ({} if none)
    subscribe AID.IID,...       {"subscribed": true}
    events N SECONDS            waits for N events: {"events": [{"AID.IID": value}...]}
    pairings                    {"pairings": [{"id", "admin"}]}
    add ID                      adds a user controller with a new key ({"added": true})
    remove ID                   {"removed": true}
    reconnect                   closes the session and verifies again ({"verified": true})
    impostor                    this controller's id with another key: pair-verify must fail
    again CODE                  pair-setup once more (refused while paired)
    identify                    POST /identify unpaired
    bench N                     N RemoteKey (select) writes in a row: {"milliseconds": [round trip each]}
Every error prints {"error": "Name: text"}; the process goes on.
"""

import asyncio
import json
import sys
import time
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.categories import Categories
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService


class Controller:
    """What IpDiscovery and IpPairing need of a controller."""

    def __init__(self):
        self._char_cache = CharacteristicCacheMemory()
        self.pairings = {}


def description(port, device_id):
    return HomeKitService(
        name="Photon TV", id=device_id.lower(), model="Photon", feature_flags=FeatureFlags(0), status_flags=StatusFlags(1),
        config_num=1, state_num=1, category=Categories(31), protocol_version="1.1", type="_hap._tcp.local.",
        address="127.0.0.1", addresses=["127.0.0.1"], port=port)


def key(text):
    aid, iid = text.split(".")
    return int(aid), int(iid)


class Session:
    def __init__(self, port, device_id):
        self.port = port
        self.device_id = device_id
        self.controller = Controller()
        self.pairing = None
        self.events = []

    def watch(self, pairing):
        """Records the events that arrive from the accessory (aiohomekit's listeners also
        hear its own writes, which are not events)."""
        original = pairing.event_received

        def received(event):
            for item in event.get("characteristics", []):
                self.events.append({f"{item['aid']}.{item['iid']}": item.get("value")})
            original(event)

        pairing.event_received = received

    async def pair(self, code, keep=True):
        discovery = IpDiscovery(self.controller, description(self.port, self.device_id))
        try:
            finish = await discovery.async_start_pairing("tv")
            pairing = await finish(code)
        finally:
            await discovery.close()
        if keep:
            self.pairing = pairing
            self.watch(pairing)
        return {"paired": True}

    async def command(self, words):
        name, arguments = words[0], words[1:]
        if name == "pair":
            return await self.pair(arguments[0])
        if name == "again":
            return await self.pair(arguments[0], keep=False)
        if name == "identify":
            discovery = IpDiscovery(self.controller, description(self.port, self.device_id))
            try:
                await discovery.async_identify()
            finally:
                await discovery.close()
            return {"identified": True}
        if name == "accessories":
            accessories = await self.pairing.list_accessories_and_characteristics()
            services = accessories[0]["services"]
            return {"services": [s["type"] for s in services], "characteristics": sum(len(s["characteristics"]) for s in services)}
        if name == "inputs":
            accessories = await self.pairing.list_accessories_and_characteristics()
            found = []
            for service in accessories[0]["services"]:
                if service["type"].startswith("000000D9-"):
                    values = {c["type"][:8]: c.get("value") for c in service["characteristics"]}
                    found.append({"name": values.get("000000E3"), "identifier": values.get("000000E6")})
            return {"inputs": found}
        if name == "get":
            result = await self.pairing.get_characteristics([key(k) for k in arguments[0].split(",")])
            return {f"{aid}.{iid}": value for (aid, iid), value in result.items()}
        if name == "put":
            items = []
            for argument in arguments:
                target, value = argument.split("=", 1)
                items.append((*key(target), json.loads(value)))
            result = await self.pairing.put_characteristics(items)
            return {f"{aid}.{iid}": value for (aid, iid), value in result.items()}
        if name == "subscribe":
            await self.pairing.subscribe({key(k) for k in arguments[0].split(",")})
            return {"subscribed": True}
        if name == "events":
            count, seconds = int(arguments[0]), float(arguments[1])
            deadline = asyncio.get_running_loop().time() + seconds
            while len(self.events) < count and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.01)
            events, self.events = self.events, []
            return {"events": events}
        if name == "pairings":
            listed = await self.pairing.list_pairings()
            return {"pairings": [{"id": p["pairingId"], "admin": p["controllerType"] == "admin"} for p in listed]}
        if name == "add":
            other = ed25519.Ed25519PrivateKey.generate().public_key()
            raw = other.public_bytes(encoding=serialization.Encoding.Raw, format=serialization.PublicFormat.Raw)
            await self.pairing.add_pairing(arguments[0], raw.hex(), "User")
            return {"added": True}
        if name == "remove":
            await self.pairing.remove_pairing(arguments[0])
            return {"removed": True}
        if name == "bench":
            # N RemoteKey writes one after another: each round trip (ms), the door answering
            # once the TV has the key.
            times = []
            for _ in range(int(arguments[0])):
                start = time.perf_counter()
                result = await self.pairing.put_characteristics([(1, 15, 8)])
                times.append((time.perf_counter() - start) * 1000)
                if result:
                    return {"error": f"a write failed: {result}"}
            return {"milliseconds": times}
        if name == "whoami":
            return {"id": self.pairing.pairing_data["iOSPairingId"]}
        if name == "reconnect":
            data = self.pairing.pairing_data
            await self.pairing.close()
            self.pairing = IpPairing(self.controller, data)
            self.watch(self.pairing)
            await self.pairing.list_accessories_and_characteristics()
            return {"verified": True}
        if name == "impostor":
            data = dict(self.pairing.pairing_data)
            other = ed25519.Ed25519PrivateKey.generate()
            data["iOSDeviceLTSK"] = other.private_bytes(
                encoding=serialization.Encoding.Raw, format=serialization.PrivateFormat.Raw,
                encryption_algorithm=serialization.NoEncryption()).hex()
            if arguments:
                data["iOSPairingId"] = str(uuid.uuid4()).upper()
            impostor = IpPairing(self.controller, data)
            try:
                await impostor.list_accessories_and_characteristics()
            finally:
                await impostor.close()
            return {"verified": True}
        return {"error": f"unknown command {name}"}


async def main():
    session = Session(int(sys.argv[1]), sys.argv[2])
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        words = line.split()
        if not words:
            continue
        try:
            result = await asyncio.wait_for(session.command(words), 20)
        except Exception as error:  # the test reads the reason
            result = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(result), flush=True)
    if session.pairing:
        await session.pairing.close()


if __name__ == "__main__":
    asyncio.run(main())
