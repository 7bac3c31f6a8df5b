/**
 * The keeper on the REAL Blend v2 pool (issue 21): `startWorld()` deploys Blend's
 * own pool, backstop, emitter and factory Wasm (from the `blend-contract-sdk` crate) with the
 * same DEXes (pairs at the oracle prices) and a flash policy listing the real pool and the
 * primary router. After an oracle drop the keeper — a real child process, over JSON-RPC — creates
 * the auctions and fills each in ONE transaction (`vault.flash` → `liquidator.exec` →
 * `pool.submit` + the swap of the lot to USDC); the lot is sold, the vault's profit rises by
 * exactly what the flashes returned, the keeper keeps nothing, and the authorization it signed
 * is the real pool's recorded tree, accepted by the keeper's auth guard.
 */
import assert from "node:assert/strict";
import {
  contract,
  type Operation,
  rpc,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { describeAuth } from "@vigil/soroban/auth_guard";
import { PoolErrors } from "@vigil/keeper/adapters/lending_pool/execute";
import { loadBlendWasm } from "@vigil/localnet/protocols/blend/wasm";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import {
  balance,
  events,
  keeperEnv,
  keeperInfo,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  untilEvents,
  USDC,
  vaultState,
} from "@vigil/testing/keeper/keeper_fixture";

Deno.test({
  name:
    "real Blend v2 pool: the keeper creates the auctions and fills each in one flash; profit booked, keeper +0",
  sanitizeResources: true,
  sanitizeOps: true,
  fn: async () => {
    const w = await startWorld({ ledgerMs: 250 });
    const keeper = w.keepers[0];
    const me = keeper.publicKey();
    let k;
    try {
      assert.equal(w.market.crate.name, "blend-contract-sdk");
      assert.ok(w.market.contracts.backstop, "the real pool's backstop is deployed");
      const meta = await w.node.view<{ backstop: string }>(w.pool, "get_config", []).catch(
        () => undefined,
      );
      assert.ok(meta !== undefined, "the pool answers Blend v2's get_config");
      assert.deepEqual(w.policy.pools, [w.pool]);
      const before = await vaultState(w);
      const usdcBefore = await balance(w, w.usdc, me);
      const start = (await new rpc.Server(w.node.rpcUrl, { allowHttp: true }).getLatestLedger())
        .sequence;
      const xlmBorrower = w.market.borrowers.find((b) => b.name === "borrower_xlm_1")!.public;
      const mixed = w.market.borrowers.find((b) => b.name === "borrower_mixed")!.public;
      // XLM −15 %: borrower_xlm_1 (opened at HF 1.03) and borrower_mixed (1.02) go underwater.
      await shock(w, w.xlm, -1500);
      const started = await startKeeper(keeperEnv(w, keeper));
      k = started.k;

      const created = await untilEvents(w, w.pool, "new_auction", 2, 90_000);
      assert.deepEqual(new Set(created.map((e) => e.topics[2])), new Set([xlmBorrower, mixed]));
      // Blend's post-liquidation band (1.03–1.15): 50 %, or the nearest percent the real pool
      // accepted — and then the keeper's log says so.
      for (const e of created) {
        const p = Number((e.value as [number, unknown])[0]);
        console.log(`auction on ${String(e.topics[2]).slice(0, 6)}… created at ${p}%`);
        assert.ok(p >= 1 && p <= 100, `percent ${p}`);
        if (p !== 50) {
          await until(
            () =>
              Promise.resolve(
                k!.stderr().includes(
                  `pool rejected a 50% auction; using ${p}%, inside its accepted band`,
                ),
              ),
            10_000,
            `the log line for a ${p}% auction`,
          );
        }
      }
      // Move along Blend's Dutch curve; the keeper waits for its first profitable block itself.
      await w.node.closeLedgers(150);
      const flashes = await untilEvents(w, w.vault, "flash", 2, 120_000);
      const fills = await events(w, w.pool, "fill_auction");
      assert.equal(fills.length, 2);
      // One transaction per liquidation: the real pool's fill is inside the vault's flash.
      assert.deepEqual(new Set(fills.map((f) => f.txHash)), new Set(flashes.map((f) => f.txHash)));
      for (const f of fills) {
        const [filler, pct] = f.value as [string, bigint];
        assert.equal(filler, me);
        assert.equal(BigInt(pct), 100n);
        assert.ok([xlmBorrower, mixed].includes(String(f.topics[2])));
      }
      // The auctions are gone (Blend's get_auction traps when none is open).
      for (const u of [xlmBorrower, mixed]) {
        await assert.rejects(w.node.view(w.pool, "get_auction", [0, u]));
      }

      // The authorization the keeper signed in each flash: the real pool's recorded tree,
      // vault.flash › liquidator.exec › pool.submit › USDC.transfer(keeper → pool), accepted by
      // the keeper's auth guard (it signs nothing else) — and no refusal was logged.
      const server = new rpc.Server(w.node.rpcUrl, { allowHttp: true });
      for (const f of flashes) {
        const raw = await server._getTransaction(f.txHash);
        assert.equal(raw.status, "SUCCESS");
        const tx = TransactionBuilder.fromXDR(
          raw.envelopeXdr!,
          w.node.networkPassphrase,
        ) as Transaction;
        const op = tx.operations[0] as Operation.InvokeHostFunction;
        const tree = describeAuth(op.auth ?? []);
        console.log(`flash ${f.txHash.slice(0, 8)} signed authorization:\n${tree}`);
        // Sent from a channel account (CHANNEL_ACCOUNTS, default 2): the keeper's authorization
        // is address credentials for its own address, the channel only the source.
        assert.match(tree, new RegExp(`^\\[AddressV2 ${keeper.publicKey()}\\]`));
        assert.notEqual(tx.source, keeper.publicKey(), "the flash's source is a channel");
        assert.match(tree, new RegExp(`${w.vault}\\.flash\\(`));
        assert.match(tree, new RegExp(`\\n    ${w.liquidator}\\.exec\\(`));
        assert.match(tree, new RegExp(`\\n      ${w.pool}\\.submit\\(`));
        assert.match(tree, new RegExp(`\\n        ${w.usdc}\\.transfer\\(`));
        // What a fill on the real pool costs (the real Wasm's metered instructions and fee).
        // Accessors work whether the XDR library exposes arms as methods or as properties.
        // deno-lint-ignore no-explicit-any
        const g = (o: any, ...path: string[]): any =>
          path.reduce((v, k) => (typeof v[k] === "function" ? v[k]() : v[k]), o);
        const env = xdr.TransactionEnvelope.fromXDR(raw.envelopeXdr!, "base64");
        const res = g(env, "v1", "tx", "ext", "sorobanData", "resources");
        const fee = g(xdr.TransactionResult.fromXDR(raw.resultXdr!, "base64"), "feeCharged");
        console.log(
          `flash ${f.txHash.slice(0, 8)}: fee ${fee.toString()} stroops, ` +
            `${g(res, "instructions")} instructions, ` +
            `${g(res, "footprint", "readOnly").length} read-only + ` +
            `${g(res, "footprint", "readWrite").length} read-write entries`,
        );
      }
      assert.equal(
        logLines(k).filter((l) => String(l.msg ?? "").includes("refused")).length,
        0,
        "no authorization refused",
      );

      // The lot (XLM, and WETH for the mixed borrower) was sold inside the flashes.
      const lines = k.stderr();
      assert.match(lines, /swapped seized .* to USDC on primary \(soroswap\)/);
      // Profit booked: the vault's total_profit and USDC rose by exactly what the flashes
      // returned above what they lent; shares unchanged; nothing outstanding.
      const after = await vaultState(w);
      let realized = 0n;
      for (const r of flashes) {
        const [amount, returned, profit, executor] = r.value as [bigint, bigint, bigint, string];
        assert.equal(executor, w.liquidator);
        assert.equal(profit, returned - amount);
        assert.ok(profit > 0n, `flash profit ${profit}`);
        realized += profit;
      }
      assert.equal(after.total_profit - before.total_profit, realized);
      assert.equal(after.total_usdc - before.total_usdc, realized);
      assert.equal(after.total_shares, before.total_shares);
      assert.equal(after.active_liq, 0n);
      console.log(
        `real Blend: ${flashes.length} fills, vault total_profit +${realized} units ` +
          `(${Number(realized) / 1e7} USDC)`,
      );
      const info = await keeperInfo(w, me);
      assert.equal(BigInt(info.successful_fills as bigint), 2n);

      // The keeper ends +0: in every flash its net USDC, XLM and WETH movement is ≤ 0, and the
      // vault got back at least what it lent in every transaction.
      const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, start, [
        w.xlm,
        w.weth,
      ]);
      assert.deepEqual(audit.violations, []);
      assert.deepEqual(audit.keeperGains, []);
      assert.equal(audit.outflows, 2);
      // And the keeper holds no position on the pool after the fills (it repaid and withdrew).
      const pos = await w.node.view<{ liabilities: unknown; collateral: unknown }>(
        w.pool,
        "get_positions",
        [me],
      );
      assert.equal(Object.keys(pos.liabilities as object).length, 0, "no debt left");
      assert.equal(Object.keys(pos.collateral as object).length, 0, "no collateral left");
      // Its USDC moved only by the registry stake it put up when it registered (100 USDC).
      assert.equal(await balance(w, w.usdc, me), usdcBefore - 100n * USDC);
    } catch (e) {
      if (k) {
        console.error(
          k.stderr().split("\n").filter((l) =>
            !l.includes('"level":"debug"') || /waiting|error|fail|refus/i.test(l)
          ).slice(-80).join("\n"),
        );
      }
      throw e;
    } finally {
      if (k) await stopKeeper(k);
      await w.close();
    }
  },
});

