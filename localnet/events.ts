/**
 * Contract events as getEvents serves them: ids, cursors, filters (stellar-rpc semantics)
 * and the paged query over the per-ledger event lists.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";

/** One stored event: a contract event of an operation, or a transaction-level `fee` event. */
export interface EventRecord {
  ledger: number;
  /**
   * TOID transaction index: the 1-based application order of its transaction for operation
   * events; 0 for a before-all-txs event and {@link TX_INDEX_MAX} for an after-all-txs one
   * (stellar-rpc's ids, also served as `transactionIndex`).
   */
  txIndex: number;
  opIndex: number;
  /** Index of the event within its transaction. */
  eventIndex: number;
  id: string;
  txHash: string;
  /** C… (or "" when the event has no contract). */
  contractId: string;
  type: "contract" | "system";
  /** base64 ScVal topics and value. */
  topics: string[];
  value: string;
  /** ISO-8601 close time of its ledger. */
  closedAt: string;
  /** Whether its transaction succeeded (stellar-rpc stores failed transactions' events too). */
  inSuccessfulContractCall: boolean;
}

/** A position in the event stream. */
export interface Cursor {
  ledger: number;
  tx: number;
  op: number;
  event: number;
}

const TX_MASK = 0xfffff;
/** The TOID transaction index of after-all-txs events (the largest one). */
export const TX_INDEX_MAX = TX_MASK;
const OP_MASK = 0xfff;

/** TOID of (ledger, tx, op): ledger<<32 | tx<<12 | op. */
export function toid(ledger: number, tx: number, op: number): bigint {
  return (BigInt(ledger) << 32n) | (BigInt(tx & TX_MASK) << 12n) | BigInt(op & OP_MASK);
}

/** Cursor string `%019d-%010d` (TOID, event index). */
export function cursorString(c: Cursor): string {
  return `${toid(c.ledger, c.tx, c.op).toString().padStart(19, "0")}-${
    c.event.toString().padStart(10, "0")
  }`;
}

/** Parses a cursor string; undefined when malformed. */
export function parseCursor(s: string): Cursor | undefined {
  const m = /^(\d{1,19})-(\d{1,10})$/.exec(s);
  if (!m) return undefined;
  const id = BigInt(m[1]);
  const event = Number(m[2]);
  if (id > 0x7fffffffffffffffn || event > 0xffffffff) return undefined;
  return {
    ledger: Number(id >> 32n),
    tx: Number((id >> 12n) & BigInt(TX_MASK)),
    op: Number(id & BigInt(OP_MASK)),
    event,
  };
}

/** Orders cursors. */
export function compareCursor(a: Cursor, b: Cursor): number {
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}

type Segment = { kind: "one" } | { kind: "rest" } | { kind: "val"; b64: string };

/** A validated getEvents filter. */
export interface EventFilter {
  types?: Set<string>;
  contractIds?: Set<string>;
  topics?: Segment[][];
}

/** An invalid-params problem, reported as JSON-RPC -32602. */
export class FilterError extends Error {}

/** Validates and normalizes getEvents filters (stellar-rpc limits and messages). */
export function parseFilters(raw: unknown): EventFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new FilterError("filters must be an array");
  if (raw.length > 5) throw new FilterError("maximum 5 filters per request");
  return raw.map((f, i) => {
    try {
      return parseFilter(f);
    } catch (e) {
      throw new FilterError(`filter ${i + 1} invalid: ${(e as Error).message}`);
    }
  });
}

