/**
 * Deploys Vigil's Wasm contracts (registry, vault, liquidator) to any Soroban network over
 * JSON-RPC: `main.ts deploy`, the local node and the demo all go through {@link deployToNetwork}.
 *
 * 1. The deployer's key comes only from the caller (`DEPLOYER_SECRET`; never a flag, never
 *    printed); the network passphrase from the RPC's `getNetwork`.
 * 2. Each Wasm file in `contracts/wasm/` is uploaded unless its code already exists.
 * 3. The contract ids are derived from the deployer and fixed salts, so they are known before
 *    anything is created: the vault is created with the registry's id in its constructor and the
 *    registry with the vault's (no separate wiring call, no window in which the vault is unwired).
 *    A contract that already exists is not created again.
 *    The vault's constructor also gets its {@link FlashPolicy}: the liquidator as the only
 *    executor, the lending pools and (Soroswap-ABI) routers a liquidation may use, and the
 *    oracle slippage bound (default {@link DEFAULT_MAX_SLIPPAGE_BPS}).
 * 4. The result is verified by reading `get_config`, `get_flash_policy`, `get_registry`,
 *    `get_vault`, `get_usdc` and `get_admin` back, and the out file is written (ids, Wasm hashes,
 *    passphrase, ledger, admin, flash policy; no secrets). With an existing out file for the same
 *    network, it is verified and nothing changes. The flash policy of a vault that already existed
 *    is compared only when policy options are given (the admin may have changed it since with
 *    `set_flash_policy`).
 *
 * Every failure is a {@link DeployError} with one clear message.
 *
 * @module
 */
import {
  Address,
  BASE_FEE,
  contract,
  hash,
  Keypair,
  Operation,
  rpc,
  scValToNative,
  StrKey,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { bytesToHex } from "@noble/hashes/utils";
import { TxExpiredError, TxPendingError, TxRejectedError } from "@vigil/soroban/errors";
import { signAndConfirm } from "@vigil/soroban/send";
import { wasmPath } from "../wasm_path.ts";
import type { FlashPolicy } from "../clients/vault.ts";
import { MAX_POLICY_ENTRIES, MAX_SLIPPAGE_BPS } from "../vault/spec.ts";

/** 1 USDC in 7-decimal units. */
const UNIT = 10_000_000n;
const I64_MAX = (1n << 63n) - 1n;

/** Vigil's configuration as deployed (the spec's testnet limits by default). */
export interface DeployConfig {
  /** Registry: USDC a keeper stakes to register. */
  min_stake: bigint;
  /** Vault: largest total_usdc after a deposit. */
  deposit_cap: bigint;
  /** Vault: seconds newly minted shares stay locked. */
  withdraw_cooldown: bigint;
  /** Vault: largest amount one flash may lend (0 stops all flashes). */
  max_draw_per_keeper: bigint;
  /** Vault: least profit for a flash to count as the keeper's successful fill. */
  min_fill_profit: bigint;
  /** Vault: seconds a queued policy/config change waits (≥ withdraw_cooldown + 3600). */
  policy_delay: bigint;
  /** Vault: seconds over which a flash's profit enters the share price. */
  profit_unlock_secs: bigint;
}

/** The spec's testnet limits, and issue 20's defaults (72 h policy delay, 24 h profit unlock). */
export const DEFAULT_DEPLOY_CONFIG: DeployConfig = {
  min_stake: 100n * UNIT,
  deposit_cap: 10_000_000n * UNIT,
  withdraw_cooldown: 3600n,
  max_draw_per_keeper: 10_000n * UNIT,
  min_fill_profit: 1n * UNIT,
  policy_delay: 72n * 3600n,
  profit_unlock_secs: 24n * 3600n,
};

/** The policy delay exceeds the withdraw cooldown by at least this many seconds. */
export const POLICY_DELAY_MARGIN = 3600n;

/** The contracts' bounds, checked before anything is sent. */
export const DEPLOY_BOUNDS: Record<keyof DeployConfig, [bigint, bigint]> = {
  min_stake: [1n, I64_MAX],
  deposit_cap: [1n, I64_MAX],
  withdraw_cooldown: [0n, 7n * 86400n],
  max_draw_per_keeper: [0n, I64_MAX],
  min_fill_profit: [0n, I64_MAX],
  policy_delay: [POLICY_DELAY_MARGIN, 30n * 86400n],
  profit_unlock_secs: [0n, 30n * 86400n],
};

/**
 * Default `max_slippage_bps` of the flash policy: the liquidator refuses a swap whose output is
 * more than 3 % below the pool oracle's value (the keeper's own default SLIPPAGE_BPS is 1 %, so an
 * honest keeper is inside it).
 */
export const DEFAULT_MAX_SLIPPAGE_BPS = 300;
/** The vault's bounds: `max_slippage_bps` (10 %) and the entries of each flash-policy list. */
export { MAX_POLICY_ENTRIES, MAX_SLIPPAGE_BPS };

/** The vault's `FlashPolicy` (the generated client's type). */
export type { FlashPolicy };

/** What a deployer chooses of the flash policy (the executor is always Vigil's liquidator). */
export interface FlashPolicyOptions {
  /** Lending pools a liquidation may use. */
  pools?: string[];
  /** Soroswap-ABI routers a liquidation may swap on. */
  routers?: string[];
  /** Tokens a swap path may pass through (a direct lot-asset/USDC pair needs none). */
  tokens?: string[];
  /** Oracle slippage bound in basis points (default {@link DEFAULT_MAX_SLIPPAGE_BPS}). */
  max_slippage_bps?: number;
}

/** Vigil's contracts in creation order. */
export const VIGIL_WASM = ["liquidator", "vault", "registry"] as const;
type Name = typeof VIGIL_WASM[number];

/** What the out file holds (no secrets). */
export interface Deployment {
  network_passphrase: string;
  rpc_url: string;
  /** Latest ledger when the deployment was verified. */
  ledger: number;
  deployer: string;
  admin: string;
  usdc: string;
  contracts: Record<Name, string>;
  wasm_hashes: Record<Name, string>;
  /** Configuration in 7-decimal units / seconds, as decimal strings. */
  config: Record<keyof DeployConfig, string>;
  /** The vault's flash policy as deployed. */
  policy: FlashPolicy;
}

/** A deployment failure: one message, meant to be printed as is. */
export class DeployError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeployError";
  }
}

