-- wrk script: every request GETs a random path from a list file (one "/path" per line), so reads
-- spread over thousands of needles instead of one hot file. Usage: wrk ... -s random_path.lua URL -- LIST
-- done() prints one line "WRK_JSON {...}" with exact figures from wrk's histogram (microseconds).
local paths = {}

function init(args)
  local list = args[1]
  if not list then error("random_path.lua: pass the path list file after --") end
  for line in io.lines(list) do
    if line ~= "" then paths[#paths + 1] = line end
  end
  if #paths == 0 then error("random_path.lua: no paths in " .. list) end
  math.randomseed(os.time() + tonumber(tostring(paths):match("0x(%x+)") or "0", 16) % 100000)
end

function request()
  return wrk.format("GET", paths[math.random(#paths)])
end

function done(summary, latency, requests)
  local e = summary.errors
  local pcts = {}
  for _, p in ipairs({1, 10, 25, 50, 75, 90, 95, 99, 99.9}) do
    pcts[#pcts + 1] = string.format('"%s":%d', p, latency:percentile(p))
  end
  io.write(string.format(
    'WRK_JSON {"requests":%d,"bytes":%d,"duration_s":%.3f,"p50_us":%d,"p99_us":%d,"mean_us":%.1f,' ..
    '"max_us":%d,"errors":%d,"non_2xx":%d,"pcts_us":{%s}}\n',
    summary.requests, summary.bytes, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    latency.mean, latency.max, e.connect + e.read + e.write + e.timeout, e.status, table.concat(pcts, ",")))
end
