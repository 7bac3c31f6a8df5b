/**
 * Unit tests of the lending pool's Blend maths and rules against an in-memory host, with the
 * real `@blend-capital/blend-sdk` as the oracle of truth for accrual, auction scaling, storage
 * layouts and event shapes (only base64 XDR crosses between the two stellar-sdk copies).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Address, scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  Auction,
  AuctionData as SdkAuctionData,
  PoolConfig as SdkPoolConfig,
  poolEventV2FromEventResponse,
  Positions as SdkPositions,
  ReserveConfigV2,
  ReserveData as SdkReserveData,
  ReserveV2,
} from "@blend-capital/blend-sdk";
import { ContractError } from "../../contracts/sdk.ts";
import { lendingPool, PoolError, RequestType } from "../../localnet/protocols/lending_pool/mod.ts";
import { oracle, stellarAsset } from "./helpers/fake_oracle.ts";
import { accrue, makeReserve } from "../../localnet/protocols/lending_pool/reserve.ts";
import { scaleAuction } from "../../localnet/protocols/lending_pool/auctions.ts";
import {
  decodeAuction,
  decodePositions,
  encodeAuction,
  encodePoolConfig,
  encodePositions,
  encodeReserveConfig,
  encodeReserveData,
  keys,
  type ReserveConfig,
  type ReserveData,
} from "../../localnet/protocols/lending_pool/storage.ts";
import { address, items, symText } from "../../localnet/protocols/lending_pool/codec.ts";
import { fakeToken, FakeWorld, randomAccount } from "./lending_pool_fake_env.ts";

const E7 = 10_000_000n;
const POOL_ID = "CAFJZQWSED6YAWZU3GWRTOCNPPCGBN32L7QV43XX5LZLFTK6JLN34DLN";

function defaultConfig(over: Partial<ReserveConfig> = {}): ReserveConfig {
  return {
    c_factor: 7_500_000,
    decimals: 7,
    enabled: true,
    index: 0,
    l_factor: 7_500_000,
    max_util: 9_500_000,
    r_base: 100_000,
    r_one: 500_000,
    r_three: 15_000_000,
    r_two: 5_000_000,
    reactivity: 20,
    supply_cap: 10n ** 18n,
    util: 7_500_000,
    ...over,
  };
}

/** Wraps a contract-data value as base64 LedgerEntryData, as getLedgerEntries would return. */
function entryB64(key: xdr.ScVal, val: xdr.ScVal, temporary = false): string {
  // deno-lint-ignore no-explicit-any
  const X = xdr as any;
  const data = xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: X.ExtensionPoint.v0(),
      contract: new Address(POOL_ID).toScAddress(),
      key,
      durability: temporary
        ? X.ContractDataDurability.temporary
        : X.ContractDataDurability.persistent,
      val,
    } as never),
  );
  return data.toXDR("base64");
}

Deno.test("accrual matches Blend's contract test vector (pool/reserve.rs test_load_reserve)", () => {
  const r = makeReserve("CAAA", defaultConfig(), {
    b_rate: 1_123_456_789_000n,
    b_supply: 99n * E7,
    backstop_credit: 0n,
    d_rate: 1_345_678_123_000n,
    d_supply: 65n * E7,
    ir_mod: E7,
    last_time: 0n,
  });
  accrue(r, 2_000_000, 123456n * 5n);
  assert.equal(r.data.d_rate, 1_349_657_798_173n);
  assert.equal(r.data.b_rate, 1_125_547_124_242n);
  assert.equal(r.data.ir_mod, 1_0449815n);
  assert.equal(r.data.backstop_credit, 517357n);
  assert.equal(r.data.last_time, 617280n);
});

