// Serve ui/dist with scripts/fake-tauri.js injected before the app, so the built bundle can be
// looked at in a plain browser. The bundle itself stays untouched.
//   node scripts/serve-with-fake.mjs [port]
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const dist = join(here, "..", "dist");
const port = Number(process.argv[2] ?? 4173);
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

createServer(async (req, res) => {
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  try {
    if (path === "/__fake-tauri.js") {
      res.writeHead(200, { "content-type": types[".js"] });
      res.end(await readFile(join(here, "fake-tauri.js")));
      return;
    }
    if (path === "/" || path === "/index.html") {
      const html = await readFile(join(dist, "index.html"), "utf8");
      res.writeHead(200, { "content-type": types[".html"] });
      res.end(html.replace("<head>", '<head>\n    <script src="/__fake-tauri.js"></script>'));
      return;
    }
    const file = normalize(join(dist, path));
    if (!file.startsWith(dist)) throw new Error("outside dist");
    const body = await readFile(file);
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end("not found");
  }
}).listen(port, "127.0.0.1", () => console.log(`http://127.0.0.1:${port}/`));
