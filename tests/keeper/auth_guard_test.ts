/**
 * The keeper's authorization guard (`soroban/auth_guard.ts`) over hand-built trees: the
 * honest flash's tree (as the liquidator records it, see `flash_auth_test.ts`) passes, and every
 * deviation is refused with a reason naming the offending invocation — a transfer to a thief, an
 * allowance to another spender, an unplanned asset, another contract, a wrong function, an
 * amount above the plan, one call too many, an extra nested call, credentials that are not the
 * keeper's source account, a create-contract authorization, a second root. Then `invokeContract`
 * over the local node: a refused call is reported and never signed or sent; the same call with
 * its shape stated lands.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  Keypair,
  rpc,
  StrKey,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { deployFixture } from "@vigil/testing/contracts/mod";
import {
  anyContract,
  argsOf,
  type AuthCall,
  call,
  checkAuthEntries,
  describeAuth,
  I64_MAX,
  is,
  ROOT_ONLY,
  rootCall,
  sacTransfer,
  UnexpectedAuthError,
} from "@vigil/soroban/auth_guard";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { invokeContract, SIGNED_AUTH_LEDGERS } from "@vigil/soroban/tx";
import { liquidationAuth } from "@vigil/keeper/adapters/lending_pool/flash_auth";
import { flashAuthShape } from "@vigil/keeper/vault_client";
import { startTestNode } from "@vigil/testing/localnet";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const account = () => Keypair.random().publicKey();

const keeper = account();
const thief = account();
const borrower = account();
const [vault, liquidator, pool, otherPool, usdc, xlm, weth] = [1, 2, 3, 4, 5, 6, 7].map(contract);
const amount = 6_000n * 10_000_000n;
const until = 20_000;
const requests = [
  sv.struct({ address: sv.address(borrower), amount: sv.i128(100n), request_type: sv.u32(6) }),
  sv.struct({ address: sv.address(usdc), amount: sv.i128(amount), request_type: sv.u32(5) }),
  sv.struct({ address: sv.address(xlm), amount: sv.i128(1n << 62n), request_type: sv.u32(3) }),
];
const plan = sv.struct({ allowance_until: sv.u32(until), pool: sv.address(pool) });
const flashArgs = [sv.address(keeper), sv.address(liquidator), sv.i128(amount), plan, sv.u64(5)];
const policy = sv.struct({ executors: sv.addresses([liquidator]) });

/** An invocation node. */
function inv(
  c: string,
  fn: string,
  args: xdr.ScVal[],
  subs: xdr.SorobanAuthorizedInvocation[] = [],
): xdr.SorobanAuthorizedInvocation {
  return new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
      new xdr.InvokeContractArgs({
        contractAddress: new Address(c).toScAddress(),
        functionName: fn,
        args,
      }),
    ),
    subInvocations: subs,
  });
}

/** An entry with source-account credentials. */
const src = (root: xdr.SorobanAuthorizedInvocation) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: root,
  });

const transfer = (token: string, from: string, to: string, n: bigint, subs = []) =>
  inv(token, "transfer", [sv.address(from), sv.address(to), sv.i128(n)], subs);
const approve = (token: string, spender: string, n: bigint, exp = until) =>
  inv(token, "approve", [sv.address(keeper), sv.address(spender), sv.i128(n), sv.u32(exp)]);
const submit = (subs: xdr.SorobanAuthorizedInvocation[], p = pool) =>
  inv(
    p,
    "submit",
    [sv.address(keeper), sv.address(keeper), sv.address(keeper), sv.vec(requests)],
    subs,
  );

/** The honest flash's tree with `submitSubs` under the pool's submit and `execSubs` after it. */
function flashTree(
  submitSubs = [transfer(usdc, keeper, pool, amount)],
  execSubs = [
    approve(xlm, liquidator, I64_MAX),
    approve(xlm, liquidator, 0n),
    approve(usdc, liquidator, I64_MAX),
    approve(usdc, liquidator, 0n),
  ],
  s = submit(submitSubs),
): xdr.SorobanAuthorizedInvocation {
  return inv(vault, "flash", flashArgs, [
    inv(liquidator, "exec", [
      sv.address(keeper),
      sv.address(vault),
      sv.address(usdc),
      sv.i128(amount),
      plan,
      policy,
    ], [s, ...execSubs]),
  ]);
}

