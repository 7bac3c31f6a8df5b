/**
 * Island bundling: every island (a component in `web/islands/`) becomes one browser entry that
 * hydrates the island's server-rendered markup. Entries are bundled together with
 * `deno bundle --platform browser --code-splitting --minify`, so Preact and shared code live
 * in shared chunks and code behind a dynamic `import()` (the wallet kit and the Stellar SDK)
 * is only fetched when a page needs it.
 *
 * Two sources, same output (a map of file name → bytes, served from memory):
 * - "bundle": run `deno bundle` at server start (the `deno run` case), from Deno's cache only:
 *   `npm ci` (`deno task setup`) cached every package it needs, esbuild included, so nothing is
 *   downloaded here. The child gets only the safe variables of `util/deno_child.ts` (never the
 *   keeper's secrets) and the lock file. The output is read into memory and the temporary
 *   directory removed.
 * - "prebuilt": read `web/static/islands/` written by `deno task build:web` (run by `npm ci`; the
 *   `deno compile --include static` case, where no `deno` executable is available).
 *
 * @module
 */
import { ISLANDS } from "@vigil/web/manifest";
import { childEnv, DENO_CONFIG } from "@vigil/util/deno_child";

/** One bundled file, kept in memory. */
export interface BundledFile {
  body: Uint8Array;
  /** Content hash (hex), used as ETag. */
  etag: string;
}

/** The result of bundling the islands. */
export interface IslandBundle {
  /** File name (e.g. "LiveLog.js", "chunk-AB12CD.js") → contents. */
  files: Map<string, BundledFile>;
  /** How the bundle was obtained. */
  source: "bundle" | "prebuilt";
  /** Milliseconds spent. */
  ms: number;
}

const ROOT = new URL("../", import.meta.url);
const PREBUILT_DIR = new URL("web/static/islands/", ROOT);

/** The browser entry source of one island. */
function entrySource(name: string, islandUrl: URL): string {
  const hydrate = new URL("./hydrate.ts", import.meta.url).href;
  return `import { hydrateIslands } from ${JSON.stringify(hydrate)};\n` +
    `import Island from ${JSON.stringify(islandUrl.href)};\n` +
    `hydrateIslands(${JSON.stringify(name)}, Island);\n`;
}

async function sha(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(d).slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join(
    "",
  );
}

async function readDir(dir: string, prefix = ""): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for await (const e of Deno.readDir(dir)) {
    const rel = prefix + e.name;
    if (e.isDirectory) {
      for (const [k, v] of await readDir(`${dir}/${e.name}`, rel + "/")) out.set(k, v);
    } else if (e.isFile && e.name.endsWith(".js")) {
      out.set(rel, await Deno.readFile(`${dir}/${e.name}`));
    }
  }
  return out;
}

async function toBundle(raw: Map<string, Uint8Array>, source: IslandBundle["source"], t0: number) {
  const files = new Map<string, BundledFile>();
  for (const [name, body] of raw) files.set(name, { body, etag: await sha(body) });
  return { files, source, ms: Math.round(performance.now() - t0) } satisfies IslandBundle;
}

/**
 * Runs `deno bundle` for every island in the manifest and returns the output in memory.
 * `outDir`, when given, also receives a copy (the build step for `deno compile`).
 */