Deno.test("accrual equals the Blend SDK's ReserveV2.accrue (property)", () => {
  fc.assert(
    fc.property(
      fc.record({
        util: fc.integer({ min: 1_000_000, max: 9_000_000 }),
        rBase: fc.integer({ min: 1000, max: 500_000 }),
        rOne: fc.integer({ min: 0, max: 1_000_000 }),
        rTwo: fc.integer({ min: 1_000_000, max: 5_000_000 }),
        rThree: fc.integer({ min: 5_000_000, max: 20_000_000 }),
        reactivity: fc.integer({ min: 0, max: 1000 }),
        bSupply: fc.bigInt({ min: 1n, max: 10n ** 15n }),
        utilPct: fc.integer({ min: 0, max: 99 }),
        bRate: fc.bigInt({ min: 10n ** 12n, max: 2n * 10n ** 12n }),
        dRate: fc.bigInt({ min: 10n ** 12n, max: 2n * 10n ** 12n }),
        irMod: fc.bigInt({ min: 1_000_000n, max: 100_000_000n }),
        dt: fc.integer({ min: 0, max: 60 * 60 * 24 * 400 }),
        bstop: fc.integer({ min: 0, max: 5_000_000 }),
      }),
      (p) => {
        const config = defaultConfig({
          util: p.util,
          max_util: Math.max(p.util + 1, 9_500_000),
          r_base: p.rBase,
          r_one: p.rOne,
          r_two: p.rTwo,
          r_three: p.rThree,
          reactivity: p.reactivity,
        });
        const supplyAssets = (p.bSupply * p.bRate) / 10n ** 12n;
        const dSupply = ((supplyAssets * BigInt(p.utilPct)) / 100n) * 10n ** 12n / p.dRate;
        const data: ReserveData = {
          b_rate: p.bRate,
          b_supply: p.bSupply,
          backstop_credit: 0n,
          d_rate: p.dRate,
          d_supply: dSupply,
          ir_mod: p.irMod,
          last_time: 1_000_000n,
        };
        const mine = makeReserve("C", config, data);
        accrue(mine, p.bstop, 1_000_000n + BigInt(p.dt));

        const sdk = new ReserveV2(
          "pool",
          "asset",
          new ReserveConfigV2(
            0,
            7,
            config.c_factor,
            config.l_factor,
            config.util,
            config.max_util,
            config.r_base,
            config.r_one,
            config.r_two,
            config.r_three,
            config.reactivity,
            config.supply_cap,
            true,
          ),
          new SdkReserveData(p.dRate, p.bRate, p.irMod, dSupply, p.bSupply, 0n, 1_000_000),
          undefined,
          undefined,
          0,
          0,
          0,
          0,
          0,
        );
        sdk.accrue(BigInt(p.bstop), 1_000_000 + p.dt);
        assert.equal(mine.data.d_rate, sdk.data.dRate);
        assert.equal(mine.data.b_rate, sdk.data.bRate);
        assert.equal(mine.data.ir_mod, sdk.data.interestRateModifier);
        assert.equal(mine.data.backstop_credit, sdk.data.backstopCredit);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("auction scaling: lot 60e7 / bid 35e7 at Δ 0..400 matches the reference and the SDK", () => {
  const lotAsset = "CAFJZQWSED6YAWZU3GWRTOCNPPCGBN32L7QV43XX5LZLFTK6JLN34DLN";
  const bidAsset = "CBKGPWGKSKZF52CFHMTRR23TBWTPMRDIYZ4O2P5VS65BMHYH4DXMCJZC";
  const auction = {
    bid: new Map([[bidAsset, 35n * E7]]),
    lot: new Map([[lotAsset, 60n * E7]]),
    block: 1000,
  };
  const expected: [number, bigint, bigint][] = [
    [0, 0n, 35n * E7],
    [100, 30n * E7, 35n * E7],
    [200, 60n * E7, 35n * E7],
    [300, 60n * E7, 175_000_000n],
    [400, 60n * E7, 0n],
  ];
  for (const [delta, lot, bid] of expected) {
    const [filled, rest] = scaleAuction(auction, 1000 + delta, 100n);
    assert.equal(rest, undefined);
    assert.equal(filled.lot.get(lotAsset) ?? 0n, lot, `lot at Δ${delta}`);
    assert.equal(filled.bid.get(bidAsset) ?? 0n, bid, `bid at Δ${delta}`);
    const sdk = new Auction("user", 0, {
      bid: new Map(auction.bid),
      lot: new Map(auction.lot),
      block: auction.block,
    });
    const [sdkFilled] = sdk.scale(1000 + delta, 100);
    assert.equal(sdkFilled.data.lot.get(lotAsset), lot);
    assert.equal(sdkFilled.data.bid.get(bidAsset), bid);
  }
  // Partial fills split with bids rounding up and lots down; the remainder keeps the block.
  const [part, rest] = scaleAuction(auction, 1150, 33n);
  assert.equal(part.bid.get(bidAsset), 115_500_000n); // ceil(35e7*0.33)
  assert.equal(part.lot.get(lotAsset), 148_500_000n); // floor(floor(60e7*0.33)*0.75)
  assert.equal(rest!.bid.get(bidAsset), 35n * E7 - 115_500_000n);
  assert.equal(rest!.lot.get(lotAsset), 60n * E7 - 198_000_000n);
  assert.equal(rest!.block, 1000);
  assert.throws(() => scaleAuction(auction, 1001, 0n), (e) => (e as ContractError).code === 1200);
  assert.throws(() => scaleAuction(auction, 1001, 101n), (e) => (e as ContractError).code === 1200);
  assert.throws(() => scaleAuction(auction, 999, 50n), (e) => !(e instanceof ContractError));
});

Deno.test("storage values parse with the Blend SDK's own parsers", () => {
  const asset = "CAFJZQWSED6YAWZU3GWRTOCNPPCGBN32L7QV43XX5LZLFTK6JLN34DLN";
  const cfg = defaultConfig({ index: 2, supply_cap: 123n, enabled: false });
  const parsedCfg = ReserveConfigV2.fromLedgerEntryData(
    entryB64(keys.resConfig(asset), encodeReserveConfig(cfg)),
  );
  assert.equal(parsedCfg.index, 2);
  assert.equal(parsedCfg.c_factor, cfg.c_factor);
  assert.equal(parsedCfg.supply_cap, 123n);
  assert.equal(parsedCfg.enabled, false);

  const data: ReserveData = {
    b_rate: 1_000_000_000_123n,
    b_supply: 5n,
    backstop_credit: 7n,
    d_rate: 1_000_000_000_456n,
    d_supply: 3n,
    ir_mod: E7,
    last_time: 1234n,
  };
  const parsedData = SdkReserveData.fromLedgerEntryData(
    entryB64(keys.resData(asset), encodeReserveData(data)),
  );
  assert.equal(parsedData.bRate, data.b_rate);
  assert.equal(parsedData.dRate, data.d_rate);
  assert.equal(parsedData.backstopCredit, 7n);
  assert.equal(Number(parsedData.lastTime), 1234);

  const pos = {
    collateral: new Map([[1, 10n]]),
    liabilities: new Map([[0, 20n], [2, 30n]]),
    supply: new Map<number, bigint>(),
  };
  const parsedPos = SdkPositions.fromLedgerEntryData(
    entryB64(keys.positions(randomAccount()), encodePositions(pos)),
  );
  assert.equal(parsedPos.collateral.get(1), 10n);
  assert.equal(parsedPos.liabilities.get(2), 30n);
  assert.equal(parsedPos.supply.size, 0);
  assert.deepEqual(decodePositions(encodePositions(pos)), pos);

  const auction = {
    bid: new Map([[asset, 5n]]),
    lot: new Map([["CBKGPWGKSKZF52CFHMTRR23TBWTPMRDIYZ4O2P5VS65BMHYH4DXMCJZC", 6n]]),
    block: 77,
  };
  const parsedAuction = SdkAuctionData.fromScVal(encodeAuction(auction).toXDR("base64"));
  assert.equal(parsedAuction.block, 77);
  assert.equal(parsedAuction.bid.get(asset), 5n);
  assert.deepEqual(decodeAuction(encodeAuction(auction)), auction);

  const pc = SdkPoolConfig.fromScVal(
    encodePoolConfig({
      bstop_rate: 1_000_000,
      max_positions: 4,
      min_collateral: 9n,
      oracle: asset,
      status: 1,
    }).toXDR("base64"),
  );
  assert.equal(pc.oracle, asset);
  assert.equal(pc.maxPositions, 4);
  assert.equal(pc.minCollateral, 9n);
  assert.equal(pc.status, 1);
});

// ---------------------------------------------------------------------------------------------
// A small market in the fake host
// ---------------------------------------------------------------------------------------------

interface Market {
  w: FakeWorld;
  pool: string;
  oracleId: string;
  usdc: string;
  xlm: string;
  admin: string;
  backstop: string;
}

function setupMarket(): Market {
  const w = new FakeWorld();
  const admin = randomAccount();
  const backstop = randomAccount();
  const usdc = w.deploy(fakeToken);
  const xlm = w.deploy(fakeToken);
  const oracleId = w.deploy(oracle, {
    admin,
    base: { tag: "Other", values: ["USD"] },
    assets: [stellarAsset(usdc), stellarAsset(xlm)],
    decimals: 7,
    resolution: 300,
  });
  w.invoke(oracleId, "set_price", { asset: stellarAsset(usdc), price: E7 });
  w.invoke(oracleId, "set_price", { asset: stellarAsset(xlm), price: 1_000_000n });
  const pool = w.deploy(lendingPool, {
    admin,
    name: "Vigil Local Pool",
    oracle: oracleId,
    bstop_rate: 1_000_000,
    max_positions: 4,
    min_collateral: 0n,
    backstop_id: backstop,
    blnd_id: randomAccount(),
  });
  const usdcCfg = defaultConfig({ c_factor: 9_500_000, l_factor: 9_500_000, util: 8_000_000 });
  w.invoke(pool, "queue_set_reserve", { asset: usdc, metadata: usdcCfg });
  assert.equal(w.invoke(pool, "set_reserve", { asset: usdc }), 0);
  w.invoke(pool, "queue_set_reserve", { asset: xlm, metadata: defaultConfig() });
  assert.equal(w.invoke(pool, "set_reserve", { asset: xlm }), 1);
  w.invoke(pool, "set_status", { pool_status: 1 });
  return { w, pool, oracleId, usdc, xlm, admin, backstop };
}

function fund(m: Market, token: string, to: string, amount: bigint): void {
  m.w.invoke(token, "mint", { to, amount });
}

function submit(m: Market, from: string, requests: [number, string, bigint][]): void {
  m.w.invoke(m.pool, "submit", {
    from,
    spender: from,
    to: from,
    requests: requests.map(([request_type, address, amount]) => ({
      request_type,
      address,
      amount,
    })),
  });
}

function positionsOf(m: Market, user: string) {
  return decodePositions(m.w.invoke<xdr.ScVal>(m.pool, "get_positions", { address: user }));
}

function code(fn: () => unknown): number | "trap" {
  try {
    fn();
  } catch (e) {
    return e instanceof ContractError ? e.code : "trap";
  }
  throw new Error("expected a failure");
}

/** Supplier with deep liquidity; borrower: 1000 XLM collateral ($100, eff $75), 70 USDC debt. */
function withBorrower(m: Market): { supplier: string; borrower: string } {
  const supplier = randomAccount();
  fund(m, m.usdc, supplier, 100_000n * E7);
  fund(m, m.xlm, supplier, 1_000_000n * E7);
  submit(m, supplier, [
    [RequestType.Supply, m.usdc, 10_000n * E7],
    [RequestType.Supply, m.xlm, 100_000n * E7],
  ]);
  const borrower = randomAccount();
  fund(m, m.xlm, borrower, 1000n * E7);
  submit(m, borrower, [
    [RequestType.SupplyCollateral, m.xlm, 1000n * E7],
    [RequestType.Borrow, m.usdc, 70n * E7],
  ]);
  return { supplier, borrower };
}

Deno.test("pool set-up writes exactly the v2 instance keys, reserve list and reserve entries", () => {
  const m = setupMarket();
  const inst = [...m.w.tier(m.pool, "instance").keys()].map((k) =>
    symText(xdr.ScVal.fromXDR(k, "base64"))
  ).sort();
  assert.deepEqual(inst, ["Admin", "BLNDTkn", "Backstop", "Config", "Name"]);
  const list = m.w.tier(m.pool, "persistent").get(keys.resList().toXDR("base64"))!;
  assert.deepEqual(items(list).map(address), [m.usdc, m.xlm]);
  assert.ok(m.w.tier(m.pool, "persistent").has(keys.resConfig(m.xlm).toXDR("base64")));
  assert.ok(m.w.tier(m.pool, "persistent").has(keys.resData(m.xlm).toXDR("base64")));
  // the queue entries are gone once set
  assert.equal(m.w.tier(m.pool, "temporary").size, 0);
});

Deno.test("submit: supply, collateral, borrow, repay, withdraw with Blend's checks and events", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  const p = positionsOf(m, borrower);
  assert.equal(p.collateral.get(1), 1000n * E7); // b_rate 1.0: 1 bToken per token
  assert.equal(p.liabilities.get(0), 70n * E7);
  const borrowEvent = m.w.events.find((e) => symText(e.topics[0]) === "borrow")!;
  const parsed = poolEventV2FromEventResponse({
    type: "contract",
    contractId: m.pool,
    topic: borrowEvent.topics.map((t) => t.toXDR("base64")),
    value: borrowEvent.data.toXDR("base64"),
    ledger: 100,
    ledgerClosedAt: new Date().toISOString(),
    id: "1",
    txHash: "00",
    inSuccessfulContractCall: true,
    pagingToken: "1",
  } as never);
  assert.equal(parsed?.eventType, "borrow");
  // deno-lint-ignore no-explicit-any
  assert.equal((parsed as any).from, borrower);
  // deno-lint-ignore no-explicit-any
  assert.equal((parsed as any).assetId, m.usdc);

  // Borrowing past the health limit: 1205 InvalidHf
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.Borrow, m.usdc, 5n * E7]])),
    PoolError.InvalidHf,
  );
  // Negative amount: 8
  assert.equal(code(() => submit(m, borrower, [[RequestType.Repay, m.usdc, -1n]])), 8);
  // Withdrawing all collateral with debt outstanding: 1205
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.WithdrawCollateral, m.xlm, 1000n * E7]])),
    PoolError.InvalidHf,
  );
  // Over-repay refunds the excess and clears the liability
  fund(m, m.usdc, borrower, 10n * E7);
  const before = m.w.invoke<bigint>(m.usdc, "balance", { id: borrower });
  submit(m, borrower, [[RequestType.Repay, m.usdc, 80n * E7]]);
  const after = m.w.invoke<bigint>(m.usdc, "balance", { id: borrower });
  assert.equal(before - after, 70n * E7); // same ledger: no interest accrued yet
  assert.equal(positionsOf(m, borrower).liabilities.size, 0);
  submit(m, borrower, [[RequestType.WithdrawCollateral, m.xlm, 2000n * E7]]); // capped at balance
  assert.equal(positionsOf(m, borrower).collateral.size, 0);
  assert.equal(m.w.invoke<bigint>(m.xlm, "balance", { id: borrower }), 1000n * E7);
  // Status 4 (admin frozen) blocks supply: 1206
  m.w.invoke(m.pool, "set_status", { pool_status: 4 });
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.SupplyCollateral, m.xlm, E7]])),
    PoolError.InvalidPoolStatus,
  );
});

