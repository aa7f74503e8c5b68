#!/usr/bin/env node
// The viewer in a real browser: Debian's chromium, driven headless by puppeteer-core (which
// downloads no browser). Run by tests/test_viewer.c through CTest, or by hand:
//
//   node test.js [--no-fixtures] [--page PAGE.html --trace TRACE [--shot FILE.png]]...
//
// Without --no-fixtures it loads the files of fixtures/ through the page's file picker: a legal
// trace (stepped to known times, pixels checked at the agents' cells, a path shown on click and
// on hover, pan and zoom),
// the same trace in the older format (no comma after the last position, fewer header keys),
// a deliberately illegal trace (the conflict list checked line by line, a conflict highlighted
// on click), a patrol trace with a goal change, a trace with map changes (the map drawn as it is
// at each step, the changes listed, the checks against the map of the step, malformed lines),
// and a malformed trace (its error message).
// Then the same traces embedded in a page in the compact form of a large trace (moves.js), and
// damaged ones. Each --page is a page written by `mapfarm solve --html` (farm_html_write) with
// its trace: the page must load its embedded data with no conflict and draw every agent's last
// position in the colour of its state, and a trace in the compact form must hold exactly what
// moves.js writes (bench.js builds its pages with it); --shot saves a screenshot of it.
//
// Exit status: 0 when every check passes, 1 when one fails, 77 when chromium or node_modules
// (npm ci) is missing. MAPFARM_CHROMIUM names another browser binary.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");
const moves = require("./moves.js");

const HERE = __dirname;
const FIX = path.join(HERE, "fixtures");
const COLORS = {
  moving: [31, 119, 180], waiting: [255, 127, 14], "at goal": [44, 160, 44],
  free: [255, 255, 255], blocked: [60, 60, 60], conflict: [230, 0, 126],
  pathFuture: [123, 44, 191],
};

function findChromium() {
  const env = process.env.MAPFARM_CHROMIUM;
  if (env) return fs.existsSync(env) ? env : null;
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"])
    if (fs.existsSync(p)) return p;
  return null;
}

function missing(what) {
  process.stderr.write(`viewer test: MISSING ${what}\n`);
  process.exit(77);
}

function parseArgs(argv) {
  const o = { fixtures: true, pages: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--no-fixtures") o.fixtures = false;
    else if (a === "--page") o.pages.push({ page: path.resolve(v()) });
    else if (a === "--trace" && o.pages.length) o.pages[o.pages.length - 1].trace = path.resolve(v());
    else if (a === "--shot" && o.pages.length) o.pages[o.pages.length - 1].shot = path.resolve(v());
    else throw new Error(`unknown argument ${a} (usage: node test.js [--no-fixtures] [--page P --trace T [--shot F]]...)`);
  }
  for (const p of o.pages) if (!p.trace) throw new Error(`--page ${p.page} needs --trace`);
  return o;
}

// An independent reader of a trace: the positions per step, the header keys and the map changes.
function readTrace(file) {
  const text = fs.readFileSync(file, "utf8");
  const header = {}, steps = [], cellChanges = [];
  let inSolution = false;
  for (const line of text.split("\n")) {
    const m = /^(\d+):(.*)$/.exec(line);
    if (inSolution && m) {
      steps.push([...m[2].matchAll(/\((\d+),(\d+)\),?/g)].map((p) => [+p[1], +p[2]]));
    } else if (line.startsWith("cell_change=")) {
      const c = /^cell_change=(\d+):\((\d+),(\d+)\):(close|open)$/.exec(line);
      cellChanges.push({ t: +c[1], x: +c[2], y: +c[3], open: c[4] === "open" });
    } else if (line.includes("=")) {
      const k = line.slice(0, line.indexOf("="));
      header[k] = line.slice(k.length + 1);
      if (k === "solution") inSolution = true;
    }
  }
  const cells = (s) => [...(s || "").matchAll(/\((\d+),(\d+)\),?/g)].map((p) => [+p[1], +p[2]]);
  return { header, steps, goals: cells(header.goals), cellChanges };
}

