"""Python baselines for `make bench`, measured against Photon's own servers in the same
run. Prints one JSON object.

  bench_client.py tls-handshake PORT CERT KEY COUNT
  bench_client.py ws-roundtrip URL COUNT SIZE
  bench_client.py ws-throughput URL COUNT SIZE
"""
import asyncio
import json
import socket
import ssl
import statistics
import sys
import time

import websockets


def tls_handshake(port, cert, key, count):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.load_cert_chain(cert, key)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port)) as raw:
            with ctx.wrap_socket(raw) as tls:
                tls.getpeercert(binary_form=True)
        times.append(time.perf_counter() - start)
    return {"samples": times}


async def ws_roundtrip(url, count, size):
    payload = b"x" * size
    times = []
    async with websockets.connect(url, max_size=2**26, compression=None) as ws:
        for _ in range(count):
            start = time.perf_counter()
            await ws.send(payload)
            await ws.recv()
            times.append(time.perf_counter() - start)
    return {"samples": times}


async def ws_throughput(url, count, size):
    payload = b"x" * size
    async with websockets.connect(url, max_size=2**26, compression=None) as ws:
        start = time.perf_counter()
        for _ in range(count):
            await ws.send(payload)
            await ws.recv()
        elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "bytes": count * size * 2}


def main():
    mode = sys.argv[1]
    if mode == "tls-handshake":
        result = tls_handshake(int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif mode == "ws-roundtrip":
        result = asyncio.run(ws_roundtrip(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    elif mode == "ws-throughput":
        result = asyncio.run(ws_throughput(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result), flush=True)


main()