/** Options of {@link deployToNetwork}. */
export interface DeployOptions {
  rpcUrl: string;
  /** The USDC token contract (C…). */
  usdc: string;
  /** Admin of both contracts (default: the deployer). */
  admin?: string;
  /** The deployer's secret seed (from DEPLOYER_SECRET). */
  secret: string | undefined;
  /** Overrides of {@link DEFAULT_DEPLOY_CONFIG}. */
  config?: Partial<DeployConfig>;
  /** The vault's flash policy (executors: the liquidator; default: no pool, no router, 300 bps). */
  policy?: FlashPolicyOptions;
  /** Out file to write (and, when present, to verify instead of deploying). */
  out?: string;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** Result of {@link deployToNetwork}. */
export interface DeployResult {
  deployment: Deployment;
  /** False when everything already existed (nothing was sent). */
  changed: boolean;
}

/** The deployer's key pair from a secret seed, or a {@link DeployError}. */
export function deployerKeypair(secret: string | undefined): Keypair {
  if (secret === undefined || secret.trim() === "") {
    throw new DeployError("DEPLOYER_SECRET is not set (put it in the environment or in .env)");
  }
  const s = secret.trim();
  if (!StrKey.isValidEd25519SecretSeed(s)) {
    throw new DeployError("DEPLOYER_SECRET is malformed: expected a Stellar secret seed (S…)");
  }
  return Keypair.fromSecret(s);
}

/** The salt of a contract: fixed per contract name and USDC token. */
function salt(name: Name, usdc: string): Uint8Array {
  return new Uint8Array(hash(new TextEncoder().encode(`vigil/${name}/${usdc}`) as Buffer));
}

/** The contract id `deployer` gets for `salt` on the network (as the host derives it). */
export function contractIdFor(passphrase: string, deployer: string, saltBytes: Uint8Array): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(new TextEncoder().encode(passphrase) as Buffer),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: new Address(deployer).toScAddress(),
          salt: saltBytes as Buffer,
        }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXDR()));
}

