/**
 * The `deno compile` layout without `deno compile` (its `denort` runtime download is unreachable
 * here): a temporary directory holds exactly what the binary would embed — the program's local
 * module graph (`deno info --json main.ts`, dynamic imports included) and `static/` with the
 * islands prebuilt by the `build:web` step — and nothing else (no README, no `web/islands/` sources
 * outside the graph, no `.env`, no `localnet.json`). The keeper runs from that copy in yet another,
 * empty working directory with `VIGIL_ISLANDS=prebuilt` (the compiled binary's island source), and
 * every page, the stylesheet and every island script must be served. A file read outside the
 * embedded set would fail here as it would in the binary.
 */
import assert from "node:assert/strict";
import { bundleIslands } from "@vigil/ssr/bundle";
import { ISLANDS } from "@vigil/web/manifest";
import { childEnv, NO_FETCH_FLAGS } from "@vigil/util/deno_child";
import { keeperEnv, startWorld } from "@vigil/testing/keeper/keeper_fixture";

const ROOT = new URL("../../", import.meta.url);
/** Appended to every prebuilt file, so the test sees that the served bytes come from the copy. */
const MARKER = "\n// vigil-compile-layout-test\n";

/** Local modules of the program's graph, as paths relative to the repository root. */
async function localModules(): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      "--frozen",
      "--config",
      new URL("deno.json", ROOT).pathname,
      "main.ts",
    ],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((m) => m.specifier).filter((s) => s.startsWith(ROOT.href)).map((s) =>
    decodeURIComponent(s.slice(ROOT.href.length))
  );
}

/** Builds the embedded file set in a new directory and returns its path. */
async function compileLayout(): Promise<{ dir: string; islands: Map<string, string> }> {
  const dir = await Deno.makeTempDir({ prefix: "vigil-compile-layout-" });
  const mods = await localModules();
  assert.ok(mods.includes("main.ts") && mods.includes("ssr/bundle.ts"), mods.join(" "));
  // The compile-time configuration (import map, JSX settings, lockfile) is baked into a binary.
  const members =
    (JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).workspace as string[])
      .map((m) => `${m.replace(/^\.\//, "")}/deno.json`);
  for (const rel of [...mods, "deno.json", "deno.lock", ...members]) {
    const to = `${dir}/${rel}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(new URL(rel, ROOT), to);
  }
  // `--include web/static`: the tracked assets plus the `build:web` output.
  await Deno.mkdir(`${dir}/web/static`, { recursive: true });
  for await (const e of Deno.readDir(new URL("web/static/", ROOT))) {
    if (e.isFile) {
      await Deno.copyFile(new URL(`web/static/${e.name}`, ROOT), `${dir}/web/static/${e.name}`);
    }
  }
  const built = await bundleIslands({ islands: ISLANDS, outDir: `${dir}/web/static/islands` });
  const islands = new Map<string, string>();
  for (const [name] of built.files) {
    const p = `${dir}/web/static/islands/${name}`;
    const text = (await Deno.readTextFile(p)) + MARKER;
    await Deno.writeTextFile(p, text);
    islands.set(name, text);
  }
  return { dir, islands };
}

Deno.test({
  name: "compile layout: the keeper serves every page and island from the embedded files only",
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    const { dir, islands } = await compileLayout();
    const cwd = await Deno.makeTempDir({ prefix: "vigil-compile-cwd-" });
    const w = await startWorld({ positions: false });
    const keeper = w.keepers[0];
    const env = childEnv({ VIGIL_ISLANDS: "prebuilt", NO_COLOR: "1", ...keeperEnv(w, keeper) });
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        ...NO_FETCH_FLAGS,
        "--config",
        `${dir}/deno.json`,
        `${dir}/main.ts`,
        "keeper",
      ],
      env,
      clearEnv: true,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let err = "";
    const pumps = Promise.all([
      (async () => {
        const dec = new TextDecoder();
        for await (const c of child.stderr) err += dec.decode(c, { stream: true });
      })(),
      child.stdout.cancel(),
    ]);
    try {
      const deadline = Date.now() + 60_000;
      let found: string | undefined;
      while (!(found = err.match(/"msg":"api listening".*?"url":"([^"]+)"/)?.[1])) {
        assert.ok(Date.now() < deadline, `the keeper did not start:\n${err.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const url: string = found;
      const alice = w.depositor.publicKey();
      const scripts = new Set<string>();
      for (
        const path of [
          "/",
          "/vault",
          "/dashboard",
          "/dashboard/keepers",
          "/dashboard/liquidations",
          "/dashboard/depositor",
          `/dashboard/${alice}`,
        ]
      ) {
        const res = await fetch(`${url}${path}`);
        const html = await res.text();
        assert.equal(res.status, 200, `${path}: ${html.slice(0, 400)}`);
        assert.match(html, /<main/, path);
        for (const m of html.matchAll(/\/_islands\/([A-Za-z0-9_.-]+\.js)/g)) scripts.add(m[1]);
        const css = html.match(/\/static\/styles\.css\?v=[0-9a-f]+/);
        assert.ok(css, `${path}: the stylesheet link carries its hash (the file was read)`);
      }
      assert.ok(scripts.size >= 5, `island entries on the pages: ${[...scripts]}`);
      const css = await fetch(`${url}/static/styles.css`);
      assert.equal(css.status, 200);
      assert.equal(await css.text(), await Deno.readTextFile(`${dir}/web/static/styles.css`));
      // Every entry and every chunk it imports statically, byte for byte from the copy's static/.
      const todo = [...scripts];
      const served = new Set<string>();
      while (todo.length) {
        const name = todo.pop()!;
        if (served.has(name)) continue;
        served.add(name);
        const res = await fetch(`${url}/_islands/${name}`);
        const body = await res.text();
        assert.equal(res.status, 200, name);
        assert.equal(body, islands.get(name), `${name} served from the prebuilt files`);
        for (const m of body.matchAll(/(?:\bfrom\s*|\bimport\s*)"\.\/([A-Za-z0-9_.-]+\.js)"/g)) {
          todo.push(m[1]);
        }
      }
      assert.ok(served.size > scripts.size, "chunks were followed too");
      assert.doesNotMatch(err, /island bundles? unavailable/);
    } finally {
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      const status = await child.status;
      await pumps;
      await w.close();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(cwd, { recursive: true });
      assert.equal(status.code, 0, err.slice(-4000));
    }
  },
});
