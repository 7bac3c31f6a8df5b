/**
 * Island bundling: every island the app hands in becomes one browser entry that hydrates the
 * island's server-rendered markup. Entries are bundled together with
 * `deno bundle --platform browser --code-splitting --minify`, so Preact and shared code live
 * in shared chunks and code behind a dynamic `import()` is only fetched when a page needs it.
 *
 * Two sources, same output (a map of file name → bytes, served from memory):
 * - "bundle": run `deno bundle` (the `deno run` case), from Deno's cache only: the lock file
 *   pins every package and the cache already holds them, esbuild included, so nothing is
 *   downloaded here. The child gets only the safe variables of `@vigil/util/deno_child` and the
 *   lock file. The output is read into memory and the temporary directory removed.
 * - "prebuilt": read a directory the app's build step wrote with `bundleIslands({ outDir })`
 *   (the `deno compile --include` case, where no `deno` executable is available).
 *
 * The islands and the output directory come from the caller; this module knows no app.
 *
 * @module
 */
import { sha256 } from "hono/utils/crypto";
import { childEnv, DENO_CONFIG } from "@vigil/util/deno_child";
import type { Island } from "./types.ts";

/** What the bundler needs of an island: its name and source module. */
export type IslandSource = Pick<Island, "name" | "url">;

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

/** Island names become file names and CSS selectors: plain identifiers only. */
const ISLAND_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Checks the islands handed to the bundler: at least one, each with a plain unique name
 * (it becomes `<name>.js` and a `[data-island="<name>"]` selector; `chunk-` names are the
 * bundler's own) and a `file:` source URL. Throws on the first problem.
 */
export function checkIslands(islands: readonly IslandSource[]): void {
  if (islands.length === 0) throw new Error("no islands to bundle");
  const seen = new Set<string>();
  for (const { name, url } of islands) {
    if (!ISLAND_NAME.test(name) || name.startsWith("chunk")) {
      throw new Error(`island name ${JSON.stringify(name)}: letters, digits and _ only`);
    }
    if (seen.has(name)) throw new Error(`island ${name} listed twice`);
    seen.add(name);
    if (!(url instanceof URL) || url.protocol !== "file:") {
      throw new Error(`island ${name}: source must be a file: URL, got ${String(url)}`);
    }
  }
}

/** The browser entry source of one island. */
function entrySource(name: string, islandUrl: URL): string {
  const hydrate = new URL("./hydrate.ts", import.meta.url).href;
  return `import { hydrateIslands } from ${JSON.stringify(hydrate)};\n` +
    `import Island from ${JSON.stringify(islandUrl.href)};\n` +
    `hydrateIslands(${JSON.stringify(name)}, Island);\n`;
}

/** Content hash (first 64 bits of SHA-256, hex): the ETag and the `?v=` of a file. */
async function sha(bytes: Uint8Array): Promise<string> {
  return (await sha256(bytes))!.slice(0, 16);
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

/** Options of {@link bundleIslands}. */
export interface BundleOptions {
  /** The app's islands. */
  islands: readonly IslandSource[];
  /** Also write the files here (emptied first): the build step for `deno compile`. */
  outDir?: string;
  /** Minify (default true). */
  minify?: boolean;
  /** The child's environment (default: the safe variables of `childEnv()`). */
  env?: Record<string, string>;
  /** The deno.json (import map, lock file) to bundle with (default: the workspace root's). */
  config?: string;
}

/** Runs `deno bundle` for every island and returns the output in memory. */
export async function bundleIslands(opts: BundleOptions): Promise<IslandBundle> {
  checkIslands(opts.islands);
  const config = opts.config ?? DENO_CONFIG;
  const t0 = performance.now();
  const tmp = await Deno.makeTempDir({ prefix: "vigil-islands-" });
  try {
    const entries: string[] = [];
    for (const island of opts.islands) {
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
      // filled ahead holds them (the app's offline test runs this with no network).
      "--frozen",
      "--config",
      config,
      ...(opts.minify === false ? [] : ["--minify"]),
      ...entries,
    ];
    const res = await new Deno.Command(Deno.execPath(), {
      args,
      clearEnv: true,
      env: opts.env ?? childEnv(),
      stdout: "piped",
      stderr: "piped",
      cwd: config.slice(0, config.lastIndexOf("/") + 1),
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

/** Reads islands prebuilt by {@link bundleIslands} into `dir`; throws if one is missing. */
export async function loadPrebuiltIslands(
  dir: string,
  islands: readonly IslandSource[],
): Promise<IslandBundle> {
  const t0 = performance.now();
  const raw = await readDir(dir);
  for (const island of islands) {
    if (!raw.has(`${island.name}.js`)) {
      throw new Error(`prebuilt island ${island.name}.js missing from ${dir}`);
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

/**
 * The island bundle for this process, built once on first call and shared by every caller
 * (tests start many servers; bundling takes a few seconds): the prebuilt files when
 * compiled ({@link isCompiled}), else a fresh `deno bundle`. A failed build is retried by
 * the next call instead of being cached forever.
 */
export function sharedIslandBundle(
  opts: { islands: readonly IslandSource[]; prebuiltDir: string },
): () => Promise<IslandBundle> {
  let shared: Promise<IslandBundle> | null = null;
  return () => {
    if (!shared) {
      shared = isCompiled()
        ? loadPrebuiltIslands(opts.prebuiltDir, opts.islands)
        : bundleIslands({ islands: opts.islands });
      shared.catch(() => {
        shared = null;
      });
    }
    return shared;
  };
}