Deno.test("submit: plain supply and withdraw (capped at the position), their events", () => {
  const m = setupMarket();
  const { supplier, borrower } = withBorrower(m);
  const named = (name: string, user: string) =>
    m.w.events.filter((e) => symText(e.topics[0]) === name && address(e.topics[2]) === user).map((
      e,
    ) => items(e.data).map((v) => BigInt(scValToNative(v))));
  assert.deepEqual(named("supply", supplier), [[10_000n * E7, 10_000n * E7], [
    100_000n * E7,
    100_000n * E7,
  ]]);
  assert.deepEqual(named("supply_collateral", borrower), [[1000n * E7, 1000n * E7]]);
  assert.deepEqual(named("supply", borrower), []);
  submit(m, supplier, [[RequestType.Withdraw, m.usdc, 1000n * E7]]);
  assert.equal(positionsOf(m, supplier).supply.get(0), 9000n * E7);
  assert.deepEqual(named("withdraw", supplier), [[1000n * E7, 1000n * E7]]);
  // More than the position: capped, the entry is removed, the tokens come back.
  submit(m, supplier, [[RequestType.Withdraw, m.xlm, 200_000n * E7]]);
  assert.equal(positionsOf(m, supplier).supply.has(1), false);
  assert.deepEqual(named("withdraw", supplier)[1], [100_000n * E7, 100_000n * E7]);
  assert.equal(m.w.invoke<bigint>(m.xlm, "balance", { id: supplier }), 1_000_000n * E7);
  assert.deepEqual(named("withdraw_collateral", supplier), []);
  // Withdrawing past the utilization cap: 1207 InvalidUtilRate.
  assert.equal(
    code(() => submit(m, supplier, [[RequestType.Withdraw, m.usdc, 9000n * E7]])),
    PoolError.InvalidUtilRate,
  );
});

