/**
 * The local Soroban-compatible node, in process: `startLocalnet()` starts the ledger, the
 * JSON-RPC server and the ledger-close timer, and returns a {@link Localnet} handle with the
 * in-process API used by the CLI, tests, scenarios and benchmarks.
 *
 * @module
 */
import { Address, type Asset, contract, hash, Networks, StrKey, xdr } from "@stellar/stellar-sdk";
import { loadAccount, newAccount, withAccount } from "./accounts.ts";
import {
  Chain,
  type FeeStatsWindows,
  type LedgerCapacity,
  type NetworkSettings,
  type Snapshot,
} from "./ledger.ts";
import type { HostApi } from "./host_api.ts";
import { specOfWasm } from "./spec/contract_spec.ts";
import { acquireRealHost, realHostApi, releaseRealHost } from "./real_host/node_host.ts";
import { methods } from "./rpc/methods.ts";
import { normalizeEvent } from "./apply_soroban.ts";
import { invalidParams } from "./rpc/errors.ts";
import { handleHttp } from "./rpc/server.ts";
import type { FeeConfig } from "./fees.ts";
import type { Handler } from "./rpc/methods.ts";
import { accountKey } from "./util.ts";

export type { Chain, FeeStatsWindows, LedgerCapacity, NetworkSettings } from "./ledger.ts";
export type { HostApi } from "./host_api.ts";

/** Options of {@link startLocalnet}. */
export interface LocalnetOptions {
  /** TCP port (default 8000; 0 = a free port). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  hostname?: string;
  /**
   * Ledger close interval in ms (default 1000). 0 = no timer: ledgers close on demand
   * (`closeLedgers`, `advanceTime`, in-process effects) and {@link autoCloseMs} after a
   * transaction is queued.
   */
  ledgerMs?: number;
  /** Ledger time per ledger in seconds (default: the close interval rounded, at least 1). */
  closeSeconds?: number;
  /**
   * Without a timer: ms after a transaction is queued until the ledger that includes it
   * closes (default 100; 0 = only on demand).
   */
  autoCloseMs?: number;
  /** Ledgers of history kept (default 120,960 = stellar-rpc's 7 days). */
  retentionLedgers?: number;
  /** Per-ledger capacity (classic operations, Soroban transactions and instructions). */
  capacity?: Partial<LedgerCapacity>;
  /** State-archival settings: minimum TTLs and maximum TTL (default mainnet's). */
  network?: Partial<NetworkSettings>;
  /** Fee configuration, rent rates included (default the public network's; see fees.ts). */
  fees?: Partial<FeeConfig>;
  /**
   * getFeeStats windows in ledgers (default stellar-rpc's 10 classic, 50 Soroban); more than
   * 1,000 is refused, as stellar-rpc does since v25.1.0.
   */
  feeStatsWindows?: Partial<FeeStatsWindows>;
  /** Network passphrase (default Networks.STANDALONE). */
  networkPassphrase?: string;
  /** Log internal errors of RPC methods (default: to stderr). */
  onError?: (method: string, e: unknown) => void;
}

