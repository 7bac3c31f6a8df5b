/**
 * Channel accounts (issue 26, CHANNEL_ACCOUNTS): source accounts that hold sequence numbers and
 * pay fees, so one keeper can have several flashes in flight, each in its own transaction. The
 * keeper's key signs only the Soroban authorization of each flash (address credentials for the
 * keeper's address, `soroban/tx.ts` `source`); a channel signs the envelope and nothing else.
 *
 * - Keys are derived from the keeper's secret (HKDF-SHA256 of its raw seed, salt
 *   "vigil-channel", info the index): a restart finds the same accounts, nothing is written to
 *   disk, and the operator has no new secret to keep.
 * - The keeper creates missing channels and tops up low ones from its own XLM, in ONE classic
 *   transaction from its own account ({@link fundingSteps}, {@link fundChannels}).
 * - A leaked channel key can spend only that channel's own small XLM (it signs no Soroban
 *   authorization for the keeper: the vault's `flash` requires the keeper's signature on it).
 *
 * @module
 */
import {
  type Account,
  Asset,
  type Keypair,
  Keypair as KP,
  Operation,
  xdr,
} from "@stellar/stellar-sdk";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { Confirmed } from "@vigil/soroban/send";
import { sendClassic } from "@vigil/soroban/change_trust";
import type { InvokeOptions } from "@vigil/soroban/tx";

/** 1 XLM in stroops. */
export const XLM = 10_000_000n;
/** What a channel is created with, and topped up to (stroops): 10 XLM. */
export const CHANNEL_FUNDING = 10n * XLM;
/**
 * A channel is topped up when its balance falls below this (stroops): 4 XLM — 1 XLM is its
 * reserve (2 × 0.5 XLM base reserve), the rest pays fees (a flash costs well under 0.1 XLM).
 */
export const CHANNEL_TOP_UP_BELOW = 4n * XLM;

/**
 * The channel key `index` of a keeper (stable across restarts, distinct per index, never the
 * keeper's own): HKDF-SHA256(seed, salt "vigil-channel", info "channel <index>").
 */
export async function deriveChannelKeypair(keeper: Keypair, index: number): Promise<Keypair> {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`bad channel index ${index}`);
  const key = await crypto.subtle.importKey(
    "raw",
    new Uint8Array(keeper.rawSecretKey()),
    "HKDF",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new TextEncoder().encode("vigil-channel"),
      info: new TextEncoder().encode(`channel ${index}`),
    },
    key,
    256,
  );
  return KP.fromRawEd25519Seed(Buffer.from(bits));
}

/** The first `count` channel keys of a keeper. */
export function deriveChannels(keeper: Keypair, count: number): Promise<Keypair[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => deriveChannelKeypair(keeper, i)));
}

/** One funding operation: create a missing channel, or top up a low one. */
export type FundingStep =
  | { kind: "create"; account: string; amount: bigint }
  | { kind: "top_up"; account: string; amount: bigint };

/**
 * What to send for channels whose native balances (stroops; undefined: the account does not
 * exist) are `balances` (pure): a missing one is created with `funding`, one below `below` is
 * topped up to `funding`, the rest are left alone.
 */
export function fundingSteps(
  balances: ReadonlyMap<string, bigint | undefined>,
  opts: { funding?: bigint; below?: bigint } = {},
): FundingStep[] {
  const funding = opts.funding ?? CHANNEL_FUNDING;
  const below = opts.below ?? CHANNEL_TOP_UP_BELOW;
  const steps: FundingStep[] = [];
  for (const [account, balance] of balances) {
    if (balance === undefined) steps.push({ kind: "create", account, amount: funding });
    else if (balance < below) steps.push({ kind: "top_up", account, amount: funding - balance });
  }
  return steps;
}

/** The native balances of `accounts` (undefined: no such account), in one getLedgerEntries. */
export async function readBalances(
  chain: ChainRpc,
  accounts: readonly string[],
): Promise<Map<string, bigint | undefined>> {
  const out = new Map<string, bigint | undefined>(accounts.map((a) => [a, undefined]));
  if (accounts.length === 0) return out;
  const keys = accounts.map((a) =>
    xdr.LedgerKey.account(
      new xdr.LedgerKeyAccount({ accountId: KP.fromPublicKey(a).xdrPublicKey() }),
    )
  );
  const byKey = new Map(keys.map((k, i) => [k.toXDR("base64"), accounts[i]]));
  const r = await chain.server.getLedgerEntries(...keys);
  for (const e of r.entries) {
    const id = byKey.get(e.key.toXDR("base64"));
    if (id === undefined || e.val.type !== "account") continue;
    out.set(id, BigInt(e.val.value.balance.toString()));
  }
  return out;
}

/** Stroops as an XLM decimal string ("6.5000000"), as classic operations take amounts. */
export function xlmString(stroops: bigint): string {
  return `${stroops / XLM}.${(stroops % XLM).toString().padStart(7, "0")}`;
}