Deno.test({
  name:
    "real Blend v2 pool, past block 400 (the bid is free): the keeper fills with no Repay, the whole lot is profit",
  sanitizeResources: true,
  sanitizeOps: true,
  fn: async () => {
    const w = await startWorld({ ledgerMs: 250 });
    const keeper = w.keepers[0];
    let k;
    try {
      await shock(w, w.xlm, -1500);
      k = (await startKeeper(keeperEnv(w, keeper))).k;
      await until(
        async () => (await events(w, w.pool, "new_auction")).length >= 2 || undefined,
        90_000,
        "two new_auction events",
      );
      // The keeper is away until both auctions are past Blend's 400-block curve.
      await stopKeeper(k);
      await w.node.closeLedgers(450);
      const before = await vaultState(w);
      k = (await startKeeper(keeperEnv(w, keeper))).k;
      const flashes = await untilEvents(w, w.vault, "flash", 2, 60_000);
      // A Repay of a debt the filler does not have burns 0 d-tokens: the pool refuses it
      // (#1219); the keeper sends none and lends 1 unit.
      assert.doesNotMatch(k.stderr(), /#1219/);
      let realized = 0n;
      for (const f of flashes) {
        const [amount, returned, profit] = f.value as [bigint, bigint, bigint];
        assert.equal(amount, 1n);
        assert.equal(profit, returned - amount);
        realized += profit;
      }
      const after = await vaultState(w);
      assert.equal(after.total_profit - before.total_profit, realized);
      assert.ok(realized > 0n);
      console.log(`free bids: vault total_profit +${Number(realized) / 1e7} USDC`);
    } catch (e) {
      if (k) console.error(k.stderr().split("\n").filter((l) => /warn|error/.test(l)).slice(-20));
      throw e;
    } finally {
      if (k) await stopKeeper(k);
      await w.close();
    }
  },
});

Deno.test("the real Blend v2 pool's error codes are the ones the keeper branches on", async () => {
  const crate = await loadBlendWasm();
  const spec = await contract.Spec.fromWasm(crate.wasm.pool as never);
  const real: Record<string, number> = {};
  for (const e of spec.entries) {
    if (e.type !== "scSpecEntryUdtErrorEnumV0") continue;
    const u = e.udtErrorEnumV0;
    if (String(u.name) !== "PoolError") continue;
    for (const c of u.cases) real[String(c.name)] = Number(c.value);
  }
  assert.ok(Object.keys(real).length > 20, "PoolError found in the real pool's spec");
  // Every code the keeper classifies means the same on the real pool.
  for (const [name, code] of Object.entries(PoolErrors)) assert.equal(real[name], code, name);
});