function checkConfig(c: DeployConfig): void {
  for (const [k, [lo, hi]] of Object.entries(DEPLOY_BOUNDS) as [keyof DeployConfig, bigint[]][]) {
    if (c[k] < lo || c[k] > hi) {
      throw new DeployError(`${k} = ${c[k]} is outside the contracts' bounds [${lo}, ${hi}]`);
    }
  }
  // Depositors must be able to leave before a queued admin change applies.
  if (c.policy_delay < c.withdraw_cooldown + POLICY_DELAY_MARGIN) {
    throw new DeployError(
      `policy_delay = ${c.policy_delay} must be at least withdraw_cooldown + ${POLICY_DELAY_MARGIN} = ${
        c.withdraw_cooldown + POLICY_DELAY_MARGIN
      } (depositors must be able to leave before a queued change applies)`,
    );
  }
}

/**
 * The constructor's FlashPolicy for `liquidator` from the deployer's options, validated against
 * the vault's bounds (else a {@link DeployError}); duplicate entries are dropped.
 */
export function flashPolicy(liquidator: string, opts: FlashPolicyOptions = {}): FlashPolicy {
  const list = (xs: string[] | undefined, flag: string): string[] => {
    const out = [...new Set(xs ?? [])];
    for (const x of out) {
      if (!StrKey.isValidContract(x)) {
        throw new DeployError(`${flag} ${x} is not a contract id (C…)`);
      }
    }
    if (out.length > MAX_POLICY_ENTRIES) {
      throw new DeployError(`at most ${MAX_POLICY_ENTRIES} ${flag} entries (got ${out.length})`);
    }
    return out;
  };
  const bps = opts.max_slippage_bps ?? DEFAULT_MAX_SLIPPAGE_BPS;
  if (!Number.isInteger(bps) || bps < 0 || bps > MAX_SLIPPAGE_BPS) {
    throw new DeployError(
      `--max-slippage-bps ${bps} is outside the contracts' bounds [0, ${MAX_SLIPPAGE_BPS}]`,
    );
  }
  return {
    executors: [liquidator],
    max_slippage_bps: bps,
    pools: list(opts.pools, "--pool"),
    routers: list(opts.routers, "--router"),
    tokens: list(opts.tokens, "--token"),
  };
}

const short = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0];

