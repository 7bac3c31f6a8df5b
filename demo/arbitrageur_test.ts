/**
 * The demo market's arbitrageur: the band maths on its own, then on a real node — a forced drift
 * of a pair is brought back to the band's edge within a ledger and never past the oracle, pairs
 * inside the band are left alone, and a venue with tiny reserves neither crashes it nor gets
 * pushed past the oracle.
 */
import assert from "node:assert/strict";
import { Asset } from "@stellar/stellar-sdk";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import { withMarket } from "@vigil/testing/protocols/lending_pool_helpers";
import { deployVenue, loadDexWasm, seedPair } from "@vigil/localnet/protocols/dex/deploy";
import { getAmountOut, sortTokens } from "@vigil/localnet/protocols/dex/math";
import { arbitrageAmount, DEFAULT_BAND_BPS, startArbitrageur } from "./arbitrageur.ts";

const E7 = 10_000_000n;
const BAND = DEFAULT_BAND_BPS;

/** The pair's price of `out` (in `in` units) over the oracle's, minus 1, in bps. */
function devBps(rIn: bigint, rOut: bigint, pIn: bigint, pOut: bigint): number {
  return ((Number(rIn) * Number(pIn)) / (Number(rOut) * Number(pOut)) - 1) * 10_000;
}

Deno.test("arbitrageAmount: nothing inside the band; outside, exactly to the band's edge", () => {
  // 2M USDC / 20M XLM at $0.10: on the oracle.
  const [rU, rX, pU, pX] = [2_000_000n * E7, 20_000_000n * E7, E7, 1_000_000n];
  assert.equal(arbitrageAmount(rU, rX, pU, pX, BAND), 0n);
  assert.equal(arbitrageAmount(rX, rU, pX, pU, BAND), 0n);
  // XLM 0.4 % cheap in the pair: inside the 0.5 % band.
  assert.equal(arbitrageAmount(rU, (rX * 1004n) / 1000n, pU, pX, BAND), 0n);
  // XLM 3 % cheap: buy XLM with USDC up to the edge, and not one unit more.
  const rX3 = (rX * 103n) / 100n;
  const x = arbitrageAmount(rU, rX3, pU, pX, BAND);
  assert.equal(typeof x, "bigint");
  assert.ok(x > 0n);
  const after = (a: bigint) => devBps(rU + a, rX3 - getAmountOut(a, rU, rX3), pU, pX);
  assert.ok(devBps(rU, rX3, pU, pX) < -290);
  assert.ok(after(x) <= -BAND && after(x) > -BAND - 0.01, `${after(x)}`);
  assert.ok(after(x + 1n) > -BAND);
  // The other direction would be wrong: selling XLM there is never suggested.
  assert.equal(arbitrageAmount(rX3, rU, pX, pU, BAND), 0n);
});

Deno.test("arbitrageAmount: tiny reserves give 0 or a swap that stays on its side", () => {
  // 40 units of WETH against 1.188M units of XLM: WETH 1 % cheap, but one unit out is 2.5 %.
  assert.equal(arbitrageAmount(1_188_000n, 40n, 1_000_000n, 3000n * E7, BAND), 0n);
  assert.equal(arbitrageAmount(0n, 40n, 1_000_000n, 3000n * E7, BAND), 0n);
  // 2000 / 2000 units: XLM worth $1 in the pair, $0.10 on the oracle: sell XLM for USDC.
  const x = arbitrageAmount(2000n, 2000n, 1_000_000n, E7, BAND);
  assert.ok(x > 0n);
  const out = getAmountOut(x, 2000n, 2000n);
  assert.ok(devBps(2000n + x, 2000n - out, 1_000_000n, E7) <= -BAND);
});

