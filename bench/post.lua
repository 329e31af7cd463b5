-- wrk: POST hook payloads (path set by bench/run.sh through the environment). Each request
-- belongs to one of 1,000 sessions. BLOCKED_EVERY=2 (the default) alternates working / blocked,
-- so every event is a status change and writes a history row: the worst case for the store.
-- Each session gets runs of BLOCKED_EVERY events: one blocked, then working ones. BLOCKED_EVERY=10
-- (two status changes in ten events) is closer to a real agent: mostly tool calls.
wrk.method = "POST"
wrk.path = os.getenv("HOOK_PATH")
wrk.headers["Content-Type"] = "application/json"

local working = '{"hook_event_name":"PreToolUse","session_id":"bench-%d","cwd":"/src/app",'
  .. '"transcript_path":null,"tool_name":"Bash","tool_input":{"command":"cargo test"}}'
local blocked = '{"hook_event_name":"PermissionRequest","session_id":"bench-%d","cwd":"/src/app",'
  .. '"transcript_path":null,"tool_name":"Bash","tool_input":{"command":"rm -rf dist"}}'
local counter = 0
local every = tonumber(os.getenv("BLOCKED_EVERY") or "2")

request = function()
  counter = counter + 1
  local template = (counter % every == 0) and blocked or working
  local session = math.floor(counter / every) % 1000
  return wrk.format(nil, nil, nil, string.format(template, session))
end
