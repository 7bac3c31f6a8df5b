/**
 * Loads a Blend v2 pool's state over Soroban RPC and builds the Blend SDK's own objects from it
 * (`PoolV2`, `ReserveV2` with interest accrued, `PoolOracle`), so health factors and auction
 * values use Blend's math.
 *
 * The Blend SDK's loaders create their own uncounted `rpc.Server` and issue one request per
 * step; here the keeper reads the same ledger entries itself — the pool instance, `ResList`
 * and every reserve's `ResConfig`/`ResData`/`EmisData` in ONE batched getLedgerEntries once the
 * reserve list is known — and feeds the base64 XDR to the SDK's parsers (they accept base64,
 * which is the only thing that may cross between the SDK's stellar-sdk 14 and our 17).
 * Prices: one `lastprice` simulation per reserve, in parallel; `decimals()` once per process.
 *
 * @module
 */
import {
  EmissionDataV2,
  EmissionsV2,
  getEmissionIndex,
  getReserveId,
  PoolConfig,
  PoolMetadata,
  PoolOracle,
  PoolV2,
  ReserveConfigV2,
  ReserveData,
  ReserveV2,
} from "@blend-capital/blend-sdk";
import { Address, scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  contractDataKey,
  contractInstanceKey,
  getLedgerEntries,
  ledgerNow,
} from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { simulateRead } from "@vigil/soroban/tx";
import { sv } from "@vigil/soroban/scval";

/** A loaded pool: Blend SDK objects plus what the keeper needs around them. */
export interface PoolState {
  poolId: string;
  pool: PoolV2;
  oracle: PoolOracle;
  /** Reserve asset ids in index order (position maps are keyed by this index). */
  reserveList: string[];
  backstop: string;
  maxPositions: number;
  /** Ledger the entries were read at. */
  latestLedger: number;
  /** Ledger-clock time the reserves were accrued to (Unix seconds). */
  timestamp: number;
  /** Assets whose oracle price could not be read (positions touching them are "unpriced"). */
  unpriced: string[];
}

/** Per-process cache of things that never change for a pool (the oracle's decimals). */
export interface PoolCache {
  reserveList?: string[];
  oracleDecimals?: Map<string, number>;
}

const RESERVE_KEYS_PER_ASSET = 4;

/** Keys of one reserve (Blend v2: config, data, and both emission data entries). */
function reserveKeys(poolId: string, asset: string, index: number): xdr.LedgerKey[] {
  const a = sv.address(asset);
  return [
    contractDataKey(poolId, sv.variant("ResConfig", a)),
    contractDataKey(poolId, sv.variant("ResData", a)),
    contractDataKey(poolId, sv.variant("EmisData", sv.u32(index * 2 + 1))),
    contractDataKey(poolId, sv.variant("EmisData", sv.u32(index * 2))),
  ];
}

/**
 * Reads the pool. With `cache.reserveList` known, one getLedgerEntries covers instance,
 * reserve list and reserves; if the list changed, a second request reads the new reserves.
 */
export async function loadPoolState(
  chain: ChainRpc,
  poolId: string,
  cache: PoolCache,
): Promise<PoolState> {
  const instanceKey = contractInstanceKey(poolId).toXDR("base64");
  const resListKey = contractDataKey(poolId, sv.symbol("ResList")).toXDR("base64");
  const guess = cache.reserveList ?? [];
  const keys = [instanceKey, resListKey, ...guess.flatMap((a, i) => reserveKeys(poolId, a, i))];
  let { entries, latestLedger } = await getLedgerEntries(chain, keys);

  const inst = entries.get(instanceKey);
  const resList = entries.get(resListKey);
  if (!inst || !resList) throw new Error(`lending pool ${poolId} not found (no instance/ResList)`);
  const reserveList = scValToNative(entryVal(resList.xdr)) as string[];
  if (!sameList(reserveList, guess)) {
    const more = await getLedgerEntries(
      chain,
      reserveList.flatMap((a, i) => reserveKeys(poolId, a, i)),
    );
    entries = new Map([...entries, ...more.entries]);
    latestLedger = Math.min(latestLedger, more.latestLedger);
    cache.reserveList = reserveList;
  }

  const meta = parseInstance(inst.xdr, reserveList, latestLedger);
  const timestamp = ledgerNow(chain);
  const configs = new Map<string, ReserveConfigV2>();
  const datas = new Map<string, ReserveData>();
  const emis = new Map<number, EmissionDataV2>();
  for (const e of entries.values()) {
    if (e.key === instanceKey || e.key === resListKey) continue;
    const name = keyName(e.xdr);
    if (name === "ResConfig") {
      configs.set(getReserveId(e.xdr), ReserveConfigV2.fromLedgerEntryData(e.xdr));
    } else if (name === "ResData") {
      datas.set(getReserveId(e.xdr), ReserveData.fromLedgerEntryData(e.xdr));
    } else if (name === "EmisData") {
      emis.set(getEmissionIndex(e.xdr), EmissionDataV2.fromLedgerEntryData(e.xdr));
    }
  }
  const reserves = new Map<string, ReserveV2>();
  for (const [index, asset] of reserveList.entries()) {
    const config = configs.get(asset);
    const data = datas.get(asset);
    if (!config || !data) throw new Error(`reserve ${asset} of pool ${poolId} is missing data`);
    const dEmis = emis.get(index * 2);
    const bEmis = emis.get(index * 2 + 1);
    const borrowEmissions = dEmis ? new EmissionsV2(dEmis, latestLedger) : undefined;
    borrowEmissions?.accrue(data.dSupply, config.decimals, timestamp);
    const supplyEmissions = bEmis ? new EmissionsV2(bEmis, latestLedger) : undefined;
    supplyEmissions?.accrue(data.bSupply, config.decimals, timestamp);
    const r = new ReserveV2(
      poolId,
      asset,
      config,
      data,
      borrowEmissions,
      supplyEmissions,
      0,
      0,
      0,
      0,
      latestLedger,
    );
    // Accrue to the ledger clock (the SDK's loader uses Date.now(), wrong on a test chain
    // whose time runs ahead).
    r.accrue(BigInt(meta.backstopRate), timestamp);
    reserves.set(asset, r);
  }
  const network = { rpc: chain.url, passphrase: chain.networkPassphrase };
  const pool = new PoolV2(network, poolId, meta, reserves, timestamp);
  const { oracle, unpriced } = await loadOracle(chain, meta.oracle, reserveList, cache);
  return {
    poolId,
    pool,
    oracle,
    reserveList,
    backstop: meta.backstop,
    maxPositions: meta.maxPositions,
    latestLedger,
    timestamp,
    unpriced,
  };
}