/** The shape the keeper derives from its plan. */
const expected: AuthCall[] = [
  rootCall(
    vault,
    "flash",
    flashArgs,
    flashAuthShape(
      { keeper, vault, usdc, executor: liquidator, amount, data: plan },
      liquidationAuth({
        keeper,
        liquidator,
        pool,
        usdc,
        requests,
        repay: new Map([[usdc, amount]]),
        lotAssets: [xlm],
        allowanceUntil: until,
      }),
    ),
  ),
];

/** Checks `entries`; returns the refusal (asserting it is one). */
function refusal(entries: xdr.SorobanAuthorizationEntry[], shape = expected): UnexpectedAuthError {
  try {
    checkAuthEntries(entries, shape);
  } catch (err) {
    assert.ok(err instanceof UnexpectedAuthError, String(err));
    assert.match(err.message, /^refused to sign: /);
    return err;
  }
  assert.fail(`not refused:\n${describeAuth(entries)}`);
}

Deno.test("auth guard: the honest flash passes, with or without the calls a smaller flash skips", () => {
  checkAuthEntries([src(flashTree())], expected);
  // A lot that arrived empty: no XLM allowance; a flash whose submit pulled less than planned.
  checkAuthEntries(
    [src(flashTree([transfer(usdc, keeper, pool, amount - 5n)], [approve(usdc, liquidator, 0n)]))],
    expected,
  );
  checkAuthEntries([], expected); // nothing recorded: nothing to authorize
});

Deno.test("auth guard: the review's attack — an extra transfer to a thief and an allowance to a thief — is refused, naming the call", () => {
  // The hostile pool's submit: XLM.transfer(keeper → thief) beside the pool's pull.
  const steal = refusal([
    src(flashTree([transfer(usdc, keeper, pool, amount), transfer(xlm, keeper, thief, 9_000n)])),
  ]);
  assert.equal(steal.fn, "transfer");
  assert.equal(steal.contract, xlm);
  assert.equal(steal.path, "flash › exec › submit › transfer");
  assert.match(steal.reason, new RegExp(`unexpected call: only transfer on ${usdc} was planned`));
  assert.match(steal.invocation, new RegExp(`${xlm}\\.transfer\\(${keeper}, ${thief}, 9000\\)`));
  // The same asset as the pool's pull, to the thief instead of the pool.
  const usdcToThief = refusal([src(flashTree([transfer(usdc, keeper, thief, amount)]))]);
  assert.match(
    usdcToThief.reason,
    new RegExp(`argument \`to\` is ${thief}, expected the planned pool ${pool}`),
  );
  // USDC.approve(keeper, thief, 2^62) under the submit, or where the liquidator's approvals are.
  const underSubmit = refusal([
    src(flashTree([transfer(usdc, keeper, pool, amount), approve(usdc, thief, 1n << 62n)])),
  ]);
  assert.equal(underSubmit.fn, "approve");
  assert.match(underSubmit.reason, /unexpected call/);
  const underExec = refusal([src(flashTree(undefined, [approve(usdc, thief, 1n << 62n)]))]);
  assert.match(
    underExec.reason,
    new RegExp(`argument \`spender\` is ${thief}, expected the liquidator ${liquidator}`),
  );
  assert.equal(underExec.path, "flash › exec › approve");
});

/** An entry with address credentials for `who` (v2, what stellar-sdk 17 records). */
const addr = (root: xdr.SorobanAuthorizedInvocation, who = keeper, v2 = true) => {
  const creds = new xdr.SorobanAddressCredentials({
    address: new Address(who).toScAddress(),
    nonce: 11n,
    signatureExpirationLedger: 0,
    signature: xdr.ScVal.scvVoid(),
  });
  return new xdr.SorobanAuthorizationEntry({
    credentials: v2
      ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds)
      : xdr.SorobanCredentials.sorobanCredentialsAddress(creds),
    rootInvocation: root,
  });
};

