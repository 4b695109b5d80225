// IDs from floed's gRPC API over TLS with a token: Next, then a stream,
// each checked to strictly increase; then the codes of two refusals.
//   node ids.js --addr 127.0.0.1:4446 --ca ca.pem --token s3cret --seq orders
// For mutual TLS, add --cert client.pem --key client-key.pem.
const path = require('node:path');
const { parseArgs } = require('node:util');
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const { values: o } = parseArgs({ options: Object.fromEntries(
  ['addr', 'ca', 'cert', 'key', 'server-name', 'token', 'seq'].map((k) => [k, { type: 'string', default: '' }])) });
const def = loader.loadSync(path.join(__dirname, '../../proto/floe/v1/floe.proto'),
  { longs: String, enums: String, defaults: true });
const { IDs } = grpc.loadPackageDefinition(def).floe.v1;
const opts = o['server-name'] ? { 'grpc.ssl_target_name_override': o['server-name'] } : {};
const read = (file) => (file ? fs.readFileSync(file) : null);
const ids = new IDs(o.addr, grpc.credentials.createSsl(read(o.ca), read(o.key), read(o.cert)), opts);
const auth = (token) => { const md = new grpc.Metadata(); md.set('authorization', `Bearer ${token}`); return md; };
const deadline = () => ({ deadline: Date.now() + 10000 });
const next = (req, token) => new Promise((resolve, reject) =>
  ids.next(req, auth(token), deadline(), (err, res) => (err ? reject(err) : resolve(res))));

let last = -1n; // id64 IDs as BigInt: a Number loses precision above 2^53
function increasing(what, res) {
  for (const s of res.ids64) {
    const id = BigInt(s);
    if (id <= last) throw new Error(`${what}: ${id} after ${last}`);
    last = id;
  }
}

async function main() {
  const res = await next({ sequence: o.seq, count: 100 }, o.token);
  if (res.ids64.length !== 100) throw new Error(`Next: ${res.ids64.length} IDs, want 100`);
  increasing('Next', res);
  console.log(`next: ${res.ids64.length} ids of ${res.sequence}, ${res.format}, increasing`);

  const stream = ids.stream({ sequence: o.seq, count: 10 }, auth(o.token), deadline());
  let messages = 0;
  for await (const msg of stream) {
    increasing('Stream', msg);
    if (++messages === 3) { stream.cancel(); break; }
  }
  console.log(`stream: ${messages} messages of 10 ids, increasing`);

  for (const [what, req, token, want] of [
    ['unknown sequence', { sequence: 'no-such-sequence', count: 1 }, o.token, 'NOT_FOUND'],
    ['bad token', { sequence: o.seq, count: 1 }, 'not-the-token', 'UNAUTHENTICATED']]) {
    const code = await next(req, token).then(() => 'OK', (err) => grpc.status[err.code]);
    if (code !== want) throw new Error(`${what}: ${code}, want ${want}`);
    console.log(`${what}: ${code}`);
  }
  console.log('ok');
}

main().then(() => ids.close(), (err) => { console.error(`error: ${err.message}`); process.exit(1); });
