/**
 * The authorization shapes the keeper states for its transactions, against what real simulations
 * record on the market scenario (Blend pool stand-in, Vigil's Wasm vault, registry and
 * liquidator, both Soroswap-ABI venues) over JSON-RPC. Each test logs the recorded tree
 * (`describeAuth`), asserts its structure, checks it against the planned shape, and sends the
 * transaction through the keeper's own pipeline (which checks again before signing): the honest
 * flash, registration, a swap on each venue.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import {
  Address,
  Contract,
  type Keypair,
  rpc,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import {
  checkAuthEntries,
  describeAuth,
  rootCall,
  UnexpectedAuthError,
} from "@vigil/soroban/auth_guard";
import { ChainRpc } from "@vigil/soroban/rpc";
import type { Request } from "@vigil/contracts/clients/liquidator";
import { requestScVal } from "@vigil/contracts/clients/rpc";
import { sv } from "@vigil/soroban/scval";
import { ALLOWANCE_LEDGERS, liquidationPlan } from "@vigil/keeper/adapters/lending_pool/execute";
import { liquidationAuth } from "@vigil/keeper/adapters/lending_pool/flash_auth";
import { soroswapVenue } from "@vigil/keeper/dex/venues";
import { flashAuthShape, RegistryContract, VaultContract } from "@vigil/keeper/vault_client";
import {
  type MarketWorld,
  openAuction,
  Req,
  startMarketWorld,
  WITHDRAW_ALL,
} from "@vigil/testing/contracts/market_world";
import { USDC } from "@vigil/testing/contracts/vigil_fixture";

/** Simulates `contract.fn(args)` with `source` as the transaction source: the recorded entries. */
async function recorded(
  chain: ChainRpc,
  source: Keypair,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<xdr.SorobanAuthorizationEntry[]> {
  const tx = new TransactionBuilder(await chain.server.getAccount(source.publicKey()), {
    fee: "100",
    networkPassphrase: chain.networkPassphrase,
  }).addOperation(new Contract(contract).call(fn, ...args)).setTimeout(60).build();
  const sim = await chain.server.simulateTransaction(tx);
  assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify((sim as { error?: string }).error));
  return sim.result?.auth ?? [];
}

/** A recorded tree as nested `name.fn` labels (contracts named by `names`). */
type Tree = [string, Tree[]];
function treeOf(entries: xdr.SorobanAuthorizationEntry[], names: Record<string, string>): Tree[] {
  const walk = (inv: xdr.SorobanAuthorizedInvocation): Tree => {
    const f = inv.function;
    if (f.type !== "sorobanAuthorizedFunctionTypeContractFn") return ["create_contract", []];
    const id = Address.fromScAddress(f.contractFn.contractAddress).toString();
    return [
      `${names[id] ?? id}.${String(f.contractFn.functionName)}`,
      inv.subInvocations.map(walk),
    ];
  };
  return entries.map((e) => {
    assert.equal(e.credentials.type, "sorobanCredentialsSourceAccount");
    return walk(e.rootInvocation);
  });
}

/** Expects `fn` to throw an UnexpectedAuthError whose reason matches `re`. */
function refused(fn: () => void, re: RegExp): UnexpectedAuthError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UnexpectedAuthError, String(err));
    assert.match(err.reason, re);
    return err;
  }
  assert.fail("not refused");
}

function names(w: MarketWorld): Record<string, string> {
  return {
    [w.vault]: "vault",
    [w.registry]: "registry",
    [w.liquidator]: "liquidator",
    [w.pool]: "pool",
    [w.usdc]: "usdc",
    [w.xlm]: "xlm",
    [w.router]: "router",
    [w.pair]: "pair",
  };
}

/** A Blend request as the keeper builds it (the liquidator's spec type). */
const request = (type: number, address: string, amount: bigint): Request => ({
  address,
  amount,
  request_type: type,
});

