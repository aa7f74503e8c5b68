#!/usr/bin/env node
// The HTML report of `mapfarm report --format html` in a real browser: Debian's chromium,
// driven headless by puppeteer-core, as test.js drives the viewer. Run by
// tests/test_report_html.c, or by hand:
//
//   node report-test.js --page REPORT.html --svgs N --cell ROW COL MEAN LO HI N [--shot FILE.png]
//
// Checks that the page loads from disk with no script error and asks for nothing over the
// network, that it has the report table and at least N SVG plots each with a drawn line or
// cell, and that the table's cell at (ROW, COL) shows the given mean, interval and job count
// (the text the page shows, rounded as the page rounds, and its data attributes).
//
// Exit status: 0 when every check passes, 1 when one fails, 77 when chromium or node_modules
// (npm ci) is missing. MAPFARM_CHROMIUM names another browser binary.
"use strict";
const fs = require("fs");
const path = require("path");

const HERE = __dirname;
let passed = 0, failed = 0;
function check(ok, what, detail) {
  if (ok) passed++;
  else {
    failed++;
    console.log(`FAIL: ${what}${detail ? ": " + detail : ""}`);
  }
}

function findChromium() {
  const env = process.env.MAPFARM_CHROMIUM;
  if (env) return fs.existsSync(env) ? env : null;
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"])
    if (fs.existsSync(p)) return p;
  return null;
}

function missing(what) {
  process.stderr.write(`report test: MISSING ${what}\n`);
  process.exit(77);
}

function parseArgs(argv) {
  const o = { cells: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--page") o.page = path.resolve(v());
    else if (a === "--svgs") o.svgs = +v();
    else if (a === "--shot") o.shot = path.resolve(v());
    else if (a === "--cell") o.cells.push({ row: v(), col: v(), mean: v(), lo: v(), hi: v(), n: v() });
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.page) throw new Error("--page is required");
  return o;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chromium = findChromium();
  if (!chromium) missing("chromium (apt-get install chromium, or set MAPFARM_CHROMIUM)");
  let puppeteer;
  try {
    puppeteer = require(path.join(HERE, "node_modules", "puppeteer-core"));
  } catch (e) {
    missing(`puppeteer-core in ${path.join(HERE, "node_modules")} (run npm ci there; make test does)`);
  }
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 800, deviceScaleFactor: 1 });
    const errors = [], remote = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("request", (r) => { if (!/^(file|data|about):/.test(r.url())) remote.push(r.url()); });
    await page.goto("file://" + opts.page, { waitUntil: "load" });
    const info = await page.evaluate(() => {
      const t = document.querySelector("table.report");
      const heads = t ? [...t.querySelectorAll("thead th")].map((h) => h.textContent) : [];
      const rows = t ? [...t.querySelectorAll("tbody tr")].map((tr) => ({
        name: tr.querySelector("th").textContent,
        cells: [...tr.querySelectorAll("td")].map((td) => ({
          text: td.textContent, mean: td.dataset.mean, lo: td.dataset.lo, hi: td.dataset.hi,
          n: td.dataset.n })),
      })) : [];
      const svgs = [...document.querySelectorAll("svg.plot")].map((s) => {
        const b = s.getBoundingClientRect();
        return { w: b.width, h: b.height, title: (s.querySelector("title") || {}).textContent,
                 marks: s.querySelectorAll("polyline.series, rect[data-mean]").length };
      });
      return { title: document.title, heads, rows, svgs, runs: document.querySelectorAll("table.runs tbody tr").length };
    });
    check(info.heads.length > 1, "the page has the report table", JSON.stringify(info.heads));
    check(info.svgs.length >= (opts.svgs || 0), `at least ${opts.svgs} SVG plots`, `${info.svgs.length}`);
    for (const s of info.svgs) {
      check(s.w > 100 && s.h > 100, "an SVG plot is drawn at its size", JSON.stringify(s));
      check(s.marks > 0, "an SVG plot has lines or cells", s.title);
    }
    check(info.runs >= 1, "the page lists the runs behind it");
    for (const c of opts.cells) {
      const col = info.heads.indexOf(c.col) - 1;
      const row = info.rows.find((r) => r.name === c.row);
      check(row && col >= 0, `cell ${c.row} / ${c.col} exists`);
      if (!row || col < 0) continue;
      const cell = row.cells[col];
      const want = `${c.mean} [${c.lo}, ${c.hi}] n=${c.n}`;
      check(cell.text === want, `cell ${c.row} / ${c.col} shows ${want}`, `shows "${cell.text}"`);
      check(cell.n === c.n, `cell ${c.row} / ${c.col} has data-n ${c.n}`, cell.n);
    }
    check(remote.length === 0, "the page asks for nothing over the network", remote.join(", "));
    check(errors.length === 0, "no script errors in the page", errors.join("; "));
    if (opts.shot) await page.screenshot({ path: opts.shot, fullPage: true });
  } finally {
    await browser.close();
  }
  console.log(`report test: ${passed} checks passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.log(`report test: ${e.stack || e}`);
  process.exit(1);
});