let passed = 0, failed = 0;
const errors = []; // the page's script errors
function check(ok, what, detail) {
  if (ok) { passed++; console.log(`ok - ${what}`); }
  else { failed++; console.log(`FAIL - ${what}${detail !== undefined ? ": " + detail : ""}`); }
}
const near = (a, b) => a && b && a.every((v, i) => i > 2 || Math.abs(v - b[i]) <= 8);

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
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--allow-file-access-from-files"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 700, deviceScaleFactor: 1 });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    if (opts.fixtures) await fixtures(page);
    if (opts.fixtures) await compactFixtures(page);
    for (const p of opts.pages) await embedded(page, p);
    check(errors.length === 0, "no script errors in the page", errors.join("; "));
  } finally {
    await browser.close();
  }
  console.log(`viewer test: ${passed} checks passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// ---- helpers on the page ------------------------------------------------------------------------

async function frames(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// The pixels at the centres of cells [[x, y], ...] of the map, once the page has drawn.
async function pixels(page, cells) {
  await frames(page);
  return page.evaluate((cells) => {
    const v = window.mapfarmViewer, d = window.devicePixelRatio || 1;
    const g = document.getElementById("view").getContext("2d");
    return cells.map(([x, y]) => {
      const c = v.cellCentre(x, y);
      return Array.from(g.getImageData(Math.floor(c.x * d), Math.floor(c.y * d), 1, 1).data);
    });
  }, cells);
}

// The pixel at cell (x, y), moved by (dx, dy) cells from its centre.
async function pixel(page, x, y, dx = 0, dy = 0) {
  return (await pixels(page, [[x + dx, y + dy]]))[0];
}

async function expectPixel(page, x, y, name, what, dx = 0, dy = 0) {
  const got = await pixel(page, x, y, dx, dy);
  check(near(got, COLORS[name]), `${what}: (${x},${y}) is ${name}`, `rgba ${got}`);
}

async function openViewer(page) {
  await page.goto("file://" + path.join(HERE, "viewer.html"));
  await page.waitForFunction(() => document.body.dataset.state === "empty");
}

// Loads files through the page's file picker and waits until the page says how it went.
async function upload(page, ...files) {
  await page.evaluate(() => { document.body.dataset.state = "loading"; });
  const input = await page.$("#files");
  await input.uploadFile(...files);
  await page.waitForFunction(() => ["ready", "error", "map"].includes(document.body.dataset.state));
  return page.evaluate(() => document.body.dataset.state);
}

const text = (page, sel) => page.$eval(sel, (e) => e.textContent);
const texts = (page, sel) => page.$$eval(sel, (es) => es.map((e) => e.textContent));

async function setSlider(page, t) {
  await page.$eval("#time", (e, t) => { e.value = t; e.dispatchEvent(new Event("input")); }, t);
}

// ---- the fixtures -----------------------------------------------------------------------------------

// fixtures/illegal.trace breaks every rule once; patrol.trace's agent 0 at steps 0 to 7.
const ILLEGAL_CONFLICTS = [
  "t=0 wrong start: agent 7 at (7,5), starts= says (7,4)",
  "t=1 swap: agents 0 and 1 exchange (0,0) and (1,0)",
  "t=2 vertex conflict: agents 2 and 3 at (5,1)",
  "t=3 blocked cell: agent 4 at (3,1)",
  "t=4 corner cut: agent 5 from (4,4) to (5,5)",
  "t=5 jump: agent 6 from (0,5) to (2,5)",
  "t=5 outside the map: agent 7 at (8,5)",
];
const PATROL_STATES = ["waiting", "moving", "at goal", "moving", "at goal", "moving", "at goal", "at goal"];
// fixtures/doors.trace: the wall cell (2,1) opens at step 1 and closes at 4; the cell (3,3)
// closes at 2 and opens at 3. Per step, the cells as drawn: what the map is after the changes
// of the steps up to it. The corner of a cell, away from the agent and goal marks on it.
const DOORS_CHANGES = ["t=1 (2,1) opens", "t=2 (3,3) closes", "t=3 (3,3) opens", "t=4 (2,1) closes"];
const DOORS_MAP = [
  [0, { "2,1": "blocked", "3,3": "free" }], [1, { "2,1": "free", "3,3": "free" }],
  [2, { "2,1": "free", "3,3": "blocked" }], [3, { "2,1": "free", "3,3": "free" }],
  [4, { "2,1": "blocked", "3,3": "free" }], [6, { "2,1": "blocked", "3,3": "free" }],
  [2, { "2,1": "free", "3,3": "blocked" }], [0, { "2,1": "blocked", "3,3": "free" }],
];
const CORNER = 0.45;

// Steps the page through DOORS_MAP with the slider (forward and back) and checks the cells.
async function doorsMap(page, what) {
  for (const [t, cells] of DOORS_MAP) {
    await setSlider(page, t);
    for (const [xy, name] of Object.entries(cells)) {
      const [x, y] = xy.split(",").map(Number);
      await expectPixel(page, x, y, name, `${what} at step ${t}`, CORNER, CORNER);
    }
  }
}

async function fixtures(page) {
  const map = path.join(FIX, "rooms.map");
  await openViewer(page);

  // A legal trace, stepped with the buttons and the slider.
  check(await upload(page, map, path.join(FIX, "legal.trace")) === "ready", "legal trace loads");
  const sum = await page.evaluate(() => window.mapfarmViewer.summary());
  check(sum.agents === 3 && sum.steps === 4 && sum.width === 8 && sum.height === 6,
        "legal trace: 3 agents, 4 steps, 8 x 6 map", JSON.stringify(sum));
  check(await text(page, "#conflict-summary") === "none: every step is legal" &&
        (await texts(page, "#conflicts li")).length === 0, "legal trace: no conflict listed");
  const atThree = async (what) => {
    check(await text(page, "#time-label") === "t = 3 / 4", `${what}: at step 3`, await text(page, "#time-label"));
    await expectPixel(page, 3, 0, "at goal", what);
    await expectPixel(page, 2, 3, "moving", what);
    await expectPixel(page, 6, 4, "waiting", what);
    await expectPixel(page, 4, 5, "free", what);
    await expectPixel(page, 2, 1, "blocked", what);
  };
  for (let k = 0; k < 3; k++) await page.click("#fwd");
  await atThree("legal trace after 3 steps forward");
  await setSlider(page, 1);
  await expectPixel(page, 0, 5, "waiting", "legal trace, slider at 1");
  await expectPixel(page, 1, 0, "moving", "legal trace, slider at 1");
  await expectPixel(page, 0, 0, "free", "legal trace, slider at 1");
  const s0 = await page.evaluate(() => window.mapfarmViewer.cellCentre(1, 0).x - window.mapfarmViewer.cellCentre(0, 0).x);
  // Click agent 1 at step 3: its panel, and its path to come drawn to (3,3).
  await setSlider(page, 3);
  const c = await page.evaluate(() => window.mapfarmViewer.cellCentre(2, 3));
  const box = await (await page.$("#view")).boundingBox();
  await page.mouse.click(box.x + c.x, box.y + c.y);
  check((await text(page, "#agent")).startsWith("agent1 (selected"), "a click selects agent 1", await text(page, "#agent"));
  await expectPixel(page, 2, 3, "pathFuture", "agent 1's path", 0.75, 0);
  await page.keyboard.press("Escape");
  // Pan by dragging, zoom with the wheel about the pointer: the drawing follows.
  const before = await page.evaluate(() => window.mapfarmViewer.cellCentre(4, 5));
  await page.mouse.move(box.x + 300, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 340, box.y + 225, { steps: 4 });
  await page.mouse.up();
  const after = await page.evaluate(() => window.mapfarmViewer.cellCentre(4, 5));
  check(Math.abs(after.x - before.x - 40) < 0.5 && Math.abs(after.y - before.y - 25) < 0.5, "a drag pans the map",
        `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  const under = await page.evaluate(() => window.mapfarmViewer.cellCentre(2, 3));
  await page.mouse.move(box.x + under.x, box.y + under.y);
  await page.mouse.wheel({ deltaY: -300 });
  await frames(page);
  const zoomed = await page.evaluate(() => [window.mapfarmViewer.cellCentre(2, 3), window.mapfarmViewer.cellCentre(3, 3)]);
  check(Math.abs(zoomed[0].x - under.x) < 0.5 && Math.abs(zoomed[0].y - under.y) < 0.5 && zoomed[1].x - zoomed[0].x > s0 * 1.2,
        "the wheel zooms in about the pointer", `${JSON.stringify(under)} -> ${JSON.stringify(zoomed)}, cell ${s0}`);
  await expectPixel(page, 2, 3, "moving", "zoomed in");
  await expectPixel(page, 1, 3, "free", "zoomed in");
  await page.click("#fit");
  // Hover: the agent under the pointer is shown, with its path.
  const c2 = await page.evaluate(() => window.mapfarmViewer.cellCentre(6, 4));
  await page.mouse.move(box.x + c2.x, box.y + c2.y);
  check((await text(page, "#agent")).startsWith("agent2at(6,4): waiting"), "hovering shows agent 2", await text(page, "#agent"));
  await expectPixel(page, 6, 4, "pathFuture", "agent 2's path on hover", 0, 0.75);
  await page.mouse.move(box.x + 2, box.y + 2);

  // The same run as today's binary writes it: no comma after a line's last position, fewer keys.
  const old = fs.readFileSync(path.join(FIX, "legal.trace"), "utf8")
    .replace(/,\n/g, "\n").replace(/^(solved|soc|makespan|comp_time)=.*\n/gm, "");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mapfarm-viewer-"));
  try {
    fs.writeFileSync(path.join(tmp, "old.trace"), old);
    check(await upload(page, path.join(tmp, "old.trace")) === "ready", "the older format loads (map kept)");
    await setSlider(page, 3);
    await atThree("older format");

    // A trace that breaks every rule once.
    check(await upload(page, path.join(FIX, "illegal.trace")) === "ready", "illegal trace loads");
    const got = await texts(page, "#conflicts li");
    check(JSON.stringify(got) === JSON.stringify(ILLEGAL_CONFLICTS), "illegal trace: every conflict listed, in order", "\n  " + got.join("\n  "));
    check((await text(page, "#conflict-summary")).startsWith("7 illegal steps ("), "illegal trace: summary counts 7", await text(page, "#conflict-summary"));
    await page.click("#conflicts li:nth-child(3)");
    check(await text(page, "#time-label") === "t = 2 / 5", "a click on the vertex conflict goes to step 2", await text(page, "#time-label"));
    const s = await page.evaluate(() => window.mapfarmViewer.cellCentre(1, 0).x - window.mapfarmViewer.cellCentre(0, 0).x);
    await expectPixel(page, 5, 1, "conflict", "vertex conflict ringed", 0.6, 0);
    await expectPixel(page, 5, 1, "at goal", "vertex conflict: agent 2, at its goal, inside the ring");
    check(s > 20, "cells large enough for the ring checks", s);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  await page.click("#back");
  await expectPixel(page, 0, 0, "conflict", "swap ringed at step 1", 0.6, 0);
  await expectPixel(page, 1, 0, "conflict", "swap ringed at step 1, other cell", 0.6, 0);

  // Patrol (loops=1) and a goal change recorded between two steps.
  check(await upload(page, path.join(FIX, "patrol.trace")) === "ready", "patrol trace loads");
  const states = await page.evaluate(() => [0, 1, 2, 3, 4, 5, 6, 7].map((t) => window.mapfarmViewer.state(0, t)));
  check(JSON.stringify(states) === JSON.stringify(PATROL_STATES), "patrol: goal, back to the start, then the new goal", states.join(", "));
  check(JSON.stringify(await texts(page, "#goal-changes li")) === JSON.stringify(["t=5 agent 0 heads for (0,2)"]),
        "the goal change is listed", (await texts(page, "#goal-changes li")).join("; "));
  await setSlider(page, 3);
  await expectPixel(page, 0, 0, "at goal", "patrol at step 3: its goal mark on the start", 0.35, 0);
  await expectPixel(page, 2, 0, "free", "patrol at step 3: none on the old goal", 0.35, 0);
  await setSlider(page, 5);
  await expectPixel(page, 0, 2, "at goal", "step 5: the goal mark on the new goal", 0.35, 0);
  check(JSON.stringify(await texts(page, "#goal-changes li.current")) === JSON.stringify(["t=5 agent 0 heads for (0,2)"]),
        "the goal change of step 5 is marked", (await texts(page, "#goal-changes li.current")).join("; "));

  // Map changes: the map as it is at each step, the changes listed (a click goes to the step),
  // the checks made against the map of each step, malformed lines refused at their place.
  const doors = path.join(FIX, "doors.trace"), doorsText = fs.readFileSync(doors, "utf8");
  check(await upload(page, map, doors) === "ready", "doors trace loads");
  check(await text(page, "#conflict-summary") === "none: every step is legal", "doors trace: legal on the map of each step",
        (await texts(page, "#conflicts li")).join("; "));
  check(JSON.stringify(await texts(page, "#map-changes li")) === JSON.stringify(DOORS_CHANGES), "doors trace: the map changes are listed",
        (await texts(page, "#map-changes li")).join("; "));
  check((await text(page, "#info")).includes("map changes4"), "doors trace: the run's panel counts them", await text(page, "#info"));
  await doorsMap(page, "doors trace");
  check((await texts(page, "#map-changes li.current")).length === 0, "no map change at step 0 is marked",
        (await texts(page, "#map-changes li.current")).join("; "));
  await page.click("#map-changes li:nth-child(2)");
  check(await text(page, "#time-label") === "t = 2 / 6", "a click on a map change goes to its step", await text(page, "#time-label"));
  check(JSON.stringify(await texts(page, "#map-changes li.current")) === JSON.stringify(["t=2 (3,3) closes"]),
        "the map change of the step shown is marked", (await texts(page, "#map-changes li.current")).join("; "));
  await setSlider(page, 3);
  check(JSON.stringify(await texts(page, "#map-changes li.current")) === JSON.stringify(["t=3 (3,3) opens"]),
        "the mark follows the step", (await texts(page, "#map-changes li.current")).join("; "));
  await setSlider(page, 2);
  await expectPixel(page, 3, 3, "blocked", "doors trace after the click", CORNER, CORNER);
  await page.click("#last");
  await expectPixel(page, 2, 1, "blocked", "doors trace at the last step", CORNER, CORNER);
  await page.click("#first");
  await expectPixel(page, 2, 1, "blocked", "doors trace back at step 0", CORNER, CORNER);
  const doorsDir = fs.mkdtempSync(path.join(os.tmpdir(), "mapfarm-viewer-"));
  try {
    // A cell that closes under an agent, and a step into a closed cell.
    const illegal = doorsText.replace("cell_change=2:(3,3):close", "cell_change=2:(2,3):close").replace("5:(4,3),(2,0),", "5:(4,3),(2,1),");
    fs.writeFileSync(path.join(doorsDir, "doors-illegal.trace"), illegal);
    check(await upload(page, map, path.join(doorsDir, "doors-illegal.trace")) === "ready", "illegal doors trace loads");
    const got = await texts(page, "#conflicts li");
    check(JSON.stringify(got) === JSON.stringify(["t=2 cell closed under an agent: agent 0 at (2,3)", "t=5 blocked cell: agent 1 at (2,1)"]),
          "illegal doors trace: a closing under an agent and a step into a closed cell", got.join("; "));
    for (const [from, to, msg] of [
      ["cell_change=3:(3,3):open", "cell_change=3:(3,3):opens",
       'doors-bad.trace:13:13: error: cell_change: expected T:(x,y):close or T:(x,y):open, found "3:(3,3):opens"'],
      ["cell_change=2:(3,3):close", "cell_change=2:3:close",
       'doors-bad.trace:7:13: error: cell_change: expected T:(x,y):close or T:(x,y):open, found "2:3:close"'],
      ["cell_change=1:(2,1):open", "cell_change=1:(9,1):open",
       "doors-bad.trace:6:13: error: cell_change: (9,1) is outside the map (8 x 6)"],
    ]) {
      fs.writeFileSync(path.join(doorsDir, "doors-bad.trace"), doorsText.replace(from, to));
      check(await upload(page, map, path.join(doorsDir, "doors-bad.trace")) === "error", `"${to}" is refused`);
      const m = await text(page, "#messages .error");
      check(m === msg, `"${to}": its message names file, line and column`, m);
    }
  } finally {
    fs.rmSync(doorsDir, { recursive: true, force: true });
  }

  // A malformed trace: a located message, and nothing else loaded.
  const badDir = fs.mkdtempSync(path.join(os.tmpdir(), "mapfarm-viewer-"));
  try {
    const bad = fs.readFileSync(path.join(FIX, "legal.trace"), "utf8").replace("2:(2,0),(1,4),(6,4),", "2:(2,0),(1,4),");
    fs.writeFileSync(path.join(badDir, "bad.trace"), bad);
    check(await upload(page, path.join(badDir, "bad.trace")) === "error", "a malformed trace is refused");
    const msg = await text(page, "#messages .error");
    check(msg === "bad.trace:13:15: error: 2 positions at time step 2, expected agents=3", "its message names file, line and column", msg);
    // An embedded trace that does not inflate.
    const html = fs.readFileSync(path.join(HERE, "viewer.html"), "utf8")
      .replace('<script type="text/plain" id="trace">', '<script type="text/plain" id="trace" data-encoding="deflate-base64">AAAAAAAA');
    fs.writeFileSync(path.join(badDir, "corrupt.html"), html);
    await page.goto("file://" + path.join(badDir, "corrupt.html"));
    await page.waitForFunction(() => document.body.dataset.state === "error" || document.body.dataset.state === "ready");
    const cmsg = await text(page, "#messages .error");
    check(cmsg.startsWith("cannot read the embedded data: "), "a corrupt embedded trace is refused", cmsg);
    // The malformed trace embedded with its map: the map loads, the trace is refused, and the
    // page redraws (on a resize) with no script error.
    const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
    const tpl = fs.readFileSync(path.join(HERE, "viewer.html"), "utf8")
      .replace('<script type="text/plain" id="map">', '<script type="text/plain" id="map">' + esc(fs.readFileSync(map, "utf8")))
      .replace('<script type="text/plain" id="trace">', '<script type="text/plain" id="trace" data-name="bad.trace">' + esc(bad));
    fs.writeFileSync(path.join(badDir, "bad.html"), tpl);
    await page.goto("file://" + path.join(badDir, "bad.html"));
    await page.waitForFunction(() => document.body.dataset.state === "error" || document.body.dataset.state === "ready");
    const before = errors.length;
    await page.setViewport({ width: 1000, height: 700, deviceScaleFactor: 1 });
    await frames(page);
    await page.setViewport({ width: 1100, height: 700, deviceScaleFactor: 1 });
    await frames(page);
    check(await text(page, "#messages .error") === "bad.trace:13:15: error: 2 positions at time step 2, expected agents=3",
          "an embedded malformed trace is refused with its message", await text(page, "#messages .error"));
    check(errors.length === before, "the page redraws with no script error", errors.slice(before).join("; "));
  } finally {
    fs.rmSync(badDir, { recursive: true, force: true });
  }
}

// ---- the fixtures in the compact form of a large trace ---------------------------------------------

// A page of viewer.html with the map and trace files embedded, the trace in the compact form
// however small (as farm/html.c writes a trace over 1 MiB), in dir; returns its state.
async function compactPage(page, dir, traceFile, edit) {
  const tpl = fs.readFileSync(path.join(HERE, "viewer.html"), "utf8");
  let html = moves.page(tpl, fs.readFileSync(path.join(FIX, "rooms.map"), "utf8"),
                        fs.readFileSync(traceFile, "utf8"), { plainMax: 0 });
  if (edit) html = edit(html);
  const file = path.join(dir, path.basename(traceFile) + ".html");
  fs.writeFileSync(file, html);
  await page.goto("file://" + file);
  await page.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state));
  return page.evaluate(() => document.body.dataset.state);
}

