// Every stylesheet of the web view as one text, comments dropped: the shared ones (styles.css, the
// design tokens, then common.css) first, then each feature's beside its component. Vitest hands
// CSS imports over empty (`css: false`), so a test about the rules reads the files.
type Fs = {
  readFileSync(path: string, encoding: "utf8"): string;
  readdirSync(path: string, options: { recursive: true }): string[];
};

export async function stylesheets(): Promise<string> {
  const fs: Fs = await import("node:" + "fs");
  const src = `${(import.meta as unknown as { dirname: string }).dirname}/..`;
  const features = fs
    .readdirSync(src, { recursive: true })
    .filter((path) => path.endsWith(".css") && path !== "styles.css" && path !== "common.css")
    .sort();
  return ["styles.css", "common.css", ...features]
    .map((path) => fs.readFileSync(`${src}/${path}`, "utf8"))
    .join("\n")
    .replace(/\/\*[\s\S]*?\*\//g, "");
}