export async function bundleIslands(
  opts: { minify?: boolean; outDir?: string; env?: Record<string, string> } = {},
): Promise<IslandBundle> {
  const t0 = performance.now();
  const tmp = await Deno.makeTempDir({ prefix: "vigil-islands-" });
  try {
    const entries: string[] = [];
    for (const island of ISLANDS) {
      const p = `${tmp}/${island.name}.ts`;
      await Deno.writeTextFile(p, entrySource(island.name, island.url));
      entries.push(p);
    }
    const out = `${tmp}/out`;
    const args = [
      "bundle",
      "--quiet",
      "--platform",
      "browser",
      "--format",
      "esm",
      "--code-splitting",
      "--outdir",
      out,
      // `deno bundle` has no `--cached-only`: the lock file pins every package, and the cache
      // filled by `npm ci` holds them (tests/e2e/offline_test.ts runs this with no network).
      "--frozen",
      "--config",
      DENO_CONFIG,
      ...(opts.minify === false ? [] : ["--minify"]),
      ...entries,
    ];
    const res = await new Deno.Command(Deno.execPath(), {
      args,
      clearEnv: true,
      env: opts.env ?? childEnv(),
      stdout: "piped",
      stderr: "piped",
      cwd: new URL(".", ROOT).pathname,
    }).output();
    if (!res.success) {
      const err = new TextDecoder().decode(res.stderr);
      throw new Error(`deno bundle failed (exit ${res.code}): ${err.slice(-2000)}`);
    }
    const raw = await readDir(out);
    if (opts.outDir) {
      await Deno.remove(opts.outDir, { recursive: true }).catch(() => {});
      await Deno.mkdir(opts.outDir, { recursive: true });
      for (const [name, body] of raw) await Deno.writeFile(`${opts.outDir}/${name}`, body);
    }
    return await toBundle(raw, "bundle", t0);
  } finally {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/** Reads the islands prebuilt by `deno task build:web` (embedded by `deno compile --include static`). */
export async function loadPrebuiltIslands(): Promise<IslandBundle> {
  const t0 = performance.now();
  const raw = await readDir(PREBUILT_DIR.pathname);
  for (const island of ISLANDS) {
    if (!raw.has(`${island.name}.js`)) {
      throw new Error(
        `prebuilt island ${island.name}.js missing from web/static/islands/ (built by \`npm ci\`, ` +
          `or \`deno task build:web\`)`,
      );
    }
  }
  return await toBundle(raw, "prebuilt", t0);
}

/**
 * True when running as a `deno compile` binary (no `deno` executable to bundle with), or when
 * `VIGIL_ISLANDS=prebuilt` asks for the compiled layout (the compile-layout test uses it, since the
 * binary itself cannot be built here). `Deno.build.standalone` is the runtime's own flag; the
 * URL check is kept for runtimes that predate it.
 */
export function isCompiled(): boolean {
  return Deno.build.standalone === true || import.meta.url.includes("/deno-compile-") ||
    Deno.env.get("VIGIL_ISLANDS") === "prebuilt";
}

const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)"\.\/([A-Za-z0-9_.-]+\.js)"/g;

/**
 * The files a page downloads up front for its islands: each island entry plus every chunk
 * reachable through static imports (dynamic `import()` chunks, e.g. the wallet kit, are
 * fetched only on use and not counted). Sizes are raw bytes.
 */
export function jsClosure(
  bundle: IslandBundle,
  islands: string[],
): { files: string[]; bytes: number } {
  const seen = new Set<string>();
  const todo = islands.map((n) => `${n}.js`);
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    const file = bundle.files.get(f);
    if (!file) continue;
    seen.add(f);
    const text = new TextDecoder().decode(file.body);
    for (const m of text.matchAll(STATIC_IMPORT)) todo.push(m[1]);
  }
  const files = [...seen].sort();
  return { files, bytes: files.reduce((s, f) => s + bundle.files.get(f)!.body.length, 0) };
}

/** Gzip size of some bundle files (what a browser transfers with compression). */
export async function gzipSize(bundle: IslandBundle, files: string[]): Promise<number> {
  let total = 0;
  for (const f of files) {
    const body = bundle.files.get(f)?.body;
    if (!body) continue;
    const stream = new Blob([body as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
    total += (await new Response(stream).arrayBuffer()).byteLength;
  }
  return total;
}

let shared: Promise<IslandBundle> | null = null;

/**
 * The island bundle for this process, built once and shared by every web app instance
 * (tests start many servers; bundling takes a few seconds).
 */
export function getIslandBundle(): Promise<IslandBundle> {
  if (!shared) {
    shared = isCompiled() ? loadPrebuiltIslands() : bundleIslands();
    // A failed build is retried by the next request instead of being cached forever.
    shared.catch(() => {
      shared = null;
    });
  }
  return shared;
}

// `deno task build:web`: write the bundle to web/static/islands/ for `deno compile`.
if (import.meta.main) {
  const b = await bundleIslands({ outDir: PREBUILT_DIR.pathname });
  let total = 0;
  for (const [name, f] of [...b.files].sort()) {
    total += f.body.length;
    console.log(`${name.padEnd(32)} ${(f.body.length / 1024).toFixed(1).padStart(8)} KiB`);
  }
  console.log(`${b.files.size} files, ${(total / 1024).toFixed(1)} KiB in ${b.ms} ms`);
  const pages: [string, string[]][] = [
    ["/", ["WalletButton", "LiveLog"]],
    ["/vault", ["WalletButton", "VaultPanel", "KeeperPanel"]],
    ["/dashboard, keepers, liquidations, [address]", ["WalletButton"]],
    ["/dashboard/depositor", ["WalletButton", "DepositorLookup"]],
  ];
  console.log("\nJavaScript loaded up front per page (raw / gzip):");
  for (const [page, islands] of pages) {
    const c = jsClosure(b, islands);
    const gz = await gzipSize(b, c.files);
    console.log(
      `${page.padEnd(46)} ${(c.bytes / 1024).toFixed(1).padStart(7)} KiB / ${
        (gz / 1024).toFixed(1).padStart(6)
      } KiB`,
    );
  }
}
