/**
 * Conformance of the lending pool with the real Blend SDK (`@blend-capital/blend-sdk` 3.2.2,
 * which runs its own stellar-sdk 14 copy) over JSON-RPC against the local node: pool, reserves,
 * oracle and user loads; the SDK's health factor versus the pool's own underwater check on both
 * sides of 1.0; a full liquidation flow sent as real transactions (create → on-chain scaling vs
 * the SDK's `Auction.scale` → fills → positions) with contention; event discovery.
 */
import assert from "node:assert/strict";
import { Address, xdr } from "@stellar/stellar-sdk";
import {
  Auction,
  AuctionData,
  ContractReserve,
  PoolContractV2,
  poolEventV2FromEventResponse,
  PoolV2,
  Positions,
  PositionsEstimate,
  RequestType,
  ReserveData,
  ReserveV2,
} from "@blend-capital/blend-sdk";
import {
  callOp,
  contractCode,
  fillerWithCollateral,
  POOL_AND_ORACLE_ONLY,
  rpcCall,
  sendOp,
  simulateOp,
  withMarket,
} from "@vigil/testing/protocols/lending_pool_helpers";
import { MARKET_PRICES, POOL_PARAMS, RESERVE_CONFIGS } from "./market.ts";

const E7 = 10_000_000n;

function sdkHf(est: PositionsEstimate): number {
  return est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
}

Deno.test("Blend SDK loads the pool, its reserves, oracle and users over JSON-RPC", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async (fx) => {
    const { market } = fx;
    const c = market.contracts;
    const pool = await PoolV2.load(fx.network, c.lending_pool);
    assert.equal(pool.metadata.name, POOL_PARAMS.name);
    assert.equal(pool.metadata.admin, market.accounts.market_admin.public);
    assert.equal(pool.metadata.backstop, c.backstop);
    assert.equal(pool.metadata.oracle, c.oracle);
    assert.equal(pool.metadata.status, 0); // Active, set by the admin once the backstop is funded
    assert.equal(pool.metadata.backstopRate, POOL_PARAMS.backstop_take_rate);
    assert.equal(pool.metadata.maxPositions, POOL_PARAMS.max_positions);
    assert.equal(pool.metadata.minCollateral, POOL_PARAMS.min_collateral);
    assert.match(pool.metadata.wasmHash, /^[0-9a-f]{64}$/);
    assert.deepEqual(pool.metadata.reserveList, [c.usdc, c.xlm, c.weth]);
    for (const [i, name] of ["usdc", "xlm", "weth"].entries()) {
      const r = pool.reserves.get(c[name])!;
      assert.equal(r.config.index, i);
      assert.equal(r.config.c_factor, RESERVE_CONFIGS[name].c_factor);
      assert.equal(r.config.l_factor, RESERVE_CONFIGS[name].l_factor);
      assert.ok(r.totalSupply() > 0n, `${name} has deposits`);
      assert.ok(r.totalLiabilities() > 0n, `${name} is borrowed`);
      assert.ok(r.borrowApr > 0, `${name} has a borrow rate`);
    }

    const oracle = await pool.loadOracle();
    assert.equal(oracle.decimals, 7);
    for (const name of ["usdc", "xlm", "weth"]) {
      assert.equal(oracle.getPrice(c[name]), MARKET_PRICES[name]);
    }

    for (const b of market.borrowers) {
      const user = await pool.loadUser(b.public);
      // The SDK's positions equal the pool's own get_positions (read by simulation).
      const sim = await simulateOp(
        fx.node,
        callOp(c.lending_pool, "get_positions", new Address(b.public).toScVal()),
      );
      assert.ok(sim.ok);
      const own = Positions.fromScVal(sim.retval.toXDR("base64"));
      assert.deepEqual([...user.positions.collateral], [...own.collateral]);
      assert.deepEqual([...user.positions.liabilities], [...own.liabilities]);
      for (const [token, amount] of Object.entries(b.collateral)) {
        const idx = pool.reserves.get(c[token])!.config.index;
        assert.equal(user.positions.collateral.get(idx), amount); // b_rate was 1.0 at deposit
      }
      const est = PositionsEstimate.build(pool, oracle, user.positions);
      assert.ok(Math.abs(sdkHf(est) - Number(b.hf) / 1e7) < 1e-4, `${b.name} HF ${sdkHf(est)}`);
    }
  });
});

