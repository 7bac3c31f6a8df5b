/**
 * The keeper's chain layer against a scripted JSON-RPC endpoint (real HTTP on loopback):
 * per-method request counting, failures, batching of getLedgerEntries (≤ 200 keys per request,
 * bounded concurrency), timeouts and shutdown; plus the pure helpers (host-error parsing, event
 * cursors, the ledger clock, percent search).
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { Positions } from "@blend-capital/blend-sdk";
import { Keypair, xdr } from "@stellar/stellar-sdk";
import {
  BAND_MARGIN,
  choosePercent,
  type Probe,
} from "@vigil/keeper/adapters/lending_pool/execute";
import { cursorLedger } from "@vigil/keeper/adapters/lending_pool/discovery";
import { parseHostError, RpcError } from "@vigil/soroban/errors";
import {
  contractDataKey,
  getLedgerEntries,
  LedgerClock,
  MAX_KEYS_PER_REQUEST,
} from "@vigil/soroban/ledger";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";

/** A JSON-RPC endpoint answering with `handler`; records each request's method and params. */
function fakeRpc(handler: (method: string, params: unknown) => unknown | Promise<unknown>) {
  const seen: { method: string; params: unknown }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    seen.push({ method: body.method, params: body.params });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const result = await handler(body.method, body.params);
      if (result instanceof Response) return result;
      if (result && typeof result === "object" && "error" in result) {
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          error: (result as { error: unknown }).error,
        });
      }
      return Response.json({ jsonrpc: "2.0", id: body.id, result });
    } finally {
      inFlight--;
    }
  });
  const url = `http://127.0.0.1:${server.addr.port}/rpc`;
  return { server, url, seen, maxInFlight: () => maxInFlight };
}

const PASS = "Standalone Network ; February 2017";
const POOL = "CDMLFMKMMD7MWZP3FKUBZPVHTUEDLSX4BYGYKH4GCESXYHS3IHQ4EIG4";

Deno.test("ChainRpc counts every request by JSON-RPC method, and failures", async () => {
  const rpc = fakeRpc((method) => {
    if (method === "getHealth") {
      return { status: "healthy", latestLedger: 9, oldestLedger: 1, ledgerRetentionWindow: 9 };
    }
    if (method === "getNetwork") return { error: { code: -32603, message: "internal" } };
    return { error: { code: -32601, message: "method not found" } };
  });
  const hooked: string[] = [];
  const chain = new ChainRpc(rpc.url, {
    networkPassphrase: PASS,
    onRequest: (m, ok) => hooked.push(`${m}:${ok}`),
  });
  try {
    await chain.server.getHealth();
    await chain.server.getHealth();
    await assert.rejects(chain.server.getNetwork());
    assert.deepEqual(chain.counts(), { getHealth: 2, getNetwork: 1 });
    assert.deepEqual(chain.failures(), { getNetwork: 1 });
    assert.equal(chain.totalRequests(), 3);
    assert.deepEqual(hooked, ["getHealth:true", "getHealth:true", "getNetwork:false"]);
  } finally {
    chain.close();
    await rpc.server.shutdown();
  }
});

Deno.test("getLedgerEntries: ≤ 200 keys per request, chunks in parallel (bounded), entries merged", async () => {
  const rpc = fakeRpc(async (method, params) => {
    assert.equal(method, "getLedgerEntries");
    const keys = (params as { keys: string[] }).keys;
    await new Promise((r) => setTimeout(r, 20));
    // Answer every key except the ones for users whose index is divisible by 7.
    const entries = keys.filter((_, i) => i % 7 !== 0).map((k) => ({
      key: k,
      xdr: "AAAA",
      lastModifiedLedgerSeq: 3,
    }));
    return { latestLedger: 42, entries };
  });
  const chain = new ChainRpc(rpc.url, { networkPassphrase: PASS });
  try {
    const keys = Array.from(
      { length: 450 },
      () =>
        contractDataKey(POOL, sv.variant("Positions", sv.address(Keypair.random().publicKey()))),
    );
    const { entries, latestLedger } = await getLedgerEntries(chain, keys, 2);
    assert.equal(latestLedger, 42);
    assert.equal(rpc.seen.length, 3);
    assert.deepEqual(rpc.seen.map((s) => (s.params as { keys: string[] }).keys.length), [
      200,
      200,
      50,
    ]);
    assert.ok(
      rpc.seen.every((s) => (s.params as { keys: string[] }).keys.length <= MAX_KEYS_PER_REQUEST),
    );
    assert.equal(rpc.maxInFlight(), 2);
    assert.equal(entries.size, 450 - (29 + 29 + 8));
    assert.equal(chain.counts().getLedgerEntries, 3);
    // Duplicate keys are requested once.
    rpc.seen.length = 0;
    await getLedgerEntries(chain, [keys[0], keys[0].toXDR("base64"), keys[1]]);
    assert.equal((rpc.seen[0].params as { keys: string[] }).keys.length, 2);
  } finally {
    chain.close();
    await rpc.server.shutdown();
  }
});

