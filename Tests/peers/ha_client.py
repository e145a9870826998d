"""The Home Assistant side of the MQTT bridge tests: paho-mqtt 2.2.0 (a client nobody here
wrote) subscribes like HA does, records what it sees, and publishes what it is told.

Usage: ha_client.py PORT PREFIX SITE
Reads commands on stdin, one per line:
  pub TOPIC PAYLOAD [retain] [qos0]     publish (PAYLOAD is taken verbatim, '-' for empty)
  raw TOPIC HEX [retain]                publish bytes given in hex
Prints one JSON object per line for every message seen:
  {"topic": ..., "payload": ..., "retain": ...}
and "READY" once subscribed.
"""
import os
import json
import sys
import threading

import paho.mqtt.client as mqtt

port, prefix, site = int(sys.argv[1]), sys.argv[2], sys.argv[3]
output = threading.Lock()


def say(line):
    """One whole line per write, under a lock: paho's network thread and the main thread
    both print, and print() writes the text and its newline separately, so two lines could
    interleave into one that is not JSON (and the test would miss a message)."""
    with output:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def on_connect(client, userdata, flags, reason_code, properties):
    client.subscribe([(f"{prefix}/#", 1), (f"photon/{site}/#", 1)])


def on_subscribe(client, userdata, mid, reason_codes, properties):
    say("READY")


def on_message(client, userdata, msg):
    say(json.dumps({"topic": msg.topic, "payload": msg.payload.decode("utf-8", "replace"), "retain": bool(msg.retain)}))


# Unique per process: two of them on one broker must not take over each other.
client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"ha-test-{site}-{os.getpid()}")
client.on_connect = on_connect
client.on_subscribe = on_subscribe
client.on_message = on_message
client.connect("127.0.0.1", port, keepalive=30)
client.loop_start()
for line in sys.stdin:
    parts = line.rstrip("\n").split(" ", 3)
    if not parts or not parts[0]:
        continue
    if parts[0] == "pub":
        topic, rest = parts[1], " ".join(parts[2:])
        flags = []
        for flag in ("qos0", "retain"):
            if rest.endswith(" " + flag):
                flags.append(flag)
                rest = rest[: -len(flag) - 1]
        payload = b"" if rest == "-" else rest.encode()
        info = client.publish(topic, payload, qos=0 if "qos0" in flags else 1, retain="retain" in flags)
        info.wait_for_publish(5)
        say(json.dumps({"published": topic}))
client.loop_stop()
