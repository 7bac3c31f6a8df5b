/**
 * Borrower discovery from pool events against a scripted JSON-RPC endpoint: which events name
 * which owner, auction bookkeeping, cursor paging, and that a steady cycle with no new events
 * makes one getEvents request and reads no positions.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { Address, Keypair, nativeToScVal, xdr } from "@stellar/stellar-sdk";
import { auctionKey } from "./auction.ts";
import { BorrowerIndex } from "./discovery.ts";
import { ChainRpc } from "@vigil/soroban/rpc";

const POOL = "CDMLFMKMMD7MWZP3FKUBZPVHTUEDLSX4BYGYKH4GCESXYHS3IHQ4EIG4";
const ASSET = "CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA";
const b64 = (v: xdr.ScVal) => v.toXDR("base64");
const sym = (s: string) => b64(xdr.ScVal.scvSymbol(s));
const addr = (a: string) => b64(new Address(a).toScVal());
const u32 = (n: number) => b64(xdr.ScVal.scvU32(n));

let seq = 0;
function event(ledger: number, topic: string[], value: xdr.ScVal = xdr.ScVal.scvVoid()) {
  seq++;
  const toid = (BigInt(ledger) << 32n) | 4096n;
  return {
    id: `${toid.toString().padStart(19, "0")}-${String(seq).padStart(10, "0")}`,
    type: "contract",
    ledger,
    ledgerClosedAt: "2026-01-01T00:00:00Z",
    contractId: POOL,
    txHash: "00",
    topic,
    value: b64(value),
    inSuccessfulContractCall: true,
  };
}

Deno.test("BorrowerIndex: owners from pool events, auction bookkeeping, one request when idle", async () => {
  const [alice, bob, carol, filler, keeper] = Array.from(
    { length: 5 },
    () => Keypair.random().publicKey(),
  );
  const events = [
    event(10, [sym("supply_collateral"), addr(ASSET), addr(alice)]),
    event(10, [sym("borrow"), addr(ASSET), addr(alice)]),
    event(11, [sym("borrow"), addr(ASSET), addr(bob)]),
    event(11, [sym("supply"), addr(ASSET), addr(keeper)]), // excluded: the keeper itself
    event(12, [sym("new_auction"), u32(0), addr(alice)]),
    event(12, [sym("new_auction"), u32(0), addr(bob)]),
    event(12, [sym("new_auction"), u32(2), addr(carol)]), // interest auction: not a borrower
    event(
      13,
      [sym("fill_auction"), u32(0), addr(bob)],
      xdr.ScVal.scvVec([
        new Address(filler).toScVal(),
        nativeToScVal(100n, { type: "i128" }),
        xdr.ScVal.scvMap([]),
      ]),
    ),
    event(14, [sym("unknown_thing"), addr(carol)]),
  ];
  const requests: { method: string; params: Record<string, unknown> }[] = [];
  let served = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    requests.push({ method: body.method, params: body.params });
    const ok = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    if (body.method === "getHealth") {
      return ok({
        status: "healthy",
        latestLedger: 20,
        oldestLedger: 5,
        ledgerRetentionWindow: 15,
      });
    }
    if (body.method === "getEvents") {
      // Pages of 4 events; the cursor after the last one points at the end of the window.
      const limit = body.params.pagination?.limit ?? 100;
      const page = events.slice(served, served + limit);
      served += page.length;
      const cursor = page.length === limit
        ? page.at(-1)!.id
        : `${(20n << 32n).toString().padStart(19, "0")}-0000000000`;
      return ok({ events: page, cursor, latestLedger: 20, oldestLedger: 5 });
    }
    if (body.method === "getLedgerEntries") return ok({ latestLedger: 20, entries: [] });
    return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "nope" } });
  });
  const chain = new ChainRpc(`http://127.0.0.1:${server.addr.port}/rpc`, {
    networkPassphrase: "Standalone Network ; February 2017",
  });
  try {
    const index = new BorrowerIndex(POOL, { exclude: [keeper], pageLimit: 4 });
    const r = await index.sync(chain);
    assert.equal(r.events, events.length);
    assert.equal(r.pages, 3);
    assert.deepEqual(new Set(index.owners), new Set([alice, bob, filler]));
    assert.deepEqual([...index.auctions.keys()], [alice], "bob's auction was fully filled");
    assert.equal(r.refreshed, 3, "positions read for every owner named");
    assert.equal(requests[0].method, "getHealth");
    assert.equal(requests[1].params.startLedger, 5, "cold start from the oldest ledger");
    const posReq = requests.find((q) => q.method === "getLedgerEntries")!;
    assert.equal((posReq.params.keys as string[]).length, 3);
    // Idle: one getEvents from the cursor, no position reads.
    requests.length = 0;
    const idle = await index.sync(chain);
    assert.deepEqual(requests.map((q) => q.method), ["getEvents"]);
    assert.ok(typeof (requests[0].params.pagination as { cursor?: string }).cursor === "string");
    assert.equal(idle.refreshed, 0);
    // A new event for one owner: only that owner's positions are read.
    events.push(event(21, [sym("repay"), addr(ASSET), addr(bob)]));
    requests.length = 0;
    const one = await index.sync(chain);
    assert.equal(one.refreshed, 1);
    const keys = requests.find((q) => q.method === "getLedgerEntries")!.params.keys as string[];
    assert.equal(keys.length, 1);
  } finally {
    chain.close();
    await server.shutdown();
  }
});

Deno.test("BorrowerIndex: asks for the pool's events only and ignores CAP-67 fee events and other contracts", async () => {
  const XLM_SAC = "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC";
  const OTHER = "CAS3J7GYLGXMF6TDJBBYYSE3HQ6BBSMLNUQ34T6TZMYMW2EVH34XOWMA";
  const [alice, carol, dave] = Array.from({ length: 3 }, () => Keypair.random().publicKey());
  const i128 = (n: bigint) => nativeToScVal(n, { type: "i128" });
  // What an RPC that ignored the filter would serve: each transaction's fee charge and refund
  // on the native SAC (a failed one's too), and another contract's borrow-shaped event.
  const events = [
    { ...event(10, [sym("fee"), addr(carol)], i128(200_000n)), contractId: XLM_SAC },
    event(10, [sym("borrow"), addr(ASSET), addr(alice)]),
    { ...event(10, [sym("borrow"), addr(ASSET), addr(dave)]), contractId: OTHER },
    { ...event(10, [sym("fee"), addr(carol)], i128(-150_000n)), contractId: XLM_SAC },
    {
      ...event(11, [sym("fee"), addr(dave)], i128(300_000n)),
      contractId: XLM_SAC,
      inSuccessfulContractCall: false,
    },
  ];
  const requests: Record<string, unknown>[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    const ok = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    if (body.method === "getHealth") {
      return ok({
        status: "healthy",
        latestLedger: 20,
        oldestLedger: 5,
        ledgerRetentionWindow: 15,
      });
    }
    if (body.method === "getEvents") {
      requests.push(body.params);
      const cursor = `${(20n << 32n).toString().padStart(19, "0")}-0000000000`;
      return ok({
        events: requests.length === 1 ? events : [],
        cursor,
        latestLedger: 20,
        oldestLedger: 5,
      });
    }
    if (body.method === "getLedgerEntries") return ok({ latestLedger: 20, entries: [] });
    return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "nope" } });
  });
  const chain = new ChainRpc(`http://127.0.0.1:${server.addr.port}/rpc`, {
    networkPassphrase: "Standalone Network ; February 2017",
  });
  try {
    const index = new BorrowerIndex(POOL, {});
    await index.sync(chain);
    assert.deepEqual(requests[0].filters, [{ type: "contract", contractIds: [POOL] }]);
    assert.deepEqual([...index.owners], [alice]);
  } finally {
    chain.close();
    await server.shutdown();
  }
});

/** A user-liquidation auction ledger entry (base64 LedgerEntryData) starting at `block`. */
function auctionEntry(user: string, block: number): { key: string; xdr: string } {
  const key = auctionKey(POOL, user);
  if (key.type !== "contractData") throw new Error("not contract data");
  const cd = key.contractData;
  const val = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("bid"), val: xdr.ScVal.scvMap([]) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("block"), val: xdr.ScVal.scvU32(block) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol("lot"), val: xdr.ScVal.scvMap([]) }),
  ]);
  const data = xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: xdr.ExtensionPoint.v0(),
      contract: cd.contract,
      key: cd.key,
      durability: cd.durability,
      val,
    }),
  );
  return { key: key.toXDR("base64"), xdr: data.toXDR("base64") };
}