Deno.test("a request timeout is an RpcError naming the method; close() aborts requests in flight", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const rpc = fakeRpc(async () => {
    await gate;
    return { status: "healthy", latestLedger: 1, oldestLedger: 1, ledgerRetentionWindow: 1 };
  });
  const chain = new ChainRpc(rpc.url, { networkPassphrase: PASS, timeoutMs: 100 });
  try {
    await assert.rejects(
      chain.server.getHealth(),
      (e: unknown) => e instanceof RpcError && /getHealth: timeout/.test(e.message),
    );
    const chain2 = new ChainRpc(rpc.url, { networkPassphrase: PASS });
    const p = chain2.server.getHealth();
    setTimeout(() => chain2.close(), 30);
    await assert.rejects(
      p,
      (e: unknown) => e instanceof RpcError && /shutting down/.test(e.message),
    );
    await assert.rejects(chain2.server.getHealth(), /client closed/);
    assert.deepEqual(chain.failures(), { getHealth: 1 });
  } finally {
    release();
    chain.close();
    await rpc.server.shutdown();
  }
});

Deno.test("parseHostError reads contract codes and host error names", () => {
  assert.deepEqual(parseHostError("HostError: Error(Contract, #1212)\n\nEvent log…"), {
    type: "Contract",
    code: 1212,
  });
  assert.deepEqual(parseHostError("HostError: Error(WasmVm, InvalidAction)"), {
    type: "WasmVm",
    code: "InvalidAction",
  });
  assert.deepEqual(parseHostError("x Error(Auth, InvalidInput) y"), {
    type: "Auth",
    code: "InvalidInput",
  });
  assert.equal(parseHostError("no error here"), undefined);
  assert.equal(parseHostError(undefined), undefined);
});

Deno.test("cursorLedger decodes the TOID ledger of an event id", () => {
  const id = `${((123n << 32n) | (1n << 12n)).toString().padStart(19, "0")}-0000000002`;
  assert.equal(cursorLedger(id), 123);
  assert.equal(cursorLedger(""), 0);
  assert.equal(cursorLedger("garbage"), 0);
});

Deno.test("LedgerClock estimates seconds per ledger from observations", () => {
  const c = new LedgerClock(5);
  assert.equal(c.secondsPerLedger(), 5);
  c.observe(100, 1_000_000);
  c.observe(100, 1_000_500); // same ledger: ignored
  c.observe(110, 1_002_000);
  assert.equal(c.secondsPerLedger(), 0.2);
  c.observe(90, 1_003_000); // going backwards: ignored
  assert.equal(c.secondsPerLedger(), 0.2);
  // A burst of 150 ledgers in 100 ms (a fast-forward) does not make the chain look fast.
  c.observe(260, 1_002_100);
  c.observe(261, 1_002_350);
  c.observe(262, 1_002_600);
  assert.equal(c.secondsPerLedger(), 0.25);
});

/** A pool whose accepted band is [lo, hi] (1213 above, 1214 below). */
function band(lo: number, hi: number) {
  const probed: number[] = [];
  const probe = (p: number): Promise<Probe> => {
    probed.push(p);
    return Promise.resolve(p < lo ? "small" : p > hi ? "large" : "ok");
  };
  return { probe, probed };
}

Deno.test("choosePercent: 50 when accepted, else the nearest accepted on the side the pool points to", async () => {
  const a = band(30, 70);
  assert.equal(await choosePercent(a.probe), 50);
  assert.deepEqual(a.probed, [50]);
  // The edge found, moved BAND_MARGIN inward when the band is wide enough (an edge tips out at
  // apply when prices or interest move).
  for (
    const [lo, hi, want] of [[63, 80, 65], [51, 51, 51], [55, 56, 55], [55, 100, 57], [
      100,
      100,
      100,
    ]]
  ) {
    const b = band(lo, hi);
    assert.equal(await choosePercent(b.probe), want, `band ${lo}-${hi}`);
    assert.ok(b.probed.length <= 9, `probes ${b.probed.length}`);
  }
  for (const [lo, hi, want] of [[10, 22, 20], [1, 1, 1], [1, 49, 47], [40, 49, 47], [48, 49, 49]]) {
    const b = band(lo, hi);
    assert.equal(await choosePercent(b.probe), want, `band ${lo}-${hi}`);
  }
  assert.equal(BAND_MARGIN, 2);
  await assert.rejects(choosePercent(band(101, 200).probe), /even 100% is too small/);
  await assert.rejects(choosePercent(band(-5, 0).probe), /even 1% is too large/);
  assert.equal(await choosePercent(() => Promise.resolve("exists")), "exists");
});

Deno.test("contract-data keys: Positions key matches the Blend SDK's bytes", () => {
  const user = Keypair.random().publicKey();
  const mine = contractDataKey(POOL, sv.variant("Positions", sv.address(user))).toXDR("base64");
  const theirs = Positions.ledgerKey(POOL, user).toXDR("base64");
  assert.equal(mine, theirs);
  // and the value decodes in v17
  assert.equal(xdr.LedgerKey.fromXDR(mine, "base64").type, "contractData");
});
