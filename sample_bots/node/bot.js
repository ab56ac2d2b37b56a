// A Sixty-Six Arena bot in Node.js that plays every registered game, reading the observation case the
// request sets, and always answers with one of the request's legal actions (echoed as it came):
//   sixtysix, schnapsen  a uniformly random legal action, claiming only with 66 or more (66-11);
//   three_handed         names trump from its first three cards, marries (trumps first), claims when the
//                        claim is offered (3H-5: only with 66), leads aces, else gives its cheapest card;
//   four_handed          leads an ace if it holds one, else its cheapest card; follows with its cheapest
//                        legal card (the duty to follow and head is already in the legal list, 4H-4);
//   twenty_two           sheds its highest cards early: exchanges tens and above away (22-4), leads and
//                        follows with its highest legal plays, and keeps its lowest card for the reveal (22-7.3).
//
// It loads ../../proto at run time with @grpc/proto-loader, so it needs nothing but proto/:
//   node sample_bots/node/bot.js --arena HOST:PORT --token TOKEN   (or ARENA_ADDRESS / ARENA_TOKEN)
// It exits with status 0 on Goodbye, on SIGTERM/SIGINT and when the connection drops. Should choosing
// fail, it logs why and plays the first legal action (with NODE_BOT_STRICT=1 it exits with an error instead).
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTOCOL_VERSION = 2;
const GAMES = ['sixtysix', 'schnapsen', 'three_handed', 'four_handed', 'twenty_two'];
const STRICT = process.env.NODE_BOT_STRICT === '1';  // tests: a failure to choose crashes instead of playing legal[0]

// Notation letters of the proto's enums (cards are written rank then suit, e.g. "TH").
const SUIT_LETTER = { SUIT_CLUBS: 'C', SUIT_DIAMONDS: 'D', SUIT_HEARTS: 'H', SUIT_SPADES: 'S' };
const RANK_LETTER = {
  RANK_NINE: '9', RANK_JACK: 'J', RANK_QUEEN: 'Q', RANK_KING: 'K', RANK_TEN: 'T', RANK_ACE: 'A', RANK_TWO: '2',
  RANK_THREE: '3', RANK_FOUR: '4', RANK_FIVE: '5', RANK_SIX: '6', RANK_SEVEN: '7', RANK_EIGHT: '8',
};
const SIMPLE = {
  ACTION_KIND_EXCHANGE: 'exchange', ACTION_KIND_CLOSE: 'close', ACTION_KIND_CLAIM: 'claim',
  ACTION_KIND_DRAW: 'draw', ACTION_KIND_PASS: 'pass', ACTION_KIND_FINISH: 'finish',
};
// Card points of the Sixty-Six family (7 and 8 of the 32-card four-handed pack count nothing, 4H-2).
const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 };
const ORDER66 = '789JQKTA';  // low to high within a suit
const ORDER22 = '23456789TJQKA';  // 22-1.2, low to high; suits do not matter

function option(name, envName) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  return process.env[envName] || '';
}

function log(line) {
  process.stderr.write(`node-bot: ${line}\n`);
}

function cardText(card) {
  if (!card) return '';
  if (card.text) return card.text;
  return (RANK_LETTER[card.rank] || '?') + (SUIT_LETTER[card.suit] || '?');
}

// The notation of a legal action: the arena fills text; the structure is the fallback.
function actionText(a) {
  if (a.text) return a.text;
  if (a.kind === 'ACTION_KIND_PLAY') return cardText(a.card);
  if (a.kind === 'ACTION_KIND_MARRY') return `marry:${SUIT_LETTER[a.suit] || '?'}`;
  return SIMPLE[a.kind] || '';
}

const isCard = (t) => /^[2-9TJQKA][CDHS]$/.test(t);
const hand = (obs) => obs.hand.map(cardText);
const byText = (legal) => legal.map((a) => ({ a, t: actionText(a) }));
const minBy = (xs, key) => xs.reduce((best, x) => (cmp(key(x), key(best)) < 0 ? x : best));
const maxBy = (xs, key) => xs.reduce((best, x) => (cmp(key(x), key(best)) > 0 ? x : best));