Deno.test("SDK health factor agrees with the pool's underwater check on both sides of 1.0", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async (fx) => {
    const { market, node } = fx;
    const c = market.contracts;
    // XLM -5% over the node's JSON-RPC control method.
    const shock = await rpcCall<{ price: string; previous: string }>(node, "localnet_shock", {
      asset: c.xlm,
      bps: -500,
    });
    assert.equal(BigInt(shock.previous), MARKET_PRICES.xlm);
    assert.equal(BigInt(shock.price), (MARKET_PRICES.xlm * 9500n) / 10000n);

    const pool = await PoolV2.load(fx.network, c.lending_pool);
    const oracle = await pool.loadOracle();
    assert.equal(oracle.getPrice(c.xlm), BigInt(shock.price));
    const poolClient = new PoolContractV2(c.lending_pool);
    let under = 0, over = 0;
    for (const b of market.borrowers) {
      const user = await pool.loadUser(b.public);
      const hf = sdkHf(PositionsEstimate.build(pool, oracle, user.positions));
      const reserves = [...pool.reserves.keys()];
      const sim = await simulateOp(
        node,
        poolClient.newAuction({
          auction_type: 0,
          user: b.public,
          bid: [...user.positions.liabilities.keys()].map((i) => reserves[i]),
          lot: [...user.positions.collateral.keys()].map((i) => reserves[i]),
          percent: 100,
        }),
      );
      const code = sim.ok ? undefined : contractCode(sim.error);
      if (hf < 1) {
        under++;
        // Underwater: the auction is created, or refused only for its size (1213 too large /
        // 1214 too small, Blend's post-liquidation band), never as healthy (1211) or by a trap.
        assert.ok(
          sim.ok || code === 1213 || code === 1214,
          `${b.name} (SDK HF ${hf}) must be liquidatable: ${sim.ok ? "" : sim.error}`,
        );
      } else {
        over++;
        assert.equal(code, 1211, `${b.name} (SDK HF ${hf}) must not be liquidatable`);
      }
    }
    assert.ok(under >= 2 && over >= 2, `both sides covered (${under} under, ${over} over)`);
  });
});

