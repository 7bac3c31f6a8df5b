import assert from "node:assert/strict";
import { rpc } from "@stellar/stellar-sdk";
import fc from "fast-check";
import {
  countingFetch,
  createMetrics,
  instrumentRpcServer,
  methodLabel,
  observeRpc,
  rpcRequestHook,
  unitsToFloat,
} from "./metrics.ts";

/** `name{labels} value` samples of a text exposition. */
function samples(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const i = line.lastIndexOf(" ");
    m.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return m;
}

function types(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) m.set(name, type);
  return m;
}

Deno.test("exposition: required metric names with correct TYPE lines, gauges read their sources", async () => {
  const m = createMetrics({ defaultMetrics: false, info: { name: "k1", operator: "GABC" } });
  let tvl: bigint | null = null;
  m.bind({
    vaultTotalUsdc: () => tvl,
    sseActive: () => 3,
    outstandingDraw: () => 202154468n,
    nativeBalance: () => 1_000_000_000n,
    positionsByPool: () =>
      new Map([
        ["CPOOL1", { tracked: 10, withDebt: 5, underwater: 2 }],
        ["CPOOL2", { tracked: 4, withDebt: 4, underwater: 1 }],
      ]),
  });
  let text = await m.render();
  const t = types(text);
  const want: Record<string, string> = {
    keeper_cycles_total: "counter",
    keeper_liquidations_total: "counter",
    keeper_vault_tvl: "gauge",
    keeper_sse_active: "gauge",
    keeper_cycle_duration_seconds: "histogram",
    keeper_errors_total: "counter",
    keeper_rpc_requests_total: "counter",
    keeper_rpc_failures_total: "counter",
    keeper_outstanding_draw_usdc: "gauge",
    keeper_native_balance_xlm: "gauge",
    keeper_info: "gauge",
  };
  for (const [name, type] of Object.entries(want)) assert.equal(t.get(name), type, name);
  let s = samples(text);
  assert.equal(s.get("keeper_vault_tvl"), 0); // unknown before the first vault read
  assert.equal(s.get("keeper_sse_active"), 3);
  assert.equal(s.get("keeper_outstanding_draw_usdc"), 20.2154468);
  assert.equal(s.get("keeper_native_balance_xlm"), 100);
  assert.equal(s.get('keeper_positions_underwater{pool="CPOOL1"}'), 2);
  assert.equal(s.get('keeper_positions_underwater{pool="CPOOL2"}'), 1);
  assert.equal(s.get('keeper_positions_tracked{pool="CPOOL2"}'), 4);
  assert.equal(s.get('keeper_info{name="k1",operator="GABC",version="dev"}'), 1);

  tvl = 6259603340n;
  m.cyclesTotal.inc();
  m.cyclesTotal.inc();
  m.liquidationsTotal.inc({ pool: "CPOOL2" });
  m.cycleDuration.observe(0.3);
  m.errorsTotal.inc({ kind: "execute", adapter: "lending_pool" });
  text = await m.render();
  s = samples(text);
  assert.ok(text.includes("keeper_vault_tvl 625.960334\n"), "TVL printed with its decimals");
  assert.equal(s.get("keeper_cycles_total"), 2);
  assert.equal(s.get('keeper_liquidations_total{pool="CPOOL2"}'), 1);
  assert.equal(s.get('keeper_cycle_duration_seconds_bucket{le="0.5"}'), 1);
  assert.equal(s.get('keeper_cycle_duration_seconds_bucket{le="0.25"}'), 0);
  assert.equal(s.get('keeper_errors_total{kind="execute",adapter="lending_pool"}'), 1);
});

Deno.test("default process metrics work under Deno", async () => {
  const m = createMetrics();
  const text = await m.render();
  const s = samples(text);
  assert.ok((s.get("process_cpu_seconds_total") ?? -1) >= 0);
  assert.ok((s.get("process_resident_memory_bytes") ?? 0) > 0);
  assert.ok((s.get("nodejs_heap_size_used_bytes") ?? 0) > 0);
  assert.ok((s.get("process_open_fds") ?? 0) > 0);
  assert.equal(types(text).get("process_cpu_seconds_total"), "counter");
  assert.ok((s.get("nodejs_eventloop_lag_p99_seconds") ?? -1) >= 0);
  // Never observed under Deno, so not exported.
  assert.equal(types(text).has("nodejs_gc_duration_seconds"), false);
});

Deno.test("unitsToFloat prints exactly the 7-decimal value", () => {
  assert.equal(String(unitsToFloat(6259603340n)), "625.960334");
  assert.equal(unitsToFloat(-5n), -0.0000005);
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (u) => {
      const expect = `${u / 10_000_000n}.${(u % 10_000_000n).toString().padStart(7, "0")}`;
      assert.equal(unitsToFloat(u), Number(expect));
    }),
  );
});