/**
 * Sends `steps` in ONE transaction from the keeper's own account (createAccount / payment of
 * native XLM), under its submission lock; returns it confirmed (`failed` set when included but
 * failed, e.g. the keeper lacks the XLM).
 */
export function fundChannels(
  chain: ChainRpc,
  keeper: Keypair,
  steps: readonly FundingStep[],
  opts: InvokeOptions = {},
): Promise<Confirmed> {
  const ops = steps.map((s) =>
    s.kind === "create"
      ? Operation.createAccount({ destination: s.account, startingBalance: xlmString(s.amount) })
      : Operation.payment({
        destination: s.account,
        asset: Asset.native(),
        amount: xlmString(s.amount),
      })
  );
  return sendClassic(chain, keeper, ops, opts);
}

/** A channel held by one in-flight transaction until `release`. */
export interface ChannelLease {
  keypair: Keypair;
  /**
   * The channel's account for the next transaction: the pool's copy (its sequence number moves
   * with each transaction built on it), read with `read` when there is none.
   */
  account(read: (address: string) => Promise<Account>): Promise<Account>;
  /** Gives the channel back; `stale`: the copy of its account may be wrong (a send failed). */
  release(stale?: boolean): void;
}

/**
 * The keeper's channels: each in-flight flash holds one ({@link ChannelPool.acquire}), so no two
 * transactions share a sequence number. Only channels known to be funded are handed out.
 */
export class ChannelPool {
  readonly all: readonly Keypair[];
  readonly #ready = new Set<string>();
  readonly #free: Keypair[] = [];
  readonly #waiters: ((k: Keypair) => void)[] = [];
  /**
   * The channels' accounts, kept between transactions so that the latency-critical send needs
   * no read: building a transaction on one advances its sequence number, as the chain does when
   * it includes it (failed or not). Dropped after a failed send, whose transaction may never
   * have been included.
   */
  readonly #accounts = new Map<string, Account>();

  constructor(keypairs: readonly Keypair[]) {
    this.all = keypairs;
  }

  /** Channels ready to use (funded). */
  get size(): number {
    return this.#ready.size;
  }

  /** Marks channels funded (usable); the others stay out until they are. */
  markReady(addresses: Iterable<string>): void {
    for (const a of addresses) {
      if (this.#ready.has(a)) continue;
      const kp = this.all.find((k) => k.publicKey() === a);
      if (!kp) continue;
      this.#ready.add(a);
      this.#give(kp);
    }
  }

  /**
   * A free channel, waiting for one when all are held; undefined when none is ready (then the
   * keeper's own account is the source, as with CHANNEL_ACCOUNTS=0).
   */
  acquire(): Promise<ChannelLease | undefined> {
    if (this.#ready.size === 0) return Promise.resolve(undefined);
    const lease = (keypair: Keypair): ChannelLease => {
      let done = false;
      const address = keypair.publicKey();
      return {
        keypair,
        account: async (read) => {
          const known = this.#accounts.get(address);
          if (known) return known;
          const fresh = await read(address);
          this.#accounts.set(address, fresh);
          return fresh;
        },
        release: (stale = false) => {
          if (done) return;
          done = true;
          if (stale) this.#accounts.delete(address);
          this.#give(keypair);
        },
      };
    };
    const kp = this.#free.shift();
    if (kp) return Promise.resolve(lease(kp));
    return new Promise((resolve) => this.#waiters.push((k) => resolve(lease(k))));
  }

  #give(kp: Keypair): void {
    const w = this.#waiters.shift();
    if (w) w(kp);
    else this.#free.push(kp);
  }
}

/** What {@link keepChannelsFunded} did. */
export interface FundingReport {
  created: string[];
  toppedUp: string[];
  /** XLM (stroops) sent from the keeper's account to its channels. */
  sent: bigint;
  txHash?: string;
}

/**
 * Creates the pool's missing channels and tops up its low ones from the keeper's XLM in one
 * transaction (none when all are funded), then marks every existing channel ready. Throws when
 * the funding transaction fails (channels that already existed are marked ready first).
 */
export async function keepChannelsFunded(
  chain: ChainRpc,
  keeper: Keypair,
  pool: ChannelPool,
  opts: InvokeOptions = {},
): Promise<FundingReport> {
  const addresses = pool.all.map((k) => k.publicKey());
  const balances = await readBalances(chain, addresses);
  pool.markReady(addresses.filter((a) => balances.get(a) !== undefined));
  const steps = fundingSteps(balances);
  const report: FundingReport = {
    created: steps.filter((s) => s.kind === "create").map((s) => s.account),
    toppedUp: steps.filter((s) => s.kind === "top_up").map((s) => s.account),
    sent: steps.reduce((n, s) => n + s.amount, 0n),
  };
  if (steps.length === 0) return report;
  const r = await fundChannels(chain, keeper, steps, opts);
  if (r.failed) {
    throw new Error(
      `funding the channel accounts failed (${r.failed.opCode ?? "?"}): does the keeper hold ${
        xlmString(report.sent)
      } XLM beyond its own reserve?`,
    );
  }
  pool.markReady(report.created);
  return { ...report, txHash: r.hash };
}
