// The customer portal in a real browser: Debian's Chromium driven by
// playwright-core (no browser download), axe-core run on every page.
//
//   BASE=http://127.0.0.1:18098 KEY=sk_service_... SHOTS=docs/portal node portal.mjs
//
// Steps: a refused sign-in, then sign in with the demo key and see the
// quota; open the phone menu; a refused key name, then create a key and use
// it against the API; roll it, then revoke it, and see the API refuse it,
// reloading after each and counting keys; Model quality from NBA to MLB
// through the form and back (with and without JavaScript), counted
// nothing; refresh the datasets, reload and count refreshes; the billing
// page; the requests page (every counted API call listed, the log's Status
// and Request id in view with the longest route listed, filtered, its CSV
// link); a
// 404 page; a session
// that ended and the return to the page asked for; sign out and find the
// pages closed; call the API from a page of another origin (CORS) and find
// the portal closed to it; the public scorecard, its diagram and ledger
// links, and its form. Every page is checked at 1280x800 and 390x844:
// no horizontal overflow, axe-core (no serious or critical violation), no
// Content-Security-Policy violation; a screenshot of each size goes to
// SHOTS when it is set. Exits 1 on the first failure.

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

const SIZES = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
];

/** axe-core on the current page (evaluated through the DevTools protocol,
 * so the page's own CSP, which forbids inline script, does not block it). */
async function axe(name) {
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
}

/** The current page at 1280x800 and at 390x844: no horizontal overflow,
 * no serious or critical axe finding, no CSP violation; a screenshot of
 * each size goes to SHOTS when it is set. Leaves the page at 1280x800. */