Deno.test("BorrowerIndex: a restored index re-reads every owner (≤ 200 keys a request), checks its auctions on the chain, and keeps its owners when its cursor fell out of retention", async () => {
  const owners = Array.from({ length: 10_000 }, () => Keypair.random().publicKey());
  // Two auctions in the file: owners[0]'s still open on the chain (now from block 95), owners[1]'s
  // filled while the keeper was down.
  const open = auctionEntry(owners[0], 95);
  const fresh = Keypair.random().publicKey();
  const watched = Keypair.random().publicKey();
  // The saved cursor is at ledger 3; the RPC now keeps ledgers 100–120 only.
  const stale = `${(3n << 32n).toString().padStart(19, "0")}-0000000001`;
  const requests: { method: string; params: Record<string, unknown> }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.json();
    requests.push({ method: body.method, params: body.params });
    const ok = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
    if (body.method === "getHealth") {
      return ok({ status: "healthy", latestLedger: 120, oldestLedger: 100 });
    }
    if (body.method === "getEvents") {
      const p = body.params as { pagination?: { cursor?: string }; startLedger?: number };
      if (p.pagination?.cursor === stale) {
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          error: {
            code: -32600,
            message: "startLedger must be within the ledger range: 100 - 120",
          },
        });
      }
      const cursor = `${(120n << 32n).toString().padStart(19, "0")}-0000000000`;
      const events = p.startLedger === 100
        ? [event(110, [sym("borrow"), addr(ASSET), addr(fresh)])]
        : [];
      return ok({ events, cursor, latestLedger: 120, oldestLedger: 100 });
    }
    if (body.method === "getLedgerEntries") {
      const keys = body.params.keys as string[];
      const entries = keys.includes(open.key)
        ? [{ key: open.key, xdr: open.xdr, lastModifiedLedgerSeq: 95 }]
        : [];
      return ok({ latestLedger: 120, entries });
    }
    return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "nope" } });
  });
  const chain = new ChainRpc(`http://127.0.0.1:${server.addr.port}/rpc`, {
    networkPassphrase: "Standalone Network ; February 2017",
  });
  try {
    const index = new BorrowerIndex(POOL, {});
    index.restore({
      owners,
      auctions: {
        [owners[0]]: { block: 90, percent: 50 },
        [owners[1]]: { block: 91, percent: 60 },
      },
      cursor: stale,
      nextStart: null,
    });
    index.watch(watched);
    assert.equal(index.cursorLedger, 3);
    const r = await index.sync(chain);
    assert.equal(r.restarted, true, "the stale cursor was refused: rescan from the oldest ledger");
    const rescan = requests.filter((q) => q.method === "getEvents").at(-1)!;
    assert.equal(rescan.params.startLedger, 100);
    assert.equal(
      index.owners.size,
      10_002,
      "restored owners kept, the new one and the watched one added",
    );
    assert.ok(index.owners.has(fresh) && index.owners.has(watched));
    assert.equal(r.refreshed, 10_002, "every owner's positions re-read from the chain");
    const reads = requests.filter((q) => q.method === "getLedgerEntries");
    assert.equal(reads.length, 51, "10,002 positions and 2 auctions: 51 requests of ≤ 200 keys");
    assert.deepEqual(Object.fromEntries(index.auctions), {
      [owners[0]]: { block: 95, percent: 50 },
    }, "the filled auction dropped, the open one's block from the chain");
    assert.ok(reads.every((q) => (q.params.keys as string[]).length <= 200));
    assert.equal(index.cursorLedger, 120);
    // The snapshot to persist holds the owners and the new cursor, no balances.
    const snap = index.snapshot();
    assert.equal(snap.owners.length, 10_002);
    assert.equal(snap.cursor, `${(120n << 32n).toString().padStart(19, "0")}-0000000000`);
  } finally {
    chain.close();
    await server.shutdown();
  }
});

Deno.test("BorrowerIndex: revision moves with owners and auctions only; restore keeps excluded addresses out", () => {
  const [alice, keeper] = [Keypair.random().publicKey(), Keypair.random().publicKey()];
  const index = new BorrowerIndex(POOL, { exclude: [keeper] });
  assert.equal(index.revision, 0);
  index.restore({
    owners: [alice, keeper, POOL],
    auctions: { [alice]: { block: 5, percent: 50 }, [keeper]: { block: 1, percent: 1 } },
    cursor: null,
    nextStart: 42,
  });
  assert.deepEqual([...index.owners], [alice]);
  assert.deepEqual([...index.auctions.keys()], [alice]);
  assert.equal(index.cursorLedger, 42);
  const rev = index.revision;
  index.watch(alice); // already known
  assert.equal(index.revision, rev);
  index.watch(Keypair.random().publicKey());
  assert.equal(index.revision, rev + 1);
});