Deno.test("the honest flash: its recorded authorization is the planned shape (logged), deviations from the plan are refused, and the keeper's pipeline signs and settles it", async () => {
  const w = await startMarketWorld();
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  try {
    await openAuction(w);
    const me = w.eve.publicKey();
    const amount = 6_000n * USDC; // above the bid: the pool refunds the rest of the repayment
    const requests = [
      request(Req.Fill, w.borrower, 100n),
      request(Req.Repay, w.usdc, amount),
      request(Req.WithdrawCollateral, w.xlm, WITHDRAW_ALL),
    ];
    const until = w.node.latestLedger().sequence + ALLOWANCE_LEDGERS;
    const leg = {
      amountIn: 1n * USDC,
      kind: 0,
      minOut: 0n,
      path: [w.xlm, w.usdc],
      router: w.router,
    };
    const plan = liquidationPlan(w.pool, requests, [leg], until, [], 10200);
    const planned = {
      keeper: me,
      liquidator: w.liquidator,
      pool: w.pool,
      usdc: w.usdc,
      requests: requests.map(requestScVal),
      repay: new Map([[w.usdc, amount]]),
      lotAssets: [w.xlm],
      allowanceUntil: until,
      minRatioBps: 10200,
    };
    const args = [sv.address(me), sv.address(w.liquidator), sv.i128(amount), plan, sv.u64(5)];
    const entries = await recorded(chain, w.eve, w.vault, "flash", args);
    console.log(`recorded authorization of an honest flash:\n${describeAuth(entries)}`);
    assert.deepEqual(treeOf(entries, names(w)), [
      ["vault.flash", [
        ["liquidator.exec", [
          // Issue 26 (min_ratio_bps set): the fill and the repayment, then the withdrawal.
          ["pool.submit", [["usdc.transfer", []]]],
          ["pool.submit", []],
          ["xlm.approve", []],
          ["xlm.approve", []],
          ["usdc.approve", []],
          ["usdc.approve", []],
        ]],
      ]],
    ]);
    const flash = { keeper: me, vault: w.vault, usdc: w.usdc, executor: w.liquidator, amount };
    const check = (p: typeof planned, data = plan) =>
      checkAuthEntries(entries, [
        rootCall(w.vault, "flash", args, flashAuthShape({ ...flash, data }, liquidationAuth(p))),
      ]);
    check(planned); // the plan's own shape passes
    // Planned without the ratio check (one submit), the two-submit tree is refused.
    refused(() => check({ ...planned, minRatioBps: 0 }), /pool|submit|unexpected|argument/);

    // Had the keeper planned otherwise, the same recorded tree would be refused.
    refused(
      () => check({ ...planned, repay: new Map([[w.usdc, amount - 1n]]) }),
      new RegExp(`argument \`amount\` is ${amount}, expected at most ${amount - 1n}`),
    );
    refused(
      () => check({ ...planned, lotAssets: [w.weth] }),
      /unexpected call: only .* were planned here/,
    );
    refused(
      () => check({ ...planned, liquidator: w.registry }),
      /argument `spender` is C\w+, expected the liquidator C\w+/,
    );
    refused(
      () => check({ ...planned, allowanceUntil: until + 1 }),
      /argument `expiration_ledger` is \d+, expected \d+/,
    );
    refused(
      () =>
        check(
          planned,
          liquidationPlan(w.pool, requests, [{ ...leg, minOut: 1n }], until, [], 10200),
        ),
      /argument `data` is/,
    );

    // The keeper's pipeline: checked again, signed, settled.
    const vault = new VaultContract(chain, w.eve, w.vault);
    const before = await w.state();
    const out = await vault.flash(w.liquidator, amount, plan, 5, {
      auth: liquidationAuth(planned),
    });
    assert.ok(out.profit > 0n, `profit ${out.profit}`);
    assert.equal((await w.state()).total_profit - before.total_profit, out.profit);
  } finally {
    chain.close();
    await w.close();
  }
});

Deno.test("registration and swaps: the recorded trees are the stated shapes (logged), and the keeper's own calls land", async () => {
  const w = await startMarketWorld();
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  try {
    const n = names(w);
    // register(operator, name) → usdc.transfer(operator, registry, min_stake).
    const alice = w.depositor;
    const reg = await recorded(chain, alice, w.registry, "register", [
      sv.address(alice.publicKey()),
      sv.string("alice"),
    ]);
    console.log(`recorded authorization of register:\n${describeAuth(reg)}`);
    assert.deepEqual(treeOf(reg, n), [["registry.register", [["usdc.transfer", []]]]]);
    const usdcBefore = await w.bal(w.usdc, alice.publicKey());
    await new RegistryContract(chain, w.registry).register(alice, "alice");
    assert.equal(usdcBefore - (await w.bal(w.usdc, alice.publicKey())), 100n * USDC);

    // Soroswap: router.swap_exact_tokens_for_tokens → xlm.transfer(keeper, pair, amount_in).
    const me = w.eve.publicKey();
    const amountIn = 100n * USDC;
    const deadline = sv.u64(BigInt(w.node.latestLedger().closeTime) + 120n);
    const soro = await recorded(chain, w.eve, w.router, "swap_exact_tokens_for_tokens", [
      sv.i128(amountIn),
      sv.i128(0n),
      sv.addresses([w.xlm, w.usdc]),
      sv.address(me),
      deadline,
    ]);
    console.log(`recorded authorization of a Soroswap swap:\n${describeAuth(soro)}`);
    assert.deepEqual(treeOf(soro, n), [["router.swap_exact_tokens_for_tokens", [[
      "xlm.transfer",
      [],
    ]]]]);
    const usdc0 = await w.bal(w.usdc, me);
    await soroswapVenue("primary", w.router).swap(chain, w.eve, w.xlm, w.usdc, amountIn, 1n);
    assert.ok((await w.bal(w.usdc, me)) > usdc0);

    // The fallback venue is a second Soroswap-ABI deployment: the same shape, its own pair.
    const fallback = w.market.contracts.fallback_dex_router;
    const fb = await recorded(chain, w.eve, fallback, "swap_exact_tokens_for_tokens", [
      sv.i128(amountIn),
      sv.i128(0n),
      sv.addresses([w.xlm, w.usdc]),
      sv.address(me),
      deadline,
    ]);
    assert.equal(fb.length, 1);
    const usdc1 = await w.bal(w.usdc, me);
    await soroswapVenue("fallback", fallback).swap(chain, w.eve, w.xlm, w.usdc, amountIn, 1n);
    assert.ok((await w.bal(w.usdc, me)) > usdc1);
  } finally {
    chain.close();
    await w.close();
  }
});
