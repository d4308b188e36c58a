-- wrk script: rotate API keys per request so the per-key limit of 50 req/s
-- does not cap a throughput run. Environment:
--   KEYS_FILE      API keys, one per line (none: no X-API-Key header)
--   PATHS          paths, comma separated (requests cycle through them)
--   ENCODING       identity (no Accept-Encoding header), gzip (the default),
--                  or any other value, sent as the Accept-Encoding header
--   IF_NONE_MATCH  ETags, comma separated, one per path of PATHS in order (or
--                  one for every path); sent as If-None-Match; empty: none
--   COUNT_STATUS   1: count responses by status (200, 304, 429, other) and
--                  print a STATUS line. This makes wrk parse every response
--                  in Lua, so throughput runs leave it off.
local keys = {}
local paths = {}
local etags = {}
local encoding = os.getenv("ENCODING") or "gzip"
local counter = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local f = io.open(os.getenv("KEYS_FILE") or "keys.txt", "r")
  if f then
    for line in f:lines() do
      if #line > 0 then table.insert(keys, line) end
    end
    f:close()
  end
  for p in string.gmatch(os.getenv("PATHS") or "/api/v1/predictions/nba/won_on_points", "([^,]+)") do
    table.insert(paths, p)
  end
  -- positional: an empty entry means no If-None-Match for that path
  for e in string.gmatch((os.getenv("IF_NONE_MATCH") or "") .. ",", "([^,]*),") do
    table.insert(etags, e)
  end
  -- spread threads over the key list
  counter = math.random(0, 100000)
  s200, s304, s429, other = 0, 0, 0, 0
end

function request()
  counter = counter + 1
  local ix = (counter % #paths) + 1
  local headers = {}
  if #keys > 0 then
    headers["X-API-Key"] = keys[(counter % #keys) + 1]
  end
  if encoding ~= "identity" and encoding ~= "" then
    headers["Accept-Encoding"] = encoding
  end
  local etag = etags[#etags == 1 and 1 or ix]
  if etag and #etag > 0 then
    headers["If-None-Match"] = etag
  end
  return wrk.format("GET", paths[ix], headers)
end

if os.getenv("COUNT_STATUS") == "1" then
  function response(status, headers, body)
    if status == 200 then s200 = s200 + 1
    elseif status == 304 then s304 = s304 + 1
    elseif status == 429 then s429 = s429 + 1
    else other = other + 1 end
  end
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.3f p99_ms=%.3f bytes_per_req=%.0f non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.bytes / math.max(summary.requests, 1),
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  if os.getenv("COUNT_STATUS") == "1" then
    local a, b, c, d = 0, 0, 0, 0
    for _, t in ipairs(threads) do
      a = a + t:get("s200"); b = b + t:get("s304"); c = c + t:get("s429"); d = d + t:get("other")
    end
    io.write(string.format("STATUS s200=%d s304=%d s429=%d other=%d\n", a, b, c, d))
  end
end
