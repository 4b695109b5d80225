#!/usr/bin/python3
"""IDs from floed's gRPC API over TLS with a token: Next, then a stream,
each checked to strictly increase; then the codes of two refusals.

    python3 ids.py --addr 127.0.0.1:4446 --ca ca.pem --token s3cret --seq orders

For mutual TLS, add --cert client.pem --key client-key.pem.

Debian's python3-grpcio and python3-protobuf; protoc (protobuf-compiler)
makes the message classes from the repository's .proto into a temporary
folder at each start.
"""
import argparse, os, pathlib, shutil, subprocess, sys, tempfile
import grpc

p = argparse.ArgumentParser()
for flag in ("--addr", "--ca", "--cert", "--key", "--server-name", "--token", "--seq"):
    p.add_argument(flag, default="")
o = p.parse_args()

proto = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../proto")
out = tempfile.mkdtemp()
subprocess.run(["protoc", "-I", proto, "--python_out", out, "floe/v1/floe.proto"], check=True)
sys.path.insert(0, out)
from floe.v1 import floe_pb2 as pb  # noqa: E402
shutil.rmtree(out)

read = lambda path: pathlib.Path(path).read_bytes() if path else None  # noqa: E731
creds = grpc.ssl_channel_credentials(read(o.ca), read(o.key), read(o.cert))
opts = [("grpc.ssl_target_name_override", o.server_name)] if o.server_name else []
channel = grpc.secure_channel(o.addr, creds, opts)
next_ = channel.unary_unary("/floe.v1.IDs/Next", pb.NextRequest.SerializeToString, pb.NextResponse.FromString)
stream = channel.unary_stream("/floe.v1.IDs/Stream", pb.StreamRequest.SerializeToString, pb.NextResponse.FromString)
auth = lambda token: [("authorization", "Bearer " + token)]  # noqa: E731

last = -1
def increasing(what, ids):
    global last
    for i in ids:
        if i <= last:
            sys.exit(f"error: {what}: {i} after {last}")
        last = i

res = next_(pb.NextRequest(sequence=o.seq, count=100), metadata=auth(o.token), timeout=10)
if len(res.ids64) != 100:
    sys.exit(f"error: Next: {len(res.ids64)} IDs, want 100")
increasing("Next", res.ids64)
print(f"next: {len(res.ids64)} ids of {res.sequence}, {pb.Format.Name(res.format)}, increasing")

call = stream(pb.StreamRequest(sequence=o.seq, count=10), metadata=auth(o.token), timeout=10)
messages = 0
for msg in call:
    increasing("Stream", msg.ids64)
    messages += 1
    if messages == 3:
        call.cancel()
        break
print(f"stream: {messages} messages of 10 ids, increasing")

for what, seq, token, want in [("unknown sequence", "no-such-sequence", o.token, grpc.StatusCode.NOT_FOUND),
                               ("bad token", o.seq, "not-the-token", grpc.StatusCode.UNAUTHENTICATED)]:
    try:
        next_(pb.NextRequest(sequence=seq, count=1), metadata=auth(token), timeout=10)
        code = grpc.StatusCode.OK
    except grpc.RpcError as e:
        code = e.code()
    if code != want:
        sys.exit(f"error: {what}: {code.name}, want {want.name}")
    print(f"{what}: {code.name}")
channel.close()
print("ok")
