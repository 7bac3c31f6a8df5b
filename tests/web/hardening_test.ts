/**
 * HTTP hardening of the keeper/web server, over real HTTP against a local node and the real
 * keeper (API + pages): the development wallet's signer refuses requests with no Origin, a
 * foreign Origin or a rebound Host, never holds a keeper's key and is not mounted on a
 * non-loopback bind; 20 MB bodies get 413 JSON from the keeper/web server and from the local
 * node; `nosniff` on every response; CSP on pages; 405 with Allow for wrong methods on pages.
 */
import assert from "node:assert/strict";
import { Contract, nativeToScVal, TransactionBuilder } from "@stellar/stellar-sdk";
import { startWebStack, type WebStack } from "@vigil/testing/web/stack";
import { createWebApp, mountWeb } from "@vigil/web/server";
import { createApi } from "@vigil/keeper/api/server";
import { rawRequest } from "@vigil/testing/raw_http";
import { STANDALONE_PASSPHRASE } from "@vigil/web/data/config";
import { MAX_BODY_BYTES } from "@vigil/util/http_guard";
import { MAX_RPC_BODY_BYTES } from "@vigil/localnet/rpc/server";

const BIG = 20 * 1024 * 1024;

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * POSTs `total` bytes with `Transfer-Encoding: chunked` (no Content-Length) over raw TCP and
 * returns the raw response text. Writes stop at the first error (the server may close early).
 */
async function chunkedPost(port: number, path: string, origin: string, total: number) {
  const enc = new TextEncoder();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const head = `POST ${path} HTTP/1.1\r\nHost: ${new URL(origin).host}\r\nOrigin: ${origin}\r\n` +
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const frame = new Uint8Array([
      ...enc.encode(`${chunk.length.toString(16)}\r\n`),
      ...chunk,
      ...enc.encode("\r\n"),
    ]);
    // Write in the background: the answer comes long before the body is taken, and the
    // server stops reading, so a write can block until we hang up.
    const writing = (async () => {
      try {
        await conn.write(enc.encode(head));
        for (let sent = 0; sent < total; sent += chunk.length) {
          for (let off = 0; off < frame.length;) off += await conn.write(frame.subarray(off));
        }
        await conn.write(enc.encode("0\r\n\r\n"));
      } catch { /* we hung up, or the server did */ }
    })();
    let text = "";
    const buf = new Uint8Array(8192);
    try {
      // Until the end of the JSON body (the answer is one small JSON object).
      while (!/\r\n\r\n[\s\S]*\}\s*$/.test(text)) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset after the answer */ }
    conn.close();
    await writing;
    return text;
  } finally {
    try {
      conn.close();
    } catch { /* closed above */ }
  }
}

/** A balance() call of `contract` with `who` as source, unsigned, as XDR. */
async function invocation(s: WebStack, who: string, contract: string): Promise<string> {
  const account = await s.node.server.getAccount(who);
  return new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: s.node.networkPassphrase,
  }).addOperation(new Contract(contract).call("balance", nativeToScVal(who, { type: "address" })))
    .setTimeout(60).build().toXDR();
}

