/**
 * THE ATTACK of issue 20's security finding, rebuilt on the real Blend v2 market, over the real
 * keeper (a child process) and the local node's JSON-RPC. An attacker deploys a second REAL
 * Blend v2 pool through the market's pool factory (its own backstop deposit makes it active)
 * whose collateral reserve is its HOSTILE TOKEN (`testing/contracts/hostile_token/`): a
 * SEP-41 token that, once armed, robs whoever receives it — each transfer to an account also
 * calls `XLM.transfer(recipient → thief, 9,000 XLM)` and
 * `USDC.approve(recipient, thief, 2^62, …)`. Vigil's admin listed the pool in the vault's flash
 * policy; the token is priced by the market oracle and has a USDC pair on the primary venue.
 *
 * The keeper finds the pool's underwater borrower, creates the auction and tries to fill it
 * with a flash through that pool. Inside the flash the liquidator calls the pool's
 * `submit(keeper, keeper, keeper, …)`, and the real pool pays the lot to the keeper with
 * `token.transfer(pool → keeper)` (the pool's own authority). The token's two extra calls
 * require the KEEPER's authorization; the host records them in the keeper's tree beneath the
 * nearest invocation the keeper authorized — the pool's `submit` (the token's `transfer` is not
 * in the tree: it needed only the pool's auth). So the recorded path is
 * `flash › exec › submit › transfer` (XLM), beside the planned USDC transfer to the pool. The
 * keeper refuses to sign: the refusal is logged with its reason, no flash is sent, the thief
 * gets nothing (and cannot pull USDC: no allowance exists), the keeper loses only fees (and its
 * registry stake), the vault's books are unchanged.
 *
 * The token robs only ACCOUNT recipients: a contract recipient (the DEX pair its swap leg pays)
 * cannot be robbed this way — its authorization is no transaction signature's to give. A variant
 * robbing every recipient was measured: the flash's simulation fails with
 * `Error(Auth, InvalidAction)` (root-only recording: "authorization not tied to the root contract
 * invocation"), so nothing is signed but the keeper never reaches its guard. Nor can the token be
 * the pool's bid asset: the keeper repays only USDC debts (non_usdc_debt_test.ts).
 *
 * The test prints the measured figures (`ATTACK FIGURES …`) before asserting, so the same test
 * run with the guard disabled shows what the theft takes. Measured with `guardAuth` bypassed for
 * `flash`: flash sent and filled (lot 100,000 HOST), thief +9,000 XLM (the keeper's own) and then
 * +900 USDC pulled through the 2^62 allowance (left open at 2^62 − 900 USDC), keeper −9,003.98
 * XLM and −900 USDC, vault +3,685.92 USDC booked — and this test fails ("a refusal was logged").
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { Asset, Keypair, rpc, TransactionBuilder } from "@stellar/stellar-sdk";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import { describeError } from "@vigil/soroban/errors";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { invokeContract } from "@vigil/soroban/tx";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import { deployHostileMarket, type HostileMarket } from "@vigil/testing/hostile_market";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";
import {
  balance,
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  USDC,
  vaultState,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";

/** 1 XLM in stroops. */
const XLM = 10_000_000n;
const STEAL_XLM = 9_000n * XLM;
const ALLOWANCE = 1n << 62n;
/** What the thief tries to pull through the allowance afterwards. */
const PULL_USDC = 900n * USDC;

/** Fees `account` paid as the source of the transactions included since `startLedger`. */
async function feesPaid(w: World, account: string, startLedger: number): Promise<bigint> {
  const server = new rpc.Server(w.node.rpcUrl, { allowHttp: true });
  let fees = 0n;
  let cursor: string | undefined;
  for (;;) {
    const page = await server.getTransactions(
      cursor ? { pagination: { cursor, limit: 200 } } : { startLedger, pagination: { limit: 200 } },
    );
    for (const t of page.transactions) {
      const tx = TransactionBuilder.fromXDR(
        t.envelopeXdr.toXdr("base64"),
        w.node.networkPassphrase,
      );
      if ("source" in tx && tx.source === account) fees += BigInt(t.resultXdr.feeCharged);
    }
    if (page.transactions.length === 0 || page.cursor === cursor) return fees;
    cursor = page.cursor;
  }
}

