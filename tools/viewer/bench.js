#!/usr/bin/env node
// The viewer's load and frame times on a large run, in headless Chromium (prints figures; not
// a test). A synthetic map and trace: SIZE x SIZE cells with blocks of obstacles, AGENTS agents
// moving for STEPS steps, every move legal on the map (agents may meet: the checks count it).
// Walk 0: each agent heads for a goal, a new one once there, and waits one step in six, as
// solvers' agents do; walk 1: moves at random, which compresses worst in an --html page.
//
//   node bench.js [--agents 2000] [--steps 5000] [--size 512] [--seed 1] [--walk 0|1]
//                 [--changes 0] [--rounds 3] [--old OLD.html]
//
// Figures: the page with the run embedded (as `mapfarm solve --html` writes it, the trace in
// its compact form), from navigation to its first frame and to ready (every step checked),
// beside the same run in the older page: the template OLD.html (default: viewer.html) with
// the trace's text deflated, as farm/html.c wrote it before the compact form (`git show
// REV:tools/viewer/viewer.html > OLD.html`); the two load in turn, ROUNDS times each, on one
// browser. Then the same files through the file picker of each (reading, parsing, checks);
// the time of one frame, drawn by script and then read back (which waits for the raster),
// over many steps with the whole map in view; and playback, frames and their intervals.
// The issue's targets: load under 2 s, a frame under 16 ms.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const moves = require("./moves.js");

const HERE = __dirname;
const opt = { agents: 2000, steps: 5000, size: 512, seed: 1, walk: 0, changes: 0, rounds: 3, old: path.join(HERE, "viewer.html") };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, ""), v = process.argv[i + 1] || "";
  if (!(k in opt) || (k === "old" ? !fs.existsSync(v) : !/^\d+$/.test(v))) {
    console.error("usage: node bench.js [--agents N] [--steps N] [--size N] [--seed N] [--walk 0|1] [--changes K] [--rounds N] [--old OLD.html]");
    process.exit(2);
  }
  opt[k] = k === "old" ? path.resolve(v) : +v;
}

// xorshift32: the same run for the same seed.
let rs = opt.seed >>> 0 || 1;
const rand = () => { rs ^= rs << 13; rs >>>= 0; rs ^= rs >>> 17; rs ^= rs << 5; rs >>>= 0; return rs / 4294967296; };

function makeMap(n) {
  const pass = new Uint8Array(n * n).fill(1);
  for (let k = 0; k < (n * n) / 200; k++) { // blocks of up to 6 x 6
    const x = Math.floor(rand() * n), y = Math.floor(rand() * n);
    const w = 1 + Math.floor(rand() * 6), h = 1 + Math.floor(rand() * 6);
    for (let yy = y; yy < Math.min(n, y + h); yy++) for (let xx = x; xx < Math.min(n, x + w); xx++) pass[yy * n + xx] = 0;
  }
  const rows = [];
  for (let y = 0; y < n; y++) {
    let r = "";
    for (let x = 0; x < n; x++) r += pass[y * n + x] ? "." : "@";
    rows.push(r);
  }
  return { pass, text: `type octile\nheight ${n}\nwidth ${n}\nmap\n${rows.join("\n")}\n` };
}

