/**
 * The Soroban JSON-RPC methods, with stellar-rpc's request validation and response shapes
 * (numbers marked "string" in stellar-rpc's Go types are sent as JSON strings).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import {
  EVENTS_DEFAULT_LIMIT,
  EVENTS_MAX_LIMIT,
  EVENTS_SCAN_LIMIT,
  LEDGERS_DEFAULT_LIMIT,
  LEDGERS_MAX_LIMIT,
  MAX_LEDGER_ENTRY_KEYS,
  NODE_VERSION,
  PROTOCOL_VERSION,
  TXS_DEFAULT_LIMIT,
  TXS_MAX_LIMIT,
} from "../constants.ts";
import { FilterError, parseCursor, parseFilters, queryEvents } from "../events.ts";
import type { Chain, LedgerRecord } from "../ledger.ts";
import { txMeta, txMetaB64, txResultB64 } from "../meta.ts";
import { simulateEnvelope } from "../apply_soroban.ts";
import type { TxRecord } from "../tx.ts";
import { invalidParams, invalidRequest } from "./errors.ts";

/** A method handler: params (possibly null) → result. */
export type Handler = (params: unknown) => unknown | Promise<unknown>;

/** What the methods need besides the chain. */
export interface MethodContext {
  chain: Chain;
  friendbotUrl: string;
}

type Obj = Record<string, unknown>;

function obj(params: unknown): Obj {
  if (params === null || params === undefined) return {};
  if (typeof params !== "object" || Array.isArray(params)) {
    throw invalidParams("invalid parameters: expected an object");
  }
  return params as Obj;
}

function checkFormat(p: Obj): void {
  const f = p.xdrFormat;
  if (f !== undefined && f !== "" && f !== "base64") {
    throw invalidParams(`unsupported xdrFormat '${String(f)}': this node serves base64 only`);
  }
}

function uint(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
    throw invalidParams(`${name} must be a non-negative integer`);
  }
  return v;
}

/**
 * A boolean request field as stellar-rpc's Go JSON decoding takes it: absent or null is false,
 * anything but a JSON boolean fails the whole request with invalid params.
 */
function bool(v: unknown, name: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") {
    throw invalidParams(
      `invalid parameters: json: cannot unmarshal ${goJsonType(v)} into Go struct field ` +
        `SimulateTransactionRequest.${name} of type bool`,
    );
  }
  return v;
}

/** Go's encoding/json name of a JSON value's type, as its UnmarshalTypeError prints it. */
function goJsonType(v: unknown): string {
  if (typeof v === "number") return "number";
  if (typeof v === "string") return "string";
  return Array.isArray(v) ? "array" : "object";
}

function decodeEnvelope(b64: unknown): xdr.TransactionEnvelope | undefined {
  if (typeof b64 !== "string") return undefined;
  try {
    return xdr.TransactionEnvelope.fromXdr(b64, "base64");
  } catch {
    return undefined;
  }
}

/** JSON fields of a found transaction (shared by getTransaction and getTransactions). */
function txFields(chain: Chain, t: TxRecord): Obj {
  const out: Obj = {
    txHash: t.hash,
    applicationOrder: t.order,
    feeBump: t.feeBump !== undefined,
    envelopeXdr: t.envelopeB64,
    resultXdr: txResultB64(t),
    resultMetaXdr: txMetaB64(t, chain.nativeSac),
    ledger: t.ledger,
    events: {
      transactionEventsXdr: txEvents(chain, t),
      contractEventsXdr: t.opEvents.map((evs) => evs.map((e) => e.toXdr("base64"))),
    },
  };
  if (t.diagnosticEvents.length > 0) {
    out.diagnosticEventsXdr = t.diagnosticEvents.map((e) => e.toXdr("base64"));
  }
  return out;
}

function txEvents(chain: Chain, t: TxRecord): string[] {
  const meta = txMeta(t, chain.nativeSac);
  return meta.type === "v4" ? meta.v4.events.map((e) => e.toXdr("base64")) : [];
}

