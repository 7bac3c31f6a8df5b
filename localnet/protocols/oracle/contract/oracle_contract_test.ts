/**
 * The SEP-40 oracle Wasm (`contracts/wasm/oracle.wasm`) over JSON-RPC on a fresh node: every
 * read, every error, admin auth (a transaction whose admin auth entry is signed by another key is
 * refused by the node), one record per round, history for `price(asset, t)` and `prices`,
 * staleness (None after 2 × resolution without a round), events, TTLs, malformed assets, and the
 * cost of `lastprice` (the call every Blend pool makes per reserve).
 */
import { sendAssembled } from "@vigil/testing/submit";
import assert from "node:assert/strict";
import {
  Address,
  authorizeEntry,
  Keypair,
  Operation,
  rpc,
  scValToNative,
  StrKey,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { worldWasmPath as wasmPath } from "../../world_contracts.ts";
import { type AssetArg, OracleError, otherAsset, type PriceData, stellarAsset } from "./spec.ts";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { submitHostile } from "@vigil/testing/submit";

// deno-lint-ignore no-explicit-any
type AnyClient = any;

const RES = 300;
const R = BigInt(RES);
/** Wide time bounds: the tests move ledger time past the wall clock. */
const LATE = { timeoutInSeconds: 30 * 86400 };
/** The oracle's TTL policy (localnet/protocols/oracle/contract/assembly/index.ts). */
const TTL_THRESHOLD = 17_280 * 30;

interface Oracle {
  node: TestNode;
  id: string;
  admin: Keypair;
  /** A client signing as the admin. */
  client: AnyClient;
  /** Two listed token assets (random contract ids: the oracle never calls them). */
  a: AssetArg;
  b: AssetArg;
}

const randomContract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));

async function withOracle(fn: (o: Oracle) => Promise<void>): Promise<void> {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const a = stellarAsset(randomContract());
  const b = stellarAsset(randomContract());
  const id = await node.deployWasm(await Deno.readFile(wasmPath("oracle")), {
    admin: admin.publicKey(),
    base: otherAsset("USD"),
    assets: [a, b],
    decimals: 7,
    resolution: RES,
  });
  const client = await node.clientFor<AnyClient>(id, admin);
  await fn({ node, id, admin, client, a, b });
}

/** Signs and sends; asserts success (an included FAILED transaction throws). */
async function send(tx: AnyClient): Promise<void> {
  await sendAssembled(tx);
}

/** The contract error code of a failed simulation, or undefined. */
function simError(tx: AnyClient): string {
  const sim = tx.simulation;
  assert.ok(sim && rpc.Api.isSimulationError(sim), "simulation should fail");
  return sim.error;
}

