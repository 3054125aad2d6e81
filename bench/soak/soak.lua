-- wrk script for the soak: cycles webhook, filter and bind requests (in the
-- ratio 2:2:1) over every connection and counts, besides HTTP errors, the
-- answers that are 200 but carry a protocol error (a non-empty extender
-- "Error", or a review that is not allowed).
-- Environment: SOAK_DATA  folder with review.json, filter.json, bind.json
local dir = assert(os.getenv("SOAK_DATA"), "SOAK_DATA is not set")

local function read(name)
  local f = assert(io.open(dir .. "/" .. name, "rb"), "cannot open " .. name)
  local body = f:read("*a")
  f:close()
  return body
end

local headers = { ["Content-Type"] = "application/json" }
local requests = {}
local function add(path, file)
  table.insert(requests, wrk.format("POST", path, headers, read(file)))
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  add("/mutate-pod", "review.json")
  add("/filter", "filter.json")
  add("/webhook", "review.json")
  add("/filter", "filter.json")
  add("/bind", "bind.json")
  sent = 0
  answered = 0
  protocol_errors = 0
  first_error = ""
end

function request()
  sent = sent + 1
  return requests[(sent - 1) % #requests + 1]
end

-- Answers arrive in connection order, not request order, so each one is
-- classified by its own body: an AdmissionReview or an extender result.
function response(status, headers, body)
  answered = answered + 1
  local kind = "extender"
  if string.find(body, '"kind":"AdmissionReview"', 1, true) then
    kind = "webhook"
  end
  local bad = false
  if status ~= 200 then
    bad = true
  elseif kind == "webhook" then
    bad = not string.find(body, '"allowed":true', 1, true)
  else
    bad = not string.find(body, '"Error":""', 1, true)
  end
  if bad then
    protocol_errors = protocol_errors + 1
    if first_error == "" then
      first_error = kind .. " " .. status .. " " .. string.sub(body, 1, 200)
    end
  end
end

function done(summary, latency, requests)
  local protocol = 0
  local first = ""
  for _, thread in ipairs(threads) do
    protocol = protocol + thread:get("protocol_errors")
    if first == "" then
      first = thread:get("first_error")
    end
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d rps=%.1f p50_us=%d p99_us=%d max_us=%d " ..
    "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d err_protocol=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6), latency:percentile(50),
    latency:percentile(99), latency.max, e.connect, e.read, e.write, e.status, e.timeout, protocol))
  if first ~= "" then
    io.write("FIRST_ERROR " .. first .. "\n")
  end
end
