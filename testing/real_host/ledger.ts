/**
 * A tiny in-memory ledger for the real host's FFI tests: a Map of LedgerKey → entry (+ TTL),
 * and a `run` that does what a node does with one InvokeHostFunction transaction — preflight on
 * the real simulation, then apply on the real host with the simulated footprint and auth, then
 * write the changes back.
 *
 * @module
 */
import { Address, type Asset, hash, Keypair, Networks, xdr } from "@stellar/stellar-sdk";
import {
  type EntryWithTtl,
  invokeHostFunction,
  type InvokeOutput,
  type LedgerInfo,
  ledgerInfo,
  simulateInvoke,
  type SimulateOutput,
} from "@vigil/localnet/real_host/mod";

// deno-lint-ignore no-explicit-any
type Any = any;

export const PASSPHRASE = Networks.STANDALONE;

const keyId = (k: xdr.LedgerKey) => k.toXdr("base64");

/** What {@link RealLedger.run} returns: the preflight and the applied invocation. */
export interface Run {
  sim: SimulateOutput;
  out: InvokeOutput;
}

/** A mutable ledger the real host reads and writes through the FFI. */
export class RealLedger {
  readonly entries = new Map<string, EntryWithTtl>();
  readonly passphrase = PASSPHRASE;
  sequence = 1_000;
  timestamp = 1_800_000_000n;

  info(over: Partial<LedgerInfo> = {}): LedgerInfo {
    return ledgerInfo(PASSPHRASE, this.sequence, this.timestamp, over);
  }

  /** The entry of a key (an xdr object or its base64 XDR). */
  get(key: xdr.LedgerKey | string): EntryWithTtl | undefined {
    return this.entries.get(typeof key === "string" ? key : keyId(key));
  }

  /** Creates (or replaces) a classic account with `balance` stroops. */
  account(g: string, balance: bigint): void {
    const data = xdr.LedgerEntryData.fromJson({
      account: {
        account_id: g,
        balance: balance.toString(),
        seq_num: "0",
        num_sub_entries: 0,
        inflation_dest: null,
        flags: 0,
        home_domain: "",
        thresholds: "01000000",
        signers: [],
        ext: "v0",
      },
    } as Any);
    const key = xdr.LedgerKey.account(
      new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(g).xdrAccountId() }),
    );
    this.entries.set(keyId(key), {
      entry: new xdr.LedgerEntry({ lastModifiedLedgerSeq: 1, data, ext: xdr.LedgerEntryExt.v0() }),
    });
  }

  /** Balance of a classic account (stroops). */
  nativeBalance(g: string): bigint {
    const key = xdr.LedgerKey.account(
      new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(g).xdrAccountId() }),
    );
    const e = this.get(key);
    return e ? BigInt((entryOf(e).toJson() as Any).data.account.balance) : -1n;
  }

  /** Writes an invocation's changes back (new entries, deletions, TTL bumps), as base64 XDR. */
  apply(out: InvokeOutput): void {
    for (const c of out.changes) {
      const prev = this.entries.get(c.keyXdr);
      const liveUntil = c.ttl?.newLiveUntil ?? prev?.liveUntil;
      if (c.readOnly) {
        if (prev && c.ttl) this.entries.set(c.keyXdr, { ...prev, liveUntil });
      } else if (c.entryXdr) {
        this.entries.set(c.keyXdr, { entry: c.entryXdr, liveUntil });
      } else {
        this.entries.delete(c.keyXdr);
      }
    }
  }

  /** Preflights a host function with recorded auth (no apply). */
  simulate(source: string, hostFunction: xdr.HostFunction, opts: { authV2?: boolean } = {}) {
    return simulateInvoke({
      hostFunction,
      sourceAccount: Keypair.fromPublicKey(source).xdrAccountId(),
      ledger: this.info(),
      snapshot: (k) => this.entries.get(k),
      authV2: opts.authV2,
    });
  }

  /**
   * One transaction: simulate (recording footprint and auth), then apply with the simulated
   * footprint, auth and instruction budget; changes are written back when it succeeds. Throws
   * when the simulation fails (the error is in `sim`).
   */
  run(source: string, hostFunction: xdr.HostFunction, opts: { authV2?: boolean } = {}): Run {
    const sim = this.simulate(source, hostFunction, opts);
    if (!sim.ok || !sim.transactionData) {
      throw new Error(`simulation failed: ${sim.error?.text} ${sim.error?.debug}`);
    }
    const out = this.apply1(source, hostFunction, sim.transactionData, sim.auth);
    return { sim, out };
  }

  /** Applies one host function with given transaction data and auth (no preflight). */
  apply1(
    source: string,
    hostFunction: xdr.HostFunction,
    data: xdr.SorobanTransactionData,
    auth: xdr.SorobanAuthorizationEntry[],
  ): InvokeOutput {
    const fp = data.resources.footprint;
    const keys = [...fp.readOnly, ...fp.readWrite];
    const out = invokeHostFunction({
      hostFunction,
      resources: data.resources,
      sourceAccount: Keypair.fromPublicKey(source).xdrAccountId(),
      auth,
      ledger: this.info(),
      entries: keys.map((k) => this.get(k)),
      prngSeed: hash(new TextEncoder().encode(`seed ${this.sequence}`) as Any),
    });
    if (out.ok) this.apply(out);
    this.sequence++;
    return out;
  }

  /** Uploads `wasm` and creates a contract from it with `constructorArgs`; its C-address. */
  deploy(deployer: string, wasm: Uint8Array, constructorArgs: xdr.ScVal[], salt = 1): string {
    const upload = this.run(deployer, xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm));
    if (!upload.out.ok) throw new Error(`upload failed: ${upload.out.error?.debug}`);
    const s = new Uint8Array(32);
    s[31] = salt;
    const create = this.run(
      deployer,
      xdr.HostFunction.hostFunctionTypeCreateContractV2(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
            new xdr.ContractIdPreimageFromAddress({
              address: new Address(deployer).toScAddress(),
              salt: s as Any,
            }),
          ),
          executable: xdr.ContractExecutable.contractExecutableWasm(hash(wasm as Any) as Any),
          constructorArgs,
        }),
      ),
    );
    if (!create.out.ok) throw new Error(`create failed: ${create.out.error?.debug}`);
    return Address.fromScVal(create.out.result!).toString();
  }

  /** Deploys the Stellar Asset Contract of `asset`; its C-address. */
  deploySac(source: string, asset: Asset): string {
    const r = this.run(
      source,
      xdr.HostFunction.hostFunctionTypeCreateContractV2(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAsset(
            asset.toXDRObject() as Any,
          ),
          executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
          constructorArgs: [],
        }),
      ),
    );
    if (!r.out.ok) throw new Error(`SAC deploy failed: ${r.out.error?.debug}`);
    return Address.fromScVal(r.out.result!).toString();
  }
}

/** The entry of an {@link EntryWithTtl} as an xdr object. */
export function entryOf(e: EntryWithTtl): xdr.LedgerEntry {
  return typeof e.entry === "string" ? xdr.LedgerEntry.fromXDR(e.entry, "base64") : e.entry;
}

/** A contract call as a host function. */
export function call(contract: string, fn: string, args: xdr.ScVal[]): xdr.HostFunction {
  return xdr.HostFunction.hostFunctionTypeInvokeContract(
    new xdr.InvokeContractArgs({
      contractAddress: new Address(contract).toScAddress(),
      functionName: fn,
      args,
    }),
  );
}
