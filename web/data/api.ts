/**
 * Client of the keeper HTTP API (`/api/state`, `/api/performance`; shapes in
 * `keeper/api/README.md`): amounts arrive as decimal strings of 7-decimal units and are
 * parsed to bigint; anything missing stays null. When the API is down every call resolves
 * to `null` (the pages then show an em-dash for the keeper's figures).
 *
 * @module
 */
import { toBigInt } from "./format.ts";

/** One event-log line. */
export interface LogEntry {
  id: number | null;
  ts: string | null;
  level: string | null;
  /** The detailed line (`<time> <LEVEL> <message> key=value…`). */
  text: string;
  /** The same event as one plain sentence for people, when the keeper gives one. */
  plain: string | null;
}

/** A liquidation record from the keeper's history. */
export interface ApiLiquidation {
  outcome: string | null;
  user: string | null;
  pool: string | null;
  drew: bigint | null;
  proceeds: bigint | null;
  profit: bigint | null;
  response_time_ms: number | null;
  tx_hash: string | null;
  ledger: number | null;
  time: string | null;
  keeper: string | null;
  keeper_name: string | null;
}

/** A share-price point from the keeper. */
export interface ApiPricePoint {
  time: string;
  total_usdc: bigint;
  total_shares: bigint;
  /** Flash profit still locked then (not in the share price); 0 when the keeper omits it. */
  locked_profit: bigint;
}

/** A keeper row as the keeper API reports it. */
export interface ApiKeeper {
  address: string;
  name: string | null;
  is_self: boolean;
}

/** The parts of `/api/state` the pages use. */
export interface ApiState {
  keeper: { name: string | null; address: string | null; mode: string | null } | null;
  keepers: ApiKeeper[];
  positions: { user: string; pool: string | null; health_factor: number | null }[];
  positionsSummary: { tracked: number | null; with_debt: number | null; underwater: number | null };
  events: LogEntry[];
}

/** The parts of `/api/performance` the pages use. */
export interface ApiPerformance {
  sharePriceSeries: ApiPricePoint[];
  liquidations: ApiLiquidation[];
  stats: {
    name: string | null;
    address: string | null;
    fills: number | null;
    total_profit: bigint | null;
    avg_response_time_ms: number | null;
  } | null;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => typeof v === "string" ? v : null;
const num = (v: unknown): number | null => typeof v === "number" && Number.isFinite(v) ? v : null;
const arr = (v: unknown): Obj[] =>
  Array.isArray(v) ? v.filter((x) => x && typeof x === "object") as Obj[] : [];

/** Parses an `/api/state` body. */
export function parseState(j: unknown): ApiState {
  const o = (j ?? {}) as Obj;
  const k = o.keeper as Obj | null | undefined;
  const ps = (o.positions_summary ?? {}) as Obj;
  return {
    keeper: k ? { name: str(k.name), address: str(k.address), mode: str(k.mode) } : null,
    keepers: arr(o.keepers).map((r) => ({
      address: String(r.address ?? ""),
      name: str(r.name),
      is_self: r.is_self === true,
    })),
    positions: arr(o.positions).map((p) => ({
      user: String(p.user ?? ""),
      pool: str(p.pool),
      health_factor: num(p.health_factor),
    })),
    positionsSummary: {
      tracked: num(ps.tracked),
      with_debt: num(ps.with_debt),
      underwater: num(ps.underwater),
    },
    events: arr(o.events).map(parseLogEntry),
  };
}

/** Parses one event line of `/api/state`. */
export function parseLogEntry(e: Obj): LogEntry {
  return {
    id: num(e.id),
    ts: str(e.ts),
    level: str(e.level),
    text: String(e.text ?? e.msg ?? ""),
    plain: typeof e.plain === "string" && e.plain !== "" ? e.plain : null,
  };
}

/** Parses an `/api/performance` body. */
export function parsePerformance(j: unknown): ApiPerformance {
  const o = (j ?? {}) as Obj;
  const st = o.keeper_stats as Obj | null | undefined;
  return {
    sharePriceSeries: arr(o.share_price_series).flatMap((p) => {
      const u = toBigInt(p.total_usdc), s = toBigInt(p.total_shares), t = str(p.time);
      const locked = toBigInt(p.locked_profit) ?? 0n;
      return u !== null && s !== null && t
        ? [{ time: t, total_usdc: u, total_shares: s, locked_profit: locked }]
        : [];
    }),
    liquidations: arr(o.liquidations).map((l) => ({
      outcome: str(l.outcome),
      user: str(l.user),
      pool: str(l.pool),
      drew: toBigInt(l.drew),
      proceeds: toBigInt(l.proceeds),
      profit: toBigInt(l.profit),
      response_time_ms: num(l.response_time_ms),
      tx_hash: str(l.tx_hash),
      ledger: num(l.ledger),
      time: str(l.time),
      keeper: str(l.keeper),
      keeper_name: str(l.keeper_name),
    })),
    stats: st
      ? {
        name: str(st.name),
        address: str(st.address),
        fills: num(st.fills),
        total_profit: toBigInt(st.total_profit),
        avg_response_time_ms: num(st.avg_response_time_ms),
      }
      : null,
  };
}

/** Fetches a path of the keeper API: `(path) => Response`. */
export type ApiFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** The keeper API client used by the server renderer. */
export class KeeperApi {
  constructor(
    private readonly fetchPath: ApiFetch,
    private readonly timeoutMs = 2000,
  ) {}

  /** A client for an absolute base URL (e.g. NEXT_PUBLIC_API_URL). */
  static forUrl(base: string, timeoutMs = 2000): KeeperApi {
    return new KeeperApi((p, init) => fetch(base.replace(/\/+$/, "") + p, init), timeoutMs);
  }

  private async getJson(path: string): Promise<unknown | null> {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), this.timeoutMs);
    try {
      const res = await this.fetchPath(path, {
        signal: ctrl.signal,
        headers: { accept: "application/json" },
      });
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      return await res.json();
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** `/api/state`, or null when the API is unreachable or answers an error. */
  async state(events = 50): Promise<ApiState | null> {
    const j = await this.getJson(`/api/state?events=${events}&positions=50`);
    return j === null ? null : parseState(j);
  }

  /**
   * `/api/performance`, or null when the API is unreachable or answers an error. Asks for every
   * kept liquidation: the pages enrich each on-chain fill with the keeper's record of it.
   */
  async performance(): Promise<ApiPerformance | null> {
    const j = await this.getJson("/api/performance?liquidations=all");
    return j === null ? null : parsePerformance(j);
  }
}
