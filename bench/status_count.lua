-- wrk script: count responses by status (200, 304, 429, other).
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  s200, s304, s429, other = 0, 0, 0, 0
end
function response(status, headers, body)
  if status == 200 then s200 = s200 + 1
  elseif status == 304 then s304 = s304 + 1
  elseif status == 429 then s429 = s429 + 1
  else other = other + 1 end
end
function done(summary, latency, requests)
  local a, b, c, d = 0, 0, 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("s200"); b = b + t:get("s304"); c = c + t:get("s429"); d = d + t:get("other")
  end
  io.write(string.format("STATUS s200=%d s304=%d s429=%d other=%d\n", a, b, c, d))
end
