// A Sixty-Six Arena bot in Node.js: a uniformly random legal action, claiming only with 66 or more.
// It plays Sixty-Six and Schnapsen (the same observation message, in the case the request sets).
//
// It loads ../../proto at run time with @grpc/proto-loader, so it needs nothing but proto/:
//   node sample_bots/node/bot.js --arena HOST:PORT --token TOKEN   (or ARENA_ADDRESS / ARENA_TOKEN)
// It exits with status 0 on Goodbye, on SIGTERM/SIGINT and when the connection drops.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTOCOL_VERSION = 2;
const GAMES = ['sixtysix', 'schnapsen'];

function option(name, envName) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  return process.env[envName] || '';
}

function log(line) {
  process.stderr.write(`node-random: ${line}\n`);
}

// The action to answer with: claim with 66 or more, otherwise any legal action but a claim.
function choose(request) {
  const obs = request.observation ? request[request.observation] : null;  // the oneof case that is set
  const legal = request.legal;
  const mine = obs ? obs.points[obs.seat] : 0;
  const claim = legal.find((a) => a.kind === 'ACTION_KIND_CLAIM');
  if (claim && mine >= 66) return claim;
  const others = legal.filter((a) => a.kind !== 'ACTION_KIND_CLAIM');
  const pool = others.length > 0 ? others : legal;
  return pool[Math.floor(Math.random() * pool.length)];
}

function main() {
  const address = option('--arena', 'ARENA_ADDRESS');
  const token = option('--token', 'ARENA_TOKEN');
  if (!address) {
    log('no arena address (give --arena ADDRESS or set ARENA_ADDRESS)');
    process.exit(2);
  }
  const definition = protoLoader.loadSync(path.join(PROTO_ROOT, 'arena', 'v1', 'arena.proto'), {
    includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  const client = new arena.BotArena(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let finished = false;
  const finish = (why) => {
    if (finished) return;
    finished = true;
    log(why);
    call.cancel();
    client.close();
    process.exit(0);
  };

  call.on('data', (msg) => {
    if (msg.kind === 'request') {
      const req = msg.request;
      call.write({ reply: { request_id: req.request_id, action: choose(req) } });
    } else if (msg.kind === 'goodbye') {
      call.end();
      finish(`goodbye from the arena: ${msg.goodbye.reason || 'no reason'}`);
    }
  });
  call.on('error', (err) => finish(`connection ended: ${err.code === grpc.status.CANCELLED ? 'cancelled' : err.details || err.message}`));
  call.on('end', () => finish('the arena closed the stream'));
  process.on('SIGTERM', () => finish('SIGTERM'));
  process.on('SIGINT', () => finish('SIGINT'));

  call.write({
    hello: {
      name: 'node-random', version: '0.1.0', protocol_version: PROTOCOL_VERSION, games: GAMES, max_concurrent: 16,
      token,
    },
  });
}

main();
