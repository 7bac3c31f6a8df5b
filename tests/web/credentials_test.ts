/**
 * Real processes: the local node (`main.ts localnet`) and a keeper with the web pages
 * (`main.ts keeper`) whose `SOROBAN_RPC` carries a password and an API key, the way hosted RPC
 * providers hand them out. Neither appears in the keeper's log, its API bodies, its SSE stream,
 * its metrics or any page — while the keeper does use them (it registers through that URL) and
 * errors that quote the URL are redacted too. With the node stopped (SIGSTOP), pages still
 * answer within 6 s with "—" and the error notice. The development wallet offers depositors only.
 */
import assert from "node:assert/strict";
import { jsonLines, spawnKeeper } from "@vigil/testing/keeper/keeper_process";
import { DASH } from "@vigil/web/data/format";
import { denoRunArgs } from "@vigil/util/deno_child";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const PASSWORD = "pa55-w0rd-only-here";
const API_KEY = "k3y-0123456789abcdef";
const HZ_KEY = "hz-k3y-fedcba987654";

/** Starts `main.ts localnet` on a free port; resolves once its out file is written. */
async function startNode(outFile: string) {
  const child = new Deno.Command(Deno.execPath(), {
    // From the cache only, with the lock file (util/deno_child.ts).
    args: denoRunArgs(MAIN, ["localnet", "--port", "0", "--ledger-ms", "200", "--out", outFile]),
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  let stdout = "";
  const dec = new TextDecoder();
  const pumps = Promise.all([
    (async () => {
      for await (const c of child.stdout) stdout += dec.decode(c);
    })(),
    (async () => {
      for await (const _ of child.stderr) { /* drained */ }
    })(),
  ]);
  const deadline = Date.now() + 60_000;
  while (!stdout.includes("Ctrl-C") && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(stdout.includes("Ctrl-C"), `node did not start: ${stdout}`);
  return {
    child,
    async stop() {
      try {
        child.kill("SIGCONT");
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await pumps;
    },
  };
}

/** Reads an SSE stream for `ms` and returns what arrived. */
async function readSse(url: string, ms: number): Promise<string> {
  const ctrl = new AbortController();
  const res = await fetch(url, { signal: ctrl.signal });
  assert.equal(res.status, 200);
  let text = "";
  const timer = setTimeout(() => ctrl.abort(), ms);
  try {
    for await (const chunk of res.body!) text += new TextDecoder().decode(chunk);
  } catch {
    /* aborted */
  } finally {
    clearTimeout(timer);
  }
  return text;
}

async function timedGet(url: string): Promise<{ status: number; ms: number; body: string }> {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  return { status: res.status, ms: performance.now() - t0, body };
}

Deno.test("credentialed SOROBAN_RPC never leaks; pages answer within 6 s with the node stopped", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "vigil-creds-" });
  const outFile = `${dir}/localnet.json`;
  const node = await startNode(outFile);
  let keeper: ReturnType<typeof spawnKeeper> | undefined;
  const seen: string[] = [];
  try {
    const out = JSON.parse(await Deno.readTextFile(outFile));
    const rpc = new URL(out.rpcUrl);
    const secretRpc = `http://rpcuser:${PASSWORD}@${rpc.host}${rpc.pathname}?apikey=${API_KEY}`;
    keeper = spawnKeeper(
      {
        KEEPER_SECRET: out.accounts.keeper1.secret,
        KEEPER_NAME: "keeper-creds",
        REGISTRY_CONTRACT: out.contracts.registry,
        VAULT_CONTRACT: out.contracts.vault,
        USDC_CONTRACT: out.contracts.usdc,
        SOROBAN_RPC: secretRpc,
        HORIZON_URL: `http://hz:${PASSWORD}@127.0.0.1:9/?key=${HZ_KEY}`,
        NETWORK_PASSPHRASE: out.networkPassphrase,
        API_PORT: "0",
        POLL_INTERVAL: "3",
        WEB_DEV_ACCOUNTS_FILE: outFile,
      },
      undefined,
      ["main.ts", "keeper"],
    );
    await keeper.waitFor(/"msg":"api listening"/, 60_000);
    const url = String(
      jsonLines(keeper.stderr()).find((l) => l.msg === "api listening")!.url,
    );
    // API_HOST unset: the server listens on loopback only.
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    // It really uses the credentialed URL: registration goes through it.
    await keeper.waitFor(/registered in the keeper registry/, 60_000);

    const pages = [
      "/",
      "/vault",
      "/dashboard",
      "/dashboard/keepers",
      "/dashboard/liquidations",
      `/dashboard/${out.accounts.alice.public}`,
    ];
    const collect = async () => {
      for (const p of pages) {
        const r = await timedGet(url + p);
        assert.equal(r.status, 200, p);
        seen.push(r.body);
      }
      for (const p of ["/api/state?events=500", "/api/performance", "/metrics"]) {
        seen.push(await (await fetch(url + p)).text());
      }
      seen.push(await readSse(`${url}/api/events?backlog=500`, 800));
    };

    await t.step("log, API bodies, SSE, metrics and pages hold neither secret", async () => {
      await collect();
      const all = seen.join("\n") + keeper!.stderr();
      for (const s of [PASSWORD, API_KEY, HZ_KEY, "rpcuser"]) {
        assert.ok(!all.includes(s), `${s} leaked`);
      }
      // The pages warn (in the JSON log) that browsers get the endpoint without credentials.
      assert.ok(
        jsonLines(keeper!.stderr()).some((l) => /NEXT_PUBLIC_RPC_URL/.test(String(l.msg))),
      );
      // The start-up line names the endpoint, redacted.
      const starting = jsonLines(keeper!.stderr()).find((l) => l.msg === "keeper starting")!;
      assert.equal(starting.rpc, `http://${rpc.host}${rpc.pathname}?apikey=REDACTED`);
      // Browsers get the bare endpoint: no userinfo, no query.
      const home = seen[0];
      assert.ok(home.includes(`"rpcUrl":"${out.rpcUrl}"`), "page config rpcUrl");
      // The chain is read through the credentialed URL: the vault's figures are real.
      assert.doesNotMatch(home, /id="chain-error"/);
      // The development wallet: depositors only, never a keeper's key.
      const config = JSON.parse(
        /<script id="vigil-config" type="application\/json">(.*?)<\/script>/.exec(home)![1],
      );
      assert.deepEqual(
        config.devWallet.accounts.map((a: { address: string }) => a.address),
        [out.accounts.alice.public, out.accounts.bob.public],
      );
      const offered = await (await fetch(`${url}/_dev/wallet/accounts`)).json();
      assert.deepEqual(offered.accounts.map((a: { name: string }) => a.name), ["alice", "bob"]);
    });

    await t.step("node stopped: pages answer within 6 s with — and the error notice", async () => {
      node.child.kill("SIGSTOP");
      try {
        for (const p of ["/", `/dashboard/${out.accounts.alice.public}`, "/vault"]) {
          const r = await timedGet(url + p);
          console.log(`node stopped: GET ${p} → ${r.status} in ${r.ms.toFixed(0)} ms`);
          assert.equal(r.status, 200, p);
          assert.ok(r.ms < 6000, `${p} took ${r.ms.toFixed(0)} ms`);
          assert.ok(r.body.includes(DASH), `${p}: no em-dash`);
          assert.match(r.body, /could not be read|unreachable|not reachable/i, p);
          seen.push(r.body);
        }
        const home = seen.at(-3)!;
        assert.match(home, /id="chain-error"/);
        // The API routes stay fast too.
        const api = await timedGet(`${url}/api/state`);
        assert.equal(api.status, 200);
        assert.ok(api.ms < 2000, `/api/state ${api.ms} ms`);
      } finally {
        node.child.kill("SIGCONT");
      }
    });

    await t.step("node gone: errors that quote the URL are redacted everywhere", async () => {
      await node.stop();
      // A page's read fails at once (connection refused) and quotes the URL in its notice.
      const r = await timedGet(`${url}/`);
      assert.equal(r.status, 200);
      assert.match(r.body, /id="chain-error"/);
      console.log(`node gone: ${/id="chain-error"[^>]*>([\s\S]*?)<\/div>/.exec(r.body)?.[1]}`);
      seen.push(r.body);
      // The keeper's next cycles fail too and log it.
      const before = jsonLines(keeper!.stderr()).length;
      await keeper!.waitFor(/"level":"(warn|error)"/, 30_000);
      while (jsonLines(keeper!.stderr()).length <= before) {
        await new Promise((r) => setTimeout(r, 200));
      }
      await collect().catch(() => {});
      const all = seen.join("\n") + keeper!.stderr();
      for (const s of [PASSWORD, API_KEY, HZ_KEY, "rpcuser"]) {
        assert.ok(!all.includes(s), `${s} leaked after errors`);
      }
      // The errors did quote the endpoint — redacted.
      assert.match(all, /apikey=REDACTED/);
    });
  } finally {
    if (keeper) {
      keeper.child.kill("SIGTERM");
      await keeper.finish();
    }
    await node.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