/** A running local node. */
export interface Localnet {
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  readonly port: number;
  readonly friendbotUrl: string;
  /** The node's state machine (advanced use: scenarios, benchmarks). */
  readonly chain: Chain;
  /**
   * Uploads a Soroban Wasm and creates a contract from it directly (no tx; the root account is
   * the deployer), running `__constructor` with `args`: ScVals, or native values encoded with
   * the Wasm's own `contractspecv0`. The upload is validated as UploadContractWasm is.
   */
  deployWasm(
    wasm: Uint8Array,
    args?: xdr.ScVal[] | Record<string, unknown> | unknown[],
    opts?: { salt?: Uint8Array },
  ): Promise<string>;
  /**
   * Uploads a Soroban Wasm directly (validated as UploadContractWasm is) without creating a
   * contract; returns its SHA-256 hash (for a factory that deploys it, e.g. Blend's pool factory).
   */
  uploadWasm(wasm: Uint8Array): Promise<Uint8Array>;
  /** Deploys the SAC of a classic asset (id = asset.contractId(passphrase)); idempotent. */
  deployAsset(asset: Asset): Promise<string>;
  /** Creates (or tops up) a G account with native XLM, directly (default 10,000 XLM). */
  fund(publicKey: string, xlm?: bigint): Promise<void>;
  /**
   * Runs a contract function directly with all auth mocked (record_allow_nonroot), applies its
   * changes and events into the open ledger and returns the native result (decoded with the
   * callee's spec). Throws an Error containing "Error(Contract, #N)" on failure. No fees/seq.
   */
  invoke<R = unknown>(
    contractId: string,
    fn: string,
    args?: Record<string, unknown> | unknown[],
    opts?: { source?: string },
  ): Promise<R>;
  /** Like {@link invoke} but read-only (nothing applied). */
  view<R = unknown>(
    contractId: string,
    fn: string,
    args?: Record<string, unknown> | unknown[],
    opts?: { source?: string },
  ): Promise<R>;
  /** Moves ledger time forward by `seconds`, closing the matching number of ledgers. */
  advanceTime(seconds: number): Promise<void>;
  /** Closes `count` ledgers now (default 1). */
  closeLedgers(count?: number): Promise<void>;
  /** The latest closed ledger. */
  latestLedger(): { sequence: number; closeTime: bigint };
  /** Snapshot of the whole chain; returns an id for {@link revert}. */
  snapshot(): number;
  /** Restores a snapshot (state, ledgers, events, time offset). */
  revert(id: number): void;
  /** Adds a JSON-RPC method (e.g. `localnet_shock`) on the node's endpoint. */
  registerControlMethod(
    name: string,
    handler: (params: unknown) => Promise<unknown> | unknown,
  ): void;
  /** Stops the timer and the server. */
  close(): Promise<void>;
}

/** Runs a synchronous step as a promise (a throw becomes a rejection). */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Starts a node. */
export function startLocalnet(opts: LocalnetOptions = {}): Promise<Localnet> {
  try {
    return Promise.resolve(start(opts));
  } catch (e) {
    return Promise.reject(e);
  }
}