/** Deploys (or verifies) Vigil on the network behind `rpcUrl`. */
export async function deployToNetwork(opts: DeployOptions): Promise<DeployResult> {
  const log = opts.log ?? (() => {});
  const kp = deployerKeypair(opts.secret);
  const deployer = kp.publicKey();
  if (!StrKey.isValidContract(opts.usdc)) {
    throw new DeployError(`--usdc ${opts.usdc} is not a contract id (C…)`);
  }
  const admin = opts.admin ?? deployer;
  if (!StrKey.isValidEd25519PublicKey(admin) && !StrKey.isValidContract(admin)) {
    throw new DeployError(`--admin ${admin} is not an address (G… or C…)`);
  }
  const config = { ...DEFAULT_DEPLOY_CONFIG, ...opts.config };
  checkConfig(config);
  // Checked before anything is sent; the executor (the liquidator's id) is known only later.
  const policyOpts = flashPolicy(opts.usdc, opts.policy);

  const server = new rpc.Server(opts.rpcUrl, { allowHttp: opts.rpcUrl.startsWith("http:") });
  let passphrase: string;
  try {
    passphrase = (await server.getNetwork()).passphrase;
  } catch (e) {
    throw new DeployError(`cannot reach the RPC at ${opts.rpcUrl}: ${short(e)}`);
  }

  let previous: Deployment | undefined;
  if (opts.out) {
    try {
      previous = JSON.parse(await Deno.readTextFile(opts.out)) as Deployment;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        throw new DeployError(`cannot read ${opts.out}: ${short(e)}`);
      }
    }
    if (previous && previous.network_passphrase !== passphrase) {
      throw new DeployError(
        `${opts.out} is from network "${previous.network_passphrase}", but ${opts.rpcUrl} is "${passphrase}"`,
      );
    }
  }

  try {
    await server.getAccount(deployer);
  } catch {
    throw new DeployError(
      `deployer ${deployer} is not funded on "${passphrase}" (testnet: fund it with friendbot)`,
    );
  }

  const chain = new Chain(server, passphrase, kp);
  const decimals = await chain.view(opts.usdc, "decimals").catch((e) => {
    throw new DeployError(`--usdc ${opts.usdc} is not a token contract here: ${short(e)}`);
  });
  if (scValToNative(decimals) !== 7) {
    throw new DeployError(`--usdc ${opts.usdc} is not a 7-decimal token`);
  }

  const ids = {} as Record<Name, string>;
  for (const name of VIGIL_WASM) {
    ids[name] = contractIdFor(passphrase, deployer, salt(name, opts.usdc));
  }
  const policy = { ...policyOpts, executors: [ids.liquidator] };
  if (previous) {
    for (const name of VIGIL_WASM) {
      if (previous.contracts?.[name] !== ids[name]) {
        throw new DeployError(
          `${opts.out} names ${name} ${
            previous.contracts?.[name]
          }, but this deployer and USDC give ${ids[name]}`,
        );
      }
    }
  }

  let changed = false;
  const wasmHashes = {} as Record<Name, string>;
  const specs = {} as Record<Name, contract.Spec>;
  for (const name of VIGIL_WASM) {
    const wasm = await Deno.readFile(wasmPath(name));
    const h = new Uint8Array(hash(wasm as Buffer));
    wasmHashes[name] = bytesToHex(h);
    specs[name] = contract.Spec.fromWasm(wasm as Buffer);
    if (await chain.codeExists(h)) {
      log(`${name}: Wasm ${bytesToHex(h)} already uploaded`);
      continue;
    }
    await chain.send(Operation.uploadContractWasm({ wasm: wasm as Buffer }), `upload ${name}`);
    changed = true;
    log(`${name}: uploaded Wasm ${bytesToHex(h)} (${wasm.length} bytes)`);
  }

  const ctorArgs: Record<Name, Record<string, unknown> | undefined> = {
    liquidator: undefined,
    vault: {
      admin,
      usdc: opts.usdc,
      config: {
        deposit_cap: config.deposit_cap,
        max_draw_per_keeper: config.max_draw_per_keeper,
        min_fill_profit: config.min_fill_profit,
        policy_delay: config.policy_delay,
        profit_unlock_secs: config.profit_unlock_secs,
        withdraw_cooldown: config.withdraw_cooldown,
      },
      registry: ids.registry,
      policy,
    },
    registry: {
      admin,
      config: { min_stake: config.min_stake, usdc_token: opts.usdc },
      vault: ids.vault,
    },
  };
  let vaultCreated = false;
  for (const name of VIGIL_WASM) {
    if (await chain.contractExists(ids[name])) {
      log(`${name}: ${ids[name]} already exists`);
      continue;
    }
    if (name === "vault") vaultCreated = true;
    const args = ctorArgs[name];
    await chain.send(
      Operation.createCustomContract({
        address: new Address(deployer),
        wasmHash: Buffer.from(wasmHashes[name], "hex"),
        salt: salt(name, opts.usdc) as Buffer,
        ...(args ? { constructorArgs: specs[name].funcArgsToScVals("__constructor", args) } : {}),
      }),
      `create ${name}`,
    );
    changed = true;
    log(`${name}: created ${ids[name]}`);
  }

  // The flash policy is the admin's to change later (`set_flash_policy`): on an existing vault it
  // is compared only when the deployer states one (--pool/--router/--max-slippage-bps).
  const p = opts.policy;
  const policyStated = p !== undefined &&
    (p.pools !== undefined || p.routers !== undefined || p.tokens !== undefined ||
      p.max_slippage_bps !== undefined);
  const checkPolicy = vaultCreated || policyStated;
  const live = await verify(chain, specs, ids, {
    admin,
    usdc: opts.usdc,
    config,
    policy: checkPolicy ? policy : undefined,
  });
  if (!checkPolicy) {
    log("vault: flash policy not compared (existing vault, no policy flags; the admin sets it)");
  }
  const deployment: Deployment = {
    network_passphrase: passphrase,
    rpc_url: opts.rpcUrl,
    ledger: previous && !changed ? previous.ledger : (await server.getLatestLedger()).sequence,
    deployer,
    admin,
    usdc: opts.usdc,
    contracts: ids,
    wasm_hashes: wasmHashes,
    config: {
      min_stake: String(config.min_stake),
      deposit_cap: String(config.deposit_cap),
      withdraw_cooldown: String(config.withdraw_cooldown),
      max_draw_per_keeper: String(config.max_draw_per_keeper),
      min_fill_profit: String(config.min_fill_profit),
      policy_delay: String(config.policy_delay),
      profit_unlock_secs: String(config.profit_unlock_secs),
    },
    policy: checkPolicy ? policy : previous?.policy ?? live,
  };
  if (
    opts.out && (changed || !previous || JSON.stringify(previous) !== JSON.stringify(deployment))
  ) {
    await Deno.writeTextFile(opts.out, JSON.stringify(deployment, null, 2) + "\n");
  }
  return { deployment, changed };
}

