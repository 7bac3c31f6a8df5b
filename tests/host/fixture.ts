/**
 * In-memory ledger and helpers for the host's in-process tests (no HTTP, no node).
 *
 * @module
 */
import {
  Address,
  Asset,
  authorizeEntry,
  contract,
  hash,
  Keypair,
  Networks,
  xdr,
} from "@stellar/stellar-sdk";
import {
  deployStellarAsset,
  encodeArgs,
  invokeHostFunction,
  type InvokeRequest,
  type InvokeResult,
  type LedgerInfo,
  type LedgerReader,
  specOfWasm,
} from "../../localnet/host/mod.ts";
import { type FixtureName, fixtureWasmSync } from "../fixtures/contracts/mod.ts";
import { accountKey, trustlineKey } from "../../localnet/host/xdr_fast.ts";
import { accountBytes, scAddressFromString } from "../../localnet/host/keys.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const PASSPHRASE = Networks.STANDALONE;
export const NETWORK_ID = hash(new TextEncoder().encode(PASSPHRASE) as Any) as Uint8Array;

/** A mutable in-memory ledger. */
export class MemLedger implements LedgerReader {
  readonly entries = new Map<string, xdr.LedgerEntry>();
  /** Live-until ledgers of entries, where a test sets one (others count as expiring now). */
  readonly ttls = new Map<string, number>();
  sequence = 100;
  timestamp = 1_800_000_000n;

  get(key: string): xdr.LedgerEntry | undefined {
    return this.entries.get(key);
  }

  liveUntil(key: string): number | undefined {
    return this.ttls.get(key);
  }

  info(over: Partial<LedgerInfo> = {}): LedgerInfo {
    return {
      sequence: this.sequence,
      timestamp: this.timestamp,
      networkPassphrase: PASSPHRASE,
      networkId: NETWORK_ID,
      protocolVersion: 23,
      maxEntryTtl: 3_110_400,
      ...over,
    };
  }

  apply(changes: Map<string, xdr.LedgerEntry | null>): void {
    for (const [k, e] of changes) {
      if (e) this.entries.set(k, e);
      else this.entries.delete(k);
    }
  }

  /** Creates (or replaces) an account with `balance` stroops. */
  account(
    g: string,
    balance: bigint,
    opts: { numSubEntries?: number; thresholds?: string; signers?: Any[] } = {},
  ): void {
    const data = xdr.LedgerEntryData.fromJson({
      account: {
        account_id: g,
        balance: balance.toString(),
        seq_num: "0",
        num_sub_entries: opts.numSubEntries ?? 0,
        inflation_dest: null,
        flags: 0,
        home_domain: "",
        thresholds: opts.thresholds ?? "01000000",
        signers: opts.signers ?? [],
        ext: "v0",
      },
    } as Any);
    this.entries.set(
      accountKey(accountBytes(g)),
      new xdr.LedgerEntry({ lastModifiedLedgerSeq: 1, data, ext: xdr.LedgerEntryExt.v0() }),
    );
  }

  /** Creates (or replaces) a trustline of `g` for a 4-letter issued asset. */
  trustline(g: string, asset: Asset, balance: bigint, flags = 1, limit = (1n << 63n) - 1n): void {
    const data = xdr.LedgerEntryData.fromJson({
      trustline: {
        account_id: g,
        asset: { credit_alphanum4: { asset_code: asset.getCode(), issuer: asset.getIssuer() } },
        balance: balance.toString(),
        limit: limit.toString(),
        flags,
        ext: "v0",
      },
    } as Any);
    const code = new Uint8Array(4);
    code.set(new TextEncoder().encode(asset.getCode()));
    this.entries.set(
      trustlineKey(accountBytes(g), code, accountBytes(asset.getIssuer()!)),
      new xdr.LedgerEntry({ lastModifiedLedgerSeq: 1, data, ext: xdr.LedgerEntryExt.v0() }),
    );
  }

  /** Balance of a classic account. */
  nativeBalance(g: string): bigint {
    const e = this.entries.get(accountKey(accountBytes(g)));
    return e ? BigInt((e.data as Any).account.balance) : -1n;
  }