function parseFilter(f: unknown): EventFilter {
  if (typeof f !== "object" || f === null) throw new Error("filter must be an object");
  const o = f as { type?: unknown; contractIds?: unknown; topics?: unknown };
  const out: EventFilter = {};
  if (o.type !== undefined && o.type !== "") {
    if (typeof o.type !== "string") throw new Error("filter type invalid");
    const types = new Set(o.type.split(",").map((t) => t.trim()));
    for (const t of types) {
      // Diagnostic events are not stored by stellar-rpc (since v23): the type is refused.
      if (t !== "contract" && t !== "system") {
        throw new Error("filter type invalid: if set, type must be either 'system' or 'contract'");
      }
    }
    out.types = types;
  }
  if (o.contractIds !== undefined && o.contractIds !== null) {
    if (!Array.isArray(o.contractIds)) throw new Error("contractIds must be an array");
    if (o.contractIds.length > 5) throw new Error("maximum 5 contract IDs per filter");
    o.contractIds.forEach((id, i) => {
      if (typeof id !== "string" || !/^C[A-Z2-7]{55}$/.test(id)) {
        throw new Error(`contract ID ${i + 1} invalid`);
      }
    });
    if (o.contractIds.length > 0) out.contractIds = new Set(o.contractIds as string[]);
  }
  if (o.topics !== undefined && o.topics !== null) {
    if (!Array.isArray(o.topics)) throw new Error("topics must be an array");
    if (o.topics.length > 5) throw new Error("maximum 5 topics per filter");
    out.topics = o.topics.map((t, i) => {
      try {
        return parseTopic(t);
      } catch (e) {
        throw new Error(`topic ${i + 1} invalid: ${(e as Error).message}`);
      }
    });
    if (out.topics.length === 0) delete out.topics;
  }
  return out;
}

function parseTopic(t: unknown): Segment[] {
  if (!Array.isArray(t)) throw new Error("topic must be an array of segments");
  if (t.length < 1) throw new Error("topic must have at least one segment");
  if (t.length > 5 || (t.length === 5 && t[4] !== "**")) {
    throw new Error("topic cannot have more than 4 segments");
  }
  return t.map((s, i) => {
    if (s === "*") return { kind: "one" } as const;
    if (s === "**") {
      if (i !== t.length - 1) throw new Error("'**' is only allowed as the last segment");
      return { kind: "rest" } as const;
    }
    if (typeof s !== "string") throw new Error(`segment ${i + 1} invalid`);
    try {
      // Canonical re-encoding, so comparison by string equals XDR equality.
      return { kind: "val", b64: xdr.ScVal.fromXdr(s, "base64").toXdr("base64") } as const;
    } catch {
      throw new Error(`segment ${i + 1} invalid: not a base64 ScVal`);
    }
  });
}

function topicMatches(filter: Segment[], topics: string[]): boolean {
  let i = 0;
  for (const seg of filter) {
    if (seg.kind === "rest") return true;
    if (i >= topics.length) return false;
    if (seg.kind === "val" && seg.b64 !== topics[i]) return false;
    i++;
  }
  return i === topics.length;
}

/** Whether an event matches any filter (no filters: everything). */
export function matches(filters: EventFilter[], ev: EventRecord): boolean {
  if (filters.length === 0) return true;
  return filters.some((f) =>
    (!f.types || f.types.has(ev.type)) &&
    (!f.contractIds || f.contractIds.has(ev.contractId)) &&
    (!f.topics || f.topics.some((t) => topicMatches(t, ev.topics)))
  );
}

/** What a query scans. */
export interface EventSource {
  /** Ascending sequences of ledgers that have events. */
  eventLedgers: number[];
  eventsOf(ledger: number): EventRecord[];
}

/**
 * Events strictly after `after` (or from `start` inclusive) up to ledger `endLedger`
 * (exclusive), at most `limit`. Returns the page and the response cursor: the last event's
 * id when the page is full, else the end of the scanned window.
 */
export function queryEvents(
  src: EventSource,
  from: { start: Cursor; inclusive: boolean },
  endLedger: number,
  filters: EventFilter[],
  limit: number,
): { events: EventRecord[]; cursor: string } {
  const out: EventRecord[] = [];
  const ledgers = src.eventLedgers;
  // First ledger with events at or after the start (binary search).
  let lo = 0;
  let hi = ledgers.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ledgers[mid] < from.start.ledger) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < ledgers.length && ledgers[i] < endLedger; i++) {
    for (const ev of src.eventsOf(ledgers[i])) {
      const c = compareCursor(
        { ledger: ev.ledger, tx: ev.txIndex, op: ev.opIndex, event: ev.eventIndex },
        from.start,
      );
      if (c < 0 || (c === 0 && !from.inclusive)) continue;
      if (!matches(filters, ev)) continue;
      out.push(ev);
      if (out.length === limit) return { events: out, cursor: ev.id };
    }
  }
  return {
    events: out,
    cursor: cursorString({ ledger: endLedger - 1, tx: TX_MASK, op: OP_MASK, event: 0xffffffff }),
  };
}