async function compactFixtures(page) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mapfarm-viewer-"));
  try {
    check(await compactPage(page, dir, path.join(FIX, "legal.trace")) === "ready", "compact form: legal trace loads");
    check(await page.$eval("#trace", (e) => e.dataset.encoding) === "moves-deflate-base64", "compact form: the page holds it so");
    const sum = await page.evaluate(() => window.mapfarmViewer.summary());
    check(sum.agents === 3 && sum.steps === 4 && sum.header.solver === "handmade", "compact form: 3 agents, 4 steps, its header", JSON.stringify(sum));
    await setSlider(page, 3);
    await expectPixel(page, 3, 0, "at goal", "compact form at step 3");
    await expectPixel(page, 2, 3, "moving", "compact form at step 3");
    await expectPixel(page, 6, 4, "waiting", "compact form at step 3");
    await setSlider(page, 1);
    await expectPixel(page, 1, 0, "moving", "compact form at step 1");

    // Every illegal step survives the form: a jump and a step off the map are moves of more
    // than a cell, kept as cells.
    check(await compactPage(page, dir, path.join(FIX, "illegal.trace")) === "ready", "compact form: illegal trace loads");
    const got = await texts(page, "#conflicts li");
    check(JSON.stringify(got) === JSON.stringify(ILLEGAL_CONFLICTS), "compact form: every conflict listed, in order", "\n  " + got.join("\n  "));

    check(await compactPage(page, dir, path.join(FIX, "patrol.trace")) === "ready", "compact form: patrol trace loads");
    const states = await page.evaluate(() => [0, 1, 2, 3, 4, 5, 6, 7].map((t) => window.mapfarmViewer.state(0, t)));
    check(JSON.stringify(states) === JSON.stringify(PATROL_STATES), "compact form: patrol and the goal change between steps", states.join(", "));
    check(JSON.stringify(await texts(page, "#goal-changes li")) === JSON.stringify(["t=5 agent 0 heads for (0,2)"]),
          "compact form: the goal change is listed");

    check(await compactPage(page, dir, path.join(FIX, "doors.trace")) === "ready", "compact form: doors trace loads");
    check(JSON.stringify(await texts(page, "#map-changes li")) === JSON.stringify(DOORS_CHANGES), "compact form: the map changes are listed");
    check(await page.evaluate(() => window.mapfarmViewer.conflictCount()) === 0, "compact form: doors trace legal");
    await doorsMap(page, "compact form: doors trace");

    // Damaged: moves cut short, and a header line between the steps that is malformed (the
    // text keeps its lines, so the message points at it).
    const blob = moves.encodeMoves(fs.readFileSync(path.join(FIX, "legal.trace")));
    const replaceTrace = (b) => (html) => html.replace(/(id="trace" data-encoding="moves-deflate-base64">)[^<]*/, `$1${zlib.deflateSync(b).toString("base64")}`);
    check(await compactPage(page, dir, path.join(FIX, "legal.trace"), replaceTrace(blob.subarray(0, blob.length - 2))) === "error",
          "compact form: moves cut short are refused");
    let msg = await text(page, "#messages .error");
    check(msg === "trace: error: the embedded trace is damaged: cut short", "compact form: the message says so", msg);
    const bad = fs.readFileSync(path.join(FIX, "legal.trace"), "utf8").replace("\n2:", "\ngoal_change=2:9\n2:");
    fs.writeFileSync(path.join(dir, "bad.trace"), bad);
    check(await compactPage(page, dir, path.join(dir, "bad.trace")) === "error", "compact form: a malformed line between steps is refused");
    msg = await text(page, "#messages .error");
    check(msg === 'trace:13:13: error: goal_change: expected T:AGENT:(x,y), found "2:9"', "compact form: its message names line and column", msg);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- a page written by farm_html_write ---------------------------------------------------------------

async function embedded(page, p) {
  const tr = readTrace(p.trace);
  const name = path.basename(p.page);
  const m = /id="trace"[^>]*data-encoding="moves-deflate-base64">([^<]*)</.exec(fs.readFileSync(p.page, "latin1"));
  if (m) {
    const blob = zlib.inflateSync(Buffer.from(m[1], "base64")), mine = moves.encodeMoves(fs.readFileSync(p.trace));
    check(mine && blob.equals(mine), `${name}: the compact form holds what moves.js writes`, `${blob.length} bytes, moves.js ${mine && mine.length}`);
  }
  await page.goto("file://" + p.page);
  await page.waitForFunction(() => ["ready", "error", "map", "empty"].includes(document.body.dataset.state));
  const state = await page.evaluate(() => document.body.dataset.state);
  check(state === "ready", `${name}: the embedded map and trace load`, state + " " + (await text(page, "#messages")));
  if (state !== "ready") return;
  const N = tr.steps[0].length, T = tr.steps.length - 1;
  const sum = await page.evaluate(() => window.mapfarmViewer.summary());
  check(sum.agents === N && sum.steps === T && !sum.fallback, `${name}: ${N} agents, ${T} steps, on its map`, JSON.stringify(sum));
  check(sum.header.solver === tr.header.solver, `${name}: solver=${tr.header.solver}`);
  const st = await page.evaluate(() => window.mapfarmViewer.stats());
  check(st.firstFrameMs > 0 && st.firstFrameMs <= st.loadMs, `${name}: the first frame drawn before the checks end`, JSON.stringify(st));
  check(await page.evaluate(() => window.mapfarmViewer.conflictCount()) === 0, `${name}: no conflict in a solver's trace`,
        (await texts(page, "#conflicts li")).slice(0, 5).join("; "));
  await page.click("#last");
  check(await text(page, "#time-label") === `t = ${T} / ${T}`, `${name}: the last step`);
  // Every agent's last cell, in the colour of its state (one-way runs: at goal, or it moved
  // in the last step, or it waits).
  const bad = [], seen = new Set();
  const got = await pixels(page, tr.steps[T]);
  for (let a = 0; a < N; a++) {
    const [x, y] = tr.steps[T][a], [px, py] = tr.steps[T - 1][a];
    const g = tr.goals[a];
    const st = g && x === g[0] && y === g[1] ? "at goal" : x !== px || y !== py ? "moving" : "waiting";
    seen.add(st);
    if (!near(got[a], COLORS[st])) bad.push(`agent ${a} at (${x},${y}) ${st}: rgba ${got[a]}`);
  }
  check(bad.length === 0, `${name}: every agent drawn at its last cell in its state's colour (${[...seen].join(", ")})`,
        bad.slice(0, 5).join("; "));
  if (tr.cellChanges.length) {
    const n = tr.cellChanges.length;
    check(await page.evaluate(() => window.mapfarmViewer.mapChanges()) === n &&
          (await texts(page, "#map-changes li")).length === Math.min(n, 501), `${name}: its ${n} map changes listed`);
    // Each changed cell as its last change up to the step says, at the first change's step
    // and at the last step (the corner of the cell, away from agents and goal marks).
    for (const s of [tr.cellChanges[0].t, T]) {
      const want = new Map();
      for (const c of tr.cellChanges) if (c.t <= s) want.set(`${c.x},${c.y}`, c.open ? "free" : "blocked");
      await setSlider(page, s);
      const wrong = [];
      for (const [xy, st] of want) {
        const [x, y] = xy.split(",").map(Number);
        const got = await pixel(page, x, y, 0.45, 0.45);
        if (!near(got, COLORS[st])) wrong.push(`(${xy}) ${st}: rgba ${got}`);
      }
      check(wrong.length === 0, `${name}: the ${want.size} changed cells drawn as the changes up to step ${s} left them`, wrong.join("; "));
    }
  }
  if (p.shot) {
    // The picture for the README: a third of the way, the heat map of waits on, and the path
    // of the agent with the most moves still to make.
    const ts = Math.floor(T / 3);
    let best = 0, most = -1;
    for (let a = 0; a < N; a++) {
      let moves = 0;
      for (let t = ts + 1; t <= T; t++) moves += tr.steps[t][a].join() !== tr.steps[t - 1][a].join();
      if (moves > most) { most = moves; best = a; }
    }
    await setSlider(page, ts);
    await page.evaluate((a) => window.mapfarmViewer.select(a), best);
    await page.click("#show-heat");
    await frames(page);
    await page.screenshot({ path: p.shot });
    check(fs.statSync(p.shot).size > 1000, `${name}: screenshot written to ${p.shot}`);
  }
}

main().catch((e) => {
  console.error(`viewer test: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
