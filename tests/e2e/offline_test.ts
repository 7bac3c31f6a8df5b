/**
 * Nothing is fetched at run time (issue 11). Every outbound connection of the children is made
 * impossible: `HTTPS_PROXY`/`HTTP_PROXY` (both spellings) point at a closed loopback port, so a
 * package download from the registry is refused; only loopback is exempt (`NO_PROXY`), where the
 * local node and the keeper's own API live.
 *
 * - Control: in that environment a package that is not cached really fails to download (so the
 *   other tests would fail if the program needed a download).
 * - The island bundler (`deno bundle` in a subprocess, as a keeper runs it at start) builds every
 *   island.
 * - `main.ts keeper` — the real program, started as the demo starts its keepers — comes up, works
 *   its cycle against the local node, and serves every page with every island script.
 * - With the bundler's esbuild missing from the cache (and no network), the keeper still runs, logs
 *   one error naming the cause and the fix, and its pages say their interactive parts are
 *   unavailable; `/healthz` is unaffected.
 *
 * With an empty cache, each of these fails (tests/e2e/offline_test.ts is in the suite that
 * `.ci/run` runs with a fresh `DENO_DIR` filled only by `npm ci`).
 */
import assert from "node:assert/strict";
import { bundleIslands } from "@vigil/ssr/bundle";
import { ISLANDS } from "@vigil/web/manifest";
import { childEnv } from "@vigil/util/deno_child";
import { keeperEnv, startWorld } from "@vigil/testing/keeper/keeper_fixture";
import { poll, startMainKeeper } from "@vigil/testing/keeper/live_keeper";

/** A loopback port nothing listens on (bound, then released). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Variables that make every non-loopback connection of a child fail. */
function noNetwork(): Record<string, string> {
  const proxy = `http://127.0.0.1:${closedPort()}`;
  const local = "127.0.0.1,localhost,::1";
  return {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    ALL_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: local,
    no_proxy: local,
  };
}

Deno.test("offline control: with the proxy closed, a package that is not cached cannot be fetched", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "vigil-offline-cache-" });
  const cwd = await Deno.makeTempDir({ prefix: "vigil-offline-cwd-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--no-config", "npm:left-pad@1.3.0"],
      clearEnv: true,
      env: childEnv({ ...noNetwork(), DENO_DIR: denoDir, NO_COLOR: "1" }),
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.notEqual(out.code, 0, `the download should have failed:\n${err}`);
    assert.match(err, /left-pad/);
    // Refused by the closed proxy (the exact wording varies with the output mode).
    assert.match(err, /Failed loading|refused|error sending request/i, err);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("offline: the island bundler builds every island with no network", async () => {
  const b = await bundleIslands({ islands: ISLANDS, env: childEnv(noNetwork()) });
  assert.equal(b.source, "bundle");
  for (const island of ISLANDS) {
    const f = b.files.get(`${island.name}.js`);
    assert.ok(f && f.body.length > 0, `${island.name}.js built`);
  }
});

Deno.test({
  name: "offline: `main.ts keeper` starts, cycles and serves every page and island with no network",
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    const w = await startWorld({ positions: false });
    const keeper = await startMainKeeper({
      ...keeperEnv(w, w.keepers[0]),
      ...noNetwork(),
      NO_COLOR: "1",
    }, 90_000).catch(async (e) => {
      await w.close();
      throw e;
    });
    try {
      const health = await fetch(`${keeper.url}/healthz`);
      await health.body?.cancel();
      assert.equal(health.status, 200);
      const alice = w.depositor.publicKey();
      const scripts = new Set<string>();
      for (
        const path of ["/", "/vault", "/dashboard", "/dashboard/depositor", `/dashboard/${alice}`]
      ) {
        const res = await fetch(`${keeper.url}${path}`);
        const html = await res.text();
        assert.equal(res.status, 200, `${path}: ${html.slice(0, 300)}`);
        assert.doesNotMatch(html, /islands-unavailable/, `${path} says its islands are missing`);
        for (const m of html.matchAll(/\/_islands\/([A-Za-z0-9_.-]+\.js)/g)) scripts.add(m[1]);
      }
      assert.ok(scripts.size >= 4, `island entries on the pages: ${[...scripts]}`);
      for (const name of scripts) {
        const res = await fetch(`${keeper.url}/_islands/${name}`);
        const body = await res.text();
        assert.equal(res.status, 200, `${name}: ${body.slice(0, 200)}`);
        assert.ok(body.length > 100, name);
      }
      // The keeper does its work against the local node (loopback is not proxied).
      await poll(
        async () => {
          const state = await (await fetch(`${keeper.url}/api/state?events=0`)).json();
          return state.vault !== null && state.vault !== undefined;
        },
        60_000,
        "the keeper's vault state read from the local node",
      );
    } finally {
      const { code, stderr } = await keeper.stop();
      await w.close();
      assert.doesNotMatch(stderr, /island bundles? unavailable/, stderr.slice(-3000));
      assert.doesNotMatch(stderr, /\bDownload\b/, stderr.slice(-3000));
      assert.equal(code, 0, stderr.slice(-3000));
    }
  },
});

Deno.test({
  name:
    "offline, bundler missing from the cache: the keeper logs an error with the fix, pages say so",
  sanitizeOps: true,
  sanitizeResources: true,
  fn: async () => {
    // A Deno cache with every npm package (the real one, linked) but without the bundler's
    // esbuild (`dl/`), and no network: the keeper runs, its island build cannot.
    const real = Deno.env.get("DENO_DIR") ??
      `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
    const denoDir = await Deno.makeTempDir({ prefix: "vigil-offline-nodl-" });
    await Deno.symlink(`${real}/npm`, `${denoDir}/npm`);
    const w = await startWorld({ positions: false });
    const keeper = await startMainKeeper({
      ...keeperEnv(w, w.keepers[0]),
      ...noNetwork(),
      DENO_DIR: denoDir,
      NO_COLOR: "1",
    }, 90_000).catch(async (e) => {
      await w.close();
      await Deno.remove(denoDir, { recursive: true });
      throw e;
    });
    try {
      const line = await poll(
        () => keeper.stderr().split("\n").find((l) => l.includes("island bundles unavailable")),
        60_000,
        "the islands-unavailable error",
      );
      const rec = JSON.parse(line);
      assert.equal(rec.level, "error");
      assert.match(rec.msg, /Cause: deno bundle failed/);
      assert.match(rec.msg, /Fix: run `npm ci`/);
      const res = await fetch(`${keeper.url}/`);
      const html = await res.text();
      assert.equal(res.status, 200);
      assert.match(html, /class="islands-unavailable"/);
      assert.doesNotMatch(html, /\/_islands\//, "no island script that would 404");
      const health = await fetch(`${keeper.url}/healthz`);
      await health.body?.cancel();
      assert.equal(health.status, 200, "/healthz is unaffected");
    } finally {
      const { code, stderr } = await keeper.stop();
      await w.close();
      await Deno.remove(denoDir, { recursive: true });
      assert.equal(code, 0, stderr.slice(-3000));
    }
  },
});