Deno.test("hardening over real HTTP: dev signer, limits, headers", async (t) => {
  await using s = await startWebStack({ seed: false });
  const port = portOf(s.url);
  const alice = s.accounts.alice.publicKey();
  const keeperKeys = [s.accounts.keeper1.publicKey(), s.accounts.keeper2.publicKey()];
  const signBody = (address: string, xdr: string) =>
    JSON.stringify({ address, xdr, networkPassphrase: s.node.networkPassphrase });

  await t.step("signer: the page's own origins sign; localhost on the same port too", async () => {
    const xdr = await invocation(s, alice, s.vault);
    for (const origin of [s.url, `http://localhost:${port}`]) {
      const host = new URL(origin).host;
      const r = await rawRequest(port, "POST", "/_dev/wallet/sign", {
        host,
        origin,
        "content-type": "application/json",
      }, signBody(alice, xdr));
      assert.equal(r.status, 200, `${origin}: ${r.body}`);
      const signed = TransactionBuilder.fromXDR(
        JSON.parse(r.body).signedTxXdr,
        s.node.networkPassphrase,
      );
      assert.equal(signed.signatures.length, 1);
    }
  });

  await t.step("signer: no Origin, a foreign Origin and DNS rebinding are refused", async () => {
    const xdr = await invocation(s, alice, s.vault);
    const host = `127.0.0.1:${port}`;
    const cases: [string, Record<string, string>, number, string][] = [
      ["no Origin", { host }, 403, "origin_required"],
      ["foreign Origin", { host, origin: "http://evil.example" }, 403, "cross_origin"],
      ["null Origin", { host, origin: "null" }, 403, "cross_origin"],
      // Another port of this machine is another origin.
      ["other local port", { host, origin: `http://127.0.0.1:${port + 1}` }, 403, "cross_origin"],
      // The attacker's name resolves to 127.0.0.1: Host and Origin agree with each other.
      [
        "rebinding",
        { host: `attacker.test:${port}`, origin: `http://attacker.test:${port}` },
        421,
        "misdirected_request",
      ],
      [
        "rebinding without Origin",
        { host: `attacker.test:${port}` },
        421,
        "misdirected_request",
      ],
      [
        "foreign Host, own Origin",
        { host: "attacker.test", origin: s.url },
        421,
        "misdirected_request",
      ],
    ];
    for (const [what, headers, status, error] of cases) {
      const r = await rawRequest(port, "POST", "/_dev/wallet/sign", {
        ...headers,
        "content-type": "application/json",
      }, signBody(alice, xdr));
      assert.equal(r.status, status, `${what}: ${r.body}`);
      assert.equal(JSON.parse(r.body).error, error, what);
      assert.doesNotMatch(r.body, /signedTxXdr/);
    }
    // The account list is not served to a rebound name either.
    const list = await rawRequest(port, "GET", "/_dev/wallet/accounts", {
      host: `attacker.test:${port}`,
    });
    assert.equal(list.status, 421);
    // fetch() sends no Origin: refused the same way.
    const f = await fetch(`${s.url}/_dev/wallet/sign`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: signBody(alice, xdr),
    });
    assert.equal(f.status, 403);
    assert.equal((await f.json()).error, "origin_required");
  });

  await t.step("signer: keeper keys are never offered nor used", async () => {
    const list = await (await fetch(`${s.url}/_dev/wallet/accounts`)).json();
    const offered = list.accounts.map((a: { address: string }) => a.address);
    assert.deepEqual(list.accounts.map((a: { name: string }) => a.name), ["alice", "bob"]);
    const pages = (await Promise.all(["/", "/vault"].map((p) => fetch(s.url + p))))
      .map((r) => r.text());
    const html = (await Promise.all(pages)).join("\n");
    for (const k of keeperKeys) {
      assert.ok(!offered.includes(k), "keeper key offered");
      assert.ok(!html.includes(`"address":"${k}"`), "keeper key in the page's dev wallet");
      // Asked to sign as a keeper (its own registry call): unknown account.
      const r = await fetch(`${s.url}/_dev/wallet/sign`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: s.url },
        body: signBody(k, await invocation(s, k, s.registry)),
      });
      assert.equal(r.status, 404);
      assert.equal((await r.json()).error, "unknown_account");
    }
    // A keeper's own key handed to mountWeb is dropped even when given as a dev account.
    const warnings: string[] = [];
    const api = mountWeb(
      createApi({
        // deno-lint-ignore no-explicit-any
        log: { error() {} } as any,
        // deno-lint-ignore no-explicit-any
        state: {} as any,
        // deno-lint-ignore no-explicit-any
        metrics: {} as any,
        // deno-lint-ignore no-explicit-any
        sse: {} as any,
        // deno-lint-ignore no-explicit-any
        info: {} as any,
        corsOrigins: null,
      }),
      {
        vaultContract: s.vault,
        registryContract: s.registry,
        sorobanRpc: s.node.rpcUrl,
        networkPassphrase: s.node.networkPassphrase,
        operator: s.accounts.keeper2.publicKey(),
      },
      {
        env: {},
        prebundle: false,
        devAccounts: [
          { name: "alice", secret: s.accounts.alice.secret() },
          { name: "keeper2", secret: s.accounts.keeper2.secret() },
        ],
        listen: { hostname: "127.0.0.1", port: () => 1 },
        warn: (m) => warnings.push(m),
      },
    );
    const a = await (await api.request("http://127.0.0.1:1/_dev/wallet/accounts", {
      headers: { host: "127.0.0.1:1" },
    })).json();
    assert.deepEqual(a.accounts.map((x: { name: string }) => x.name), ["alice"]);
    assert.match(warnings.join(), /keeper2 is this keeper's own key/);
  });

  await t.step("signer: not mounted when the server listens beyond loopback", async () => {
    const warnings: string[] = [];
    let boundPort = 0;
    const app = createWebApp({
      env: {},
      vault: s.vault,
      registry: s.registry,
      rpcUrl: s.node.rpcUrl,
      networkPassphrase: STANDALONE_PASSPHRASE,
      devAccounts: [{ name: "alice", secret: s.accounts.alice.secret() }],
      listen: { hostname: "0.0.0.0", port: () => boundPort },
      apiUrl: "http://127.0.0.1:9",
      apiTimeoutMs: 200,
      warn: (m) => warnings.push(m),
    });
    const server = Deno.serve({ port: 0, hostname: "0.0.0.0", onListen: () => {} }, app.fetch);
    boundPort = (server.addr as Deno.NetAddr).port;
    try {
      assert.match(warnings.join(), /not a loopback address/);
      const base = `http://127.0.0.1:${boundPort}`;
      const r = await fetch(`${base}/_dev/wallet/sign`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base },
        body: "{}",
      });
      assert.equal(r.status, 404);
      await r.body?.cancel();
      const l = await fetch(`${base}/_dev/wallet/accounts`);
      assert.equal(l.status, 404);
      await l.body?.cancel();
      const html = await (await fetch(`${base}/vault`)).text();
      assert.match(html, /"devWallet":null/);
    } finally {
      await server.shutdown();
    }
  });

  await t.step("20 MB bodies get 413 JSON from the keeper/web server", async () => {
    const big = new Uint8Array(BIG).fill(0x20);
    for (const path of ["/_dev/wallet/sign", "/api/state", "/", "/nope"]) {
      const t0 = performance.now();
      const r = await fetch(s.url + path, {
        method: "POST",
        headers: { "content-type": "application/json", origin: s.url },
        body: big,
      });
      const ms = performance.now() - t0;
      assert.equal(r.status, 413, path);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff");
      assert.deepEqual(await r.json(), { error: "payload_too_large", limit_bytes: MAX_BODY_BYTES });
      console.log(`keeper/web ${path}: 20 MB body → 413 in ${ms.toFixed(0)} ms`);
    }
    // Without Content-Length (chunked): cut off once past the limit, not buffered whole.
    const r = await chunkedPost(port, "/_dev/wallet/sign", s.url, 4 * 1024 * 1024);
    assert.match(r, /^HTTP\/1\.1 413 /);
    assert.match(r, /"error":"payload_too_large"/);
    // A body under the limit still reaches the handler.
    const small = await fetch(`${s.url}/_dev/wallet/sign`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.url },
      body: JSON.stringify({ pad: "x".repeat(100_000) }),
    });
    assert.equal(small.status, 400);
    assert.equal((await small.json()).error, "wrong_network");
  });

  await t.step("20 MB bodies get 413 JSON from the local node's JSON-RPC server", async () => {
    const t0 = performance.now();
    const r = await fetch(s.node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Uint8Array(BIG).fill(0x20),
    });
    const ms = performance.now() - t0;
    assert.equal(r.status, 413);
    const j = await r.json();
    assert.equal(j.jsonrpc, "2.0");
    assert.equal(j.error.code, -32600);
    assert.match(j.error.message, new RegExp(`limit ${MAX_RPC_BODY_BYTES} bytes`));
    console.log(`localnet /rpc: 20 MB body → 413 in ${ms.toFixed(0)} ms`);
    // The node still answers normally afterwards.
    const ok = await fetch(s.node.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
    });
    assert.equal((await ok.json()).result.status, "healthy");
  });

  await t.step("nosniff on every response; CSP on pages; 405 with Allow on pages", async () => {
    const home = await fetch(`${s.url}/`);
    const html = await home.text();
    const island = /\/_islands\/[A-Za-z]+\.js\?v=[0-9a-f]+/.exec(html)![0];
    const csp = home.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /object-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.ok(csp.includes(`connect-src 'self' ${new URL(s.node.rpcUrl).origin}`), csp);
    const requests: [string, string, number][] = [
      ["GET", "/", 200],
      ["GET", "/vault", 200],
      ["GET", `/dashboard/${alice}`, 200],
      ["GET", "/dashboard/GNOTANADDRESS", 404],
      ["GET", "/healthz", 200],
      ["GET", "/metrics", 200],
      ["GET", "/api/state", 200],
      ["GET", "/api/performance", 200],
      ["HEAD", "/api/events", 200],
      ["OPTIONS", "/api/state", 204],
      ["POST", "/api/state", 405],
      ["GET", "/nope", 404],
      ["GET", island, 200],
      ["GET", "/static/styles.css", 200],
      ["GET", "/static/../deno.json", 404],
      ["GET", "/favicon.ico", 301],
      ["GET", "/_dev/wallet/accounts", 200],
      ["GET", "/_dev/wallet/sign", 405],
      ["POST", "/_dev/wallet/sign", 403],
      ["POST", "/", 405],
      ["PUT", "/vault", 405],
      ["DELETE", "/dashboard/keepers", 405],
      ["PATCH", `/dashboard/${alice}`, 405],
      ["POST", "/static/styles.css", 405],
      ["OPTIONS", "/", 204],
    ];
    for (const [method, path, status] of requests) {
      const r = await fetch(s.url + path, { method, redirect: "manual" });
      await r.body?.cancel();
      assert.equal(r.status, status, `${method} ${path}`);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff", `${method} ${path}`);
      if (method === "GET" && (path === "/" || path === "/vault")) {
        assert.ok(r.headers.get("content-security-policy"), `${method} ${path}: CSP`);
      }
      if (status === 405) {
        const allow = r.headers.get("allow") ?? "";
        assert.ok(allow !== "" && !allow.includes(method), `${method} ${path}: Allow ${allow}`);
      }
    }
    const post = await fetch(`${s.url}/`, { method: "POST" });
    assert.equal(post.headers.get("allow"), "GET, HEAD, OPTIONS");
    assert.equal((await post.json()).error, "method_not_allowed");
  });
});
