import assert from "node:assert/strict";
import { RpcError } from "./errors.ts";
import { postJsonRpc, timedServer } from "./rpc.ts";

/** A local HTTP endpoint answering with `respond`; closed after `fn`. */
async function withEndpoint(
  respond: (req: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const ac = new AbortController();
  const server = Deno.serve({ port: 0, signal: ac.signal, onListen() {} }, respond);
  try {
    await fn(`http://user:pw-s3cret@127.0.0.1:${server.addr.port}/?key=k3y-123`);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("postJsonRpc: an HTTP error is an RpcError naming the method, body quoted or not", async () => {
  await withEndpoint(() => new Response("overloaded", { status: 503 }), async (url) => {
    const body = { jsonrpc: "2.0", id: 1, method: "getHealth" };
    const quoted = await postJsonRpc(url, body, { timeoutMs: 2000 }).catch((e) => e);
    assert.ok(quoted instanceof RpcError && quoted.method === "getHealth", String(quoted));
    assert.equal(quoted.message, "getHealth: HTTP 503: overloaded");
    const bare = await postJsonRpc(url, body, {
      timeoutMs: 2000,
      messagePrefix: "RPC ",
      quoteHttpBody: false,
    }).catch((e) => e);
    assert.equal(bare.message, "RPC getHealth: HTTP 503");
  });
});

Deno.test("postJsonRpc: the extra signal (a page deadline) aborts first; no credentials quoted", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  await withEndpoint(async () => {
    await gate;
    return Response.json({ jsonrpc: "2.0", id: 1, result: {} });
  }, async (url) => {
    const page = new AbortController();
    setTimeout(() => page.abort(new Error("the page's reads took over 50 ms")), 50);
    const t0 = performance.now();
    const err = await postJsonRpc(url, { method: "getLatestLedger" }, {
      timeoutMs: 5000,
      signal: () => page.signal,
    }).catch((e) => e);
    assert.ok(performance.now() - t0 < 2000);
    assert.ok(err instanceof RpcError, String(err));
    assert.match(err.message, /^getLatestLedger: the page's reads took over 50 ms$/);
    // Already past the deadline: refused without a request.
    const again = await postJsonRpc(url, { method: "getHealth" }, {
      timeoutMs: 5000,
      signal: () => page.signal,
    }).catch((e) => e);
    assert.match(again.message, /^getHealth: the page's reads took over 50 ms$/);
    release();
  });
});

Deno.test("timedServer: SDK calls go through the timed transport; a timeout names the method", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  await withEndpoint(async () => {
    await gate;
    return Response.json({ jsonrpc: "2.0", id: 1, result: {} });
  }, async (url) => {
    const server = timedServer(url, { timeoutMs: 80 });
    const err = await server.getLatestLedger().catch((e) => e);
    assert.ok(err instanceof RpcError, String(err));
    assert.match(err.message, /^getLatestLedger: timeout: no answer within 80 ms$/);
    assert.ok(!err.message.includes("pw-s3cret") && !err.message.includes("k3y-123"));
    release();
  });
});

Deno.test("getAccount: an unreachable RPC is an RpcError, not 'Account not found'", async () => {
  const { Keypair } = await import("@stellar/stellar-sdk");
  const g = Keypair.random().publicKey();
  // Nothing listens on port 9 of the loopback: connection refused.
  const down = timedServer("http://127.0.0.1:9/rpc", { timeoutMs: 2000 });
  const err = await down.getAccount(g).catch((e) => e);
  assert.ok(err instanceof RpcError, String(err));
  assert.ok(!/Account not found/.test(err.message), err.message);
  // An RPC that answers "no such entry": the account does not exist.
  await withEndpoint(
    () => Response.json({ jsonrpc: "2.0", id: 1, result: { entries: [], latestLedger: 7 } }),
    async (url) => {
      const e = await timedServer(url, { timeoutMs: 2000 }).getAccount(g).catch((e) => e);
      assert.equal(e.message, `Account not found: ${g}`);
    },
  );
});
