/**
 * The Stellar Asset Contract on the real host, through the node over JSON-RPC: what the keeper,
 * the vault and the pages rely on — reads, mint/transfer/burn/clawback events (CAP-67: the admin
 * dropped from `mint`/`clawback`, issuer transfers as `mint`/`burn`, the muxed destination's data
 * map), its error codes, allowances, authorization flags and the admin.
 *
 * SAC error codes (soroban-env-host `builtin_contracts/base_types` / `contract_error.rs`):
 * #2 operation not supported, #8 negative amount, #9 allowance, #10 balance, #13 trustline
 * missing, #14 below a new account's minimum balance.
 */
import assert from "node:assert/strict";
import {
  Account,
  Asset,
  AuthClawbackEnabledFlag,
  AuthRevocableFlag,
  Keypair,
  MuxedAccount,
  Operation,
  rpc,
  scValToNative,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { contractDataKey } from "@vigil/testing/wasm/deploy_helpers";
import {
  addr,
  call,
  classic,
  eventsOf,
  failure,
  i128,
  patchAccount,
  prepare,
  read,
  send,
  simError,
  u32,
} from "@vigil/testing/wasm/sac_rpc";

// deno-lint-ignore no-explicit-any
type Any = any;

async function setup(flags = 0) {
  const node = await startTestNode();
  const issuer = await node.newAccount();
  const alice = await node.newAccount();
  const bob = await node.newAccount();
  if (flags) patchAccount(node, issuer.publicKey(), { flags });
  const asset = new Asset("USDC", issuer.publicKey());
  await classic(node, alice, Operation.changeTrust({ asset }));
  const usdc = await node.deployAsset(asset);
  const name = `USDC:${issuer.publicKey()}`;
  return { node, issuer, alice, bob, asset, usdc, name };
}

/** `token.balance(who)`, simulated from `source` (an existing account). */
const balance = (node: TestNode, token: string, who: string, source = who) =>
  read(node, source, token, "balance", [addr(who)]) as Promise<bigint>;

Deno.test("SAC: reads; mint by the admin (recorded auth, CAP-67 event, errors); a C balance entry", async () => {
  const { node, issuer, alice, bob, usdc, name } = await setup();
  await using _ = node;
  const a = alice.publicKey();
  assert.equal(await read(node, a, usdc, "decimals"), 7);
  assert.equal(await read(node, a, usdc, "name"), name);
  assert.equal(await read(node, a, usdc, "symbol"), "USDC");
  assert.equal(await read(node, a, usdc, "admin"), issuer.publicKey());
  assert.equal(await balance(node, usdc, a), 0n);
  // No trustline: TrustlineMissingError.
  assert.match(
    await simError(node, a, usdc, "balance", [addr(bob.publicKey())]),
    /Error\(Contract, #13\)/,
  );

  // Simulated from someone else, the mint records the admin's (issuer's) address credentials.
  const p = await prepare(node, a, usdc, "mint", [addr(a), i128(5_0000000n)]);
  assert.ok(rpc.Api.isSimulationSuccess(p.sim));
  const auth = (p.sim as rpc.Api.SimulateTransactionSuccessResponse).result!.auth;
  assert.equal(auth.length, 1);
  assert.equal(
    scValToNative(xdr.ScVal.scvAddress((auth[0].credentials as Any).address.address)),
    issuer.publicKey(),
  );
  // Sent by the issuer (source-account auth): the event drops the admin (CAP-67).
  const minted = await call(node, issuer, usdc, "mint", [addr(a), i128(5_0000000n)]);
  assert.deepEqual(eventsOf(minted), [{
    contract: usdc,
    topics: ["mint", a, name],
    data: 5_0000000n,
  }]);
  assert.equal(await balance(node, usdc, a), 5_0000000n);
  assert.equal(
    (await node.server.getTrustline(a, new Asset("USDC", issuer.publicKey()))).balance,
    5_0000000n,
  );

  const i = issuer.publicKey();
  assert.match(
    await simError(node, i, usdc, "mint", [addr(bob.publicKey()), i128(1n)]),
    /Error\(Contract, #13\)/,
  );
  assert.match(
    await simError(node, i, usdc, "mint", [addr(a), i128(-1n)]),
    /Error\(Contract, #8\)/,
  );

  // Minted to a contract: a persistent Balance entry under the SAC, authorized, no clawback.
  const holder = await deployFixture(node, "counter", [i]);
  await call(node, issuer, usdc, "mint", [addr(holder), i128(7n)]);
  const key = xdr.ScVal.scvVec([xdr.ScVal.scvSymbol("Balance"), addr(holder)]);
  const got = await node.server.getLedgerEntries(
    xdr.LedgerKey.fromXDR(contractDataKey(usdc, key, 1), "base64"),
  );
  assert.deepEqual(scValToNative((got.entries[0].val as Any).contractData.val), {
    amount: 7n,
    authorized: true,
    clawback: false,
  });
  assert.equal(await balance(node, usdc, holder, a), 7n);
});

Deno.test("SAC: transfers G→C→G, issuer transfers as mint/burn, #10/#8, muxed destination", async () => {
  const { node, issuer, alice, bob, asset, usdc, name } = await setup();
  await using _ = node;
  const a = alice.publicKey();
  const i = issuer.publicKey();
  // The issuer's transfer out is a mint (CAP-67), and its balance is unlimited.
  const out = await call(node, issuer, usdc, "transfer", [addr(i), addr(a), i128(10_0000000n)]);
  assert.deepEqual(eventsOf(out), [{
    contract: usdc,
    topics: ["mint", a, name],
    data: 10_0000000n,
  }]);
  // The counter fixture's transfer_via moves tokens it holds with its own (invoker) auth.
  const holder = await deployFixture(node, "counter", [i]);
  const g2c = await call(node, alice, usdc, "transfer", [addr(a), addr(holder), i128(4_0000000n)]);
  assert.deepEqual(eventsOf(g2c), [{
    contract: usdc,
    topics: ["transfer", a, holder, name],
    data: 4_0000000n,
  }]);
  const c2g = await call(node, alice, holder, "transfer_via", [
    addr(usdc),
    addr(holder),
    addr(a),
    i128(1_0000000n),
  ]);
  assert.deepEqual(eventsOf(c2g)[0].topics, ["transfer", holder, a, name]);
  assert.equal(await balance(node, usdc, holder, a), 3_0000000n);
  assert.equal(await balance(node, usdc, a), 7_0000000n);
  // Back to the issuer: a burn.
  const back = await call(node, alice, usdc, "transfer", [addr(a), addr(i), i128(1n)]);
  assert.deepEqual(eventsOf(back), [{ contract: usdc, topics: ["burn", a, name], data: 1n }]);

  // Insufficient balances (a trustline and a contract balance) are BalanceError; negative
  // amounts are NegativeAmountError.
  assert.match(
    await simError(node, a, usdc, "transfer", [addr(a), addr(holder), i128(8_0000000n)]),
    /Error\(Contract, #10\)/,
  );
  assert.match(
    await simError(node, a, holder, "transfer_via", [
      addr(usdc),
      addr(holder),
      addr(a),
      i128(5_0000000n),
    ]),
    /Error\(Contract, #10\)/,
  );
  assert.match(
    await simError(node, a, usdc, "transfer", [addr(a), addr(holder), i128(-1n)]),
    /Error\(Contract, #8\)/,
  );

  // A muxed destination: the event names the account and its data is {amount, to_muxed_id}.
  await classic(node, bob, Operation.changeTrust({ asset }));
  const muxed = new MuxedAccount(new Account(bob.publicKey(), "0"), "42").accountId();
  const mx = await call(node, alice, usdc, "transfer", [addr(a), addr(muxed), i128(3n)]);
  assert.deepEqual(eventsOf(mx), [{
    contract: usdc,
    topics: ["transfer", a, bob.publicKey(), name],
    data: { amount: 3n, to_muxed_id: 42n },
  }]);
  assert.equal(await balance(node, usdc, bob.publicKey()), 3n);
});

Deno.test("SAC native: the reserve stays, burn and admin are unsupported", async () => {
  await using node = await startTestNode();
  const xlm = await node.deployAsset(Asset.native());
  const alice = await node.newAccount(100n);
  const bob = await node.newAccount(100n);
  const a = alice.publicKey();
  const bal = await balance(node, xlm, a);
  assert.equal(bal, 100_0000000n);
  // The whole balance cannot move: the account's minimum balance (2 base reserves) stays.
  assert.match(
    await simError(node, a, xlm, "transfer", [addr(a), addr(bob.publicKey()), i128(bal)]),
    /Error\(Contract, #10\)/,
  );
  const ok = await call(node, alice, xlm, "transfer", [addr(a), addr(bob.publicKey()), i128(5n)]);
  assert.deepEqual(eventsOf(ok)[0].topics, ["transfer", a, bob.publicKey(), "native"]);
  assert.match(await simError(node, a, xlm, "burn", [addr(a), i128(1n)]), /Error\(Contract, #2\)/);
  assert.match(await simError(node, a, xlm, "admin", []), /Error\(/);
  // Protocol 26+: a native transfer to an account that does not exist creates it, when the
  // amount covers a new account's minimum balance (1 XLM); below that it is #14.
  const ghost = Keypair.random().publicKey();
  assert.match(
    await simError(node, a, xlm, "transfer", [addr(a), addr(ghost), i128(9_999_999n)]),
    /Error\(Contract, #14\)[\s\S]*below minimum balance for new account/,
  );
  const made = await call(node, alice, xlm, "transfer", [addr(a), addr(ghost), i128(5_0000000n)]);
  assert.deepEqual(eventsOf(made)[0].topics, ["transfer", a, ghost, "native"]);
  assert.equal(BigInt((await node.server.getAccountEntry(ghost)).balance as never), 5_0000000n);
});

Deno.test("SAC: approve, allowance, transfer_from, burn_from, burn; an expired allowance is zero", async () => {
  const { node, issuer, alice, bob, asset, usdc, name } = await setup();
  await using _ = node;
  const a = alice.publicKey();
  const b = bob.publicKey();
  await classic(node, bob, Operation.changeTrust({ asset }));
  await call(node, issuer, usdc, "mint", [addr(a), i128(10_0000000n)]);
  const holder = await deployFixture(node, "counter", [issuer.publicKey()]);
  const until = (await node.server.getLatestLedger()).sequence + 50;
  const ap = await call(node, alice, usdc, "approve", [
    addr(a),
    addr(b),
    i128(3_0000000n),
    u32(until),
  ]);
  assert.deepEqual(eventsOf(ap), [{
    contract: usdc,
    topics: ["approve", a, b, name],
    data: [3_0000000n, until],
  }]);
  const allowance = () => read(node, b, usdc, "allowance", [addr(a), addr(b)]);
  assert.equal(await allowance(), 3_0000000n);
  const tf = await call(node, bob, usdc, "transfer_from", [
    addr(b),
    addr(a),
    addr(holder),
    i128(2_0000000n),
  ]);
  assert.deepEqual(eventsOf(tf)[0].topics, ["transfer", a, holder, name]);
  assert.equal(await allowance(), 1_0000000n);
  assert.equal(await balance(node, usdc, holder, a), 2_0000000n);
  assert.match(
    await simError(node, b, usdc, "transfer_from", [
      addr(b),
      addr(a),
      addr(holder),
      i128(2_0000000n),
    ]),
    /Error\(Contract, #9\)/,
  );
  const bf = await call(node, bob, usdc, "burn_from", [addr(b), addr(a), i128(1_0000000n)]);
  assert.deepEqual(eventsOf(bf), [{ contract: usdc, topics: ["burn", a, name], data: 1_0000000n }]);
  assert.equal(await allowance(), 0n);
  const burn = await call(node, alice, usdc, "burn", [addr(a), i128(1_0000000n)]);
  assert.deepEqual(eventsOf(burn)[0].topics, ["burn", a, name]);
  assert.equal(await balance(node, usdc, a), 6_0000000n);

  // An allowance past its live-until ledger reads as zero; one cannot be set in the past.
  const now = (await node.server.getLatestLedger()).sequence;
  await call(node, alice, usdc, "approve", [addr(a), addr(b), i128(5n), u32(now + 2)]);
  assert.equal(await allowance(), 5n);
  await node.closeLedgers(3);
  assert.equal(await allowance(), 0n);
  const later = (await node.server.getLatestLedger()).sequence;
  assert.match(
    await simError(node, a, usdc, "approve", [addr(a), addr(b), i128(5n), u32(later - 1)]),
    /Error\(Contract, #9\)/,
  );
});

Deno.test("SAC: set_admin; set_authorized needs AUTH_REVOCABLE; clawback of a clawback-enabled trustline", async () => {
  const { node, issuer, alice, bob, usdc, name } = await setup();
  await using _ = node;
  const a = alice.publicKey();
  const i = issuer.publicKey();
  // Revoking needs AUTH_REVOCABLE on the issuer (not set here): OperationNotSupported.
  assert.match(
    await simError(node, i, usdc, "set_authorized", [addr(a), xdr.ScVal.scvBool(false)]),
    /Error\(Contract, #2\)/,
  );
  assert.equal(await read(node, a, usdc, "authorized", [addr(a)]), true);
  const sa = await call(node, issuer, usdc, "set_admin", [addr(bob.publicKey())]);
  assert.deepEqual(eventsOf(sa), [{
    contract: usdc,
    topics: ["set_admin", i, name],
    data: bob.publicKey(),
  }]);
  assert.equal(await read(node, a, usdc, "admin"), bob.publicKey());
  // The old admin's own signature no longer authorizes a mint; the new admin's does.
  const p = await prepare(node, i, usdc, "mint", [addr(a), i128(1n)]);
  const src = (p.sim as rpc.Api.SimulateTransactionSuccessResponse).result!.auth;
  assert.equal(src[0].credentials.type, "sorobanCredentialsAddress");
  const unsigned = await send(node, issuer, p);
  assert.equal(unsigned.status, "FAILED");
  assert.match(failure(unsigned), /Error\(Auth, InvalidAction\)/);
  await call(node, bob, usdc, "mint", [addr(a), i128(1n)]);
  assert.equal(await balance(node, usdc, a), 1n);

  // A revocable, clawback-enabled issuer: its trustlines get the clawback flag.
  const c = await setup(AuthRevocableFlag | AuthClawbackEnabledFlag);
  await using _c = c.node;
  const ca = c.alice.publicKey();
  await call(c.node, c.issuer, c.usdc, "mint", [addr(ca), i128(100n)]);
  const cb = await call(c.node, c.issuer, c.usdc, "clawback", [addr(ca), i128(40n)]);
  assert.deepEqual(eventsOf(cb), [{
    contract: c.usdc,
    topics: ["clawback", ca, c.name],
    data: 40n,
  }]);
  assert.equal(await balance(c.node, c.usdc, ca), 60n);
  // Deauthorized: the holder can no longer send, and the flag reads back.
  const de = await call(c.node, c.issuer, c.usdc, "set_authorized", [
    addr(ca),
    xdr.ScVal.scvBool(false),
  ]);
  assert.deepEqual(eventsOf(de)[0].topics, ["set_authorized", ca, c.name]);
  assert.equal(await read(c.node, ca, c.usdc, "authorized", [addr(ca)]), false);
  assert.match(
    await simError(c.node, ca, c.usdc, "transfer", [
      addr(ca),
      addr(c.issuer.publicKey()),
      i128(1n),
    ]),
    /Error\(Contract, #/,
  );
});
