-- wrk script: every request POSTs the same body (a file of fids, one per line) to /batch.
-- Usage: wrk ... -s batch_post.lua URL -- BODY_FILE. done() prints "WRK_JSON {...}" as random_path.lua does.
local body

function init(args)
  local file = assert(io.open(args[1], "rb"), "batch_post.lua: pass the body file after --")
  body = file:read("*a")
  file:close()
end

function request()
  return wrk.format("POST", "/batch", {["Content-Type"] = "text/plain"}, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"bytes":%d,"duration_s":%.3f,"p50_us":%d,"p99_us":%d,"errors":%d,"non_2xx":%d}\n',
    summary.requests, summary.bytes, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