function cmp(x, y) {  // numbers or arrays of numbers, lexicographically
  if (!Array.isArray(x)) return x - y;
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// How dear a Sixty-Six card is to give up: trumps first, then card points, then rank.
const dearness = (t, trump, keep) => [keep.has(t) ? 1 : 0, t[1] === trump ? 1 : 0, POINTS[t[0]], ORDER66.indexOf(t[0])];

// Kings and queens of a marriage still in hand.
function marriageCards(cards) {
  const set = new Set(cards);
  return new Set(cards.filter((c) => (c[0] === 'K' && set.has(`Q${c[1]}`)) || (c[0] === 'Q' && set.has(`K${c[1]}`))));
}

// Sixty-Six and Schnapsen: random, claiming with 66 or more and never with less.
function chooseSixtySix(obs, legal) {
  const mine = obs ? obs.points[obs.seat] : 0;
  const claim = legal.find((a) => actionText(a) === 'claim');
  if (claim && mine >= 66) return claim;
  const others = legal.filter((a) => actionText(a) !== 'claim');
  const pool = others.length > 0 ? others : legal;
  return pool[Math.floor(Math.random() * pool.length)];
}

// Three-handed Sixty-Six (3H-2 .. 3H-6).
function chooseThreeHanded(obs, legal) {
  const acts = byText(legal);
  const find = (t) => acts.find((x) => x.t === t);
  const cards = hand(obs);
  if (obs.point === 'THREE_HANDED_POINT_TRUMP') {  // 3H-2: the best suit of the first three cards, or the next card
    let best = '';
    let score = 0;
    for (const s of 'CDHS') {
      const v = cards.filter((c) => c[1] === s).reduce((n, c) => n + POINTS[c[0]] + 6, 0);
      if (v > score) [best, score] = [s, v];
    }
    const named = score >= 16 ? find(`trump:${best}`) : undefined;
    return (named || find('trump:next') || acts[0]).a;
  }
  const claim = find('claim');  // offered only with 66 counted (3H-5)
  if (claim) return claim.a;
  if (obs.point === 'THREE_HANDED_POINT_END') return (find('finish') || acts[0]).a;
  const trump = SUIT_LETTER[obs.trump] || '';
  const marriages = acts.filter((x) => x.t.startsWith('marry:'));
  if (marriages.length > 0) return maxBy(marriages, (x) => (x.t.endsWith(trump) ? 1 : 0)).a;
  const plays = acts.filter((x) => isCard(x.t));
  if (plays.length === 0) return acts[0].a;
  const keep = marriageCards(cards);
  if (obs.point === 'THREE_HANDED_POINT_LEAD') {
    if (plays.length < cards.length) return maxBy(plays, (x) => (x.t[0] === 'Q' ? 1 : 0)).a;  // after a marriage
    const aces = plays.filter((x) => x.t[0] === 'A');
    if (aces.length > 0) return maxBy(aces, (x) => (x.t[1] === trump ? 1 : 0)).a;
  }
  return minBy(plays, (x) => dearness(x.t, trump, keep)).a;
}

// Four-handed partnership Sixty-Six (4H-4): cards only.
function chooseFourHanded(obs, legal) {
  const plays = byText(legal).filter((x) => isCard(x.t));
  if (plays.length === 0) return legal[0];
  const trump = SUIT_LETTER[obs.trump_suit] || '';
  if (obs.point === 'POINT_LEAD') {
    const aces = plays.filter((x) => x.t[0] === 'A' && x.t[1] !== trump);
    if (aces.length > 0) return aces[0].a;
  }
  return minBy(plays, (x) => dearness(x.t, trump, new Set())).a;
}

// Twenty-Two (22-4 .. 22-7): shed high cards early, keep the lowest for the reveal.
function chooseTwentyTwo(obs, legal) {
  const acts = byText(legal);
  if (acts.length === 1) return acts[0].a;
  const rank = (c) => ORDER22.indexOf(c[0]);
  if (obs.point === 'POINT22_EXCHANGE') {  // discard the highest ten or above while the stock allows
    const high = acts.filter((x) => x.t.startsWith('discard:') && rank(x.t.slice(8)) >= ORDER22.indexOf('T'));
    if (high.length > 0) return maxBy(high, (x) => rank(x.t.slice(8))).a;
    return (acts.find((x) => x.t === 'done') || acts[0]).a;
  }
  const plays = acts.filter((x) => x.t.split('+').every(isCard));
  if (plays.length === 0) return acts[0].a;
  const ranks = hand(obs).map(rank);
  const lowest = Math.min(...ranks);
  const lowCount = ranks.filter((r) => r === lowest).length;
  const lead = obs.point === 'POINT22_LEAD';
  return maxBy(plays, (x) => {
    const rs = x.t.split('+').map(rank);
    const keepsLow = rs.filter((r) => r === lowest).length < lowCount ? 1 : 0;
    return [keepsLow, lead ? rs.length : 0, rs.reduce((n, r) => n + r, 0)];
  }).a;
}

const CHOOSE = {
  sixtysix: chooseSixtySix, schnapsen: chooseSixtySix, three_handed: chooseThreeHanded,
  four_handed: chooseFourHanded, twenty_two: chooseTwentyTwo,
};

// The action to answer with: always an element of request.legal (the first one if choosing fails).
function choose(request) {
  const legal = request.legal;
  if (legal.length <= 1) return legal[0];
  const game = request.observation;  // the oneof case that is set
  const obs = game ? request[game] : null;
  try {
    const pick = obs && CHOOSE[game] ? CHOOSE[game](obs, legal) : chooseSixtySix(null, legal);
    if (legal.includes(pick)) return pick;
    log(`choose failed: no legal action picked in ${game}`);
  } catch (err) {
    if (STRICT) throw err;
    log(`choose failed in ${game}: ${err.stack || err}`);
  }
  if (STRICT) throw new Error(`choose failed in ${game}`);
  return legal[0];
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
      name: 'node-bot', version: '0.2.0', protocol_version: PROTOCOL_VERSION, games: GAMES, max_concurrent: 16,
      token,
    },
  });
}

main();