function start(opts: LocalnetOptions): Localnet {
  const passphrase = opts.networkPassphrase ?? Networks.STANDALONE;
  const host: HostApi = realHostApi;
  let released = false;
  const ledgerMs = opts.ledgerMs ?? 1000;
  const chain = new Chain(passphrase, host, {
    closeSeconds: opts.closeSeconds ?? Math.max(1, Math.round(ledgerMs / 1000)),
    retentionLedgers: opts.retentionLedgers,
    capacity: opts.capacity,
    network: opts.network,
    fees: opts.fees,
    feeStatsWindows: opts.feeStatsWindows,
  });
  const hostname = opts.hostname ?? "127.0.0.1";
  const onError = opts.onError ??
    ((method: string, e: unknown) => console.error(`localnet: ${method} failed:`, e));

  const table = new Map<string, Handler>();
  const snapshots = new Map<number, Snapshot>();
  let rpcUrl = "";
  let friendbotUrl = "";
  // Methods read friendbotUrl lazily (the port is known only after listening).
  const ctx = {
    chain,
    get friendbotUrl() {
      return friendbotUrl;
    },
  };
  for (const [k, v] of methods(ctx)) table.set(k, v);

  const latestInfo = () => ({
    sequence: chain.latest.sequence,
    closeTime: Number(chain.latest.closeTime),
  });
  table.set("localnet_advanceTime", (params: unknown) => {
    const seconds = (params as { seconds?: unknown } | null)?.seconds;
    if (typeof seconds !== "number" || !Number.isInteger(seconds) || seconds < 0) {
      throw invalidParams("seconds must be a non-negative integer");
    }
    chain.advanceTime(seconds);
    return latestInfo();
  });
  table.set("localnet_closeLedgers", (params: unknown) => {
    const count = (params as { count?: unknown } | null)?.count ?? 1;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 100_000) {
      throw invalidParams("count must be an integer between 1 and 100000");
    }
    chain.closeLedgers(count);
    return latestInfo();
  });
  table.set("localnet_snapshot", () => {
    const s = chain.snapshot();
    snapshots.set(s.id, s);
    return { id: s.id, ...latestInfo() };
  });
  table.set("localnet_revert", (params: unknown) => {
    const id = (params as { id?: unknown } | null)?.id;
    const s = typeof id === "number" ? snapshots.get(id) : undefined;
    if (!s) throw invalidParams(`unknown snapshot id ${String(id)}`);
    chain.revert(s);
    return latestInfo();
  });

  const server = Deno.serve(
    { port: opts.port ?? 8000, hostname, onListen: () => {} },
    (req) => handleHttp(req, table, chain, onError),
  );
  const port = server.addr.port;
  const base = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  rpcUrl = `${base}/rpc`;
  friendbotUrl = `${base}/friendbot`;

  let timer: ReturnType<typeof setInterval> | undefined;
  let autoClose: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  if (ledgerMs > 0) timer = setInterval(() => chain.closeLedger(), ledgerMs);
  else if ((opts.autoCloseMs ?? 100) > 0) {
    const delay = opts.autoCloseMs ?? 100;
    chain.onQueued = () => {
      if (autoClose !== undefined || closed) return;
      autoClose = setTimeout(() => {
        autoClose = undefined;
        if (chain.queueSize > 0) chain.closeLedger();
        // Transactions still waiting (over capacity) get the next ledger.
        if (chain.queueSize > 0) chain.onQueued?.();
      }, delay);
    };
  }

  const rootId = chain.root.publicKey();

  const scAddresses = new Map<string, xdr.ScAddress>();

  function call(
    contractId: string,
    fn: string,
    args: Record<string, unknown> | unknown[] | undefined,
    source: string | undefined,
    apply: boolean,
  ): unknown {
    const spec = host.specFor(contractId, chain.store);
    let contractAddress = scAddresses.get(contractId);
    if (!contractAddress) {
      contractAddress = Address.fromString(contractId).toScAddress();
      if (scAddresses.size > 10_000) scAddresses.clear();
      scAddresses.set(contractId, contractAddress);
    }
    const hostFunction = xdr.HostFunction.hostFunctionTypeInvokeContract(
      new xdr.InvokeContractArgs({
        contractAddress,
        functionName: fn,
        args: host.encodeArgs(spec, fn, args ?? []),
      }),
    );
    const res = host.invokeHostFunction({
      reader: chain.store,
      ledger: chain.hostLedger(),
      source: source ?? rootId,
      hostFunction,
      auth: [],
      mode: "record_allow_nonroot",
    });
    if (!res.ok) {
      const e = res.error;
      const head = e
        ? `Error(${e.type}, ${typeof e.code === "number" ? `#${e.code}` : e.code})`
        : "Error(WasmVm, InvalidAction)";
      throw new Error(`${contractId}.${fn} failed: ${res.errorString ?? `HostError: ${head}`}`);
    }
    if (apply) chain.applyDirect(res.changes, res.events.map(normalizeEvent), res.liveUntil);
    return host.decodeResult(spec, fn, res.returnValue ?? xdr.ScVal.scvVoid());
  }

  const localnet: Localnet = {
    rpcUrl,
    networkPassphrase: passphrase,
    port,
    friendbotUrl,
    chain,
    deployWasm: (wasm, args, o) =>
      attempt(() => {
        const run = (hostFunction: xdr.HostFunction) => {
          const res = host.invokeHostFunction({
            reader: chain.store,
            ledger: chain.hostLedger(),
            source: rootId,
            hostFunction,
            auth: [],
            mode: "record_allow_nonroot",
          });
          if (!res.ok) throw new Error(res.errorString ?? res.error?.message ?? "failed");
          chain.applyDirect(res.changes, res.events.map(normalizeEvent), res.liveUntil);
          return res.returnValue!;
        };
        const wasmHash = run(xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm as never));
        const isScVals = Array.isArray(args) && args.length > 0 &&
          args.every((a) => a instanceof Object && typeof (a as xdr.ScVal).toXDR === "function");
        const constructorArgs = !args ? [] : isScVals ? args as xdr.ScVal[] : host.encodeArgs(
          new contract.Spec(specOfWasm(wasm)),
          "__constructor",
          args as unknown[],
        );
        const salt = o?.salt ?? crypto.getRandomValues(new Uint8Array(32));
        const id = run(
          xdr.HostFunction.hostFunctionTypeCreateContractV2(
            new xdr.CreateContractArgsV2({
              contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
                new xdr.ContractIdPreimageFromAddress({
                  address: Address.fromString(rootId).toScAddress(),
                  salt: salt as never,
                }),
              ),
              executable: xdr.ContractExecutable.contractExecutableWasm(
                ((wasmHash as unknown as { bytes: { value?: Uint8Array } }).bytes.value ??
                  (wasmHash as unknown as { bytes: Uint8Array }).bytes) as never,
              ),
              constructorArgs,
            }),
          ),
        );
        return Address.fromScVal(id).toString();
      }),
    uploadWasm: (wasm) =>
      attempt(() => {
        const res = host.invokeHostFunction({
          reader: chain.store,
          ledger: chain.hostLedger(),
          source: rootId,
          hostFunction: xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm as never),
          auth: [],
          mode: "record_allow_nonroot",
        });
        if (!res.ok) throw new Error(res.errorString ?? res.error?.message ?? "upload failed");
        chain.applyDirect(res.changes, res.events.map(normalizeEvent), res.liveUntil);
        // The code's key is the Wasm's SHA-256 (what the host returned).
        return Uint8Array.from(hash(wasm as never));
      }),
    deployAsset: (asset) =>
      attempt(() => {
        const id = asset.contractId(passphrase);
        const instanceKey = xdr.LedgerKey.contractData(
          new xdr.LedgerKeyContractData({
            contract: Address.fromString(id).toScAddress(),
            key: xdr.ScVal.scvLedgerKeyContractInstance(),
            durability: xdr.ContractDataDurability.persistent,
          }),
        ).toXdr("base64");
        if (!chain.store.get(instanceKey)) {
          const r = host.deployStellarAsset({
            reader: chain.store,
            ledger: chain.hostLedger(),
            asset,
          });
          chain.applyDirect(r.changes);
        }
        return id;
      }),
    fund: (publicKey, xlm = 10_000n) =>
      attempt(() => {
        if (!StrKey.isValidEd25519PublicKey(publicKey)) {
          throw new Error(`invalid account ${publicKey}`);
        }
        const amount = xlm * 10_000_000n;
        const seq = chain.latest.sequence + 1;
        const changes = new Map<string, xdr.LedgerEntry | null>();
        const root = loadAccount(chain.store, rootId)!;
        const existing = loadAccount(chain.store, publicKey);
        const acc = existing
          ? withAccount(existing, { balance: existing.balance + amount })
          : newAccount(publicKey, amount, seq);
        const entry = (a: xdr.AccountEntry) =>
          new xdr.LedgerEntry({
            lastModifiedLedgerSeq: seq,
            data: xdr.LedgerEntryData.account(a),
            ext: xdr.LedgerEntryExt.v0(),
          });
        changes.set(
          accountKey(rootId),
          entry(withAccount(root, { balance: root.balance - amount })),
        );
        changes.set(accountKey(publicKey), entry(acc));
        chain.applyDirect(changes);
      }),
    invoke: (contractId, fn, args, o) =>
      attempt(() => call(contractId, fn, args, o?.source, true) as never),
    view: (contractId, fn, args, o) =>
      attempt(() => call(contractId, fn, args, o?.source, false) as never),
    advanceTime: (seconds) => attempt(() => void chain.advanceTime(seconds)),
    closeLedgers: (count = 1) => attempt(() => void chain.closeLedgers(count)),
    latestLedger() {
      return { sequence: chain.latest.sequence, closeTime: chain.latest.closeTime };
    },
    snapshot() {
      const s = chain.snapshot();
      snapshots.set(s.id, s);
      return s.id;
    },
    revert(id) {
      const s = snapshots.get(id);
      if (!s) throw new Error(`unknown snapshot id ${id}`);
      chain.revert(s);
    },
    registerControlMethod(name, handler) {
      table.set(name, handler);
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (autoClose !== undefined) clearTimeout(autoClose);
      autoClose = undefined;
      await server.shutdown();
      if (!released) {
        released = true;
        releaseRealHost();
      }
    },
  };
  // Counted only once nothing above can throw: close() releases it.
  acquireRealHost();
  return localnet;
}