function makeTrace(map, n, N, T) {
  const open = (x, y) => x >= 0 && y >= 0 && x < n && y < n && map.pass[y * n + x];
  const xs = new Int32Array(N), ys = new Int32Array(N), gx = new Int32Array(N), gy = new Int32Array(N);
  const place = (X, Y, a) => { do { X[a] = Math.floor(rand() * n); Y[a] = Math.floor(rand() * n); } while (!open(X[a], Y[a])); };
  for (let a = 0; a < N; a++) { place(xs, ys, a); place(gx, gy, a); }
  // A legal move by (dx, dy): a diagonal needs both cells beside it open.
  const step = (a, dx, dy) => {
    const x = xs[a] + dx, y = ys[a] + dy;
    if (!open(x, y) || !open(xs[a] + dx, ys[a]) || !open(xs[a], ys[a] + dy)) return false;
    xs[a] = x; ys[a] = y;
    return true;
  };
  const pos = () => { let s = ""; for (let a = 0; a < N; a++) s += `(${xs[a]},${ys[a]}),`; return s; };
  const starts = pos();
  const lines = [];
  for (let t = 0; t <= T; t++) {
    if (t > 0) {
      for (let a = 0; a < N; a++) {
        if (opt.walk) {
          if (rand() >= 0.3) step(a, Math.floor(rand() * 3) - 1, Math.floor(rand() * 3) - 1);
          continue;
        }
        if (xs[a] === gx[a] && ys[a] === gy[a]) place(gx, gy, a);
        if (rand() < 1 / 6) continue;
        const dx = Math.sign(gx[a] - xs[a]), dy = Math.sign(gy[a] - ys[a]);
        if (!step(a, dx, dy) && !(dx && step(a, dx, 0)) && !(dy && step(a, 0, dy))) {
          const r = Math.floor(rand() * 8), d = [[1, 0], [0, 1], [-1, 0], [0, -1]][r & 3];
          step(a, d[0], d[1]); // round the obstacle, or wait
        }
      }
    }
    lines.push(`${t}:${pos()}`);
  }
  // --changes K: every 10 steps, K cells drawn at random close (when open) or open (when
  // closed), as cell_change lines (the moves above ignore them: only drawing is measured).
  const cells = [], now = map.pass.slice();
  for (let t = 10; opt.changes && t <= T; t += 10)
    for (let k = 0; k < opt.changes; k++) {
      const x = Math.floor(rand() * n), y = Math.floor(rand() * n), c = y * n + x;
      now[c] ^= 1;
      cells.push(`cell_change=${t}:(${x},${y}):${now[c] ? "open" : "close"}\n`);
    }
  return `agents=${N}\nmap_file=bench.map\nsolver=random-walk\nstarts=${starts}\ngoals=${pos()}\n${cells.join("")}solution=\n${lines.join("\n")}\n`;
}

