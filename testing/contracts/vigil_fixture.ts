/**
 * Test fixture for the Vigil contracts over JSON-RPC: a fresh local node, a USDC issued
 * asset with its SAC, funded users with trustlines, a wired vault + registry + liquidator, a
 * scriptable test executor that the admin (a key the fixture holds) added to the vault's flash
 * policy with a signed `set_flash_policy` (queued: the fixture moves ledger time to its
 * `applies_at`), and `contract.Client`s that sign with the users' real keys.
 *
 * The fixture deploys with the shortest policy delay the vault accepts (withdraw_cooldown +
 * 3600 s) unless the test names one, so that a queued change applies after a short time move.
 *
 * @module
 */
import { sendAssembled } from "../submit.ts";
import assert from "node:assert/strict";
import {
  Asset,
  contract,
  Keypair,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import { startTestNode } from "../localnet.ts";
import type { LocalnetOptions } from "@vigil/localnet/node";
import { deployVigil, type VigilConfig } from "@vigil/contracts/deploy/deploy_vigil";
import type { FlashPolicy } from "@vigil/contracts/clients";
import { script, type Step } from "../scripted_executor.ts";
import {
  VIGIL_SPEC_ERRORS,
  VigilError,
  type VigilErrorName,
} from "@vigil/contracts/registry/errors";
import { deployFixture } from "./mod.ts";

/** 1 USDC. */
export const USDC = 10_000_000n;

/** Options of every test transaction: a long validity window, since tests move ledger time. */
export const TX_OPTS = { timeoutInSeconds: 30 * 86400 } as const;

/** The vault's margin of policy_delay over withdraw_cooldown (seconds). */
export const DELAY_MARGIN = 3600n;

type Node = Awaited<ReturnType<typeof startTestNode>>;
/** A `contract.Client` with the contract's functions (typed loosely: the specs are read at run time). */
// deno-lint-ignore no-explicit-any
export type AnyClient = contract.Client & Record<string, any>;

/** A client of `contractId` on `node` that signs with `kp`'s key (the RPC's real auth checks). */
export function signingClient(
  node: { rpcUrl: string; networkPassphrase: string },
  contractId: string,
  kp: Keypair,
): Promise<AnyClient> {
  return contract.Client.from({
    contractId,
    networkPassphrase: node.networkPassphrase,
    rpcUrl: node.rpcUrl,
    allowHttp: true,
    publicKey: kp.publicKey(),
    ...contract.basicNodeSigner(kp, node.networkPassphrase),
  }) as Promise<AnyClient>;
}

/** A running chain with Vigil deployed. */
export interface VigilFixture {
  node: Node;
  server: rpc.Server;
  passphrase: string;
  usdc: string;
  issuer: Keypair;
  admin: Keypair;
  vault: string;
  registry: string;
  /** Vigil's liquidator (flash executor). */
  liquidator: string;
  /** A scriptable test executor (`testing/scripted_executor.ts`), in the flash policy. */
  executor: string;
  /**
   * Replaces the vault's flash policy, signed by the admin over JSON-RPC: a restricting change
   * applies at once; a queued one is brought into force by moving ledger time to its
   * `applies_at`. Returns whether it was queued.
   */
  setPolicy(policy: FlashPolicy): Promise<boolean>;
  /** The vault's flash policy (`get_flash_policy`). */
  policy(): Promise<FlashPolicy>;
  /** A funded account with a USDC trustline and `usdc` units of USDC. */
  user(usdc?: bigint): Promise<Keypair>;
  /** A contract.Client for `contractId` signing as `kp`. */
  client(contractId: string, kp: Keypair): Promise<AnyClient>;
  /** USDC SAC balance of an address. */
  balance(address: string): Promise<bigint>;
  /** Mints USDC (the issuer acting, in-process). */
  mint(address: string, amount: bigint): Promise<void>;
  advanceTime(seconds: number): Promise<void>;
  /** The latest closed ledger's close time (a read or simulation sees this + 1). */
  now(): bigint;
  /** Closes ledgers until the latest close time is `t` (nothing when already past it). */
  advanceTo(t: bigint): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a node (`nodeOpts`, e.g. network TTL settings), issues USDC and deploys a wired vault +
 * registry. `config` overrides the testnet limits; policy_delay defaults to withdraw_cooldown +
 * 3600.
 */
export async function startVigil(
  config: VigilConfig = {},
  nodeOpts: Omit<LocalnetOptions, "port"> = {},
): Promise<VigilFixture> {
  const node = await startTestNode(nodeOpts);
  try {
    const passphrase = node.networkPassphrase;
    const server = new rpc.Server(node.rpcUrl, { allowHttp: true });
    const issuer = Keypair.random();
    await node.fund(issuer.publicKey());
    const asset = new Asset("USDC", issuer.publicKey());
    const usdc = await node.deployAsset(asset);
    const admin = Keypair.random();
    await node.fund(admin.publicKey());
    const policyDelay = (config.withdraw_cooldown ?? 3600n) + DELAY_MARGIN;
    const { vault, registry, liquidator } = await deployVigil(node, {
      usdc,
      admin: admin.publicKey(),
      config: { policy_delay: policyDelay, ...config },
    });
    const executor = await deployFixture(node, "scripted_executor");

    const mint = async (to: string, amount: bigint) => {
      await node.invoke(usdc, "mint", { to, amount }, { source: issuer.publicKey() });
    };
    const balance = (id: string) => node.view<bigint>(usdc, "balance", { id });

    const user = async (amount = 0n): Promise<Keypair> => {
      const kp = Keypair.random();
      await node.fund(kp.publicKey());
      const account = await server.getAccount(kp.publicKey());
      const tx = new TransactionBuilder(account, { fee: "1000", networkPassphrase: passphrase })
        .addOperation(Operation.changeTrust({ asset }))
        .setTimeout(TX_OPTS.timeoutInSeconds)
        .build();
      tx.sign(kp);
      const sent = await server.sendTransaction(tx);
      assert.equal(sent.status, "PENDING", `changeTrust: ${JSON.stringify(sent)}`);
      const done = await server.pollTransaction(sent.hash, {
        attempts: 2000,
        sleepStrategy: () => 25,
      });
      assert.equal(done.status, "SUCCESS", "changeTrust failed");
      if (amount > 0n) await mint(kp.publicKey(), amount);
      return kp;
    };

    const client = (contractId: string, kp: Keypair) => signingClient(node, contractId, kp);

    const policy = async () => {
      const c = await client(vault, admin);
      return ok<FlashPolicy>(await c.get_flash_policy(TX_OPTS));
    };
    const now = () => node.latestLedger().closeTime;
    const advanceTo = async (t: bigint) => {
      const d = t - now();
      if (d > 0n) await node.advanceTime(Number(d));
    };
    const setPolicy = async (p: FlashPolicy) => {
      const c = await client(vault, admin);
      await send(await c.set_flash_policy({ policy: p }, TX_OPTS));
      const pending = ok<{ applies_at: bigint } | undefined>(
        await c.get_pending_flash_policy(TX_OPTS),
      );
      if (pending) {
        // In force from applies_at: the next ledger (what a read simulates) is at least then.
        await advanceTo(pending.applies_at - 1n);
        assert.deepEqual(ok(await c.get_flash_policy(TX_OPTS)), p, "queued policy in force");
      }
      return pending !== undefined && pending !== null;
    };
    // The deployment lists only Vigil's liquidator; the admin adds the test executor.
    const deployed = await policy();
    await setPolicy({ ...deployed, executors: [...deployed.executors, executor] });

    return {
      node,
      server,
      passphrase,
      usdc,
      issuer,
      admin,
      vault,
      registry,
      liquidator,
      executor,
      setPolicy,
      policy,
      user,
      client,
      balance,
      mint,
      advanceTime: (s) => node.advanceTime(s),
      now,
      advanceTo,
      close: () => node.close(),
    };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** Runs `fn` on a fresh {@link startVigil} chain and closes the node afterwards. */
export async function withVigil(
  fn: (f: VigilFixture) => Promise<void>,
  config?: VigilConfig,
  nodeOpts?: Omit<LocalnetOptions, "port">,
): Promise<void> {
  const f = await startVigil(config, nodeOpts);
  try {
    await fn(f);
  } finally {
    await f.close();
  }
}

/** Asserts a simulated call failed with the typed Vigil error `name`, decoded by the client. */
export function expectErr(
  // deno-lint-ignore no-explicit-any
  tx: contract.AssembledTransaction<any>,
  name: VigilErrorName,
): void {
  const sim = tx.simulation!;
  assert.ok(rpc.Api.isSimulationError(sim), `expected ${name}, but the simulation succeeded`);
  assert.match(sim.error, new RegExp(`Error\\(Contract, #${VigilError[name]}\\)`));
  const r = tx.result;
  assert.ok(r.isErr(), "the client should decode the error as Err");
  assert.equal(r.unwrapErr().message, VIGIL_SPEC_ERRORS[name][1]);
}

/**
 * Asserts a simulated call failed with an error that is NOT one of Vigil's typed errors
 * (a host error), matching `pattern`; the client rethrows instead of returning Err.
 */
export function expectHostErr(
  // deno-lint-ignore no-explicit-any
  tx: contract.AssembledTransaction<any>,
  pattern: RegExp,
): void {
  const sim = tx.simulation!;
  assert.ok(rpc.Api.isSimulationError(sim), "expected a host error, but the simulation succeeded");
  assert.match(sim.error, pattern);
  assert.throws(() => tx.result, "a host error is not a typed contract error");
}

/** Signs, sends and returns the decoded result of a call (unwrapping Ok). */
// deno-lint-ignore no-explicit-any
export async function send<R = unknown>(tx: contract.AssembledTransaction<any>): Promise<R> {
  const { result: r } = await sendAssembled(tx);
  // deno-lint-ignore no-explicit-any
  const res = r as any;
  if (res && typeof res.isOk === "function") {
    assert.ok(res.isOk(), `call failed: ${JSON.stringify(res, bigJson)}`);
    return res.unwrap() as R;
  }
  return r as R;
}

/** Unwraps a read call's Ok value. */
// deno-lint-ignore no-explicit-any
export function ok<R = unknown>(tx: contract.AssembledTransaction<any>): R {
  // deno-lint-ignore no-explicit-any
  const r = tx.result as any;
  if (r && typeof r.isOk === "function") {
    assert.ok(r.isOk(), `read failed: ${JSON.stringify(r, bigJson)}`);
    return r.unwrap() as R;
  }
  return r as R;
}

/** One decoded contract event. */
export interface DecodedEvent {
  /** Topics, native (the first is the event name). */
  topics: unknown[];
  // deno-lint-ignore no-explicit-any
  data: any;
  ledger: number;
  txHash: string;
}

/**
 * Every event `contractId` emitted in the node's history, in order, decoded. getEvents scans at
 * most 10,000 ledgers per request, and tests move ledger time by many ledgers, so this walks
 * the history window by window.
 */
export async function contractEvents(
  server: rpc.Server,
  contractId: string,
): Promise<DecodedEvent[]> {
  const out: DecodedEvent[] = [];
  const { sequence: latest } = await server.getLatestLedger();
  for (let start = 1; start <= latest; start += 10_000) {
    const res = await server.getEvents({
      startLedger: start,
      endLedger: Math.min(start + 10_000, latest + 1),
      filters: [{ type: "contract", contractIds: [contractId] }],
      limit: 10_000,
    });
    for (const e of res.events) {
      out.push({
        topics: e.topic.map((t: xdr.ScVal) => scValToNative(t)),
        data: scValToNative(e.value),
        ledger: e.ledger,
        txHash: e.txHash,
      });
    }
  }
  return out;
}

/** JSON.stringify replacer for bigints. */
export const bigJson = (_k: string, v: unknown): unknown => typeof v === "bigint" ? `${v}n` : v;

/**
 * Asserts a call cannot succeed without `address`'s authorization: simulation (recording
 * mode, like stellar-rpc) lists `address` among the required non-invoker signers, and the
 * transaction submitted with only `signer`'s envelope signature fails on chain (FAILED, the
 * auth entry's placeholder signature is rejected).
 */
export async function expectAuthFailure(
  f: VigilFixture,
  // deno-lint-ignore no-explicit-any
  tx: contract.AssembledTransaction<any>,
  signer: Keypair,
  address: string,
): Promise<void> {
  assert.ok(
    tx.needsNonInvokerSigningBy().includes(address),
    `expected ${address} to be a required signer, got ${tx.needsNonInvokerSigningBy()}`,
  );
  // The SDK refuses to sign while a G signer is missing; for a C address (no __check_auth)
  // it sends, and the transaction must fail on chain.
  let status: string | undefined;
  try {
    const sent = await tx.signAndSend();
    status = sent.getTransactionResponse?.status;
  } catch {
    status = undefined;
  }
  if (status === undefined) {
    const built = tx.built!;
    built.sign(signer);
    const sent = await f.server.sendTransaction(built);
    assert.equal(sent.status, "PENDING", JSON.stringify(sent, bigJson));
    status = (await f.server.pollTransaction(sent.hash, {
      attempts: 2000,
      sleepStrategy: () => 25,
    })).status;
  }
  assert.equal(status, "FAILED", "a missing authorization must fail the transaction");
}

/** `vault.flash` arguments through the scriptable test executor. */
export function flashArgs(
  f: VigilFixture,
  keeper: string,
  amount: bigint,
  steps: Step[],
  responseTimeMs = 0n,
): {
  keeper: string;
  executor: string;
  amount: bigint;
  data: ReturnType<typeof script>;
  response_time_ms: bigint;
} {
  return {
    keeper,
    executor: f.executor,
    amount,
    data: script(...steps),
    response_time_ms: responseTimeMs,
  };
}