/** Checks `entries` as a channel-account transaction's (the keeper signs address entries). */
function channelRefusal(entries: xdr.SorobanAuthorizationEntry[]): UnexpectedAuthError {
  try {
    checkAuthEntries(entries, expected, { signer: keeper });
  } catch (err) {
    assert.ok(err instanceof UnexpectedAuthError, String(err));
    return err;
  }
  assert.fail(`not refused:\n${describeAuth(entries)}`);
}

Deno.test("auth guard, channel account as the source: the keeper's address entries are held to the same shape; the attacks are refused alike", () => {
  // The honest flash, recorded for the keeper's address (v1 or v2 credentials), passes.
  checkAuthEntries([addr(flashTree())], expected, { signer: keeper });
  checkAuthEntries([addr(flashTree(), keeper, false)], expected, { signer: keeper });
  // Attacker mindset: a hostile pool makes the keeper-signed tree steal through a channel flash.
  const steal = channelRefusal([
    addr(flashTree([transfer(usdc, keeper, pool, amount), transfer(xlm, keeper, thief, 9_000n)])),
  ]);
  assert.equal(steal.path, "flash › exec › submit › transfer");
  assert.match(steal.reason, new RegExp(`unexpected call: only transfer on ${usdc} was planned`));
  const allowance = channelRefusal([addr(flashTree(undefined, [approve(usdc, thief, 1n << 62n)]))]);
  assert.match(allowance.reason, new RegExp(`argument \`spender\` is ${thief}`));
  // A second root for the keeper's address: a separate authorization it would sign, refused.
  const second = channelRefusal([addr(flashTree()), addr(transfer(xlm, keeper, thief, 9_000n))]);
  assert.match(second.reason, new RegExp(`only flash on ${vault} was planned here`));
  // Another root function entirely (the keeper's signature on something else than the flash).
  const other = channelRefusal([addr(transfer(usdc, keeper, thief, amount))]);
  assert.equal(other.fn, "transfer");
  // An entry for someone else's address, or a source-account entry (the channel's authority:
  // it authorizes nothing), is refused whatever its tree.
  assert.match(
    channelRefusal([addr(flashTree()), addr(transfer(usdc, borrower, thief, 1n), borrower)])
      .reason,
    new RegExp(`are for ${borrower}, not the keeper's address ${keeper}`),
  );
  assert.match(
    channelRefusal([src(flashTree())]).reason,
    /the channel account's \(the transaction source\), which authorizes nothing/,
  );
  // And without a channel, the keeper's own address entry stays refused (it is the source).
  assert.match(refusal([addr(flashTree())]).reason, /not the keeper's source account/);
});

Deno.test("auth guard: unplanned asset, another contract, wrong function, amount above the plan, one call too many, an extra nested call", () => {
  // An allowance on an asset that is not in the lot.
  const asset = refusal([src(flashTree(undefined, [approve(weth, liquidator, I64_MAX)]))]);
  assert.equal(asset.contract, weth);
  assert.match(
    asset.reason,
    new RegExp(`only submit on ${pool}, approve on ${xlm}, approve on ${usdc} were planned here`),
  );
  // An allowance amount that is neither i64::MAX nor 0, or with another expiration.
  assert.match(
    refusal([src(flashTree(undefined, [approve(usdc, liquidator, 5n)]))]).reason,
    new RegExp(`argument \`amount\` is 5, expected ${I64_MAX}`),
  );
  assert.match(
    refusal([src(flashTree(undefined, [approve(usdc, liquidator, 0n, until + 1)]))]).reason,
    /argument `expiration_ledger` is \d+, expected \d+/,
  );
  // Another pool than the planned one.
  const other = refusal([src(flashTree(undefined, undefined, submit([], otherPool)))]);
  assert.equal(other.contract, otherPool);
  assert.match(other.reason, new RegExp(`only submit on ${pool}, .* were planned here`));
  // The planned pool, but another function (borrow on the keeper's behalf).
  const fn = refusal([
    src(flashTree(undefined, undefined, inv(pool, "submit_with_allowance", [sv.address(keeper)]))),
  ]);
  assert.equal(fn.fn, "submit_with_allowance");
  // The planned pool and function, other requests.
  assert.match(
    refusal([
      src(flashTree(
        undefined,
        undefined,
        inv(pool, "submit", [
          sv.address(keeper),
          sv.address(keeper),
          sv.address(keeper),
          sv.vec(requests.slice(0, 2)),
        ]),
      )),
    ]).reason,
    /argument `requests` is/,
  );
  // The pool pulls more than planned, or twice.
  assert.match(
    refusal([src(flashTree([transfer(usdc, keeper, pool, amount + 1n)]))]).reason,
    new RegExp(`argument \`amount\` is ${amount + 1n}, expected at most ${amount}`),
  );
  const twice = refusal([
    src(flashTree([transfer(usdc, keeper, pool, amount), transfer(usdc, keeper, pool, 1n)])),
  ]);
  assert.match(twice.reason, /one transfer more than planned here \(at most 1\)/);
  // A flood of planned-looking calls is refused as fast (the search is bounded by the plan).
  const flood = refusal([
    src(flashTree(Array.from({ length: 200 }, () => transfer(usdc, keeper, pool, 1n)))),
  ]);
  assert.match(flood.reason, /one transfer more than planned here \(at most 1\)/);
  // The liquidator's allowance set twice.
  assert.match(
    refusal([
      src(
        flashTree(undefined, [
          approve(usdc, liquidator, I64_MAX),
          approve(usdc, liquidator, I64_MAX),
        ]),
      ),
    ]).reason,
    /one approve more than planned here/,
  );
  // An extra nested call under a planned leaf (the token calling out on the keeper's behalf).
  const nested = refusal([
    src(
      flashTree([
        transfer(usdc, keeper, pool, amount, [transfer(xlm, keeper, thief, 1n)] as never),
      ]),
    ),
  ]);
  assert.equal(nested.path, "flash › exec › submit › transfer › transfer");
  assert.match(nested.reason, /no authorized sub-invocation was planned here/);
  // The root itself with other arguments (another amount than the keeper built).
  const root = inv(vault, "flash", [
    sv.address(keeper),
    sv.address(liquidator),
    sv.i128(amount + 1n),
    plan,
    sv.u64(5),
  ]);
  assert.match(refusal([src(root)]).reason, /argument #2 is/);
});

Deno.test("auth guard: credentials other than the keeper's source account, a create-contract authorization and a second root are refused", () => {
  // Someone else's authorization recorded in the keeper's transaction (a borrower's, say).
  const someone = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: new Address(borrower).toScAddress(),
        nonce: 7n,
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid(),
      }),
    ),
    rootInvocation: transfer(usdc, borrower, thief, 1n),
  });
  const other = refusal([src(flashTree()), someone]);
  assert.match(
    other.reason,
    new RegExp(`credentials are for ${borrower}, not the keeper's source account`),
  );
  assert.equal(other.fn, "transfer");
  // The same as v2 address credentials (CAP-71), what stellar-sdk 17 asks simulation to record:
  // refused alike, the address read from the v2 arm.
  const someoneV2 = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(
      someone.credentials.type === "sorobanCredentialsAddress"
        ? someone.credentials.address
        : assert.fail("v1 credentials expected"),
    ),
    rootInvocation: someone.rootInvocation,
  });
  assert.match(
    refusal([src(flashTree()), someoneV2]).reason,
    new RegExp(`credentials are for ${borrower}, not the keeper's source account`),
  );
  // A create-contract authorization (deploying code in the keeper's name).
  const create = new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractV2HostFn(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAsset(
            Asset.native().toXDRObject(),
          ),
          executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
          constructorArgs: [],
        }),
      ),
      subInvocations: [],
    }),
  });
  assert.match(refusal([src(flashTree()), create]).reason, /create-contract authorization/);
  // A second root: the thief's transfer outside the flash's tree (non-root recording).
  const second = refusal([src(flashTree()), src(transfer(xlm, keeper, thief, 9_000n))]);
  assert.equal(second.path, "transfer");
  assert.match(second.reason, new RegExp(`only flash on ${vault} was planned here`));
  // Two copies of the planned root.
  assert.match(
    refusal([src(flashTree()), src(flashTree())]).reason,
    /one flash more than planned here/,
  );
});