async function accessible(name) {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      inner: window.innerWidth,
    }));
    check(scroll <= inner, `${name} at ${size.width}x${size.height}: fits its width (${scroll} <= ${inner})`);
    // A chart of days or months wider than its box opens on its newest
    // end: the chart's right edge is the box's.
    const charts = await page.evaluate(() =>
      [...document.querySelectorAll(".chart-box.latest")].map((box) => {
        const chart = box.firstElementChild.getBoundingClientRect();
        const shown = box.getBoundingClientRect();
        return { wider: box.scrollWidth > box.clientWidth, right: chart.right, shown: shown.right };
      }),
    );
    for (const [i, c] of charts.entries()) {
      if (c.wider) {
        check(
          Math.abs(c.right - c.shown) <= 2,
          `${name} at ${size.name}: time chart ${i + 1} opens on its newest end (${c.right} against ${c.shown})`,
        );
      }
    }
    await axe(`${name} at ${size.name}`);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/${name}-${size.name}.png`, fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  check(cspViolations.length === 0, `${name}: no Content-Security-Policy violation (${cspViolations.join("; ")})`);
}

/** The customer's keys as the API lists them (the demo key's account). */
async function keyCount() {
  const res = await fetch(`${BASE}/api/v1/customers/me/api-keys`, { headers: { "X-API-Key": KEY } });
  const body = await res.json();
  const keys = Array.isArray(body) ? body : (body.api_keys ?? body.keys ?? body.items);
  return { all: keys.length, revoked: keys.filter((k) => k.revoked_at || k.is_active === false).length };
}

async function refreshesUsed() {
  const res = await fetch(`${BASE}/api/v1/service-sports-data/status`, { headers: { "X-API-Key": KEY } });
  return (await res.json()).refreshes_used;
}

/** Reloads the page; its answer must be a GET's (no form posted again). */
async function reload(what) {
  const posted = [];
  const seen = (req) => {
    if (req.method() === "POST") posted.push(req.url());
  };
  page.on("request", seen);
  await page.reload();
  page.off("request", seen);
  check(posted.length === 0, `reloading after ${what} posts nothing (${posted.join(", ")})`);
}

const FULL_KEY = /sk_service_[A-Za-z0-9]{32,64}/;

try {
  // 1. Sign in with the demo key and see the quota.
  await page.goto(`${BASE}/portal`);
  await accessible("sign-in");
  await page.getByLabel("API key").fill(`sk_service_${"x".repeat(40)}`);
  await page.getByRole("button", { name: "Sign in" }).click();
  check((await page.locator("#api_key-error").textContent()).includes("not valid"), "a wrong key: the message is beside the field");
  check((await page.getByLabel("API key").inputValue()) === "", "a wrong key is not put back in the field");
  await accessible("sign-in-refused");
  await page.getByLabel("API key").fill(KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${BASE}/portal/overview`);
  check(await page.getByText("Requests used").isVisible(), "the overview shows the quota");
  check(!(await page.content()).includes(KEY), "the key is not on the page");
  await accessible("overview");

  // On a phone the navigation is one Menu button that opens and works.
  await page.setViewportSize({ width: 390, height: 844 });
  check(!(await page.getByRole("link", { name: "Keys" }).isVisible()), "on a phone the navigation is collapsed");
  await page.getByText("Menu").click();
  await accessible("menu-open");
  await page.setViewportSize({ width: 390, height: 844 });
  check((await page.locator("details.menu").getAttribute("open")) !== null, "the menu stays open");
  await page.getByRole("link", { name: "Keys" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  check(true, "on a phone the menu opens and leads to Keys");
  await page.setViewportSize({ width: 1280, height: 800 });

  // 2. Create a key and use it against the API; a reload creates nothing.
  await accessible("keys");
  const before = await keyCount();
  // A refused form: back on the page, the message beside the field and
  // what was typed kept.
  await page.getByLabel("Key name").fill("   ");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  check((await page.locator("#new-name-error").textContent()).includes("1 to 100"), "a refused name: the message is beside the field");
  check((await page.getByLabel("Key name").inputValue()) === "   ", "what was typed is kept");
  await accessible("key-name-refused");
  await page.getByLabel("Key name").fill("browser test");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  const shown = (await page.content()).match(FULL_KEY);
  check(shown !== null, "the new key is shown once");
  const created = shown[0];
  check(!page.url().includes(created), "the key is not in the URL");
  check(!(await context.cookies()).some((c) => c.value.includes(created)), "the key is in no cookie");
  check((await api("/api/v1/sports", created)) === 200, "the new key works against the API");
  await accessible("key-created");
  check((await keyCount()).all === before.all + 1, "one key was created");
  await reload("creating a key");
  check(!(await page.content()).includes(created), "after a reload the key is not shown again");
  check((await keyCount()).all === before.all + 1, "reloading created no second key");
  await page.goBack();
  await page.reload();
  check((await keyCount()).all === before.all + 1, "going back and reloading created no key");
  await page.goto(`${BASE}/portal/keys`);

  // 3. Roll it (the old key stops now), then revoke the new one; reloads
  // repeat neither.
  const card = () =>
    page.getByRole("article").filter({ has: page.getByRole("heading", { name: "browser test" }) });
  await card().first().getByLabel("Old key stops").selectOption("now");
  await card().first().getByRole("button", { name: "Roll" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  const rolled = (await page.content()).match(FULL_KEY);
  check(rolled !== null && rolled[0] !== created, "rolling shows a new key once");
  check((await api("/api/v1/sports", rolled[0])) === 200, "the rolled key works");
  check((await api("/api/v1/sports", created)) === 401, "the old key stops at once with no grace");
  await reload("rolling a key");
  check(!(await page.content()).includes(rolled[0]), "after a reload the rolled key is not shown again");
  check((await keyCount()).all === before.all + 2, "reloading rolled nothing more");
  const live = card().filter({ has: page.getByRole("button", { name: "Revoke" }) });
  check((await live.count()) === 1, "only the rolled key is still revocable");
  await live.getByRole("button", { name: "Revoke" }).click();
  await page.waitForURL(/\/portal\/keys\/revoke\?key_id=/);
  await accessible("revoke-confirm");
  const revokedBefore = (await keyCount()).revoked;
  await page.getByRole("button", { name: "Revoke" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  check((await page.getByRole("status").first().textContent()).includes("Revoked"), "the list says the key was revoked");
  await reload("revoking a key");
  check((await keyCount()).revoked === revokedBefore + 1, "one key revoked, reloading revoked nothing more");
  let refused = false;
  for (let i = 0; i < 20 && !refused; i += 1) {
    refused = (await api("/api/v1/sports", rolled[0])) === 401;
    if (!refused) await new Promise((r) => setTimeout(r, 500));
  }
  check(refused, "the API refuses the revoked key");

  // 4. Model quality: from NBA to MLB through the form and back, at a
  // desktop's width and a phone's. The season list follows the sport
  // (NBA seasons are 2026-27, MLB's 2026); each choice shows its figures
  // and its diagram, with the navigation and Sign out. A view is not
  // counted against the API quota.
  const usage = async () =>
    (await (await fetch(`${BASE}/api/v1/customers/me/usage`, { headers: { "X-API-Key": KEY } })).json())
      .monthly_requests;
  await page.getByRole("link", { name: "Model quality" }).click();
  await page.waitForURL(/\/portal\/quality/);
  const usedBeforeQuality = await usage();
  const scorecardHref = await page.getByRole("link", { name: "the public scorecard" }).getAttribute("href");
  check(
    /^\/scorecard\?sport=nba&market=won_on_points/.test(scorecardHref ?? ""),
    `Model quality links to the public scorecard of its choice (${scorecardHref})`,
  );
  const FORMS = { nba: /^\d{4}-\d{2}$/, mlb: /^\d{4}$/ };
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    for (const sport of ["nba", "mlb", "nba"]) {
      await page.getByLabel("Sport").selectOption(sport);
      const seasons = await page.getByLabel("Season").locator("option").evaluateAll((os) => os.map((o) => o.value));
      check(
        seasons[0] === "" && seasons.length > 1 && seasons.slice(1).every((v) => FORMS[sport].test(v)),
        `${size.name}: choosing ${sport} lists its own seasons (${seasons.join(" ")})`,
      );
      // The newest season by name, so the season is sent, not left empty.
      await page.getByLabel("Season").selectOption(seasons[1]);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().includes("/portal/quality?")),
        page.getByRole("button", { name: "Show" }).click(),
      ]);
      await page.waitForLoadState("load");
      check(answer.status() === 200, `${size.name}: ${sport} ${seasons[1]} through the form answers 200 (${answer.status()})`);
      const heading = await page.locator("#diagram-title").textContent();
      check(heading.startsWith(`${sport.toUpperCase()} `) && heading.includes(seasons[1]), `${size.name}: the figures are ${sport}'s (${heading})`);
      const drawn = await page.getByRole("img", { name: /Reliability diagram/ }).evaluate((img) => img.complete && img.naturalWidth > 0);
      check(drawn === true, `${size.name}: ${sport}'s reliability diagram is drawn`);
      check((await page.getByRole("button", { name: "Sign out", includeHidden: true }).count()) > 0, `${size.name}: ${sport}'s page has Sign out (in the menu on a phone)`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  check((await usage()) === usedBeforeQuality + 1, "six Model quality views with their diagrams counted nothing (only the usage call itself)");
  await accessible("model-quality");
  // Without JavaScript the list stays NBA's when the sport changes: the
  // server shows MLB's current season and says so.
  const noScript = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  await noScript.addCookies(await context.cookies());
  const plain = await noScript.newPage();
  await plain.goto(`${BASE}/portal/quality?sport=nba&market=won_on_spread`);
  const nbaSeason = (await plain.getByLabel("Season").locator("option").evaluateAll((os) => os.map((o) => o.value)))[1];
  await plain.getByLabel("Season").selectOption(nbaSeason);
  await plain.getByLabel("Sport").selectOption("mlb");
  const [fellBack] = await Promise.all([
    plain.waitForResponse((r) => r.url().includes("/portal/quality?")),
    plain.getByRole("button", { name: "Show" }).click(),
  ]);
  await plain.waitForLoadState("load");
  check(fellBack.status() === 200, `without JavaScript, MLB with the NBA season ${nbaSeason} answers 200 (${fellBack.status()})`);
  check(
    (await plain.getByRole("status").first().textContent()).includes(`${nbaSeason} is not a season of MLB`),
    "without JavaScript, the page says the season was not MLB's and shows MLB's current season",
  );
  check((await plain.locator("#diagram-title").textContent()).startsWith("MLB "), "without JavaScript, MLB's figures are shown");
  await noScript.close();

  // 5. Data: a refresh shows its links once; a reload spends no refresh.
  await page.getByRole("link", { name: "Data" }).click();
  await page.waitForURL(`${BASE}/portal/data`);
  await accessible("data");
  const refreshButton = page.getByRole("button", { name: "Refresh" });
  if (await refreshButton.isVisible()) {
    const usedBefore = await refreshesUsed();
    await refreshButton.click();
    await page.waitForURL(`${BASE}/portal/data`);
    check(await page.getByText("Your download links").isVisible(), "a refresh shows its links");
    check((await refreshesUsed()) === usedBefore + 1, "one refresh was spent");
    await accessible("data-refreshed");
    await reload("a refresh");
    check(!(await page.getByText("Your download links").isVisible()), "after a reload the links are not shown again");
    check((await refreshesUsed()) === usedBefore + 1, "reloading spent no refresh");
  } else {
    check(false, "the demo customer can refresh its datasets");
  }

  // 5b. Billing: the plan and status; without a Stripe API key (the demo)
  // no button, and the page says how to subscribe.
  await page.getByRole("link", { name: "Billing" }).first().click();
  await page.waitForURL(`${BASE}/portal/billing`);
  check(await page.getByRole("heading", { name: "Billing" }).first().isVisible(), "the billing page opens");
  check((await page.getByRole("button", { name: /Subscribe|Manage billing/ }).count()) === 0, "no Stripe button without an API key");
  await accessible("billing");

  // 5c. Requests: the API calls made above with the new keys are listed
  // (written by the flush round once held 10 s), filtered by status.
  await page.getByRole("link", { name: "Requests" }).first().click();
  await page.waitForURL(`${BASE}/portal/requests`);
  let logged = false;
  for (let i = 0; i < 60 && !logged; i += 1) {
    logged = (await page.getByRole("cell", { name: "/api/v1/sports" }).count()) > 0;
    if (!logged) {
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
  }
  check(logged, "the requests page lists the API calls made with the new keys");
  check(!FULL_KEY.test(await page.content()), "the requests page shows no key");
  // Every counted API call is listed: once the log has caught up (the
  // flush holds requests about 11 s), it lists as many requests as the
  // month's usage counts (the usage call itself included), though Model
  // quality was viewed six times above. A replay call puts the longest
  // route on the page.
  check(
    (await api("/api/v1/strategies/nba/won_on_points/replay/edge-pb", KEY)) < 500,
    "a strategy replay (the longest route) is called",
  );
  const counted = await usage();
  const matching = async () => Number((await page.getByText(/\d+ matching requests?/).textContent()).match(/(\d+) matching/)[1]);
  let listed = 0;
  for (let i = 0; i < 60; i += 1) {
    await page.goto(`${BASE}/portal/requests`);
    listed = await matching();
    if (listed >= counted) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  check(listed === counted, `every counted API call is in the log (${listed} listed, ${counted} counted)`);
  // At 1280x800, with the replay route listed, the log fits its box: the
  // Status and Request id columns, headings and cells, are in view.
  check((await page.getByRole("cell", { name: /\/replay\// }).count()) > 0, "the replay route is listed");
  const inView = await page.evaluate(() => {
    const box = document.querySelector(".scroll.log");
    const shown = box.getBoundingClientRect();
    const heads = [...box.querySelectorAll("thead th")];
    const col = (name) => heads.findIndex((th) => th.textContent.trim() === name);
    const replay = [...box.querySelectorAll("tbody tr")].find((tr) => tr.textContent.includes("/replay/"));
    const within = (el) => {
      const r = el.getBoundingClientRect();
      return r.left >= shown.left - 1 && r.right <= shown.right + 1 && el.scrollWidth <= el.clientWidth + 1;
    };
    return {
      overflow: box.scrollWidth - box.clientWidth,
      status: within(heads[col("Status")]) && within(replay.children[col("Status")]),
      id: within(heads[col("Request id")]) && within(replay.children[col("Request id")]),
      statusText: heads[col("Status")].innerText,
    };
  });
  check(
    inView.overflow <= 0 && inView.status && inView.id && inView.statusText === "Status",
    `with the replay route listed the log fits a desktop's width, Status and Request id in view (${JSON.stringify(inView)})`,
  );
  // Filtered to 4xx, the chart and the tables by key and by endpoint count
  // the same requests as the log.
  await page.goto(`${BASE}/portal/requests?status=4xx`);
  const fourxx = await matching();
  const tableSums = await page.evaluate(() =>
    [...document.querySelectorAll("table.numbers")].map((t) =>
      [...t.querySelectorAll("tbody tr")].reduce((n, tr) => n + Number(tr.lastElementChild.textContent), 0),
    ),
  );
  check(
    tableSums.length === 2 && tableSums.every((n) => n === fourxx),
    `filtered to 4xx, the tables by key and by endpoint count the ${fourxx} matching requests (${tableSums.join(", ")})`,
  );
  await page.goto(`${BASE}/portal/requests`);
  await page.getByLabel("Status").selectOption("2xx");
  await page.getByRole("button", { name: "Show" }).click();
  await page.waitForURL(/\/portal\/requests\?/);
  const csvHref = await page.getByRole("link", { name: "Download these as CSV" }).getAttribute("href");
  check(csvHref.includes("status=2xx"), "the CSV link keeps the filters");
  // In the tables by key and by endpoint the name reads from the left and
  // the count, with its heading, aligns right.
  const aligned = await page.evaluate(() =>
    [...document.querySelectorAll("table.numbers")].map((t) => {
      const align = (el) => getComputedStyle(el).textAlign;
      const cells = t.querySelector("tbody tr").querySelectorAll("td");
      return [align(cells[0]), align(cells[cells.length - 1]), align(t.querySelector("thead th:last-child"))];
    }),
  );
  check(
    aligned.length === 2 && aligned.every(([name, count, heading]) => name === "left" && count === "right" && heading === "right"),
    `the requests page's tables by key and by endpoint: names left, counts right (${JSON.stringify(aligned)})`,
  );
  await accessible("requests");

  // 5d. Webhooks: a refused URL comes back beside its field, a created
  // endpoint's secret is shown once (a reload posts nothing and shows it
  // no more), a test event's failed attempt is listed, and a confirmed
  // delete removes it. The server allows loopback receivers (run.sh); the
  // receiver at port 9 answers nothing.
  await page.getByRole("link", { name: "Webhooks" }).first().click();
  await page.waitForURL(`${BASE}/portal/webhooks`);
  await accessible("webhooks-empty");
  await page.getByLabel("URL (https)").fill("ftp://127.0.0.1/hook");
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.waitForURL(`${BASE}/portal/webhooks`);
  check((await page.locator("#new-url-error").textContent()).includes("refused (scheme)"), "a refused URL: the message is beside the field");
  check((await page.getByLabel("URL (https)").inputValue()) === "ftp://127.0.0.1/hook", "the URL typed is kept");
  await page.getByLabel("URL (https)").fill("http://127.0.0.1:9/hook");
  await page.getByLabel("nba").check();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.waitForURL(`${BASE}/portal/webhooks`);
  const secretShown = (await page.content()).match(/whsec_[A-Za-z0-9+/=]{20,}/);
  check(secretShown !== null, "the endpoint's secret is shown once");
  check(!page.url().includes("whsec_"), "the secret is not in the URL");
  await accessible("webhook-created");
  await reload("creating an endpoint");
  check(!(await page.content()).includes(secretShown[0]), "after a reload the secret is not shown again");
  const hooks = async () =>
    (await (await fetch(`${BASE}/api/v1/webhooks/endpoints`, { headers: { "X-API-Key": KEY } })).json()).length;
  check((await hooks()) === 1, "one endpoint was created, reloading created no second");
  await page.getByRole("button", { name: "Send a test event" }).click();
  await page.waitForURL(`${BASE}/portal/webhooks`);
  check((await page.getByRole("status").first().textContent()).includes("A test event"), "the test is queued");
  let attempted = false;
  for (let i = 0; i < 60 && !attempted; i += 1) {
    await page.reload();
    attempted = (await page.getByRole("button", { name: /Resend delivery/ }).count()) > 0;
    if (!attempted) await new Promise((r) => setTimeout(r, 500));
  }
  check(attempted, "the test event's attempt is listed with a Resend button");
  await accessible("webhooks");
  await page.getByLabel("Delete this endpoint").check();
  await page.getByRole("button", { name: "Delete" }).click();
  await page.waitForURL(`${BASE}/portal/webhooks`);
  check((await hooks()) === 0, "the endpoint is deleted");

  // 6. The portal's own errors: a page with its navigation and headers.
  for (const [path, status, name] of [
    ["/portal/no-such-page", 404, "not-found"],
  ]) {
    const res = await page.goto(`${BASE}${path}`);
    check(res.status() === status, `${path} answers ${status}`);
    check((res.headers()["content-type"] ?? "").startsWith("text/html"), `${path} is a page, not JSON`);
    check(Boolean(res.headers()["content-security-policy"]), `${path} carries the portal's CSP`);
    check(await page.getByRole("navigation", { name: "Portal" }).isVisible(), `${path} has the navigation`);
    await accessible(name);
  }

  // 7. A session that ended: the sign-in page says so, then returns to the
  // page asked for.
  const [session] = (await context.cookies()).filter((c) => c.name.includes("linecast_portal"));
  check(session !== undefined, "a session cookie");
  await page.goto(`${BASE}/portal/overview`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${BASE}/portal`);
  await context.addCookies([session]);
  await page.goto(`${BASE}/portal/keys`);
  check(new URL(page.url()).pathname === "/portal", "an ended session lands on the sign-in page");
  check(await page.getByText("Your session ended; sign in again").isVisible(), "it says the session ended");
  await accessible("session-ended");
  await page.getByLabel("API key").fill(KEY);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${BASE}/portal/keys`);
  check(true, "signing in again returns to the page asked for");
  await page.goto(`${BASE}/portal?next=${encodeURIComponent("https://example.com/")}`);
  check(new URL(page.url()).origin === new URL(BASE).origin, "a next URL of another site is not followed");

  // 8. Sign out, and find the pages closed.
  await page.goto(`${BASE}/portal/overview`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${BASE}/portal`);
  await page.goto(`${BASE}/portal/overview`);
  check(new URL(page.url()).pathname === "/portal", "after signing out the overview sends to the sign-in page");
  check(await page.getByRole("button", { name: "Sign in" }).isVisible(), "the sign-in form is back");

  await page.goto(`${BASE}/status`);
  await accessible("status");

  // 8b. The public scorecard, signed out: the market as a row of its own,
  // the reliability diagram drawn, each ledger day a link that answers.
  await page.goto(`${BASE}/scorecard`);
  await accessible("scorecard");
  check(await page.getByRole("rowheader", { name: "IMPLIED (market)" }).isVisible(), "the scorecard lists the market as a row");
  check(await page.getByRole("rowheader", { name: "BLEND" }).isVisible(), "and BLEND");
  const drawn = await page.locator("img.diagram").evaluate((img) => img.complete && img.naturalWidth > 0);
  check(drawn, "the scorecard's reliability diagram is drawn");
  const dayLink = page.locator("ul.days a").first();
  if ((await dayLink.count()) > 0) {
    const day = await fetch(`${BASE}${await dayLink.getAttribute("href")}`);
    check(day.status === 200, `a ledger day linked from the scorecard answers 200 (${day.status})`);
  }
  await page.getByLabel("Sport").selectOption("mlb");
  const [mlbCard] = await Promise.all([
    page.waitForResponse((r) => r.url().includes("/scorecard?")),
    page.getByRole("button", { name: "Show" }).click(),
  ]);
  check(mlbCard.status() === 200, `the scorecard's form shows MLB (${mlbCard.status()})`);
  await accessible("scorecard-mlb");

  // 9. A notebook on another origin calls the API with its key: Chromium
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
