/**
 * The keeper binary carries no dev tools (issue 23's first step): the static import graph of
 * `main.ts` (what a `deno compile`d keeper loads at start), of the keeper, of the web server and
 * of `main.ts deploy` reaches no module of the local node (`localnet/`, `demo/`) and neither the
 * AssemblyScript compiler nor binaryen. `main.ts localnet` and `main.ts demo` load those through
 * `import()`. Read from `deno info --json`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const DEV_TOOLS = /\/(localnet|demo)\/|assemblyscript|binaryen/;

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** Modules reachable from `entry` through static imports only, from `deno info --json`. */
async function staticGraph(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--frozen", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: InfoModule[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...info.roots];
  while (queue.length > 0) {
    const s = queue.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if (!d.isDynamic && d.code?.specifier) queue.push(d.code.specifier);
    }
  }
  return seen;
}

for (const entry of ["main.ts", "keeper/mod.ts", "web/server.ts", "contracts/deploy/mod.ts"]) {
  Deno.test(`${entry}: no local node, demo, AssemblyScript or binaryen in its static imports`, async () => {
    const graph = await staticGraph(entry);
    assert.ok(graph.size > 5, `${entry}: ${graph.size} modules`);
    const devTools = [...graph].filter((s) => DEV_TOOLS.test(s));
    assert.deepEqual(devTools, [], `${entry} loads dev tools`);
  });
}

Deno.test("the graph check sees dev tools where they are: main.ts localnet's own module", async () => {
  // demo/dev_network.ts is what `main.ts localnet` imports dynamically; statically it reaches the node.
  const graph = await staticGraph("demo/dev_network.ts");
  assert.ok([...graph].some((s) => s.includes("/localnet/")));
});

Deno.test("no import circle between the keeper daemon and its chain part", async () => {
  // keeper/daemon.ts imports keeper/startup.ts; the cycle loop and the hooks' types they share live
  // in keeper/ticker.ts, so the chain part never reaches back into the daemon.
  const graph = await staticGraph("keeper/startup.ts");
  assert.ok(
    ![...graph].some((s) => s.endsWith("/keeper/daemon.ts")),
    "startup.ts reaches daemon.ts",
  );
  assert.ok([...graph].some((s) => s.endsWith("/keeper/ticker.ts")));
});

for (const entry of ["keeper/mod.ts", "contracts/deploy/mod.ts"]) {
  Deno.test(`deno info ${entry}: no local node, AssemblyScript or binaryen even through import()`, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--frozen", entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    // `modules` holds every module reached, dynamic imports included, and the npm packages
    // imported (`npm:/name@version`); `npmPackages` is the whole lock snapshot, so not read.
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string }[];
    };
    const all = info.modules.map((m) => m.specifier);
    assert.ok(all.some((s) => s.startsWith("npm:/@stellar/stellar-sdk@")), "npm imports listed");
    assert.ok(all.length > 10, `${entry}: ${all.length} modules`);
    assert.deepEqual(
      all.filter((s) => /\/localnet\/|\/demo\/|\/testing\/|assemblyscript|binaryen/.test(s)),
      [],
    );
  });
}

Deno.test("deno info sees dev tools where they are: main.ts reaches the node through import()", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--frozen", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  // main.ts loads the demo and the node through import(): deno info follows it.
  assert.ok(info.modules.some((m) => m.specifier.includes("/localnet/")));
});
