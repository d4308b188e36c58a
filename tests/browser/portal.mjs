// The customer portal in a real browser: Debian's Chromium driven by
// playwright-core (no browser download), axe-core run on every page.
//
//   BASE=http://127.0.0.1:18098 KEY=sk_service_... SHOTS=docs/portal node portal.mjs
//
// Steps: sign in with the demo key and see the quota; create a key and use
// it against the API; roll it, then revoke it, and see the API refuse it;
// open a reliability diagram; sign out and find the pages closed; call the
// API from a page of another origin (CORS) and find the portal closed to it. Every
// page is checked by axe-core (no serious or critical violation) and must
// raise no Content-Security-Policy violation; a 1280x800 screenshot of each
// goes to SHOTS when it is set. Exits 1 on the first failure.

import { readFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const BASE = process.env.BASE ?? "http://127.0.0.1:18098";
const KEY = process.env.KEY;
const SHOTS = process.env.SHOTS;
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
if (!KEY) {
  console.error("KEY (the demo key) is required");
  process.exit(2);
}

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) {
    failures += 1;
    throw new Error(what);
  }
}

async function api(path, key, init = {}) {
  const res = await fetch(`${BASE}${path}`, { ...init, headers: { "X-API-Key": key, ...(init.headers ?? {}) } });
  return res.status;
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
const cspViolations = [];
page.on("console", (msg) => {
  if (/Content Security Policy|Refused to (apply|load|execute)/i.test(msg.text())) {
    cspViolations.push(msg.text());
  }
});

/** axe-core on the current page (evaluated through the DevTools protocol,
 * so the page's own CSP, which forbids inline script, does not block it). */
async function accessible(name) {
  const result = await page.evaluate(async (source) => {
    // eslint-disable-next-line no-eval
    (0, eval)(source);
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, help: v.help }));
  }, AXE);
  const serious = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  for (const v of result) {
    console.log(`     axe ${name}: ${v.impact} ${v.id} (${v.nodes}): ${v.help}`);
  }
  check(serious.length === 0, `${name}: no serious or critical accessibility violation`);
  check(cspViolations.length === 0, `${name}: no Content-Security-Policy violation (${cspViolations.join("; ")})`);
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}.png` });
  }
}

try {
  // 1. Sign in with the demo key and see the quota.
  await page.goto(`${BASE}/portal`);
  await accessible("sign-in");
  await page.getByLabel("API key").fill(KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${BASE}/portal/overview`);
  check(await page.getByText("Requests used").isVisible(), "the overview shows the quota");
  check(!(await page.content()).includes(KEY), "the key is not on the page");
  await accessible("overview");

  // 2. Create a key and use it against the API.
  await page.getByRole("link", { name: "Keys" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  await accessible("keys");
  await page.getByLabel("Key name").fill("browser test");
  await page.getByRole("button", { name: "Create key" }).click();
  const shown = (await page.content()).match(/sk_service_[A-Za-z0-9]{32,64}/);
  check(shown !== null, "the new key is shown once");
  const created = shown[0];
  check((await api("/api/v1/sports", created)) === 200, "the new key works against the API");
  await accessible("key-created");
  await page.goto(`${BASE}/portal/keys`);
  check(!(await page.content()).includes(created), "the key is not shown again");

  // 3. Roll it (the old key stops now), then revoke the new one.
  const card = () =>
    page.getByRole("article").filter({ has: page.getByRole("heading", { name: "browser test" }) });
  await card().first().getByLabel("Old key stops").selectOption("now");
  await card().first().getByRole("button", { name: "Roll" }).click();
  const rolled = (await page.content()).match(/sk_service_[A-Za-z0-9]{32,64}/);
  check(rolled !== null && rolled[0] !== created, "rolling shows a new key once");
  check((await api("/api/v1/sports", rolled[0])) === 200, "the rolled key works");
  check((await api("/api/v1/sports", created)) === 401, "the old key stops at once with no grace");
  await page.goto(`${BASE}/portal/keys`);
  const live = card().filter({ has: page.getByRole("button", { name: "Revoke" }) });
  check((await live.count()) === 1, "only the rolled key is still revocable");
  await live.getByRole("button", { name: "Revoke" }).click();
  await accessible("revoke-confirm");
  await page.getByRole("button", { name: "Revoke" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  let refused = false;
  for (let i = 0; i < 20 && !refused; i += 1) {
    refused = (await api("/api/v1/sports", rolled[0])) === 401;
    if (!refused) await new Promise((r) => setTimeout(r, 500));
  }
  check(refused, "the API refuses the revoked key");

  // 4. Open a reliability diagram.
  await page.getByRole("link", { name: "Model quality" }).click();
  await page.waitForURL(/\/portal\/quality/);
  await page.getByLabel("Sport").selectOption("nba");
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForLoadState("load");
  const diagram = page.getByRole("img", { name: /Reliability diagram/ });
  check((await diagram.evaluate((img) => img.complete && img.naturalWidth > 0)) === true, "the reliability diagram is drawn");
  await accessible("model-quality");

  await page.getByRole("link", { name: "Data" }).click();
  await page.waitForURL(`${BASE}/portal/data`);
  await accessible("data");

  // 5. Sign out, and find the pages closed.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${BASE}/portal`);
  await page.goto(`${BASE}/portal/overview`);
  check(page.url() === `${BASE}/portal`, "after signing out the overview sends to the sign-in page");
  check(await page.getByRole("button", { name: "Sign in" }).isVisible(), "the sign-in form is back");

  await page.goto(`${BASE}/status`);
  await accessible("status");

  // 6. A notebook on another origin calls the API with its key: Chromium
  // sends a real preflight (X-API-Key is not a safelisted header), and the
  // page reads the body and the exposed headers. The portal stays closed
  // to it. The notebook's origin is localhost, not 127.0.0.1: another
  // origin on the same loopback (a page Playwright made up would be outside
  // the loopback address space, and Chromium's local network access rules
  // would refuse it before CORS is asked).
  const elsewhere = `${BASE.replace("127.0.0.1", "localhost")}/api/v1/liveness`;
  check(new URL(elsewhere).origin !== new URL(BASE).origin, "the notebook is on another origin");
  const notebook = await browser.newPage();
  await notebook.goto(elsewhere);
  const seen = await notebook.evaluate(
    async ({ base, key }) => {
      const res = await fetch(`${base}/api/v1/predictions/nba/won_on_points`, { headers: { "X-API-Key": key } });
      const body = await res.json();
      let portal = "readable";
      try {
        await fetch(`${base}/portal/overview`, { headers: { "X-API-Key": key } });
      } catch {
        portal = "blocked";
      }
      return {
        status: res.status,
        games: Array.isArray(body.games),
        limit: res.headers.get("RateLimit-Policy"),
        requestId: res.headers.get("X-Request-Id"),
        etag: res.headers.get("ETag"),
        portal,
      };
    },
    { base: BASE, key: KEY },
  );
  check(seen.status === 200 && seen.games, "a page of another origin reads predictions with its key");
  check(Boolean(seen.limit && seen.requestId && seen.etag), "it reads RateLimit-Policy, X-Request-Id and ETag");
  check(seen.portal === "blocked", "the portal refuses the other origin's preflighted request");
  await notebook.close();
} catch (e) {
  if (failures === 0) {
    console.log(`FAIL ${e.message}`);
    failures += 1;
  }
} finally {
  await browser.close();
}
console.log(failures === 0 ? "browser test: all passed" : `browser test: ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
