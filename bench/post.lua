-- wrk: POST one hook payload (path and body set by bench/run.sh through the environment).
wrk.method = "POST"
wrk.path = os.getenv("HOOK_PATH")
local file = io.open(os.getenv("HOOK_BODY"), "rb")
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