/** Builds the method table. */
export function methods(ctx: MethodContext): Map<string, Handler> {
  const { chain } = ctx;
  const m = new Map<string, Handler>();
  const range = () => ({
    latest: chain.latest,
    oldest: chain.oldest,
  });

  m.set("getHealth", () => {
    const { latest, oldest } = range();
    return {
      status: "healthy",
      latestLedger: latest.sequence,
      oldestLedger: oldest.sequence,
      ledgerRetentionWindow: chain.retentionLedgers,
      latestLedgerCloseTime: latest.closeTime.toString(),
      oldestLedgerCloseTime: oldest.closeTime.toString(),
    };
  });

  m.set("getNetwork", () => ({
    friendbotUrl: ctx.friendbotUrl,
    passphrase: chain.passphrase,
    protocolVersion: chain.protocolVersion,
  }));

  m.set("getVersionInfo", () => ({
    version: chain.protocolVersion === PROTOCOL_VERSION
      ? NODE_VERSION
      : NODE_VERSION.replace(/^\d+/, String(chain.protocolVersion)),
    commitHash: "0000000000000000000000000000000000000000",
    buildTimestamp: "2026-01-01T00:00:00",
    captiveCoreVersion: "vigil-localnet (no stellar-core)",
    protocolVersion: chain.protocolVersion,
  }));

  m.set("getFeeStats", () => feeStats(chain));

  m.set("getLatestLedger", () => {
    const l = chain.latest;
    return {
      id: chain.hashHex(l),
      sequence: l.sequence,
      protocolVersion: chain.protocolVersion,
      closeTime: l.closeTime.toString(),
      headerXdr: chain.headerB64(l),
      metadataXdr: chain.metaB64(l),
    };
  });

  m.set("getLedgerEntries", (params) => {
    const p = obj(params);
    checkFormat(p);
    const keys = p.keys;
    if (!Array.isArray(keys)) throw invalidParams("keys must be an array of base64 LedgerKeys");
    if (keys.length > MAX_LEDGER_ENTRY_KEYS) {
      throw invalidParams(
        `key count (${keys.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`,
      );
    }
    const entries: Obj[] = [];
    const latest = chain.latest.sequence;
    keys.forEach((k, i) => {
      let key: xdr.LedgerKey;
      try {
        key = xdr.LedgerKey.fromXdr(String(k), "base64");
      } catch {
        throw invalidParams(`cannot unmarshal key value ${String(k)} at index ${i}`);
      }
      if (key.type === "ttl") throw invalidParams("ledger ttl entries cannot be queried directly");
      const canonical = key.toXdr("base64");
      // As stellar-core's query server answers stellar-rpc (QueryServer::getLedgerEntry, at the
      // latest closed ledger): a Soroban entry is live while its TTL reaches that ledger; an
      // archived persistent entry is served with the placeholder `liveUntilLedgerSeq: 0`
      // (stellar-rpc passes it on: state "archived"); an expired temporary one is not found.
      const s = chain.store.storedAt(canonical, latest);
      if (!s) return;
      s.dataB64 ??= s.entry.data.toXdr("base64");
      const e: Obj = {
        key: canonical,
        xdr: s.dataB64,
        lastModifiedLedgerSeq: s.entry.lastModifiedLedgerSeq,
      };
      if (s.liveUntil !== undefined) e.liveUntilLedgerSeq = s.liveUntil >= latest ? s.liveUntil : 0;
      // LedgerEntry.ext, as stellar-rpc 23+ serves it (`extXdr`).
      e.extXdr = s.entry.ext.toXdr("base64");
      entries.push(e);
    });
    return { entries, latestLedger: latest };
  });

  m.set("simulateTransaction", (params) => {
    const p = obj(params);
    checkFormat(p);
    const latestLedger = chain.latest.sequence;
    const env = decodeEnvelope(p.transaction);
    if (!env) return { error: "Could not unmarshal transaction", latestLedger };
    let leeway = 0;
    const rc = p.resourceConfig as Obj | undefined;
    if (rc && typeof rc === "object") leeway = uint(rc.instructionLeeway, "instructionLeeway") ?? 0;
    const authMode = typeof p.authMode === "string" ? p.authMode : undefined;
    const res = simulateEnvelope(
      {
        reader: chain.store,
        host: chain.host,
        hostLedger: chain.simulationLedger(),
        useUpgradedAuth: bool(p.useUpgradedAuth, "useUpgradedAuth"),
      },
      env,
      authMode,
      leeway,
    );
    return { ...res, latestLedger };
  });

  m.set("sendTransaction", (params) => {
    const p = obj(params);
    const env = decodeEnvelope(p.transaction);
    if (!env) throw invalidParams("invalid_xdr");
    chain.settle();
    const before = chain.latest;
    const out = chain.submit(env, p.transaction as string);
    const res: Obj = {
      status: out.status,
      hash: out.hash,
      latestLedger: before.sequence,
      latestLedgerCloseTime: before.closeTime.toString(),
    };
    if (out.errorResultXdr) res.errorResultXdr = out.errorResultXdr;
    if (out.diagnosticEventsXdr) res.diagnosticEventsXdr = out.diagnosticEventsXdr;
    return res;
  });

  m.set("getTransaction", (params) => {
    const p = obj(params);
    checkFormat(p);
    const hash = p.hash;
    if (typeof hash !== "string") throw invalidParams("hash must be a hex string");
    if (hash.length !== 64) throw invalidParams(`unexpected hash length (${hash.length})`);
    if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw invalidParams("incorrect hash: not hex");
    const { latest, oldest } = range();
    const base: Obj = {
      latestLedger: latest.sequence,
      latestLedgerCloseTime: latest.closeTime.toString(),
      oldestLedger: oldest.sequence,
      oldestLedgerCloseTime: oldest.closeTime.toString(),
    };
    const found = chain.txIndex.get(hash.toLowerCase());
    // Outside the retention window a transaction is no longer known.
    const t = found && found.ledger >= oldest.sequence ? found : undefined;
    if (!t) return { ...base, status: "NOT_FOUND", txHash: hash.toLowerCase() };
    return {
      ...base,
      status: t.successful ? "SUCCESS" : "FAILED",
      ...txFields(chain, t),
      createdAt: t.closeTime.toString(),
    };
  });

  m.set("getTransactions", (params) => {
    const p = obj(params);
    checkFormat(p);
    const { latest, oldest } = range();
    const pag = (p.pagination ?? {}) as Obj;
    const limit = uint(pag.limit, "limit") || TXS_DEFAULT_LIMIT;
    if (limit > TXS_MAX_LIMIT) throw invalidParams(`limit must not exceed ${TXS_MAX_LIMIT}`);
    const startLedger = uint(p.startLedger, "startLedger");
    let fromLedger: number;
    let afterOrder = 0;
    if (pag.cursor !== undefined && pag.cursor !== null && pag.cursor !== "") {
      if (startLedger) throw invalidParams("startLedger and cursor cannot both be set");
      let id: bigint;
      try {
        id = BigInt(String(pag.cursor));
      } catch {
        throw invalidParams("invalid cursor");
      }
      fromLedger = Number(id >> 32n);
      afterOrder = Number((id >> 12n) & 0xfffffn);
    } else {
      if (!startLedger) throw invalidParams("startLedger must be positive");
      fromLedger = startLedger;
    }
    if (fromLedger < oldest.sequence || fromLedger > latest.sequence) {
      throw invalidRequest(
        `start ledger must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance.`,
      );
    }
    const txs: Obj[] = [];
    let cursor = "";
    outer: for (let s = fromLedger; s <= latest.sequence; s++) {
      const l = chain.ledger(s)!;
      for (const t of l.txs) {
        if (s === fromLedger && t.order <= afterOrder) continue;
        txs.push({
          status: t.successful ? "SUCCESS" : "FAILED",
          ...txFields(chain, t),
          createdAt: Number(t.closeTime),
        });
        cursor = ((BigInt(s) << 32n) | (BigInt(t.order) << 12n)).toString();
        if (txs.length >= limit) break outer;
      }
      cursor = ((BigInt(s) << 32n) | (0xfffffn << 12n)).toString();
    }
    return {
      transactions: txs,
      latestLedger: latest.sequence,
      latestLedgerCloseTimestamp: Number(latest.closeTime),
      oldestLedger: oldest.sequence,
      oldestLedgerCloseTimestamp: Number(oldest.closeTime),
      cursor,
    };
  });

  m.set("getLedgers", (params) => {
    const p = obj(params);
    checkFormat(p);
    const { latest, oldest } = range();
    const pag = (p.pagination ?? {}) as Obj;
    const limit = uint(pag.limit, "limit") || LEDGERS_DEFAULT_LIMIT;
    if (limit > LEDGERS_MAX_LIMIT) {
      throw invalidParams(`limit must not exceed ${LEDGERS_MAX_LIMIT}`);
    }
    const startLedger = uint(p.startLedger, "startLedger");
    let from: number;
    if (pag.cursor !== undefined && pag.cursor !== null && pag.cursor !== "") {
      if (startLedger) throw invalidParams("startLedger and cursor cannot both be set");
      const c = Number(pag.cursor);
      if (!Number.isInteger(c) || c < 0) throw invalidParams("invalid cursor");
      from = c + 1;
    } else {
      if (!startLedger) throw invalidParams("startLedger must be positive");
      from = startLedger;
    }
    if (from < oldest.sequence || from > latest.sequence) {
      if (!(pag.cursor && from === latest.sequence + 1)) {
        throw invalidRequest(
          `start ledger must be between the oldest ledger: ${oldest.sequence} and the latest ledger: ${latest.sequence} for this rpc instance.`,
        );
      }
    }
    const ledgers: Obj[] = [];
    let last = from - 1;
    for (let s = from; s <= latest.sequence && ledgers.length < limit; s++) {
      const l = chain.ledger(s)!;
      ledgers.push(ledgerInfo(chain, l));
      last = s;
    }
    return {
      ledgers,
      latestLedger: latest.sequence,
      latestLedgerCloseTime: Number(latest.closeTime),
      oldestLedger: oldest.sequence,
      oldestLedgerCloseTime: Number(oldest.closeTime),
      cursor: String(last),
    };
  });

  m.set("getEvents", (params) => {
    const p = obj(params);
    checkFormat(p);
    const { latest, oldest } = range();
    let filters;
    try {
      filters = parseFilters(p.filters);
    } catch (e) {
      if (e instanceof FilterError) throw invalidParams(e.message);
      throw e;
    }
    const pag = (p.pagination ?? {}) as Obj;
    const limit = uint(pag.limit, "limit") || EVENTS_DEFAULT_LIMIT;
    if (limit > EVENTS_MAX_LIMIT) throw invalidParams(`limit must not exceed ${EVENTS_MAX_LIMIT}`);
    const startLedger = uint(p.startLedger, "startLedger") ?? 0;
    const endLedgerParam = uint(p.endLedger, "endLedger") ?? 0;
    let start;
    let inclusive = true;
    if (pag.cursor !== undefined && pag.cursor !== null && pag.cursor !== "") {
      if (startLedger !== 0 || endLedgerParam !== 0) {
        throw invalidParams("ledger ranges and cursor cannot both be set");
      }
      start = parseCursor(String(pag.cursor));
      if (!start) throw invalidParams("invalid cursor");
      inclusive = false;
    } else {
      if (startLedger <= 0) throw invalidParams("startLedger must be positive");
      if (endLedgerParam !== 0 && endLedgerParam <= startLedger) {
        throw invalidParams("endLedger must be after startLedger");
      }
      start = { ledger: startLedger, tx: 0, op: 0, event: 0 };
    }
    if (start.ledger < oldest.sequence || start.ledger > latest.sequence) {
      throw invalidRequest(
        `startLedger must be within the ledger range: ${oldest.sequence} - ${latest.sequence}`,
      );
    }
    let endLedger = start.ledger + EVENTS_SCAN_LIMIT;
    if (endLedgerParam !== 0) endLedger = Math.min(endLedger, endLedgerParam);
    endLedger = Math.min(endLedger, latest.sequence + 1);
    const page = queryEvents(chain, { start, inclusive }, endLedger, filters, limit);
    return {
      events: page.events.map((e) => ({
        type: e.type,
        ledger: e.ledger,
        ledgerClosedAt: e.closedAt,
        contractId: e.contractId,
        id: e.id,
        pagingToken: e.id,
        operationIndex: e.opIndex,
        transactionIndex: e.txIndex,
        txHash: e.txHash,
        inSuccessfulContractCall: e.inSuccessfulContractCall,
        topic: e.topics,
        value: e.value,
      })),
      cursor: page.cursor,
      latestLedger: latest.sequence,
      oldestLedger: oldest.sequence,
      latestLedgerCloseTime: latest.closeTime.toString(),
      oldestLedgerCloseTime: oldest.closeTime.toString(),
    };
  });

  return m;
}

