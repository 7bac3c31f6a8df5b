/**
 * The market's SEP-40 / Reflector oracle (the Wasm `contracts/wasm/oracle.wasm`) over JSON-RPC: reads through `contract.Client` and the
 * Blend SDK's own oracle readers, admin-only `set_price`, history, and staleness as Reflector
 * does it (None after 2 × resolution without a round), with the pool's and the SDK's reactions.
 */
import { sendAssembled } from "@vigil/testing/submit";
import assert from "node:assert/strict";
import { Address, Keypair, scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  getOracleDecimals,
  getOraclePrice,
  PoolContractV2,
  PoolV2,
} from "@blend-capital/blend-sdk";
import { otherAsset, stellarAsset } from "./contract/spec.ts";
import {
  callOp,
  contractCode,
  POOL_AND_ORACLE_ONLY,
  simulateOp,
  withMarket,
} from "@vigil/testing/protocols/lending_pool_helpers";
import { MARKET_PRICES, ORACLE_RESOLUTION } from "../../scenarios/market.ts";

// deno-lint-ignore no-explicit-any
type AnyClient = any;

/** Time bounds wide enough after `advanceTime` moved ledger time past the wall clock. */
const LATE = { timeoutInSeconds: 24 * 3600 };

const assetScVal = (id: string) =>
  xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Stellar"), new Address(id).toScVal()]);

Deno.test("oracle reads: decimals, resolution, base, lastprice (client, raw and Blend SDK)", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async ({ node, market, network }) => {
    const c = market.contracts;
    const client: AnyClient = await node.clientFor(c.oracle);
    assert.equal((await client.decimals()).result, 7);
    assert.equal((await client.resolution()).result, ORACLE_RESOLUTION);
    assert.deepEqual((await client.base()).result, otherAsset("USD"));
    assert.equal((await client.assets()).result.length, 3);
    const now = node.latestLedger().closeTime;
    const lp = (await client.lastprice({ asset: stellarAsset(c.weth) })).result;
    assert.equal(lp.price, MARKET_PRICES.weth);
    assert.ok(lp.timestamp <= now + 5n && lp.timestamp > now - BigInt(ORACLE_RESOLUTION) - 5n);
    assert.equal(lp.timestamp % BigInt(ORACLE_RESOLUTION), 0n, "round timestamps");
    // Unknown asset: None
    const unknown = Keypair.random().publicKey();
    assert.equal((await client.lastprice({ asset: stellarAsset(unknown) })).result, null);

    // Raw result is the sorted ScMap {price, timestamp} that the Blend SDK reads positionally.
    const raw = await simulateOp(node, callOp(c.oracle, "lastprice", assetScVal(c.xlm)));
    assert.ok(raw.ok);
    if (raw.ok) {
      // deno-lint-ignore no-explicit-any
      const keys = (raw.retval as any).map.map((e: any) =>
        new TextDecoder().decode(e.key.sym.bytes ?? e.key.sym)
      );
      assert.deepEqual(keys, ["price", "timestamp"]);
      assert.equal(scValToNative(raw.retval).price, MARKET_PRICES.xlm);
    }
    const sdkPrice = await getOraclePrice(network, c.oracle, c.usdc);
    assert.equal(sdkPrice.price, MARKET_PRICES.usdc);
    assert.equal((await getOracleDecimals(network, c.oracle)).decimals, 7);
  });
});