Deno.test("interest accrues over time and the pool stores the SDK-consistent rates", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  m.w.advance(17280, 5); // one day
  fund(m, m.usdc, borrower, 1n * E7);
  submit(m, borrower, [[RequestType.Repay, m.usdc, 1n * E7]]);
  const data = SdkReserveData.fromLedgerEntryData(
    entryB64(
      keys.resData(m.usdc),
      m.w.tier(m.pool, "persistent").get(keys.resData(m.usdc).toXDR("base64"))!,
    ),
  );
  assert.ok(data.dRate > 10n ** 12n, "d_rate grew");
  assert.ok(data.bRate > 10n ** 12n, "b_rate grew");
  assert.ok(data.backstopCredit > 0n, "backstop credited");
  assert.equal(BigInt(data.lastTime), m.w.ledger.timestamp);
});

Deno.test("liquidation: rules, create → scale → fill → positions, contention", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  // Healthy borrower (HF ≈ 1.018): 1211 InvalidLiquidation
  assert.equal(
    code(() =>
      m.w.invoke(m.pool, "new_auction", {
        auction_type: 0,
        user: borrower,
        bid: [m.usdc],
        lot: [m.xlm],
        percent: 60,
      })
    ),
    PoolError.InvalidLiquidation,
  );
  // XLM -10%: HF ≈ 0.916
  m.w.invoke(m.oracleId, "set_price", { asset: stellarAsset(m.xlm), price: 900_000n });
  const newAuction = (bid: string[], lot: string[], percent: number) =>
    m.w.invoke<xdr.ScVal>(m.pool, "new_auction", {
      auction_type: 0,
      user: borrower,
      bid,
      lot,
      percent,
    });
  assert.equal(code(() => newAuction([m.xlm], [m.xlm], 60)), PoolError.InvalidBid);
  assert.equal(code(() => newAuction([m.usdc], [m.usdc], 60)), PoolError.InvalidLot);
  assert.equal(code(() => newAuction([m.usdc, m.usdc], [m.xlm], 60)), PoolError.BadRequest);
  assert.equal(code(() => newAuction([m.usdc], [m.xlm], 0)), PoolError.InvalidLiquidation);
  assert.equal(code(() => newAuction([m.usdc], [m.xlm], 50)), PoolError.InvalidLiqTooSmall);
  assert.equal(code(() => newAuction([m.usdc], [m.xlm], 70)), PoolError.InvalidLiqTooLarge);
  assert.equal(code(() => newAuction([m.usdc], [m.xlm], 1)), PoolError.InvalidLiqTooSmall);
  // bad-debt / interest auctions need a Blend backstop: 1200
  assert.equal(
    code(() =>
      m.w.invoke(m.pool, "new_auction", {
        auction_type: 1,
        user: m.backstop,
        bid: [m.usdc],
        lot: [m.xlm],
        percent: 100,
      })
    ),
    PoolError.BadRequest,
  );

  const created = decodeAuction(newAuction([m.usdc], [m.xlm], 60));
  assert.equal(created.block, m.w.ledger.sequence + 1);
  assert.equal(created.bid.get(m.usdc), 42n * E7); // ceil(70e7 * 0.6)
  assert.ok(created.lot.get(m.xlm)! > 0n && created.lot.get(m.xlm)! < 1000n * E7);
  assert.equal(code(() => newAuction([m.usdc], [m.xlm], 60)), PoolError.AuctionInProgress);
  // The borrower cannot touch positions while the auction runs: 1212
  fund(m, m.xlm, borrower, E7);
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.SupplyCollateral, m.xlm, E7]])),
    PoolError.AuctionInProgress,
  );
  // stored in temporary storage under Vec[Auction, {auct_type, user}]
  const stored = m.w.tier(m.pool, "temporary").get(keys.auction(0, borrower).toXDR("base64"))!;
  assert.deepEqual(decodeAuction(stored), created);

  // Filler: healthy with USDC collateral; fills half at Δ = 100 (lot 50%), then the rest at Δ = 200.
  const filler = randomAccount();
  fund(m, m.usdc, filler, 1000n * E7);
  submit(m, filler, [[RequestType.SupplyCollateral, m.usdc, 1000n * E7]]);
  m.w.advance(created.block + 100 - m.w.ledger.sequence, 5);
  const borrowerBefore = positionsOf(m, borrower);
  submit(m, filler, [[RequestType.FillUserLiquidationAuction, borrower, 50n]]);
  const half = m.w.events.at(-1)!;
  const parsedFill = poolEventV2FromEventResponse({
    type: "contract",
    contractId: m.pool,
    topic: half.topics.map((t) => t.toXDR("base64")),
    value: half.data.toXDR("base64"),
    ledger: m.w.ledger.sequence,
    ledgerClosedAt: new Date().toISOString(),
    id: "2",
    txHash: "00",
    inSuccessfulContractCall: true,
    pagingToken: "2",
  } as never);
  assert.equal(parsedFill?.eventType, "fill_auction");
  // deno-lint-ignore no-explicit-any
  const filled = (parsedFill as any).filledAuctionData;
  const bid1 = filled.bid.get(m.usdc) as bigint;
  const lot1 = filled.lot.get(m.xlm) as bigint;
  assert.equal(bid1, 21n * E7);
  assert.equal(lot1, (created.lot.get(m.xlm)! / 2n) / 2n); // 50% of the lot, at 50% lot modifier
  const fillerPos = positionsOf(m, filler);
  assert.equal(fillerPos.liabilities.get(0), bid1);
  assert.equal(fillerPos.collateral.get(1), lot1);
  const borrowerMid = positionsOf(m, borrower);
  assert.equal(borrowerMid.liabilities.get(0), borrowerBefore.liabilities.get(0)! - bid1);
  assert.equal(borrowerMid.collateral.get(1), borrowerBefore.collateral.get(1)! - lot1);

  m.w.advance(100, 5);
  submit(m, filler, [[RequestType.FillUserLiquidationAuction, borrower, 100n]]);
  assert.equal(m.w.tier(m.pool, "temporary").has(keys.auction(0, borrower).toXDR("base64")), false);
  // Contention: a second fill of the finished auction traps (missing auction unwrap), no contract code
  const other = randomAccount();
  fund(m, m.usdc, other, 1000n * E7);
  submit(m, other, [[RequestType.SupplyCollateral, m.usdc, 1000n * E7]]);
  assert.equal(
    code(() => submit(m, other, [[RequestType.FillUserLiquidationAuction, borrower, 100n]])),
    "trap",
  );
  // The filler cannot fill its own liquidation: 1211
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.FillUserLiquidationAuction, borrower, 100n]])),
    PoolError.InvalidLiquidation,
  );
});

