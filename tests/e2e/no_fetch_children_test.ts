/**
 * Every Deno child process this repository starts (program, tests, benchmarks, tools) runs with
 * the lock file and, where the subcommand has it, `--cached-only` (issue 11: nothing is fetched
 * at run time). A source check, so that a new `new Deno.Command(Deno.execPath(), …)` without
 * them fails here rather than on a machine with an empty cache: `bench/wasm_bench.ts` once
 * started its node as a plain `deno run -A`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const DIRS = [
  ...(JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).workspace as string[]).map((
    m,
  ) => m.replace(/^\.\//, "")),
  "tools",
  "tests",
  "bench",
];
const SKIP = /(^|\/)(node_modules|chromium)(\/|$)/;

/** How far after `new Deno.Command(` its arguments are looked for (lines). */
const WINDOW = 16;

/** Children allowed to differ, each with the reason and what the file must then contain. */
const EXCEPTIONS: Record<string, string> = {
  // Its arguments come from selfCommand(), which uses denoRunArgs (or runs a compiled binary).
  "demo/keepers.ts": 'denoRunArgs(new URL("../main.ts"',
  // `deno bundle` has no --cached-only; it gets --frozen (checked below) and offline_test.ts runs
  // it with the network refused.
  "ssr/bundle.ts": "--frozen",
  // The control case: shows that a fetch of an uncached package (no config, so no lock file)
  // really fails with the network refused.
  "tests/e2e/offline_test.ts": "--no-config",
  // `deno fmt` reads stdin and fetches nothing (no module graph, no --cached-only flag).
  "tools/gen_clients.ts": '"fmt", "--line-width=100"',
  // `deno info` has no --cached-only either.
  "tests/e2e/compile_layout_test.ts": "--frozen",
  "tests/e2e/dev_tools_graph_test.ts": "--frozen",
  // `deno task start`: the task itself is `deno run -A --cached-only --frozen main.ts demo`.
  "demo/demo_test.ts": '"task", "-q", "start"',
  // Runs docs/testnet.md's commands, which it checks run `$DENO run -A --cached-only --frozen`
  // and `$DENO task keeper` (a task with both flags).
  "tests/e2e/testnet_path_test.ts": 'const MAIN = "$DENO run -A --cached-only --frozen main.ts";',
  // This test's own sample script (denoRunArgs), and the list of flags it checks.
  "tests/e2e/no_fetch_children_test.ts": "",
};

async function* files(dir: URL, rel: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (SKIP.test(path)) continue;
    if (e.isDirectory) yield* files(new URL(`${e.name}/`, dir), path);
    else if (/\.(ts|tsx)$/.test(e.name)) yield path;
  }
}

Deno.test("every Deno child runs from the cache with the lock file", async () => {
  const offenders: string[] = [];
  let checked = 0;
  const all = ["main.ts"];
  for (const d of DIRS) for await (const f of files(new URL(`${d}/`, ROOT), d)) all.push(f);
  for (const path of all) {
    const text = await Deno.readTextFile(new URL(path, ROOT));
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      if (!/new Deno\.Command\(/.test(line)) return;
      const window = lines.slice(i, i + WINDOW).join("\n");
      // A child that is not `deno` (e.g. a compiled binary) is a separate case: only
      // `Deno.execPath()` or selfCommand's `command` run the runtime.
      if (!/Deno\.execPath\(\)|\bcommand\b/.test(window)) return;
      checked++;
      const ok = /denoRunArgs\(|NO_FETCH_FLAGS|"--cached-only",\s*\n?\s*"--frozen"/.test(window);
      if (ok) return;
      const exception = EXCEPTIONS[path];
      if (exception !== undefined && text.includes(exception)) return;
      offenders.push(`${path}:${i + 1}`);
    });
  }
  assert.ok(checked >= 10, `only ${checked} children found: the scan is broken`);
  assert.deepEqual(offenders, [], "children without --cached-only --frozen");
});