function ledgerInfo(chain: Chain, l: LedgerRecord): Obj {
  return {
    hash: chain.hashHex(l),
    sequence: l.sequence,
    ledgerCloseTime: l.closeTime.toString(),
    headerXdr: chain.historyB64(l),
    metadataXdr: chain.metaB64(l),
  };
}

/**
 * getFeeStats as stellar-rpc computes it: the inclusion fees charged per operation in the last
 * `chain.feeStatsWindows` ledgers (default 10 classic, 50 Soroban; at most 1,000 as
 * stellar-rpc 25.1+ allows); an empty window reports zeros.
 */
function feeStats(chain: Chain): Obj {
  const window = (n: number, soroban: boolean) => {
    const values: bigint[] = [];
    const count = Math.min(n, chain.ledgers.length);
    for (let i = chain.ledgers.length - count; i < chain.ledgers.length; i++) {
      for (const t of chain.ledgers[i].txs) {
        if (!!t.soroban !== soroban) continue;
        const ops = BigInt(Math.max(opCount(t), 1));
        values.push(t.inclusionFeeCharged / ops);
      }
    }
    return distribution(values, count);
  };
  return {
    sorobanInclusionFee: window(chain.feeStatsWindows.soroban, true),
    inclusionFee: window(chain.feeStatsWindows.classic, false),
    latestLedger: chain.latest.sequence,
  };
}

function opCount(t: TxRecord): number {
  const env = t.envelope;
  if (env.type === "envelopeTypeTx") return env.v1.tx.operations.length;
  if (env.type === "envelopeTypeTxFeeBump") {
    return env.feeBump.tx.innerTx.v1.tx.operations.length + 1;
  }
  return 1;
}

function distribution(values: bigint[], ledgerCount: number): Obj {
  const v = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pct = (p: number): string =>
    v.length === 0 ? "0" : v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)]
      .toString();
  const counts = new Map<string, number>();
  for (const x of v) counts.set(x.toString(), (counts.get(x.toString()) ?? 0) + 1);
  let mode = "0";
  let best = 0;
  for (const [k, c] of counts) if (c > best) [mode, best] = [k, c];
  return {
    max: v.length ? v[v.length - 1].toString() : "0",
    min: v.length ? v[0].toString() : "0",
    mode,
    p10: pct(10),
    p20: pct(20),
    p30: pct(30),
    p40: pct(40),
    p50: pct(50),
    p60: pct(60),
    p70: pct(70),
    p80: pct(80),
    p90: pct(90),
    p95: pct(95),
    p99: pct(99),
    transactionCount: String(v.length),
    ledgerCount,
  };
}