const code = (error: string): number | undefined => {
  const m = /Error\(Contract, #(\d+)\)/.exec(error);
  return m ? Number(m[1]) : undefined;
};

/** Ledger time a read sees: the latest close time (+1 in simulation, same round here). */
const now = (node: TestNode) => node.latestLedger().closeTime;
const roundOf = (t: bigint) => (t / R) * R;

/** Moves ledger time to the start of the next round plus `into` seconds. */
async function nextRound(node: TestNode, into = 5): Promise<void> {
  const t = now(node);
  await node.advanceTime(Number(roundOf(t) + R - t) + into);
}

const lastprice = async (c: AnyClient, a: AssetArg): Promise<PriceData | null> =>
  (await c.lastprice({ asset: a })).result;

Deno.test("oracle: constructor state and reads before any price (None everywhere)", async () => {
  await withOracle(async ({ node, client, admin, a, b }) => {
    assert.equal((await client.admin()).result, admin.publicKey());
    assert.deepEqual((await client.base()).result, otherAsset("USD"));
    assert.deepEqual((await client.assets()).result, [a, b]);
    assert.equal((await client.decimals()).result, 7);
    assert.equal((await client.resolution()).result, RES);
    assert.equal((await client.version()).result, 4);
    const lt = (await client.last_timestamp()).result as bigint;
    assert.equal(lt, roundOf(now(node) + 1n));
    // Listed but never priced, and never listed: None.
    const unknown = stellarAsset(randomContract());
    for (const x of [a, unknown, otherAsset("EUR")]) {
      assert.equal(await lastprice(client, x), null);
      assert.equal((await client.price({ asset: x, timestamp: now(node) })).result, null);
      assert.equal((await client.prices({ asset: x, records: 5 })).result, null);
    }
  });
});

Deno.test("oracle: constructor refuses decimals > 18 and resolution 0 (InvalidConfig)", async () => {
  await using node = await startTestNode();
  const wasm = await Deno.readFile(wasmPath("oracle"));
  const args = {
    admin: Keypair.random().publicKey(),
    base: otherAsset("USD"),
    assets: [],
    decimals: 7,
    resolution: RES,
  };
  const ic = `Error(Contract, #${OracleError.InvalidConfig})`;
  await assert.rejects(() => node.deployWasm(wasm, { ...args, decimals: 19 }), (e: Error) => {
    assert.ok(e.message.includes(ic), e.message);
    return true;
  });
  await assert.rejects(() => node.deployWasm(wasm, { ...args, resolution: 0 }), (e: Error) => {
    assert.ok(e.message.includes(ic), e.message);
    return true;
  });
  assert.match(await node.deployWasm(wasm, { ...args, decimals: 18, resolution: 1 }), /^C/);
});

Deno.test("oracle: set_price publishes the current round; unknown assets get listed; an update event", async () => {
  await withOracle(async ({ node, id, client, a }) => {
    const start = node.latestLedger().sequence;
    await send(await client.set_price({ asset: a, price: 1_234_567n }));
    const lp = await lastprice(client, a);
    assert.ok(lp);
    assert.equal(lp.price, 1_234_567n);
    assert.equal(lp.timestamp, roundOf(now(node) + 1n));
    // A price for an asset not listed at construction lists it.
    const eur = otherAsset("EUR");
    await send(await client.set_price({ asset: eur, price: 10_800_000n }));
    assert.equal((await client.assets()).result.length, 3);
    assert.deepEqual((await client.assets()).result[2], eur);
    assert.equal((await lastprice(client, eur))?.price, 10_800_000n);
    // Setting again does not list it twice.
    await send(await client.set_price({ asset: eur, price: 10_900_000n }));
    assert.equal((await client.assets()).result.length, 3);

    const ev = await node.server.getEvents({
      startLedger: start,
      filters: [{ type: "contract", contractIds: [id] }],
    });
    const updates = ev.events.filter((e) =>
      e.topic.map((t) => scValToNative(t)).join(",") === "REFLECTOR,update"
    );
    assert.equal(updates.length, 3);
    const [asset, price, round] = scValToNative(updates[0].value) as [string[], bigint, bigint];
    assert.deepEqual(asset, ["Stellar", a.values[0]]);
    assert.equal(price, 1_234_567n);
    assert.equal(round % R, 0n);
  });
});

Deno.test("oracle: set_price refuses price <= 0 (InvalidPrice) and set_feed an unpriced asset (AssetMissing)", async () => {
  await withOracle(async ({ client, a }) => {
    for (const price of [0n, -5n]) {
      const tx = await client.set_price({ asset: a, price });
      assert.equal(code(simError(tx)), OracleError.InvalidPrice);
    }
    const tx = await client.set_feed({ asset: a, live: false });
    assert.equal(code(simError(tx)), OracleError.AssetMissing);
  });
});

Deno.test("oracle: admin auth — another key cannot set prices or stop feeds, even signing the admin's entry", async () => {
  await withOracle(async ({ node, id, admin, client, a }) => {
    await send(await client.set_price({ asset: a, price: 1_000_000n }));
    const mallory = await node.newAccount();
    const bad: AnyClient = await node.clientFor(id, mallory);
    for (
      const tx of [
        await bad.set_price({ asset: a, price: 1n }),
        await bad.set_feed({ asset: a, live: false }),
      ]
    ) {
      // The only auth the call needs is the admin's.
      assert.deepEqual(tx.needsNonInvokerSigningBy(), [admin.publicKey()]);
      await assert.rejects(() => tx.signAndSend());
    }
    // Mallory signs the admin's auth entry with her own key and sends it: the node refuses it.
    const sim = await bad.set_price({ asset: a, price: 1n });
    const built = sim.built!;
    const op = built.operations[0] as Operation.InvokeHostFunction;
    const latest = node.latestLedger().sequence;
    const forged = await Promise.all(
      (op.auth ?? []).map((e: xdr.SorobanAuthorizationEntry) =>
        authorizeEntry(e, mallory, latest + 100, node.networkPassphrase)
      ),
    );
    const account = await node.server.getAccount(mallory.publicKey());
    const tx = new TransactionBuilder(account, {
      fee: "10000000",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(Operation.invokeHostFunction({ func: op.func, auth: forged }))
      .setSorobanData(sim.simulationData.transactionData)
      .setTimeout(0).build();
    tx.sign(mallory);
    assert.notEqual(await submitHostile(node.server, tx), "succeeded");
    assert.equal((await lastprice(client, a))?.price, 1_000_000n);
    // The admin itself can.
    await send(await client.set_feed({ asset: a, live: false }));
  });
});

Deno.test("oracle: one record per round; price(asset, t) and prices(asset, n) read the history", async () => {
  await withOracle(async ({ node, client, a }) => {
    await nextRound(node);
    const r0 = roundOf(now(node) + 1n);
    await send(await client.set_price({ asset: a, price: 100n }));
    // Same round: replaces, no second record.
    await send(await client.set_price({ asset: a, price: 110n }));
    await nextRound(node); // r0 + R: carries 110
    await nextRound(node); // r0 + 2R: 120
    await send(await client.set_price({ asset: a, price: 120n }, LATE));
    const r2 = r0 + 2n * R;
    assert.equal(roundOf(now(node) + 1n), r2);

    const at = async (t: bigint) => (await client.price({ asset: a, timestamp: t })).result;
    assert.equal(await at(r0 - 1n), null, "before the first round");
    assert.deepEqual(await at(r0), { price: 110n, timestamp: r0 });
    assert.deepEqual(await at(r0 + R - 1n), { price: 110n, timestamp: r0 });
    assert.deepEqual(await at(r0 + R + 7n), { price: 110n, timestamp: r0 + R }, "carried round");
    assert.deepEqual(await at(r2 + 3n), { price: 120n, timestamp: r2 });
    assert.equal(await at(r2 + R), null, "a future round");

    const hist = (await client.prices({ asset: a, records: 5 })).result as PriceData[];
    assert.deepEqual(hist, [
      { price: 120n, timestamp: r2 },
      { price: 110n, timestamp: r0 + R },
      { price: 110n, timestamp: r0 },
    ]);
    assert.deepEqual((await client.prices({ asset: a, records: 1 })).result, [hist[0]]);
    assert.deepEqual((await client.prices({ asset: a, records: 0 })).result, null);

    // 31 more rounds with a price each (33 changes): prices() stops at 20 records.
    for (let i = 0; i < 31; i++) {
      await nextRound(node);
      await send(await client.set_price({ asset: a, price: 200n + BigInt(i) }, LATE));
    }
    const many = (await client.prices({ asset: a, records: 100 })).result as PriceData[];
    assert.equal(many.length, 20);
    assert.equal(many[0].price, 230n);
    assert.equal(many[19].price, 211n);
    // The history keeps the newest 32 changes: r0's price is gone, r2's is still there.
    assert.equal(await at(r0), null);
    assert.deepEqual(await at(r2), { price: 120n, timestamp: r2 });
  });
});

Deno.test("oracle: a stopped feed is fresh for 2 × resolution, then None; resuming republishes", async () => {
  await withOracle(async ({ node, client, a, b }) => {
    // Early in a round: the prices and the stop below must fall in the same round.
    await nextRound(node);
    await send(await client.set_price({ asset: a, price: 5_000_000n }, LATE));
    await send(await client.set_price({ asset: b, price: 7_000_000n }, LATE));
    const stopped = roundOf(now(node) + 1n);
    await send(await client.set_feed({ asset: a, live: false }, LATE));
    await node.advanceTime(RES);
    assert.deepEqual(await lastprice(client, a), { price: 5_000_000n, timestamp: stopped });
    await node.advanceTime(RES + 1);
    assert.equal(await lastprice(client, a), null);
    assert.equal((await client.prices({ asset: a, records: 3 })).result, null);
    // History still answers for the rounds it published, not after them.
    assert.deepEqual(
      (await client.price({ asset: a, timestamp: stopped })).result,
      { price: 5_000_000n, timestamp: stopped },
    );
    assert.equal((await client.price({ asset: a, timestamp: now(node) })).result, null);
    // A live feed stays fresh.
    assert.equal((await lastprice(client, b))?.price, 7_000_000n);

    await send(await client.set_feed({ asset: a, live: true }, LATE));
    assert.deepEqual(await lastprice(client, a), {
      price: 5_000_000n,
      timestamp: roundOf(now(node) + 1n),
    });
    // Resuming a live feed changes nothing.
    await send(await client.set_feed({ asset: a, live: true }, LATE));
    // Rounds from the resumed one back to the stopped one, all at the last price.
    const hist = (await client.prices({ asset: a, records: 20 })).result as PriceData[];
    assert.equal(hist[0].timestamp, roundOf(now(node) + 1n));
    assert.equal(hist.at(-1)!.timestamp, stopped);
    assert.equal(hist.length, Number((hist[0].timestamp - stopped) / R) + 1);
    assert.ok(hist.every((p) => p.price === 5_000_000n));
  });
});

Deno.test("oracle: set_price extends the feed entry and the instance TTL", async () => {
  // New entries get 10,000 ledgers: only the contract's extension can bring them past 30 days.
  await using node = await startTestNode({ network: { minPersistentTtl: 10_000 } });
  const admin = await node.newAccount();
  const a = stellarAsset(randomContract());
  const id = await node.deployWasm(await Deno.readFile(wasmPath("oracle")), {
    admin: admin.publicKey(),
    base: otherAsset("USD"),
    assets: [],
    decimals: 7,
    resolution: RES,
  });
  const client: AnyClient = await node.clientFor(id, admin);
  await send(await client.set_price({ asset: a, price: 1n }));
  const feedKey = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvVec([
        xdr.ScVal.scvSymbol("Feed"),
        xdr.ScVal.scvVec([
          xdr.ScVal.scvSymbol("Stellar"),
          Address.fromString(a.values[0]).toScVal(),
        ]),
      ]),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  const instKey = xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(id).toScAddress(),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );
  const got = await node.server.getLedgerEntries(feedKey, instKey);
  assert.equal(got.entries.length, 2);
  for (const e of got.entries) {
    assert.ok(e.liveUntilLedgerSeq! - got.latestLedger >= TTL_THRESHOLD, "TTL ≥ 30 days");
  }
});

Deno.test("oracle: a malformed Asset traps (not a contract error) and stores nothing", async () => {
  await withOracle(async ({ node, id, admin }) => {
    const bad = [
      xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Foo"), xdr.ScVal.scvSymbol("USD")]),
      xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Stellar"), xdr.ScVal.scvSymbol("USD")]),
      xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Other")]),
      xdr.ScVal.scvU32(1),
    ];
    for (const asset of bad) {
      for (
        const [fn, args] of [
          ["lastprice", [asset]],
          ["set_price", [
            asset,
            xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: 0n, lo: 5n } as never)),
          ]],
        ] as const
      ) {
        const tx = new TransactionBuilder(await node.server.getAccount(admin.publicKey()), {
          fee: "1000",
          networkPassphrase: node.networkPassphrase,
        }).addOperation(
          Operation.invokeContractFunction({ contract: id, function: fn, args: [...args] }),
        )
          .setTimeout(0).build();
        const sim = await node.server.simulateTransaction(tx);
        assert.ok(rpc.Api.isSimulationError(sim), `${fn} should fail`);
        assert.equal(code(sim.error), undefined, sim.error);
        assert.match(sim.error, /WasmVm|UnreachableCodeReached|InvalidAction/);
      }
    }
  });
});

Deno.test("oracle: lastprice costs (instructions, read bytes) for a live feed with a full history", async () => {
  await withOracle(async ({ node, client, a }) => {
    for (let i = 0; i < 33; i++) {
      await nextRound(node);
      await send(await client.set_price({ asset: a, price: 1_000_000n + BigInt(i) }, LATE));
    }
    const tx = await client.lastprice({ asset: a });
    const sim = tx.simulation as rpc.Api.SimulateTransactionSuccessResponse;
    const res = sim.transactionData.build().resources;
    const insns = Number(res.instructions);
    console.log(`lastprice: ${insns} instructions, ${res.diskReadBytes} bytes read`);
    // Blend's pool calls lastprice once per reserve inside every submit: it must stay cheap.
    assert.ok(insns < 2_000_000, `lastprice costs ${insns} instructions`);
    assert.equal(tx.result.price, 1_000_032n);
  });
});