Deno.test("set_price is admin-only; prices() returns the newest rounds first", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async ({ node, market }) => {
    const c = market.contracts;
    const mallory = await node.newAccount(100n);
    const bad: AnyClient = await node.clientFor(c.oracle, mallory);
    const tx = await bad.set_price({ asset: stellarAsset(c.xlm), price: 1n });
    assert.deepEqual(tx.needsNonInvokerSigningBy(), [market.accounts.market_admin.public]);
    await assert.rejects(() => tx.signAndSend());
    const admin = Keypair.fromSecret(market.accounts.market_admin.secret);
    const client: AnyClient = await node.clientFor(c.oracle, admin);
    await sendAssembled(await client.set_price({ asset: stellarAsset(c.xlm), price: 2_000_000n }));
    assert.equal((await client.lastprice({ asset: stellarAsset(c.xlm) })).result.price, 2_000_000n);
    // Non-positive prices are refused by the oracle itself.
    const zero = await simulateOp(
      node,
      callOp(
        c.oracle,
        "set_price",
        assetScVal(c.xlm),
        xdr.ScVal.scvI128(
          new xdr.Int128Parts({ hi: 0n, lo: 0n } as never),
        ),
      ),
    );
    assert.equal(zero.ok ? undefined : contractCode(zero.error), 3);

    // Two rounds later: a new price; history newest first, one record per round.
    await node.advanceTime(ORACLE_RESOLUTION * 2);
    // Ledger time now runs ahead of the wall clock: widen the tx time bounds.
    await sendAssembled(
      await client.set_price({ asset: stellarAsset(c.xlm), price: 3_000_000n }, LATE),
    );
    const hist = (await client.prices({ asset: stellarAsset(c.xlm), records: 3 })).result;
    assert.equal(hist.length, 3);
    assert.deepEqual(hist.map((p: { price: bigint }) => p.price), [
      3_000_000n,
      2_000_000n,
      2_000_000n,
    ]);
    assert.equal(hist[0].timestamp - hist[1].timestamp, BigInt(ORACLE_RESOLUTION));
  });
});

Deno.test("stale feed: None after 2 × resolution; the pool traps, the Blend SDK refuses", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async ({ node, market, network }) => {
    const c = market.contracts;
    const admin = Keypair.fromSecret(market.accounts.market_admin.secret);
    const client: AnyClient = await node.clientFor(c.oracle, admin);
    // Stop the feed early in a round (5 s in): the stopped round then stays fresh for a whole
    // resolution more, whatever time the set-up took (it failed once in CI, stopped late in one).
    const res = BigInt(ORACLE_RESOLUTION);
    const t = node.latestLedger().closeTime;
    await node.advanceTime(Number(res - (t % res)) + 5);
    await sendAssembled(await client.set_feed({ asset: stellarAsset(c.xlm), live: false }));
    // Still fresh within 2 × resolution.
    await node.advanceTime(ORACLE_RESOLUTION);
    assert.ok((await client.lastprice({ asset: stellarAsset(c.xlm) })).result);
    await node.advanceTime(ORACLE_RESOLUTION + 1);
    assert.equal((await client.lastprice({ asset: stellarAsset(c.xlm) })).result, null);
    // A live asset stays fresh.
    assert.ok((await client.lastprice({ asset: stellarAsset(c.usdc) })).result);

    // The pool unwraps None: a trap, not a PoolError (e.g. a borrower adding debt).
    const b = market.borrowers.find((x) => x.collateral.xlm)!;
    const sim = await simulateOp(
      node,
      new PoolContractV2(c.lending_pool).submit({
        from: b.public,
        spender: b.public,
        to: b.public,
        requests: [{ request_type: 4, address: c.usdc, amount: 1n }],
      }),
      b.public,
    );
    assert.equal(sim.ok, false);
    if (!sim.ok) assert.equal(contractCode(sim.error), undefined, sim.error);
    // The Blend SDK's oracle load rejects when any price is missing.
    const pool = await PoolV2.load(network, c.lending_pool);
    await assert.rejects(() => pool.loadOracle());

    // Resuming the feed makes it fresh again.
    await sendAssembled(await client.set_feed({ asset: stellarAsset(c.xlm), live: true }, LATE));
    assert.equal(
      (await client.lastprice({ asset: stellarAsset(c.xlm) })).result.price,
      MARKET_PRICES.xlm,
    );
    await pool.loadOracle();
  });
});