Deno.test("auth guard: ROOT_ONLY accepts the root alone; an anyContract shape pins the pull to the contract that swaps", () => {
  const reg = inv(vault, "rebalance", [sv.address(keeper)]);
  const rootOnly = [rootCall(vault, "rebalance", [sv.address(keeper)], ROOT_ONLY)];
  checkAuthEntries([src(reg)], rootOnly);
  const extra = refusal(
    [src(inv(vault, "rebalance", [sv.address(keeper)], [transfer(usdc, keeper, thief, 1n)]))],
    rootOnly,
  );
  assert.match(extra.reason, /no authorized sub-invocation was planned here/);

  // A router that picks a pool at run time: the keeper authorizes one pool's `swap` of exactly its
  // input, and beneath it only that same pool pulling the input.
  const multihop = contract();
  const pool = contract();
  const swapArgs = (amt: bigint) => [
    sv.address(keeper),
    sv.address(xlm),
    sv.i128(amt),
    sv.i128(1n),
    xdr.ScVal.scvVoid(),
    sv.u64(99n),
    xdr.ScVal.scvVoid(),
  ];
  const poolSwap = call(
    anyContract("the pool of the pair"),
    "swap",
    argsOf(
      ["sender", is.address(keeper, "the keeper")],
      ["offer_asset", is.address(xlm, "the input token")],
      ["offer_amount", is.value(sv.i128(100n))],
      ["ask_asset_min_amount", is.any()],
      ["max_spread_bps", is.any()],
      ["deadline", is.any()],
      ["max_allowed_fee_bps", is.any()],
    ),
    { subs: [sacTransfer(xlm, keeper, is.parentContract(), 100n)] },
  );
  const shape = [rootCall(multihop, "swap", [], { subs: [poolSwap] })];
  const tree = (to: string, amt = 100n) =>
    src(inv(multihop, "swap", [], [
      inv(pool, "swap", swapArgs(amt), [transfer(xlm, keeper, to, amt)]),
    ]));
  checkAuthEntries([tree(pool)], shape);
  assert.match(
    refusal([tree(thief)], shape).reason,
    new RegExp(`argument \`to\` is ${thief}, expected the calling contract ${pool}`),
  );
  assert.match(refusal([tree(pool, 101n)], shape).reason, /argument `offer_amount` is 101/);
});

