/**
 * The pipelining attack of issue 40, as a process of its own (so the test measuring the victim
 * shares no event loop with it): `sockets` keep-alive connections from 127.0.0.1, each writing
 * `depth` pipelined 36-byte `GET /v1/pets` without a key at once, reading the answers, and writing
 * the next batch as soon as the last answer of one came, until killed. It prints one JSON line of
 * counts on SIGTERM.
 *
 *   node --import tsx testing/pipelining-attacker.ts <port> <sockets> <depth>
 */
import { connect } from 'node:net';

const [port = 0, sockets = 0, depth = 0] = process.argv.slice(2).map(Number);
if (port === 0 || sockets === 0 || depth === 0) {
  throw new Error('usage: pipelining-attacker.ts port sockets depth');
}

// 36 bytes, as in the issue.
const REQUEST = 'GET /v1/pets HTTP/1.1\r\nHost: abc\r\n\r\n';
const batch = Buffer.from(REQUEST.repeat(depth));
const ANSWER = Buffer.from('HTTP/1.1 ');
let answers = 0;
let batches = 0;
let closed = 0;

function attack(): void {
  const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.1', noDelay: true });
  let waiting = 0;
  const send = () => {
    waiting = depth;
    batches++;
    socket.write(batch);
  };
  socket.on('connect', send);
  // The end of the last read: a status line may be split between two reads.
  let tail = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    const text = Buffer.concat([tail, chunk]);
    for (let at = text.indexOf(ANSWER); at !== -1; at = text.indexOf(ANSWER, at + 1)) {
      answers++;
      waiting--;
    }
    tail = text.subarray(Math.max(0, text.length - (ANSWER.length - 1)));
    if (waiting <= 0) send();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed++;
    // Straight back, as an attacker would.
    setTimeout(attack, 10);
  });
}

for (let n = 0; n < sockets; n++) attack();
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ answers, batches, closed })}\n`);
  process.exit(0);
});
