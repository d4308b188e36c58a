// Drive a running linecast through openapi-fetch, typed by the types
// openapi-typescript generates from the server's own /openapi.json.
//
// Usage (see run.sh, which also generates linecast.d.ts and type-checks):
//   node <built smoke.js> BASE_URL API_KEY
// Prints an "ok: ..." line per check; exits non-zero on the first surprise.
import createClient from "openapi-fetch";
import type { components, paths } from "./linecast.js";

type Schemas = components["schemas"];
type ErrorCode = Schemas["ErrorCode"];

const [base, key] = process.argv.slice(2);
if (!base || !key) {
  console.error("usage: smoke.js BASE_URL API_KEY");
  process.exit(2);
}

const client = createClient<paths>({
  baseUrl: base.replace(/\/+$/, ""),
  headers: { "X-API-Key": key },
});

function check(cond: unknown, what: string): asserts cond {
  if (!cond) {
    console.log(`FAIL: ${what}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

const sport = "nba" satisfies Schemas["SportCode"];
const modelType = "won_on_points" satisfies Schemas["ModelTypeCode"];
const typedPath = { sport, model_type: modelType } as const;

// (a) Today's predictions.
{
  const { data, error, response } = await client.GET("/api/v1/predictions/{sport}/{model_type}", {
    params: { path: typedPath },
  });
  check(data !== undefined, `predictions ${sport}/${modelType}: HTTP ${response.status}${error ? ` ${error.code}` : ""}`);
  check(Array.isArray(data.games), `predictions carry a games array (${data.games.length} games)`);
  check(data.sport === sport && data.model_type === modelType, "predictions name their sport and model type");
}

// (a2) Every book's prices, and one game's odds history.
{
  const { data, response } = await client.GET("/api/v1/odds/{sport}/books", { params: { path: { sport } } });
  check(data !== undefined, `books ${sport}: HTTP ${response.status}`);
  const game = data.games.find((g) => g.bookmakers.length > 0);
  check(game !== undefined, `books carry a game with bookmakers (${data.games.length} games)`);
  const h2h = game.bookmakers.flatMap((b) => b.markets.filter((m) => m.key === "h2h").flatMap((m) => m.outcomes));
  check(h2h.every((o) => o.name === game.home_team || o.name === game.away_team), "h2h outcomes name the game's teams");
  const history = await client.GET("/api/v1/games/{game_id}/odds-history", {
    params: { path: { game_id: game.game_id } },
  });
  check(history.data !== undefined, `odds history: HTTP ${history.response.status}`);
  const prices = (history.data as Schemas["OddsHistoryResponse"]).prices;
  check(prices.length > 0, `odds history lists ${prices.length} prices`);
}

// (a3) A webhook endpoint: created with its secret, listed without it, deleted.
{
  const made = await client.POST("/api/v1/webhooks/endpoints", {
    body: { url: "https://93.184.216.34/linecast", event_types: ["release.published"], sports: ["nba"] },
  });
  check(made.data !== undefined, `create a webhook endpoint: HTTP ${made.response.status}`);
  const created = made.data as Schemas["EndpointWithSecret"];
  check(created.secret.startsWith("whsec_"), "the endpoint's secret is shown");
  const listed = await client.GET("/api/v1/webhooks/endpoints");
  check(listed.data !== undefined && listed.data.some((e) => e.id === created.endpoint.id), "the endpoint is listed");
  check(!JSON.stringify(listed.data).includes(created.secret), "a listing never shows the secret");
  const gone = await client.DELETE("/api/v1/webhooks/endpoints/{endpoint_id}", {
    params: { path: { endpoint_id: created.endpoint.id } },
  });
  check(gone.data !== undefined, `delete the endpoint: HTTP ${gone.response.status}`);
}

// (b) Page one season of graded results to the end, pinned to the first page's snapshot.
let season: string;
let snapshot: string;
{
  const { data, response } = await client.GET("/api/v1/results/{sport}/{model_type}/seasons", {
    params: { path: typedPath },
  });
  check(data !== undefined, `result seasons: HTTP ${response.status}`);
  const picked = data.seasons.length >= 2 ? data.seasons[1] : data.seasons[0];
  check(picked !== undefined, `result seasons lists a season (${data.seasons.join(", ")})`);
  season = picked;

  type ResultsQuery = NonNullable<paths["/api/v1/results/{sport}/{model_type}"]["get"]["parameters"]["query"]>;
  const fetchPage = (query: ResultsQuery) =>
    client.GET("/api/v1/results/{sport}/{model_type}", { params: { path: typedPath, query } });

  let offset: number | null = 0;
  let pinned: string | undefined;
  let total: number | undefined;
  let rows = 0;
  let pages = 0;
  while (offset !== null) {
    const page = await fetchPage({ season, limit: 250, offset, ...(pinned !== undefined ? { snapshot: pinned } : {}) });
    const body: Schemas["ResultsResponse"] | undefined = page.data;
    check(body !== undefined, `results page at offset ${offset}: HTTP ${page.response.status}${page.error ? ` ${page.error.code}` : ""}`);
    check(body.returned === body.results.length, `results page at offset ${offset}: returned equals the rows on the page`);
    if (pinned === undefined) {
      check(typeof body.snapshot === "string" && body.snapshot.length > 0, "the first page names a snapshot");
      pinned = body.snapshot;
      total = body.total;
    } else {
      check(body.snapshot === pinned && body.total === total, `results page at offset ${offset} keeps the snapshot and total`);
    }
    rows += body.results.length;
    pages += 1;
    offset = body.next_offset ?? null;
  }
  check(pinned !== undefined && total !== undefined, "paging saw a first page");
  check(rows === total, `paged season ${season} in ${pages} pages: ${rows} rows == total ${total}`);
  snapshot = pinned;
}

// (c) The season's Parquet export, read as bytes.
{
  const { data, response } = await client.GET("/api/v1/results/{sport}/{model_type}/export", {
    params: { path: typedPath, query: { season, format: "parquet" } },
    parseAs: "arrayBuffer",
  });
  check(data !== undefined, `parquet export of ${season}: HTTP ${response.status}`);
  const magic = new TextDecoder().decode(new Uint8Array(data, 0, Math.min(4, data.byteLength)));
  check(magic === "PAR1", `parquet export starts with PAR1 (${data.byteLength} bytes)`);
  check(response.headers.get("x-linecast-snapshot") === snapshot, "parquet export names the paged snapshot");
}

// (d) An unknown sport: a 400 whose typed ErrorBody carries `code`.
{
  // "cricket" is not a SportCode: widen to string first so the cast is explicit.
  const unknown = "cricket" as string as Schemas["SportCode"];
  const { data, error, response } = await client.GET("/api/v1/predictions/{sport}/{model_type}", {
    params: { path: { sport: unknown, model_type: modelType } },
  });
  check(data === undefined && response.status === 400, `unknown sport is a 400 (HTTP ${response.status})`);
  check(error !== undefined, "the 400 has an error body");
  // `code` is typed by the document (ErrorBody.code: ErrorCode); this line does not
  // compile against a document whose ErrorBody lacks `code`.
  const expected: ErrorCode = "unknown_sport";
  const code: ErrorCode = error.code;
  check(code === expected, `error code is ${expected} (got ${code}; detail: ${error.detail})`);
  check(error.parameter === "sport", `error names the parameter (got ${String(error.parameter)})`);
}

console.log("typescript client: all calls succeeded");