Deno.test("liquidation over JSON-RPC: create, on-chain scaling = SDK Auction.scale, fills, contention", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async (fx) => {
    const { market, node } = fx;
    const c = market.contracts;
    const victim = market.borrowers.find((b) => b.name === "borrower_xlm_1")!;
    await rpcCall(node, "localnet_shock", { asset: c.xlm, bps: -500 });
    const poolClient = new PoolContractV2(c.lending_pool);
    const keeper = await node.newAccount(1000n);
    const filler = await fillerWithCollateral(fx, 100_000n * E7);

    // Pick a percent the pool accepts (the auctioneer bot retries on 1213/1214 the same way).
    let percent = 0;
    for (let p = 5; p <= 100; p += 5) {
      const op = poolClient.newAuction({
        auction_type: 0,
        user: victim.public,
        bid: [c.usdc],
        lot: [c.xlm],
        percent: p,
      });
      const sim = await simulateOp(node, op);
      if (sim.ok) {
        percent = p;
        break;
      }
      assert.ok([1213, 1214].includes(contractCode(sim.error)!), sim.error);
    }
    assert.ok(percent > 0, "some percent is accepted");
    const created = await sendOp(
      node,
      keeper,
      poolClient.newAuction({
        auction_type: 0,
        user: victim.public,
        bid: [c.usdc],
        lot: [c.xlm],
        percent,
      }),
    );
    assert.equal(created.status, "SUCCESS");
    const createdLedger = (created as { ledger: number }).ledger;

    // The auction as the auctioneer bot reads it: the temporary ledger entry.
    const key = xdr.LedgerKey.fromXDR(
      AuctionData.ledgerKey(c.lending_pool, { auct_type: 0, user: victim.public }).toXDR("base64"),
      "base64",
    );
    const entries = await node.server.getLedgerEntries(key);
    assert.equal(entries.entries.length, 1);
    const auction = AuctionData.fromLedgerEntryData(entries.entries[0].val.toXDR("base64"));
    assert.equal(auction.block, createdLedger + 1);
    assert.equal(
      auction.bid.get(c.usdc),
      (victim.debt.usdc * BigInt(percent) * 100_000n + E7 - 1n) / E7,
    );
    // get_auction (built by hand: the SDK's getAuction builder is broken, see blend.md)
    const got = await simulateOp(
      node,
      callOp(
        c.lending_pool,
        "get_auction",
        xdr.ScVal.scvU32(0),
        new Address(victim.public).toScVal(),
      ),
    );
    assert.ok(got.ok);
    assert.deepEqual(AuctionData.fromScVal(got.retval.toXDR("base64")), auction);
    // A second auction for the same user: 1212
    const dup = await simulateOp(
      node,
      poolClient.newAuction({
        auction_type: 0,
        user: victim.public,
        bid: [c.usdc],
        lot: [c.xlm],
        percent,
      }),
    );
    assert.equal(dup.ok ? undefined : contractCode(dup.error), 1212);

    // On-chain scaling at Δ 0/100/200/300/400 equals the SDK's Auction.scale.
    const sdkAuction = new Auction(victim.public, 0, auction);
    const pool0 = await PoolV2.load(fx.network, c.lending_pool);
    const before = (await pool0.loadUser(filler.publicKey())).positions;
    const fillOp = (pct: number) =>
      poolClient.submit({
        from: filler.publicKey(),
        spender: filler.publicKey(),
        to: filler.publicKey(),
        requests: [{
          request_type: RequestType.FillUserLiquidationAuction,
          address: victim.public,
          amount: BigInt(pct),
        }],
      });
    for (const delta of [0, 100, 200, 300]) {
      // Simulation runs at latest + 1, like stellar-rpc's preflight.
      const target = auction.block + delta;
      const latest = node.latestLedger().sequence;
      if (latest + 1 < target) await node.closeLedgers(target - latest - 1);
      assert.equal(node.latestLedger().sequence + 1, target);
      const sim = await simulateOp(node, fillOp(100), filler.publicKey());
      assert.ok(sim.ok, sim.ok ? "" : sim.error);
      const after = Positions.fromScVal(sim.retval.toXDR("base64"));
      const [expected] = sdkAuction.scale(target, 100);
      const lotIdx = pool0.reserves.get(c.xlm)!.config.index;
      const bidIdx = pool0.reserves.get(c.usdc)!.config.index;
      const lotGot = (after.collateral.get(lotIdx) ?? 0n) - (before.collateral.get(lotIdx) ?? 0n);
      const bidGot = (after.liabilities.get(bidIdx) ?? 0n) - (before.liabilities.get(bidIdx) ?? 0n);
      assert.equal(lotGot, expected.data.lot.get(c.xlm), `lot at Δ${delta}`);
      assert.equal(bidGot, expected.data.bid.get(c.usdc), `bid at Δ${delta}`);
      if (delta === 0) assert.equal(lotGot, 0n);
      if (delta >= 200) assert.equal(lotGot, auction.lot.get(c.xlm));
      if (delta === 300) assert.equal(bidGot, (auction.bid.get(c.usdc)! + 1n) / 2n);
    }

    // Real fills at Δ 300 (50%), then Δ 400 (the rest, bid scaled to 0), checking positions.
    const victimBefore =
      (await (await PoolV2.load(fx.network, c.lending_pool)).loadUser(victim.public)).positions;
    const half = await sendOp(node, filler, fillOp(50));
    assert.equal(half.status, "SUCCESS");
    const halfLedger = (half as { ledger: number }).ledger;
    const [halfExpected, remaining] = sdkAuction.scale(halfLedger, 50);
    const poolA = await PoolV2.load(fx.network, c.lending_pool);
    const fillerA = (await poolA.loadUser(filler.publicKey())).positions;
    const victimA = (await poolA.loadUser(victim.public)).positions;
    assert.equal(fillerA.collateral.get(1), halfExpected.data.lot.get(c.xlm));
    assert.equal(fillerA.liabilities.get(0) ?? 0n, halfExpected.data.bid.get(c.usdc) ?? 0n);
    assert.equal(
      victimA.collateral.get(1),
      victimBefore.collateral.get(1)! - halfExpected.data.lot.get(c.xlm)!,
    );
    assert.ok(remaining, "half an auction remains");

    const remainingAuction = new Auction(victim.public, 0, remaining!.data);
    const target400 = auction.block + 400;
    await node.closeLedgers(target400 - node.latestLedger().sequence - 1);
    const sim400 = await simulateOp(node, fillOp(100), filler.publicKey());
    assert.ok(sim400.ok);
    const after400 = Positions.fromScVal(sim400.retval.toXDR("base64"));
    const [expected400] = remainingAuction.scale(target400, 100);
    assert.equal(expected400.data.bid.get(c.usdc), 0n);
    assert.equal(after400.liabilities.get(0), fillerA.liabilities.get(0), "bid is free at Δ400");
    assert.equal(
      after400.collateral.get(1),
      fillerA.collateral.get(1)! + expected400.data.lot.get(c.xlm)!,
      "lot at Δ400",
    );

    const rest = await sendOp(node, filler, fillOp(100));
    assert.equal(rest.status, "SUCCESS");
    const gone = await node.server.getLedgerEntries(key);
    assert.equal(gone.entries.length, 0, "auction removed after the full fill");

    // Contention: another keeper's fill of the finished auction fails (a trap, not a pool error).
    const late = await fillerWithCollateral(fx, 10_000n * E7);
    const lateSim = await simulateOp(
      node,
      poolClient.submit({
        from: late.publicKey(),
        spender: late.publicKey(),
        to: late.publicKey(),
        requests: [{
          request_type: RequestType.FillUserLiquidationAuction,
          address: victim.public,
          amount: 100n,
        }],
      }),
      late.publicKey(),
    );
    assert.equal(lateSim.ok, false);
    if (!lateSim.ok) {
      assert.equal(contractCode(lateSim.error), undefined, lateSim.error);
      assert.match(lateSim.error, /WasmVm|InvalidAction/);
    }

    // Events: the SDK parses new_auction and both fill_auction events; borrowers are discoverable.
    const raw = await node.server._getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [c.lending_pool] }],
      limit: 1000,
    });
    const events = raw.events.map((e) => poolEventV2FromEventResponse(e as never)).filter((e) => e);
    const types = events.map((e) => e!.eventType);
    assert.ok(types.includes("new_auction" as never));
    assert.equal(types.filter((t) => t === ("fill_auction" as never)).length, 2);
    const borrowersSeen = new Set(
      events.filter((e) => e!.eventType === ("borrow" as never)).map((e) =>
        (e as { from: string }).from
      ),
    );
    for (const b of market.borrowers) {
      assert.ok(borrowersSeen.has(b.public), `${b.name} discoverable`);
    }
  });
});

