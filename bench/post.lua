-- wrk: POST hook payloads (path set by bench/run.sh through the environment). Each request
-- belongs to one of 1,000 sessions and alternates working / blocked, so every event is a status
-- change: the reducer, history and store all do real work.
wrk.method = "POST"
wrk.path = os.getenv("HOOK_PATH")
wrk.headers["Content-Type"] = "application/json"

local working = '{"hook_event_name":"PreToolUse","session_id":"bench-%d","cwd":"/src/app",'
  .. '"transcript_path":null,"tool_name":"Bash","tool_input":{"command":"cargo test"}}'
local blocked = '{"hook_event_name":"PermissionRequest","session_id":"bench-%d","cwd":"/src/app",'
  .. '"transcript_path":null,"tool_name":"Bash","tool_input":{"command":"rm -rf dist"}}'
local counter = 0

request = function()
  counter = counter + 1
  local template = (counter % 2 == 0) and working or blocked
  local session = math.floor(counter / 2) % 1000
  return wrk.format(nil, nil, nil, string.format(template, session))
end