/**
 * Uploads (if needed) and creates ONE of Vigil's Wasm contracts with the given constructor
 * arguments (native values, encoded with the contract's spec) and salt; returns its id. For tests
 * and tools that need a contract outside the standard wiring (e.g. a vault without a registry).
 */
export async function createWasmContract(opts: {
  rpcUrl: string;
  secret: string;
  name: Name;
  args?: Record<string, unknown>;
  salt?: Uint8Array;
}): Promise<string> {
  const kp = deployerKeypair(opts.secret);
  const server = new rpc.Server(opts.rpcUrl, { allowHttp: opts.rpcUrl.startsWith("http:") });
  const passphrase = (await server.getNetwork()).passphrase;
  const chain = new Chain(server, passphrase, kp);
  const wasm = await Deno.readFile(wasmPath(opts.name));
  const h = new Uint8Array(hash(wasm as Buffer));
  if (!(await chain.codeExists(h))) {
    await chain.send(Operation.uploadContractWasm({ wasm: wasm as Buffer }), `upload ${opts.name}`);
  }
  const s = opts.salt ?? crypto.getRandomValues(new Uint8Array(32));
  const spec = contract.Spec.fromWasm(wasm as Buffer);
  await chain.send(
    Operation.createCustomContract({
      address: new Address(kp.publicKey()),
      wasmHash: h as Buffer,
      salt: s as Buffer,
      ...(opts.args ? { constructorArgs: spec.funcArgsToScVals("__constructor", opts.args) } : {}),
    }),
    `create ${opts.name}`,
  );
  return contractIdFor(passphrase, kp.publicKey(), s);
}

/**
 * Reads the wiring, configuration and (when `want.policy` is given) the flash policy back; any
 * difference is a {@link DeployError}. Returns the vault's flash policy as read.
 */
async function verify(
  chain: Chain,
  specs: Record<Name, contract.Spec>,
  ids: Record<Name, string>,
  want: { admin: string; usdc: string; config: DeployConfig; policy?: FlashPolicy },
): Promise<FlashPolicy> {
  void specs;
  const read = async (name: Name, fn: string) => scValToNative(await chain.view(ids[name], fn));
  const checks: [string, unknown, unknown][] = [
    ["vault.get_registry", await read("vault", "get_registry"), ids.registry],
    ["vault.get_usdc", await read("vault", "get_usdc"), want.usdc],
    ["vault.get_admin", await read("vault", "get_admin"), want.admin],
    ["registry.get_vault", await read("registry", "get_vault"), ids.vault],
    ["registry.get_admin", await read("registry", "get_admin"), want.admin],
  ];
  const vc = await read("vault", "get_config") as Record<string, bigint>;
  const rc = await read("registry", "get_config") as Record<string, unknown>;
  checks.push(
    ["vault deposit_cap", vc.deposit_cap, want.config.deposit_cap],
    ["vault max_draw_per_keeper", vc.max_draw_per_keeper, want.config.max_draw_per_keeper],
    ["vault withdraw_cooldown", vc.withdraw_cooldown, want.config.withdraw_cooldown],
    ["vault min_fill_profit", vc.min_fill_profit, want.config.min_fill_profit],
    ["vault policy_delay", vc.policy_delay, want.config.policy_delay],
    ["vault profit_unlock_secs", vc.profit_unlock_secs, want.config.profit_unlock_secs],
    ["registry min_stake", rc.min_stake, want.config.min_stake],
    ["registry usdc_token", rc.usdc_token, want.usdc],
  );
  const fp = await read("vault", "get_flash_policy") as Record<string, unknown>;
  const live: FlashPolicy = {
    executors: (fp.executors as string[]) ?? [],
    max_slippage_bps: Number(fp.max_slippage_bps),
    pools: (fp.pools as string[]) ?? [],
    routers: (fp.routers as string[]) ?? [],
    tokens: (fp.tokens as string[]) ?? [],
  };
  for (const [what, got, expected] of checks) {
    if (String(got) !== String(expected)) {
      throw new DeployError(`verification failed: ${what} is ${got}, expected ${expected}`);
    }
  }
  for (const k of ["executors", "max_slippage_bps", "pools", "routers", "tokens"] as const) {
    if (want.policy && JSON.stringify(live[k]) !== JSON.stringify(want.policy[k])) {
      throw new DeployError(
        `verification failed: vault flash policy ${k} is ${JSON.stringify(live[k])}, expected ${
          JSON.stringify(want.policy[k])
        } (the admin changes it with set_flash_policy)`,
      );
    }
  }
  return live;
}

