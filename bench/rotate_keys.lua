-- wrk script: rotate API keys per request so the per-key limit of 50 req/s
-- does not cap a throughput run. Keys come from the file in KEYS_FILE, one
-- per line; paths from PATHS (comma separated).
local keys = {}
local paths = {}
local counter = 0

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
  -- spread threads over the key list
  counter = math.random(0, 100000)
end

function request()
  counter = counter + 1
  local path = paths[(counter % #paths) + 1]
  local headers = {}
  if #keys > 0 then
    headers["X-API-Key"] = keys[(counter % #keys) + 1]
  end
  headers["Accept-Encoding"] = "gzip"
  return wrk.format("GET", path, headers)
end

function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.3f p99_ms=%.3f non2xx=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