const stat = (v) => {
  const s = v.slice().sort((a, b) => a - b), q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(2)} ms, p95 ${q(0.95).toFixed(2)} ms, max ${s[s.length - 1].toFixed(2)} ms`;
};

async function main() {
  let puppeteer;
  try { puppeteer = require(path.join(HERE, "node_modules", "puppeteer-core")); }
  catch (e) { console.error("bench: puppeteer-core missing: run npm ci in tools/viewer"); process.exit(77); }
  const chromium = process.env.MAPFARM_CHROMIUM || "/usr/bin/chromium";
  const { size: n, agents: N, steps: T } = opt;
  let t = Date.now();
  const map = makeMap(n), trace = makeTrace(map, n, N, T);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mapfarm-viewer-bench-"));
  const mapFile = path.join(dir, "bench.map"), traceFile = path.join(dir, "bench.trace");
  const pageFile = path.join(dir, "bench.html"), oldFile = path.join(dir, "old.html");
  fs.writeFileSync(mapFile, map.text);
  fs.writeFileSync(traceFile, trace);
  fs.writeFileSync(pageFile, moves.page(fs.readFileSync(path.join(HERE, "viewer.html"), "utf8"), map.text, trace));
  fs.writeFileSync(oldFile, moves.page(fs.readFileSync(opt.old, "utf8"), map.text, trace, { compact: false }));
  const mb = (f) => (fs.statSync(f).size / 1e6).toFixed(1);
  console.log(`run: ${n} x ${n} map, ${N} agents, ${T} steps, ${opt.walk ? "random walks" : "agents heading for goals"}; ` +
              `trace ${(trace.length / 1e6).toFixed(1)} MB; page ${mb(pageFile)} MB, older page ${mb(oldFile)} MB ` +
              `(made in ${((Date.now() - t) / 1000).toFixed(1)} s)`);
  const browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--allow-file-access-from-files"],
  });
  try {
    const p = await browser.newPage();
    await p.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
    console.log(`browser: ${await browser.version()}`);

    // 1. The page with everything embedded, and the older one, in turn: navigation start to
    // ready (and to the first frame drawn, where the page says).
    const ready = { page: [], old: [] }, first = [];
    for (let k = 0; k < opt.rounds; k++) {
      for (const [which, file] of [["old", oldFile], ["page", pageFile]]) {
        await p.goto("file://" + file, { timeout: 120000 });
        await p.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), { timeout: 120000 });
        // Ready is the end of the load: what the page does after it comes from the user.
        const emb = await p.evaluate(() => ({ state: document.body.dataset.state, ...window.mapfarmViewer.stats(), conflicts: window.mapfarmViewer.conflictCount() }));
        const at = emb.scriptAt + emb.loadMs; // loadMs counts from the start of the script
        ready[which].push(at);
        if (which === "page") first.push(emb.firstFrameAt);
        console.log(`${which === "old" ? "older page" : "page      "} (--html): ${emb.state} ${at.toFixed(0)} ms after navigation` +
                    `${emb.firstFrameAt ? `, first frame at ${emb.firstFrameAt.toFixed(0)} ms` : ""} ` +
                    `(the browser reads the page for ${emb.scriptAt.toFixed(0)} ms); decoding ${emb.readMs.toFixed(0)} ms, ` +
                    `parsing ${emb.parseMs.toFixed(0)} ms, checks ${emb.checkMs.toFixed(0)} ms, the rest ${(emb.loadMs - emb.readMs - emb.parseMs - emb.checkMs).toFixed(0)} ms; ` +
                    `${emb.conflicts} conflicts found`);
      }
    }
    const med = (v) => v.slice().sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(0);
    console.log(`--html page, navigation to ready, median of ${opt.rounds}: ${med(ready.page)} ms (first frame ${med(first)} ms); ` +
                `older page ${med(ready.old)} ms`);

    // 2. The file picker, in the older page and in this one, in turn as above (this one stays
    // for what follows).
    const pick = { old: [], page: [], first: [] };
    for (let k = 0; k < opt.rounds; k++) {
      for (const [which, file] of [["old", opt.old], ["page", path.join(HERE, "viewer.html")]]) {
        await p.goto("file://" + file);
        await p.evaluate(() => { document.body.dataset.state = "loading"; });
        t = Date.now();
        await (await p.$("#files")).uploadFile(mapFile, traceFile);
        await p.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), { timeout: 120000 });
        const up = await p.evaluate(() => window.mapfarmViewer.stats());
        pick[which].push(up.loadMs);
        if (which === "page") pick.first.push(up.firstFrameMs);
        console.log(`file picker, ${which === "old" ? "older page" : "page      "}: ready in ${up.loadMs.toFixed(0)} ms` +
                    `${up.firstFrameMs ? `, first frame at ${up.firstFrameMs.toFixed(0)} ms` : ""} (reading ${up.readMs.toFixed(0)}, ` +
                    `parsing ${up.parseMs.toFixed(0)}, checks ${up.checkMs.toFixed(0)}); ${Date.now() - t} ms as puppeteer saw it`);
      }
    }
    console.log(`file picker, median of ${opt.rounds}: ready in ${med(pick.page)} ms (first frame ${med(pick.first)} ms); ` +
                `older page ${med(pick.old)} ms`);

    // 3. Frames, the whole map in view.
    const fr = await p.evaluate((T) => {
      const v = window.mapfarmViewer, script = [], raster = [];
      const ctx = document.getElementById("view").getContext("2d");
      v.fit();
      for (let k = 0; k < 200; k++) {
        v.setTime(Math.floor((k * T) / 200));
        const t0 = performance.now();
        script.push(v.drawNow());
        ctx.getImageData(0, 0, 1, 1); // waits for the raster
        raster.push(performance.now() - t0);
      }
      v.select(0);
      const path = [];
      for (let k = 0; k < 50; k++) { v.setTime(k * 7); const t0 = performance.now(); v.drawNow(); ctx.getImageData(0, 0, 1, 1); path.push(performance.now() - t0); }
      return { script, raster, path };
    }, T);
    console.log(`frame, script only: ${stat(fr.script)}`);
    console.log(`frame, script + raster: ${stat(fr.raster)}`);
    console.log(`frame with one agent's ${T}-step path: ${stat(fr.path)}`);

    // 4. Playback at 256 steps per second for 3 s.
    const pb = await p.evaluate(() => new Promise((resolve) => {
      const v = window.mapfarmViewer, iv = [];
      document.getElementById("speed").value = "256";
      document.getElementById("speed").dispatchEvent(new Event("change"));
      v.select(-1);
      v.setTime(0);
      v.play(true);
      let last = performance.now();
      const end = last + 3000;
      const f = (now) => { iv.push(now - last); last = now; if (now < end) requestAnimationFrame(f); else { v.play(false); resolve(iv); } };
      requestAnimationFrame(f);
    }));
    console.log(`playback: ${pb.length} frames in 3 s; interval ${stat(pb)}`);
  } finally {
    await browser.close();
    if (process.env.MAPFARM_BENCH_KEEP) console.log(`files kept in ${dir}`); else fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
