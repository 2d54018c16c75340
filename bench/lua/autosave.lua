-- Autosaves of diagrams being typed (bench/autosave.py): PUT /api/v1/diagrams/{id} {"content": ...} where
-- every request is a real edit. The content is a flowchart of BENCH_LINES lines after BENCH_HEADER, line i
-- being string.format(BENCH_LINE_FORMAT, i, i, revision_i, i + 1); each request stamps the next line (in
-- turn) with this thread's save counter. The revision is zero-padded, so the content never changes size.
--
-- wrk names no connection to the script, only threads: run with as many threads as connections (-tN -cN),
-- and thread k edits diagram k of BENCH_DIAGRAMS (comma-separated ids, taken in turn if fewer): one request
-- at a time per diagram, as one person typing, never two writers waiting on one diagram's row lock.
local token = os.getenv("BENCH_TOKEN") or ""
local header = os.getenv("BENCH_HEADER") or "flowchart TD"
local line_format = os.getenv("BENCH_LINE_FORMAT") or "    n%02d[step %02d, revision %010d] --> n%02d"
local lines = tonumber(os.getenv("BENCH_LINES") or "40")
local ids = {}
for id in string.gmatch(os.getenv("BENCH_DIAGRAMS") or "", "[^,]+") do
  table.insert(ids, id)
end

wrk.method = "PUT"
wrk.headers["Content-Type"] = "application/json"
if token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

local threads = {}

function setup(thread)
  thread:set("diagram", ids[#threads % #ids + 1])
  table.insert(threads, thread)
end

function init(args)
  bad = 0
  saves = 0
  path = "/api/v1/diagrams/" .. diagram
  revisions = {}
  for i = 1, lines do
    revisions[i] = 0
  end
end

function request()
  saves = saves + 1
  revisions[(saves - 1) % lines + 1] = saves
  local parts = {header}
  for i = 1, lines do
    parts[i + 1] = string.format(line_format, i, i, revisions[i], i + 1)
  end
  -- The text has no quote or backslash (bench/autosave.py checks the format): only newlines need escaping.
  return wrk.format(nil, path, nil, '{"content":"' .. table.concat(parts, "\\n") .. '"}')
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