/** Oracle prices for every reserve (SEP-40 `lastprice(Asset::Stellar(a))`), in parallel. */
export async function loadOracle(
  chain: ChainRpc,
  oracleId: string,
  assets: string[],
  cache: PoolCache,
): Promise<{ oracle: PoolOracle; unpriced: string[] }> {
  cache.oracleDecimals ??= new Map();
  let decimals = cache.oracleDecimals.get(oracleId);
  const decP = decimals === undefined
    ? simulateRead(chain, oracleId, "decimals").then((r) => Number(scValToNative(r.retval)))
    : Promise.resolve(decimals);
  const priceP = assets.map((a) =>
    simulateRead(chain, oracleId, "lastprice", [sv.variant("Stellar", sv.address(a))]).then(
      (r) => {
        const v = scValToNative(r.retval) as
          | { price: bigint; timestamp: bigint }
          | null
          | undefined;
        return v && typeof v === "object" && v.price > 0n
          ? { price: BigInt(v.price), timestamp: Number(v.timestamp) }
          : undefined;
      },
      () => undefined,
    )
  );
  const [dec, prices] = await Promise.all([decP, Promise.all(priceP)]);
  decimals = dec;
  cache.oracleDecimals.set(oracleId, decimals);
  const map = new Map<string, { price: bigint; timestamp: number }>();
  const unpriced: string[] = [];
  assets.forEach((a, i) => {
    const p = prices[i];
    if (p) map.set(a, p);
    else unpriced.push(a);
  });
  return { oracle: new PoolOracle(oracleId, map, decimals, 0), unpriced };
}

function parseInstance(b64: string, reserveList: string[], latestLedger: number): PoolMetadata {
  const data = xdr.LedgerEntryData.fromXDR(b64, "base64");
  if (data.type !== "contractData") throw new Error("pool instance is not contract data");
  const val = data.contractData.val;
  if (val.type !== "scvContractInstance") throw new Error("pool instance has no ContractInstance");
  const instance = val.instance;
  const exe = instance.executable;
  const wasmHash = exe.type === "contractExecutableWasm" ? bytesHex(exe.wasmHash) : "";
  let admin = "", name = "", backstop = "";
  let config: PoolConfig | undefined;
  for (const e of instance.storage ?? []) {
    if (e.key.type !== "scvSymbol") continue;
    const k = String(e.key.sym);
    if (k === "Admin") admin = Address.fromScVal(e.val).toString();
    else if (k === "Backstop") backstop = Address.fromScVal(e.val).toString();
    else if (k === "Name") name = String(scValToNative(e.val));
    else if (k === "Config") config = PoolConfig.fromScVal(e.val.toXDR("base64"));
  }
  if (!config) throw new Error("pool instance has no Config");
  return new PoolMetadata(
    wasmHash,
    admin,
    name,
    backstop,
    config.backstopRate,
    config.maxPositions,
    config.minCollateral ?? 0n,
    config.oracle,
    config.status,
    reserveList,
    latestLedger,
  );
}

/** The first Symbol of a contract-data entry's key (`ResConfig`, `Positions`, …). */
export function keyName(entryB64: string): string | undefined {
  const data = xdr.LedgerEntryData.fromXDR(entryB64, "base64");
  if (data.type !== "contractData") return undefined;
  const k = data.contractData.key;
  if (k.type === "scvSymbol") return String(k.sym);
  if (k.type === "scvVec" && k.vec && k.vec[0]?.type === "scvSymbol") return String(k.vec[0].sym);
  return undefined;
}

/** The value ScVal of a contract-data entry. */
export function entryVal(entryB64: string): xdr.ScVal {
  const data = xdr.LedgerEntryData.fromXDR(entryB64, "base64");
  if (data.type !== "contractData") throw new Error("not a contract data entry");
  return data.contractData.val;
}

function bytesHex(b: Uint8Array | { toString(enc: string): string }): string {
  if (b instanceof Uint8Array) {
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }
  return b.toString("hex");
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Number of ledger keys one pool load reads (for the benchmark's expectations). */
export function poolKeyCount(reserves: number): number {
  return 2 + reserves * RESERVE_KEYS_PER_ASSET;
}