Deno.test("methodLabel bounds label cardinality", () => {
  assert.equal(methodLabel("getLedgerEntries"), "getLedgerEntries");
  assert.equal(methodLabel("x y"), "other");
  assert.equal(methodLabel(undefined), "other");
  assert.equal(methodLabel("a".repeat(65)), "other");
});

Deno.test("observeRpc and rpcRequestHook count requests and failures", async () => {
  const m = createMetrics({ defaultMetrics: false });
  assert.equal(await observeRpc(m, "getHealth", () => Promise.resolve(5)), 5);
  await assert.rejects(observeRpc(m, "getHealth", () => Promise.reject(new Error("down"))));
  const hook = rpcRequestHook(m);
  hook("simulateTransaction", true, 12);
  hook("simulateTransaction", false, 40);
  const s = samples(await m.render());
  assert.equal(s.get('keeper_rpc_requests_total{method="getHealth"}'), 2);
  assert.equal(s.get('keeper_rpc_failures_total{method="getHealth"}'), 1);
  assert.equal(s.get('keeper_rpc_requests_total{method="simulateTransaction"}'), 2);
  assert.equal(s.get('keeper_rpc_failures_total{method="simulateTransaction"}'), 1);
  assert.equal(s.get('keeper_rpc_duration_seconds_count{method="simulateTransaction"}'), 2);
});

/** A tiny JSON-RPC server: getHealth ok, getLatestLedger ok, anything else a JSON-RPC error. */
function fakeRpc() {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    const text = await req.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response("not json-rpc");
    }
    const one = (r: { id: number; method: string }) => {
      if (r.method === "getHealth") {
        return {
          jsonrpc: "2.0",
          id: r.id,
          result: {
            status: "healthy",
            latestLedger: 10,
            oldestLedger: 1,
            ledgerRetentionWindow: 17280,
          },
        };
      }
      if (r.method === "getLatestLedger") {
        return {
          jsonrpc: "2.0",
          id: r.id,
          result: { id: "ab", sequence: 10, protocolVersion: 23 },
        };
      }
      return { jsonrpc: "2.0", id: r.id, error: { code: -32601, message: "method not found" } };
    };
    return Response.json(Array.isArray(body) ? body.map(one) : one(body));
  });
  return { server, url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}` };
}

Deno.test("instrumentRpcServer counts every rpc.Server call by JSON-RPC method", async () => {
  const { server, url } = fakeRpc();
  try {
    const m = createMetrics({ defaultMetrics: false });
    const srv = instrumentRpcServer(new rpc.Server(url, { allowHttp: true }), m);
    assert.equal((await srv.getHealth()).status, "healthy");
    assert.equal((await srv.getHealth()).latestLedger, 10);
    await assert.rejects(srv.getNetwork());
    const s = samples(await m.render());
    assert.equal(s.get('keeper_rpc_requests_total{method="getHealth"}'), 2);
    assert.equal(s.get('keeper_rpc_requests_total{method="getNetwork"}'), 1);
    assert.equal(s.get('keeper_rpc_failures_total{method="getNetwork"}'), 1);
    assert.equal(s.get('keeper_rpc_failures_total{method="getHealth"}'), undefined);
  } finally {
    await server.shutdown();
  }
});

Deno.test("countingFetch counts single and batch JSON-RPC bodies and errors", async () => {
  const { server, url } = fakeRpc();
  try {
    const m = createMetrics({ defaultMetrics: false });
    const f = countingFetch(m);
    const post = (body: unknown) =>
      f(url, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      })
        .then((r) => r.json());
    await post({ jsonrpc: "2.0", id: 1, method: "getHealth" });
    await post({ jsonrpc: "2.0", id: 2, method: "nope" });
    const batch = await post([
      { jsonrpc: "2.0", id: 3, method: "getLatestLedger" },
      { jsonrpc: "2.0", id: 4, method: "nope" },
    ]);
    assert.equal(batch.length, 2); // the caller still gets the whole body
    await (await f(url + "/not-rpc", { method: "POST", body: "plain" })).body?.cancel();
    await assert.rejects(
      f("http://127.0.0.1:1/", { method: "POST", body: '{"method":"getHealth"}' }),
    );
    const s = samples(await m.render());
    assert.equal(s.get('keeper_rpc_requests_total{method="getHealth"}'), 2);
    assert.equal(s.get('keeper_rpc_failures_total{method="getHealth"}'), 1);
    assert.equal(s.get('keeper_rpc_requests_total{method="nope"}'), 2);
    assert.equal(s.get('keeper_rpc_failures_total{method="nope"}'), 2);
    assert.equal(s.get('keeper_rpc_requests_total{method="getLatestLedger"}'), 1);
    assert.equal(s.get('keeper_rpc_failures_total{method="getLatestLedger"}'), undefined);
    assert.equal(s.get('keeper_rpc_requests_total{method="other"}'), undefined);
  } finally {
    await server.shutdown();
  }
});
