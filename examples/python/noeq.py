#!/usr/bin/env python3
"""IDs over floed's binary protocol (docs/protocol.md), with the standard
library only: an auth frame, pipelined requests, replies checked to
strictly increase; then a wrong token, which closes the connection.

    python3 noeq.py --addr 127.0.0.1:4444 --token s3cret [--ca ca.pem]

With --ca the connection is TLS, checked against that CA and --server-name
(the address's host by default).
"""
import argparse, socket, ssl, struct, sys

p = argparse.ArgumentParser()
for flag in ("--addr", "--token", "--ca", "--server-name"):
    p.add_argument(flag, default="")
o = p.parse_args()
host, port = o.addr.rsplit(":", 1)

def connect(token):
    conn = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
    if o.ca:
        conn = ssl.create_default_context(cafile=o.ca).wrap_socket(conn, server_hostname=o.server_name or host.strip("[]"))
    if token:
        conn.sendall(bytes([0, len(token)]) + token.encode())  # the auth frame
    return conn

def read(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError(f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return buf

conn = connect(o.token)
counts = [1, 10, 255, 34]
conn.sendall(bytes(counts))  # pipelined: one byte per request, 1..255 IDs each
ids = [i for n in counts for i in struct.unpack(f">{n}Q", read(conn, 8 * n))]
if any(b <= a for a, b in zip(ids, ids[1:])):
    sys.exit("error: IDs do not strictly increase")
print(f"noeq: {len(ids)} ids over {'TLS' if o.ca else 'TCP'}, increasing, last {ids[-1]}")
conn.close()

if o.token:
    conn = connect("not-the-token")
    try:
        conn.sendall(b"\x01")
        sys.exit(f"error: a wrong token got {len(read(conn, 8))} bytes")
    except (EOFError, ConnectionError, ssl.SSLError):
        print("bad token: connection closed")
print("ok")