Deno.test("contract.Client reads the served spec; get_reserve accrual equals the SDK's after a day", async () => {
  await withMarket(POOL_AND_ORACLE_ONLY, async (fx) => {
    const { market, node } = fx;
    const c = market.contracts;
    // deno-lint-ignore no-explicit-any
    const client: any = await node.clientFor(c.lending_pool);
    const cfg = (await client.get_config()).result;
    assert.equal(cfg.oracle, c.oracle);
    assert.equal(cfg.status, 0);
    assert.deepEqual((await client.get_reserve_list()).result, [c.usdc, c.xlm, c.weth]);
    assert.equal((await client.get_admin()).result, market.accounts.market_admin.public);
    assert.equal((await client.get_reserve_emissions({ reserve_token_index: 0 })).result, null);

    await node.advanceTime(86_400);
    // Stored (last written) reserve data, read the way the SDK reads it.
    const key = xdr.LedgerKey.fromXDR(
      ReserveData.ledgerKey(c.lending_pool, c.usdc).toXDR("base64"),
      "base64",
    );
    const stored = ReserveData.fromLedgerEntryData(
      (await node.server.getLedgerEntries(key)).entries[0].val.toXDR("base64"),
    );
    const sim = await simulateOp(
      node,
      callOp(c.lending_pool, "get_reserve", new Address(c.usdc).toScVal()),
    );
    assert.ok(sim.ok);
    const onChain = ContractReserve.fromScVal(sim.retval.toXDR("base64"));
    const storedDRate = stored.dRate; // (the SDK reserve below accrues `stored` in place)
    const t = Number(onChain.data.lastTime);
    assert.ok(t >= Number(stored.lastTime) + 86_400, "accrued over the day");
    const pool = await PoolV2.load(fx.network, c.lending_pool);
    const cfgV2 = pool.reserves.get(c.usdc)!.config;
    const sdk = new ReserveV2(
      c.lending_pool,
      c.usdc,
      cfgV2,
      stored,
      undefined,
      undefined,
      0,
      0,
      0,
      0,
      0,
    );
    sdk.accrue(BigInt(POOL_PARAMS.backstop_take_rate), t);
    assert.equal(onChain.data.dRate, sdk.data.dRate);
    assert.equal(onChain.data.bRate, sdk.data.bRate);
    // The one difference between the Blend SDK's estimate and the pool: below the target
    // utilization the pool rounds the ir_mod step toward zero (Rust `fixed_mul_ceil` of a
    // negative product), the SDK rounds its magnitude up — so the pool's modifier is the SDK's or
    // one unit above it (issue 21's list of differences; the keeper does not read ir_mod).
    const irDiff = onChain.data.interestRateModifier - sdk.data.interestRateModifier;
    assert.ok(irDiff === 0n || irDiff === 1n, `ir_mod pool − SDK = ${irDiff}`);
    assert.equal(onChain.data.backstopCredit, sdk.data.backstopCredit);
    assert.ok(onChain.data.dRate > storedDRate, "interest accrued");
  });
});
