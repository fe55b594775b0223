// Builds the chart view into one self-contained HTML file: the bundled
// script and the stylesheet inline, nothing fetched. With --harness it also
// builds the test host page. The output depends only on the sources and the
// locked packages, so a fresh build of unchanged sources is byte-identical.
//
//   node build.mjs [--harness] OUTDIR
import * as esbuild from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const args = process.argv.slice(2);
const harness = args.includes("--harness");
const out = args.find((a) => !a.startsWith("--"));
if (!out) {
  console.error("usage: node build.mjs [--harness] OUTDIR");
  process.exit(2);
}
const here = new URL(".", import.meta.url).pathname;

async function script(entry) {
  const r = await esbuild.build({
    absWorkingDir: here,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    charset: "utf8",
    legalComments: "eof",
    write: false,
    logLevel: "warning",
  });
  return r.outputFiles[0].text.trim();
}

async function style(file) {
  const css = await readFile(join(here, file), "utf8");
  const r = await esbuild.transform(css, { loader: "css", minify: true, target: "chrome120" });
  return r.code.trim();
}

// A function replacement, so that "$" in a bundle is never read as a pattern.
async function page(template, js, css = "") {
  const html = await readFile(join(here, template), "utf8");
  return html.replace("/*CSS*/", () => css).replace("/*JS*/", () => js);
}

await mkdir(out, { recursive: true });
await writeFile(join(out, "view.html"), await page("src/view.html", await script("src/view.ts"), await style("src/view.css")));
if (harness) {
  await writeFile(join(out, "harness.html"), await page("src/harness.html", await script("src/harness.ts")));
}