Deno.test("filler must stay healthy; del_auction only after 500 ledgers", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  m.w.invoke(m.oracleId, "set_price", { asset: stellarAsset(m.xlm), price: 900_000n });
  const a = decodeAuction(
    m.w.invoke<xdr.ScVal>(m.pool, "new_auction", {
      auction_type: 0,
      user: borrower,
      bid: [m.usdc],
      lot: [m.xlm],
      percent: 60,
    }),
  );
  // A filler without collateral takes on the debt with only the (scaled) lot: 1205 at Δ=0
  const poor = randomAccount();
  m.w.advance(1, 5);
  assert.equal(
    code(() => submit(m, poor, [[RequestType.FillUserLiquidationAuction, borrower, 100n]])),
    PoolError.InvalidHf,
  );
  assert.equal(
    code(() => m.w.invoke(m.pool, "del_auction", { auction_type: 0, user: borrower })),
    PoolError.BadRequest,
  );
  m.w.advance(a.block + 500 - m.w.ledger.sequence, 5);
  m.w.invoke(m.pool, "del_auction", { auction_type: 0, user: borrower });
  assert.equal(m.w.tier(m.pool, "temporary").size, 0);
});

Deno.test("stale oracle: None traps the pool, 24h-old price is 1210", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  // Stop the XLM feed and move past 2 × resolution: Reflector returns None → unwrap trap.
  m.w.invoke(m.oracleId, "set_feed", { asset: stellarAsset(m.xlm), live: false });
  m.w.advance(121, 5); // 605 s > 600 s
  assert.equal(m.w.invoke(m.oracleId, "lastprice", { asset: stellarAsset(m.xlm) }), null);
  assert.equal(code(() => submit(m, borrower, [[RequestType.Borrow, m.usdc, E7]])), "trap");

  // An oracle with a 2-day resolution still serves a 25h-old round: the pool rejects it (1210).
  const slow = m.w.deploy(oracle, {
    admin: m.admin,
    base: { tag: "Other", values: ["USD"] },
    assets: [],
    decimals: 7,
    resolution: 2 * 86400,
  });
  m.w.ledger.timestamp = (m.w.ledger.timestamp / 172800n) * 172800n + 10n; // start of a round
  m.w.invoke(slow, "set_price", { asset: stellarAsset(m.usdc), price: E7 });
  m.w.invoke(slow, "set_price", { asset: stellarAsset(m.xlm), price: 1_000_000n });
  const pool2 = m.w.deploy(lendingPool, {
    admin: m.admin,
    name: "p2",
    oracle: slow,
    bstop_rate: 0,
    max_positions: 4,
    min_collateral: 0n,
    backstop_id: m.backstop,
    blnd_id: m.admin,
  });
  m.w.invoke(pool2, "queue_set_reserve", { asset: m.xlm, metadata: defaultConfig() });
  m.w.invoke(pool2, "set_reserve", { asset: m.xlm });
  m.w.invoke(pool2, "set_status", { pool_status: 1 });
  const u = randomAccount();
  fund(m, m.xlm, u, 100n * E7);
  m.w.ledger.timestamp += 25n * 3600n;
  const r = code(() =>
    m.w.invoke(pool2, "submit", {
      from: u,
      spender: u,
      to: u,
      requests: [
        { request_type: 2, address: m.xlm, amount: 100n * E7 },
        { request_type: 4, address: m.xlm, amount: E7 },
      ],
    })
  );
  assert.equal(r, PoolError.InvalidPrice);
});