Deno.test("arbitrageur on a real node: drift back to the band within a ledger, never past the oracle", async () => {
  await withMarket({ allocationVault: false }, async ({ node, market }) => {
    const c = market.contracts;
    const admin = market.accounts.market_admin.public;
    // A third venue with tiny reserves: USDC/XLM 2000/2000 units (XLM 10× the oracle) and
    // XLM/WETH 1.188M/40 units (WETH 1 % cheap, but a single unit out would overshoot).
    const tiny = await deployVenue(node, admin, await loadDexWasm());
    const tinyUsdcXlm = await seedPair(node, tiny.factory, admin, c.usdc, c.xlm, 2000n, 2000n);
    const tinyXlmWeth = await seedPair(node, tiny.factory, admin, c.xlm, c.weth, 1_188_000n, 40n);
    await node.closeLedgers(1);
    const primary = await node.view<string>(c.soroswap_factory, "get_pair", {
      token_a: c.usdc,
      token_b: c.xlm,
    });
    const fallback = await node.view<string>(c.fallback_factory, "get_pair", {
      token_a: c.usdc,
      token_b: c.xlm,
    });
    // USDC per XLM in a pair over the oracle's $0.10, minus 1, in bps.
    const xlmDev = async (pair: string) => {
      const [r0, r1] = await node.view<[bigint, bigint]>(pair, "get_reserves", []);
      const [rU, rX] = sortTokens(c.usdc, c.xlm)[0] === c.usdc ? [r0, r1] : [r1, r0];
      return devBps(rU, rX, E7, 1_000_000n);
    };
    const reserves = (pair: string) => node.view<[bigint, bigint]>(pair, "get_reserves", []);

    // Someone sells 1M XLM into the primary pair (≈ 10 % drift); the fallback drifts 0.2 %.
    const whale = (await node.newAccount(2_100_000n)).publicKey();
    seedTrustline(node, whale, new Asset("USDC", market.usdcIssuer), 0n);
    const sell = (router: string, amount: bigint) =>
      node.invoke(router, "swap_exact_tokens_for_tokens", {
        amount_in: amount,
        amount_out_min: 1n,
        path: [c.xlm, c.usdc],
        to: whale,
        deadline: node.latestLedger().closeTime + 600n,
      }, { source: whale });
    await sell(c.primary_dex_router, 1_000_000n * E7);
    await sell(c.fallback_dex_router, 20_000n * E7);
    await node.closeLedgers(1);
    const drifted = await xlmDev(primary);
    assert.ok(drifted < -900, `${drifted}`);
    const fallbackBefore = await reserves(fallback);
    assert.ok(Math.abs(await xlmDev(fallback)) < BAND);

    const lines: string[] = [];
    const arb = startArbitrageur(node, market, {
      tickMs: 10,
      venues: [
        { name: "primary", factory: c.soroswap_factory, router: c.primary_dex_router },
        { name: "fallback", factory: c.fallback_factory, router: c.fallback_dex_router },
        { name: "tiny", factory: tiny.factory, router: tiny.router },
      ],
      log: (l) => lines.push(l),
    });
    try {
      // Its first look (at the ledger in force) acts; one more ledger must find nothing to do.
      const until = async (cond: () => boolean) => {
        const deadline = Date.now() + 10_000;
        while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.ok(cond(), lines.join("\n"));
      };
      await until(() => arb.stats.looks >= 1 && lines.length >= 3);
      await node.closeLedgers(1);
      await until(() => arb.stats.looks >= 2);
      await arb.stop();
    } finally {
      await arb.stop();
    }
    const log = lines.join("\n");
    assert.equal(arb.stats.errors, 0, log);

    // Back at the band's lower edge: within 0.01 bp of -0.5 %, XLM still cheaper than the oracle.
    const now = await xlmDev(primary);
    assert.ok(now <= -BAND && now > -BAND - 0.01, `${now}\n${log}`);
    assert.match(log, /arbitrage: primary USDC\/XLM|arbitrage: primary XLM\/USDC/);
    // Inside the band: untouched.
    assert.deepEqual(await reserves(fallback), fallbackBefore, log);
    assert.doesNotMatch(log, /arbitrage: fallback/);
    // The tiny pairs: the one that can trade is not pushed past the oracle (XLM still dear) …
    assert.ok(await xlmDev(tinyUsdcXlm) >= BAND, `${await xlmDev(tinyUsdcXlm)}\n${log}`);
    // … and the one that cannot is reported once, not every ledger, and left as it was.
    assert.equal(lines.filter((l) => /tiny .*too small to trade/.test(l)).length, 1, log);
    const [w0, w1] = await reserves(tinyXlmWeth);
    assert.deepEqual([w0, w1].sort(), [40n, 1_188_000n].sort(), log);
    assert.equal(arb.stats.swaps, 2, log);
  });
});