  /**
   * Uploads a Wasm (a test-fixture name or bytes) and creates a contract from it as `deployer`
   * with `salt` (the id derived as on the real network), running `__constructor` with `args`
   * (native values encoded with the Wasm's own spec, or ScVals). Throws on failure.
   */
  deploy(
    wasm: FixtureName | Uint8Array,
    args: Record<string, unknown> | unknown[],
    deployer: string,
    salt = 1,
  ): string {
    const code = typeof wasm === "string" ? fixtureWasmSync(wasm) : wasm;
    const run = (hostFunction: xdr.HostFunction): xdr.ScVal => {
      const r = invokeHostFunction({
        reader: this,
        ledger: this.info(),
        source: deployer,
        hostFunction,
        auth: [],
        mode: "record_allow_nonroot",
      });
      if (!r.ok) throw new Error(r.errorString ?? r.error?.message ?? "deploy failed");
      this.apply(r.changes);
      return r.returnValue!;
    };
    run(xdr.HostFunction.hostFunctionTypeUploadContractWasm(code as Any));
    const empty = Array.isArray(args) ? args.length === 0 : Object.keys(args).length === 0;
    const isScVals = Array.isArray(args) && !empty && args.every((a) => a instanceof xdr.ScVal);
    const constructorArgs = empty
      ? []
      : isScVals
      ? args as xdr.ScVal[]
      : encodeArgs(new contract.Spec(specOfWasm(code)), "__constructor", args);
    const s = new Uint8Array(32);
    s[31] = salt;
    const id = run(xdr.HostFunction.hostFunctionTypeCreateContractV2(
      new xdr.CreateContractArgsV2({
        contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
          new xdr.ContractIdPreimageFromAddress({
            address: scAddressFromString(deployer),
            salt: s as Any,
          }),
        ),
        executable: xdr.ContractExecutable.contractExecutableWasm(hash(code as Any)),
        constructorArgs,
      }),
    ));
    return Address.fromScVal(id).toString();
  }

  deploySac(asset: Asset): string {
    const r = deployStellarAsset({ reader: this, ledger: this.info(), asset });
    this.apply(r.changes);
    return r.contractId;
  }
}

/** An InvokeHostFunction for a contract call. */
export function invokeFn(contract: string, fn: string, args: xdr.ScVal[]): xdr.HostFunction {
  return xdr.HostFunction.hostFunctionTypeInvokeContract(
    new xdr.InvokeContractArgs({
      contractAddress: scAddressFromString(contract),
      functionName: fn,
      args,
    }),
  );
}

/** Simulates a call (recording auth, no footprint). */
export function simulate(
  l: MemLedger,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
  mode: InvokeRequest["mode"] = "record",
): InvokeResult {
  return invokeHostFunction({
    reader: l,
    ledger: l.info(),
    source,
    hostFunction: invokeFn(contract, fn, args),
    auth: [],
    mode,
  });
}

/** Applies a call in enforcing mode with a footprint and auth entries; applies changes on success. */
export function apply(
  l: MemLedger,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
  auth: xdr.SorobanAuthorizationEntry[],
  footprint: { readOnly: string[]; readWrite: string[] },
  over: Partial<LedgerInfo> = {},
): InvokeResult {
  const res = invokeHostFunction({
    reader: l,
    ledger: l.info(over),
    source,
    hostFunction: invokeFn(contract, fn, args),
    auth,
    mode: "enforce",
    footprint: { readOnly: new Set(footprint.readOnly), readWrite: new Set(footprint.readWrite) },
  });
  if (res.ok) l.apply(res.changes);
  return res;
}

/** Signs recorded address entries with the given keypairs (by address). */
export async function signEntries(
  entries: xdr.SorobanAuthorizationEntry[],
  signers: Keypair[],
  validUntil: number,
): Promise<xdr.SorobanAuthorizationEntry[]> {
  const out: xdr.SorobanAuthorizationEntry[] = [];
  for (const e of entries) {
    if (e.credentials.type !== "sorobanCredentialsAddress") {
      out.push(e);
      continue;
    }
    const addr = (e.credentials as Any).address.address;
    const kp = signers.find((k) =>
      scAddressFromString(k.publicKey()).toXdr("base64") === addr.toXdr("base64")
    );
    if (!kp) {
      out.push(e);
      continue;
    }
    out.push(await authorizeEntry(e, kp, validUntil, PASSPHRASE));
  }
  return out;
}

/** Simulates, signs, then applies a call (the full client flow in-process). */
export async function send(
  l: MemLedger,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
  signers: Keypair[] = [],
): Promise<InvokeResult> {
  const sim = simulate(l, source, contract, fn, args);
  if (!sim.ok) return sim;
  const auth = await signEntries(sim.auth, signers, l.sequence + 100);
  return apply(l, source, contract, fn, args, auth, {
    readOnly: sim.readOnly,
    readWrite: sim.readWrite,
  });
}

export { encodeArgs };