/** The few RPC operations a deployment needs, signed by the deployer. */
class Chain {
  constructor(
    readonly server: rpc.Server,
    readonly passphrase: string,
    readonly kp: Keypair,
  ) {}

  async #tx(op: xdr.Operation) {
    const account = await this.server.getAccount(this.kp.publicKey());
    return new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: this.passphrase })
      .addOperation(op)
      .setTimeout(120)
      .build();
  }

  /** Simulates a read-only call and returns its result. */
  async view(contractId: string, fn: string, args: xdr.ScVal[] = []): Promise<xdr.ScVal> {
    const tx = await this.#tx(Operation.invokeContractFunction({
      contract: contractId,
      function: fn,
      args,
    }));
    const sim = await this.server.simulateTransaction(tx);
    if (rpc.Api.isSimulationError(sim)) throw new Error(sim.error);
    const r = (sim as rpc.Api.SimulateTransactionSuccessResponse).result;
    if (!r) throw new Error(`${fn} returned nothing`);
    return r.retval;
  }

  /** Simulates, signs, sends and waits for one operation. */
  async send(op: xdr.Operation, what: string): Promise<void> {
    const tx = await this.#tx(op);
    const sim = await this.server.simulateTransaction(tx);
    if (rpc.Api.isSimulationError(sim)) {
      throw new DeployError(
        `${what} failed in simulation: ${
          Deno.env.get("DEPLOY_DEBUG") ? sim.error : short(sim.error)
        }`,
      );
    }
    const ready = rpc.assembleTransaction(tx, sim).build();
    let done;
    try {
      // The shared send path: TRY_AGAIN_LATER is re-sent, not a refusal; NOT_FOUND is polled
      // until the 120 s time bound has passed. Short polls: a local node closes at once.
      done = await signAndConfirm({ server: this.server }, this.kp, ready, this.passphrase, {
        pollIntervalMs: 100,
        pollTimeoutMs: 180_000,
      });
    } catch (e) {
      throw sendError(e, what);
    }
    if (done.failed) {
      throw new DeployError(`${what} failed on chain (FAILED, tx ${done.hash})`);
    }
  }

  async codeExists(h: Uint8Array): Promise<boolean> {
    const key = xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: h as Buffer }));
    return (await this.server.getLedgerEntries(key)).entries.length > 0;
  }

  async contractExists(id: string): Promise<boolean> {
    const key = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(id).toScAddress(),
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
      }),
    );
    return (await this.server.getLedgerEntries(key)).entries.length > 0;
  }
}

/** A failure of the send path as one {@link DeployError} message. */
function sendError(e: unknown, what: string): unknown {
  if (e instanceof TxExpiredError) {
    return new DeployError(`${what} was not included before it expired (tx ${e.hash}); run again`);
  }
  if (e instanceof TxRejectedError) {
    if (/InsufficientBalance|InsufficientFee/i.test(e.txCode ?? "")) {
      return new DeployError(`${what}: the deployer cannot pay the fee (${e.status})`);
    }
    return new DeployError(
      `${what} was refused by the network (${e.status}${e.txCode ? ` ${e.txCode}` : ""})`,
    );
  }
  if (e instanceof TxPendingError) {
    return new DeployError(`${what} was sent but not confirmed in time (tx ${e.hash})`);
  }
  return e;
}

/** Parses an amount in USDC ("100", "0.5") into 7-decimal units. */
export function parseUsdc(s: string, flag: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,7}))?$/.exec(s.trim());
  if (!m) throw new DeployError(`${flag} ${s} is not a USDC amount (e.g. 100 or 0.5)`);
  return BigInt(m[1]) * UNIT + BigInt((m[2] ?? "").padEnd(7, "0") || "0");
}