Deno.test({
  name:
    "ATTACK: a real Blend v2 pool with a hostile collateral token, listed in the flash policy, asks the keeper to sign a theft — refused with its reason, nothing sent, thief +0, keeper −fees, vault books unchanged",
  sanitizeResources: true,
  sanitizeOps: true,
  fn: async () => {
    let hostile: HostileMarket | undefined;
    const w = await startWorld({
      ledgerMs: 250,
      // The admin listed the hostile pool next to the market's honest one.
      beforeVigil: async (node, market) => {
        hostile = await deployHostileMarket(node, market);
        return { pools: [market.contracts.lending_pool, hostile.pool] };
      },
    });
    const keeper = w.keepers[0];
    const me = keeper.publicKey();
    const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
    let k: KeeperChild | undefined;
    try {
      const { pool, borrower, token, attacker } = hostile!;
      assert.ok(w.policy.pools.includes(pool), "the hostile pool is listed in the flash policy");
      // A real Blend v2 pool of the market's factory, active on its own backstop deposit.
      const c = w.market.contracts;
      assert.equal(
        await w.node.view<boolean>(c.pool_factory, "is_pool", { pool_address: pool }),
        true,
      );
      const cfg = await w.node.view<{ status: number }>(pool, "get_config", []);
      assert.equal(Number(cfg.status), 0, "the hostile pool is active");
      const thief = Keypair.random();
      await w.node.fund(thief.publicKey(), 100n);
      seedTrustline(w.node, thief.publicKey(), new Asset("USDC", w.market.usdcIssuer), 0n);
      // The attacker arms its token only now: the pool's setup moved it to accounts too.
      await w.node.invoke(token, "arm", {
        thief: thief.publicKey(),
        steal_token: w.xlm,
        steal_amount: STEAL_XLM,
        approve_token: w.usdc,
        approve_amount: ALLOWANCE,
      }, { source: attacker.publicKey() });
      await w.node.closeLedgers(1);
      const stake = BigInt(
        (await w.node.view<{ min_stake: bigint }>(w.registry, "get_config", [])).min_stake,
      );
      const snap = async () => ({
        keeperXlm: await balance(w, w.xlm, me),
        keeperUsdc: await balance(w, w.usdc, me),
        thiefXlm: await balance(w, w.xlm, thief.publicKey()),
        thiefUsdc: await balance(w, w.usdc, thief.publicKey()),
        allowance: await w.node.view<bigint>(w.usdc, "allowance", {
          from: me,
          spender: thief.publicKey(),
        }),
        vault: await vaultState(w),
        vaultUsdc: await balance(w, w.usdc, w.vault),
      });
      const before = await snap();
      const startLedger = w.node.latestLedger().sequence;

      // The keeper watches the hostile pool (its operator configured it; the policy lists it).
      k = (await startKeeper(keeperEnv(w, keeper, { LENDING_POOL: pool }))).k;
      await shock(w, token, -1500); // the pool's borrower: HF 1.03 → ≈ 0.876
      await until(
        async () => (await events(w, pool, "new_auction")).some((e) => e.topics[2] === borrower),
        60_000,
        "the keeper's auction on the hostile pool",
      );
      // Along Blend's Dutch curve; the keeper waits for its first profitable block itself.
      await w.node.closeLedgers(250);
      const refusal = (l: Record<string, unknown>) => l.kind === "auth_refused";
      await until(
        async () => logLines(k!).some(refusal) || (await events(w, w.vault, "flash")).length > 0,
        90_000,
        "the keeper's refusal (or, without the guard, its flash)",
      );
      // What the thief does next: pull the keeper's USDC through the allowance.
      let pulled = "";
      try {
        await invokeContract(chain, thief, w.usdc, "transfer_from", [
          sv.address(thief.publicKey()),
          sv.address(me),
          sv.address(thief.publicKey()),
          sv.i128(PULL_USDC),
        ], { auth: ROOT_ONLY });
        pulled = "ok";
      } catch (err) {
        pulled = describeError(err);
      }
      const after = await snap();
      const fees = await feesPaid(w, me, startLedger);
      const flashes = await events(w, w.vault, "flash");
      const fills = await events(w, pool, "fill_auction");
      const withdrawn = await events(w, pool, "withdraw_collateral");
      const figures = {
        guard: logLines(k).find(refusal)?.msg ?? "signed",
        flashes: flashes.length,
        fills: fills.length,
        thief_xlm_gain: String(after.thiefXlm - before.thiefXlm),
        thief_usdc_gain: String(after.thiefUsdc - before.thiefUsdc),
        thief_pull: pulled,
        allowance_after_flash: String(after.allowance),
        keeper_xlm_delta: String(after.keeperXlm - before.keeperXlm),
        keeper_fees: String(fees),
        keeper_usdc_delta_besides_stake: String(after.keeperUsdc - before.keeperUsdc + stake),
        vault_profit_booked: String(after.vault.total_profit - before.vault.total_profit),
        vault_usdc_delta: String(after.vaultUsdc - before.vaultUsdc),
        lot_withdrawn_host: withdrawn.filter((e) => e.topics[1] === token).map((e) =>
          String(e.value)
        ),
      };
      console.log(`ATTACK FIGURES ${JSON.stringify(figures)}`);

      // The refusal, logged with its reason: the first unplanned call under the pool's submit.
      const line = logLines(k).find(refusal)!;
      assert.ok(line, "a refusal was logged");
      assert.equal(line.level, "error");
      assert.match(String(line.msg), new RegExp(`^refused to sign flash on ${w.vault}: `));
      assert.equal(line.refused_fn, "transfer");
      assert.equal(line.refused_contract, w.xlm);
      assert.equal(line.refused_path, "flash › exec › submit › transfer");
      // Issue 26: the withdrawal runs in the liquidator's second submit, beneath which nothing
      // may be signed at all (the planned pull is under the first).
      assert.match(
        String(line.reason),
        /unexpected call: no authorized sub-invocation was planned here/,
      );
      assert.match(
        String(line.refused_invocation),
        new RegExp(`\\(${me}, ${thief.publicKey()}, ${STEAL_XLM}\\)`),
      );
      // …and the liquidation was skipped for that reason, nothing lent.
      assert.ok(
        logLines(k).some((l) =>
          /refused to sign/.test(JSON.stringify(l)) && /skipped/.test(JSON.stringify(l))
        ),
        "the liquidation is recorded as skipped with the refusal",
      );
      // Nothing sent: no flash, no fill; the thief got nothing and holds no allowance.
      assert.equal(flashes.length, 0);
      assert.equal(fills.length, 0);
      assert.equal(withdrawn.length, 0, "the lot never left the pool");
      assert.equal(after.thiefXlm, before.thiefXlm);
      assert.equal(after.thiefUsdc, before.thiefUsdc);
      assert.equal(after.allowance, 0n);
      assert.notEqual(pulled, "ok");
      // The keeper: its stake and the fees of what it did send (registration, the auction).
      assert.equal(after.keeperUsdc, before.keeperUsdc - stake);
      // Besides the fees, the XLM it moved to its channel accounts (CHANNEL_ACCOUNTS, default 2:
      // the refused flash was built from one of them).
      const toChannels = logLines(k)
        .filter((l) => /XLM sent from the keeper's account/.test(String(l.msg)))
        .reduce((n, l) => n + BigInt(String(l.xlm).replace(".", "")), 0n);
      assert.ok(toChannels > 0n, "the keeper funded its channel accounts");
      assert.equal(after.keeperXlm, before.keeperXlm - fees - toChannels);
      // The vault's books: unchanged.
      assert.deepEqual(after.vault, before.vault);
      assert.equal(after.vaultUsdc, before.vaultUsdc);
    } finally {
      if (k) await stopKeeper(k);
      chain.close();
      await w.close();
    }
  },
});