Deno.test("auth guard: a named-argument check reports the argument, a ContractMatch reports its description", () => {
  const c = call(
    anyContract("any pool"),
    "swap",
    argsOf(["who", is.address(keeper, "the keeper")]),
  );
  const r = refusal([src(inv(vault, "root", [], [inv(pool, "swap", [sv.address(thief)])]))], [
    call(vault, "root", () => undefined, { subs: [c] }),
  ]);
  assert.match(r.reason, new RegExp(`argument \`who\` is ${thief}, expected the keeper ${keeper}`));
  const none = refusal([src(inv(vault, "root", [], [inv(pool, "other", [])]))], [
    call(vault, "root", () => undefined, { subs: [c, sacTransfer(usdc, keeper, is.any(), 1n)] }),
  ]);
  assert.match(
    none.reason,
    new RegExp(`only swap on any pool, transfer on ${usdc} were planned here`),
  );
});

Deno.test("invokeContract: a call whose simulation records an unplanned authorization is reported and never signed or sent; stated, it lands", async () => {
  await using node = await startTestNode({ ledgerMs: 100 });
  const native = await node.deployAsset(Asset.native());
  const grab = await deployFixture(node, "grabber");
  const me = await node.newAccount();
  const to = (await node.newAccount()).publicKey();
  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const args = [sv.address(me.publicKey()), sv.address(native), sv.address(to), sv.i128(5n)];
    const seq = (await chain.server.getAccount(me.publicKey())).sequenceNumber();
    const bal = () => node.view<bigint>(native, "balance", { id: to });
    const before = await bal();
    const seen: UnexpectedAuthError[] = [];
    await assert.rejects(
      invokeContract(chain, me, grab, "take", args, {
        auth: ROOT_ONLY,
        onAuthRefused: (e) => seen.push(e),
      }),
      (err: unknown) => {
        assert.ok(err instanceof UnexpectedAuthError);
        assert.equal(err.txCall, `take on ${grab}`);
        assert.equal(err.path, "take › transfer");
        return true;
      },
    );
    assert.equal(seen.length, 1, "reported once, before it was thrown");
    await node.closeLedgers(2);
    // Not sent: same sequence number, nothing moved.
    assert.equal((await chain.server.getAccount(me.publicKey())).sequenceNumber(), seq);
    assert.equal(await bal(), before);
    // With the transfer stated, the same call lands.
    await invokeContract(chain, me, grab, "take", args, {
      auth: { subs: [sacTransfer(native, me.publicKey(), is.address(to), 5n)] },
    });
    assert.equal(await bal(), before + 5n);
  } finally {
    chain.close();
  }
});

