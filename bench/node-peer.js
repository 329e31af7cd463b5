// The yardstick for the hook server: a minimal Node `http` hook server of the same shape —
// parse the URL, check the key, look the agent up in a table, parse the JSON, answer 204.
const http = require("http");

const key = process.argv[2] || "k";
const normalizers = {
  claude: (body) => (typeof body.hook_event_name === "string" && typeof body.session_id === "string" ? body : null),
  codex: (body) => (typeof body.hook_event_name === "string" && typeof body.session_id === "string" ? body : null),
  gemini: (body) => (typeof body.hook_event_name === "string" && typeof body.session_id === "string" ? body : null),
};
const events = [];

const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const match = /^\/hook\/([a-z-]+)$/.exec(url.pathname);
  if (!match) return res.writeHead(404).end();
  if (req.method !== "POST") return res.writeHead(405).end();
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > 256 * 1024) req.destroy();
    else chunks.push(chunk);
  });
  req.on("end", () => {
    const normalize = normalizers[match[1]];
    if (url.searchParams.get("key") === key && normalize) {
      try {
        const event = normalize(JSON.parse(Buffer.concat(chunks)));
        if (event) events.push(event.session_id) > 1000 && events.splice(0, 1000);
      } catch {}
    }
    res.writeHead(204).end();
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
