// The compact form of a large trace in an --html page, as farm/html.c writes it (described
// there, and in README.md): for bench.js, which builds its pages here, and for test.js, which
// checks that a page written by farm/html.c holds exactly what this writes.
"use strict";
const zlib = require("zlib");

const MAGIC = "MFMOVES1", HEAD = 20, MOVE_TO = 9;

// The blob of a trace (a string or its bytes), or null where farm/html.c keeps the text: a
// key outside ASCII, no agents= count (or one among the steps), a step line other than
// "T:(x,y),..." with agents= positions, steps out of order.
function encodeMoves(trace) {
  const b = Buffer.isBuffer(trace) ? trace : Buffer.from(trace, "utf8");
  const txt = [Buffer.alloc(HEAD)], mv = [];
  let mvBuf = Buffer.alloc(1 << 20), mvN = 0;
  const put = (v) => {
    if (mvN === mvBuf.length) { mv.push(mvBuf); mvBuf = Buffer.alloc(mvBuf.length); mvN = 0; }
    mvBuf[mvN++] = v;
  };
  const put16 = (v) => { put(v & 255); put(v >> 8); };
  const blank = (c) => c === 32 || c === 9 || c === 11 || c === 12 || c === 13;
  const digit = (c) => c >= 48 && c <= 57;
  let agents = -1, solution = false, n = 0, steps = 0, prev = null;
  for (let p = 0; p < b.length;) {
    let e = b.indexOf(10, p);
    if (e < 0) e = b.length;
    if (solution && digit(b[p])) {
      let q = p, t = 0;
      while (q < e && digit(b[q])) { if (q - p === 9) return null; t = t * 10 + b[q++] - 48; }
      if (t !== steps || b[q] !== 58 || q >= e) return null;
      txt.push(b.subarray(p, ++q));
      const num = () => {
        const s = q;
        let v = 0;
        while (q < e && digit(b[q])) { if (q - s === 5) return -1; v = v * 10 + b[q++] - 48; }
        return q === s || v > 65535 ? -1 : v;
      };
      const xs = [];
      while (q < e) {
        if (b[q] === 32 || b[q] === 9 || (b[q] === 13 && q + 1 === e)) { q++; continue; }
        if (b[q++] !== 40) return null;
        const x = num();
        if (x < 0 || b[q++] !== 44 || q > e) return null;
        const y = num();
        if (y < 0 || b[q++] !== 41 || q > e) return null;
        if (q < e && b[q] === 44) q++;
        xs.push(x, y);
      }
      if (steps === 0) {
        if (!xs.length) return null;
        n = xs.length / 2;
        prev = xs;
        for (const v of xs) put16(v);
      } else {
        if (xs.length !== 2 * n) return null;
        for (let a = 0; a < n; a++) {
          const dx = xs[2 * a] - prev[2 * a], dy = xs[2 * a + 1] - prev[2 * a + 1];
          if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) put((dy + 1) * 3 + dx + 1);
          else { put(MOVE_TO); put16(xs[2 * a]); put16(xs[2 * a + 1]); }
        }
        prev = xs;
      }
      steps++;
    } else {
      const eq = b.indexOf(61, p);
      if (eq >= 0 && eq < e) {
        for (let q = p; q < eq; q++) if (b[q] >= 0x80) return null;
        let k0 = p, k1 = eq;
        while (k0 < k1 && blank(b[k0])) k0++;
        while (k1 > k0 && blank(b[k1 - 1])) k1--;
        const key = b.toString("latin1", k0, k1);
        if (key === "agents") {
          const m = /^[ \t\v\f\r]*(\d{1,9})[ \t\v\f\r]*$/.exec(b.toString("latin1", eq + 1, e));
          if (solution || !m || +m[1] < 1) return null;
          agents = +m[1];
        } else if (key === "solution") {
          solution = true;
        }
      }
      txt.push(b.subarray(p, e));
    }
    if (e < b.length) txt.push(Buffer.from("\n"));
    p = e + 1;
  }
  if (!steps || agents !== n) return null;
  const head = txt[0];
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(n, 8);
  head.writeUInt32LE(steps, 12);
  head.writeUInt32LE(txt.reduce((s, x) => s + x.length, 0) - HEAD, 16);
  mv.push(mvBuf.subarray(0, mvN));
  return Buffer.concat([...txt, ...mv]);
}

// The viewer page template (viewer.html's text) with the map and the trace embedded as
// farm/html.c embeds them: escaped, or above plainMax bytes (1 MiB) deflated and in base64, a
// trace in its compact form where it has one (zlib's fastest level), else the text (its
// default level; compact: false keeps the text, as farm/html.c wrote it before the compact form).
function page(template, mapText, traceText, { compact = true, plainMax = 1 << 20 } = {}) {
  const mark = (id) => `<script type="text/plain" id="${id}">`;
  const put = (id, s) => {
    if (s.length <= plainMax) return mark(id) + s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const blob = id === "trace" && compact ? encodeMoves(s) : null;
    return mark(id).slice(0, -1) + ` data-encoding="${blob ? "moves-" : ""}deflate-base64">` +
      (blob ? zlib.deflateSync(blob, { level: 1 }) : zlib.deflateSync(s)).toString("base64");
  };
  const i = template.indexOf(mark("map")), j = template.indexOf(mark("trace"));
  return template.slice(0, i) + put("map", mapText) + template.slice(i + mark("map").length, j) +
    put("trace", traceText) + template.slice(j + mark("trace").length);
}

module.exports = { encodeMoves, page, MAGIC };