Deno.test("invokeContract through a channel account: the keeper signs only its checked authorization; an unplanned one is refused and nothing is signed or sent", async () => {
  await using node = await startTestNode({ ledgerMs: 100 });
  const native = await node.deployAsset(Asset.native());
  const grab = await deployFixture(node, "grabber");
  const me = await node.newAccount();
  const channel = await node.newAccount(10n);
  const to = (await node.newAccount()).publicKey();
  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  try {
    const args = [sv.address(me.publicKey()), sv.address(native), sv.address(to), sv.i128(5n)];
    const seqOf = async (k: Keypair) =>
      (await chain.server.getAccount(k.publicKey())).sequenceNumber();
    const [mine, channels] = [await seqOf(me), await seqOf(channel)];
    const bal = () => node.view<bigint>(native, "balance", { id: to });
    const before = await bal();
    // The grabber's `take` also moves the keeper's XLM: through the channel, it is refused too.
    await assert.rejects(
      invokeContract(chain, me, grab, "take", args, { auth: ROOT_ONLY, source: channel }),
      (err: unknown) => {
        assert.ok(err instanceof UnexpectedAuthError);
        assert.equal(err.path, "take › transfer");
        return true;
      },
    );
    await node.closeLedgers(2);
    assert.equal(await seqOf(channel), channels, "nothing sent from the channel");
    assert.equal(await bal(), before);
    // Stated, it lands: the channel is the source (its sequence number moves), the keeper's
    // account sends nothing (its own is unchanged) and only signs the authorization.
    const r = await invokeContract(chain, me, grab, "take", args, {
      auth: { subs: [sacTransfer(native, me.publicKey(), is.address(to), 5n)] },
      source: channel,
    });
    assert.equal(await bal(), before + 5n);
    assert.equal(await seqOf(me), mine, "the keeper's sequence number is untouched");
    assert.equal(BigInt(await seqOf(channel)), BigInt(channels) + 1n);
    const got = await node.server.getTransaction(r.hash);
    assert.equal(got.status, "SUCCESS");
    // The transaction's source is the channel; its one authorization entry is the keeper's
    // address credentials, signed, expiring within SIGNED_AUTH_LEDGERS of the ledger before it.
    const tx = TransactionBuilder.fromXDR(
      (got as rpc.Api.GetSuccessfulTransactionResponse).envelopeXdr,
      node.networkPassphrase,
    ) as Transaction;
    assert.equal(tx.source, channel.publicKey());
    const entries = (tx.operations[0] as { auth?: xdr.SorobanAuthorizationEntry[] }).auth ?? [];
    assert.equal(entries.length, 1);
    const creds = entries[0].credentials;
    const ac = creds.type === "sorobanCredentialsAddressV2"
      ? creds.addressV2
      : creds.type === "sorobanCredentialsAddress"
      ? creds.address
      : assert.fail(`address credentials expected, got ${creds.type}`);
    assert.equal(Address.fromScAddress(ac.address).toString(), me.publicKey());
    assert.ok(ac.signatureExpirationLedger <= r.ledger + SIGNED_AUTH_LEDGERS);
  } finally {
    chain.close();
  }
});
