/**
 * When the island bundles cannot be produced (issue 11), the server says so loudly — one error
 * naming the cause and the fix — and the pages say that their interactive parts are unavailable
 * instead of showing controls that do nothing: no island script tags (which would 404), a notice,
 * and the island markup greyed out; page requests do not re-run a failing bundler each time.
 */
import assert from "node:assert/strict";
import { createWebApp, islandsUnavailableMessage } from "@vigil/web/server";
import { ISLANDS_UNAVAILABLE_NOTICE } from "@vigil/ssr/render";
import { TESTNET_PASSPHRASE } from "@vigil/web/data/config";

/** A loopback port nothing listens on, so chain and API reads fail at once. */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("islands unavailable: a loud error with cause and fix, pages say so, no dead scripts", async () => {
  const errors: string[] = [];
  let attempts = 0;
  const port = closedPort();
  const app = createWebApp({
    env: {},
    vault: null,
    registry: null,
    apiUrl: `http://127.0.0.1:${port}`,
    apiTimeoutMs: 200,
    rpcUrl: `http://127.0.0.1:${port}/rpc`,
    networkPassphrase: TESTNET_PASSPHRASE,
    warn: () => {},
    error: (m) => errors.push(m),
    islands: () => {
      attempts++;
      return Promise.reject(new Error("deno bundle failed (exit 1): esbuild not in the cache"));
    },
  });
  for (const path of ["/", "/vault", "/dashboard"]) {
    const res = await app.request(path);
    const html = await res.text();
    assert.equal(res.status, 200, path);
    assert.ok(html.includes(ISLANDS_UNAVAILABLE_NOTICE), `${path} carries the notice`);
    assert.match(html, /<body class="islands-off">/, path);
    assert.doesNotMatch(html, /<script type="module"/, `${path} loads no island script`);
    assert.match(html, /data-island=/, `${path} still renders its islands' server markup`);
  }
  const js = await app.request("/_islands/LiveLog.js");
  assert.equal(js.status, 404);
  await js.body?.cancel();
  // One start-up attempt; page requests within the retry delay do not re-run the bundler.
  assert.equal(attempts, 1);
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0], /island bundles unavailable/);
  assert.match(errors[0], /will NOT work/);
  assert.match(errors[0], /Cause: deno bundle failed \(exit 1\): esbuild not in the cache/);
  assert.match(errors[0], /Fix: run `npm ci`/);
});

Deno.test("islands unavailable: the fix for a compiled binary is a rebuild", () => {
  const m = islandsUnavailableMessage(new Error("prebuilt island LiveLog.js missing"), true);
  assert.match(m, /Cause: prebuilt island LiveLog\.js missing/);
  assert.match(m, /Fix: .*deno task compile/);
});
