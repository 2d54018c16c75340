-- One request shape per run, from the environment: BENCH_METHOD, BENCH_PATH, BENCH_BODY, BENCH_TOKEN,
-- BENCH_CONTENT_TYPE, BENCH_IF_NONE_MATCH. wrk counts non-2xx answers as errors only if we tell it: we count them here.
local method = os.getenv("BENCH_METHOD") or "GET"
local path = os.getenv("BENCH_PATH") or "/health"
local body = os.getenv("BENCH_BODY")
local token = os.getenv("BENCH_TOKEN")
local content_type = os.getenv("BENCH_CONTENT_TYPE") or "application/json"
local if_none_match = os.getenv("BENCH_IF_NONE_MATCH")

wrk.method = method
wrk.path = path
if body and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = content_type
end
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end
if if_none_match and if_none_match ~= "" then
  wrk.headers["If-None-Match"] = if_none_match
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

function response(status, headers, body)
  if status >= 400 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("bad")
  end
  io.write(string.format("BAD_STATUS %d\n", total))
end