Deno.test("request 9: a user repays and deletes its own liquidation in one submit (health checked)", () => {
  const m = setupMarket();
  const { borrower } = withBorrower(m);
  m.w.invoke(m.oracleId, "set_price", { asset: stellarAsset(m.xlm), price: 900_000n });
  m.w.invoke(m.pool, "new_auction", {
    auction_type: 0,
    user: borrower,
    bid: [m.usdc],
    lot: [m.xlm],
    percent: 60,
  });
  fund(m, m.usdc, borrower, 70n * E7);
  // Deleting without fixing the position: still underwater → 1205
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.DeleteLiquidationAuction, m.usdc, 0n]])),
    PoolError.InvalidHf,
  );
  // A repay alone leaves the auction in place → 1212
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.Repay, m.usdc, 20n * E7]])),
    PoolError.AuctionInProgress,
  );
  const eventsBefore = m.w.events.length;
  submit(m, borrower, [
    [RequestType.Repay, m.usdc, 20n * E7],
    [RequestType.DeleteLiquidationAuction, m.usdc, 0n],
  ]);
  assert.equal(m.w.tier(m.pool, "temporary").has(keys.auction(0, borrower).toXDR("base64")), false);
  assert.equal(positionsOf(m, borrower).liabilities.get(0), 50n * E7);
  const del = m.w.events.slice(eventsBefore).find((e) => symText(e.topics[0]) === "delete_auction");
  assert.ok(del, "delete_auction event");
  // No auction left: deleting again is 1200
  assert.equal(
    code(() => submit(m, borrower, [[RequestType.DeleteLiquidationAuction, m.usdc, 0n]])),
    PoolError.BadRequest,
  );
});
