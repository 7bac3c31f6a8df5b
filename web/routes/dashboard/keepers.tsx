/**
 * `/dashboard/keepers` — registered keepers from the registry, one registry page at a time
 * (`get_keeper_count`, `get_keepers(start, 100)`, then `get_keeper` each; issue 20 removed the
 * cap, so a page never reads the whole list): stake, settled flashes, counted fills (a flash
 * that booked at least the vault's min_fill_profit), profit, average response time — every
 * figure the registry itself keeps. Attempts that did not settle (lost races, failures) leave
 * nothing on chain, so they are shown only for the keeper serving this page, and said so.
 * Sortable by any column through links (works without JavaScript); the sort applies within the
 * page.
 *
 * @module
 */
import type { Handlers, PageProps } from "../../state.ts";
import { type KeeperRecord, KEEPERS_PAGE } from "../../data/contract_reads.ts";
import { DASH, formatCount, formatMs, formatTime, formatUsdc } from "../../data/format.ts";
import { type AttemptSummary, attemptSummary } from "../../data/derive.ts";
import { Addr, Notice, PageHead, Panel, Tile } from "../../components/ui.tsx";
import { AttemptCounts } from "../../components/attempts.tsx";

type SortKey =
  | "name"
  | "stake"
  | "executions"
  | "fills"
  | "profit"
  | "response"
  | "registered";

const COLUMNS: { key: SortKey; label: string; num: boolean }[] = [
  { key: "name", label: "Keeper", num: false },
  { key: "stake", label: "Stake", num: true },
  { key: "executions", label: "Settled flashes", num: true },
  { key: "fills", label: "Counted fills", num: true },
  { key: "profit", label: "Profit", num: true },
  { key: "response", label: "Avg response", num: true },
  { key: "registered", label: "Registered", num: true },
];

function sortValue(k: KeeperRecord, key: SortKey): number | string | null {
  switch (key) {
    case "name":
      return (k.name ?? k.address).toLowerCase();
    case "stake":
      return k.stake === null ? null : Number(k.stake);
    case "executions":
      return k.total_executions === null ? null : Number(k.total_executions);
    case "fills":
      return k.successful_fills === null ? null : Number(k.successful_fills);
    case "profit":
      return k.total_profit === null ? null : Number(k.total_profit);
    case "response":
      return k.avg_response_time_ms === null ? null : Number(k.avg_response_time_ms);
    case "registered":
      return k.registered_at === null ? null : Number(k.registered_at);
  }
}

/** Sorts keepers by a column; unknown values always sort last. */
export function sortKeepers(list: KeeperRecord[], key: SortKey, dir: "asc" | "desc") {
  return [...list].sort((a, b) => {
    const va = sortValue(a, key), vb = sortValue(b, key);
    if (va === null && vb === null) return 0;
    if (va === null) return 1;
    if (vb === null) return -1;
    const c = va < vb ? -1 : va > vb ? 1 : 0;
    return dir === "asc" ? c : -c;
  });
}

interface Data {
  keepers: KeeperRecord[] | null;
  /** Registered operators in all (`get_keeper_count`). */
  total: number | null;
  /** 1-based registry page shown, and how many there are. */
  page: number;
  pages: number;
  error: string | null;
  sort: SortKey;
  dir: "asc" | "desc";
  selfAddress: string | null;
  /** The serving keeper's own attempts by outcome (its API), or null when unreachable. */
  self: { name: string | null; summary: AttemptSummary } | null;
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const q = ctx.url.searchParams;
    const sort =
      (COLUMNS.some((c) => c.key === q.get("sort")) ? q.get("sort") : "profit") as SortKey;
    const dir = q.get("dir") === "asc" ? "asc" : "desc";
    const { chain } = ctx.state;
    const asked = Number(q.get("page") ?? "1");
    const [count, apiState, perf] = await Promise.all([
      chain.keeperCount(),
      ctx.state.api.state(0),
      ctx.state.api.performance(),
      chain.chainTime(),
    ]);
    const pages = Math.max(1, Math.ceil((count.value ?? 0) / KEEPERS_PAGE));
    const page = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, pages) : 1;
    let keepers: KeeperRecord[] | null = null;
    let error = count.error;
    if (count.value !== null) {
      const addrs = await chain.keeperPage((page - 1) * KEEPERS_PAGE);
      const recs = addrs.value ? await chain.keeperRecords(addrs.value) : null;
      keepers = recs?.value ?? null;
      error = addrs.error ?? recs?.error ?? null;
    }
    return ctx.render({
      keepers: keepers ? sortKeepers(keepers, sort, dir) : null,
      total: count.value,
      page,
      pages,
      error,
      sort,
      dir,
      selfAddress: apiState?.keeper?.address ?? perf?.stats?.address ?? null,
      self: perf
        ? {
          name: apiState?.keeper?.name ?? perf.stats?.name ?? null,
          summary: attemptSummary(perf.liquidations),
        }
        : null,
    });
  },
};

export const meta = () => ({ title: "Keepers · Vigil" });

export default function Keepers({ data }: PageProps<Data>) {
  const ks = data.keepers;
  const sum = (f: (k: KeeperRecord) => bigint | null) =>
    ks === null ? null : ks.reduce<bigint | null>((s, k) => {
      const v = f(k);
      return s === null || v === null ? null : s + v;
    }, 0n);
  const execs = sum((k) => k.total_executions);
  const fills = sum((k) => k.successful_fills);
  const self = data.self;
  // Network average response: total response time over all timed executions.
  const timed = ks?.filter((k) => k.avg_response_time_ms !== null && k.successful_fills) ?? [];
  const totalMs = timed.reduce(
    (s, k) => s + Number(k.avg_response_time_ms) * Number(k.successful_fills),
    0,
  );
  const totalN = timed.reduce((s, k) => s + Number(k.successful_fills), 0);
  // Sums cover the page shown: the registry is read one page at a time.
  const scope = data.pages > 1 ? "on this page" : undefined;
  const link = (page: number, sort = data.sort, dir = data.dir) =>
    `?sort=${sort}&dir=${dir}${page > 1 ? `&page=${page}` : ""}`;
  return (
    <>
      <PageHead
        title="Keepers"
        lede="Every operator registered in the keeper registry, read from chain. Settled flashes, counted fills (a flash that booked at least the vault's minimum fill profit), profit and response time are kept by the registry itself."
      />
      {data.error && (
        <Notice kind="error" id="chain-error">
          The registry could not be read ({data.error}); its figures show “—”.
        </Notice>
      )}
      <div class="tiles">
        <Tile id="registered" label="Registered operators" value={formatCount(data.total)} />
        <Tile
          id="total-stake"
          label="Stake bonded"
          value={formatUsdc(sum((k) => k.stake))}
          sub={scope}
        />
        <Tile
          id="total-executions"
          label="Settled flashes"
          value={formatCount(execs)}
          sub={
            <>
              {formatCount(fills)} counted fills
              {scope && ` · ${scope}`}
            </>
          }
        />
        <Tile
          id="avg-response"
          label="Avg response"
          value={formatMs(totalN > 0 ? totalMs / totalN : null)}
          sub={scope ? `across the fills ${scope}` : "across all fills"}
        />
      </div>
      <Panel
        title="Registry"
        id="keepers-table"
        class=""
        extra={
          <span class="small muted">
            Sort by any column{data.pages > 1 && ` (within page ${data.page} of ${data.pages})`}
          </span>
        }
      >
        {ks === null
          ? <p class="muted">—</p>
          : ks.length === 0
          ? <p class="empty">No keeper is registered.</p>
          : (
            <div class="table-wrap">
              <table class="data cards">
                <thead>
                  <tr>
                    {COLUMNS.map((c) => {
                      const active = c.key === data.sort;
                      const nextDir = active && data.dir === "desc" ? "asc" : "desc";
                      return (
                        <th key={c.key} class={c.num ? "num" : ""}>
                          <a
                            href={link(data.page, c.key, nextDir)}
                            aria-sort={active
                              ? (data.dir === "asc" ? "ascending" : "descending")
                              : undefined}
                          >
                            {c.label}
                            {active ? (data.dir === "asc" ? " ▲" : " ▼") : ""}
                          </a>
                        </th>
                      );
                    })}
                  </tr>
                </thead>
                <tbody>
                  {ks.map((k) => (
                    <tr key={k.address} data-keeper={k.address}>
                      <td data-label="Keeper">
                        <strong>{k.name ?? DASH}</strong>
                        {k.address === data.selfAddress && (
                          <span class="badge" style={{ marginLeft: "6px" }}>serves this page</span>
                        )}
                        <br />
                        <Addr address={k.address} link={false} />
                      </td>
                      <td data-label="Stake" class="num">{formatUsdc(k.stake)}</td>
                      <td data-label="Settled flashes" class="num">
                        {formatCount(k.total_executions)}
                      </td>
                      <td data-label="Counted fills" class="num">
                        {formatCount(k.successful_fills)}
                      </td>
                      <td data-label="Profit" class="num">{formatUsdc(k.total_profit)}</td>
                      <td data-label="Avg response" class="num">
                        {formatMs(k.avg_response_time_ms)}
                      </td>
                      <td data-label="Registered" class="num">
                        <span class="nowrap">
                          {k.registered_at === null
                            ? DASH
                            : formatTime(Number(k.registered_at) * 1000)}
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        {data.pages > 1 && (
          <nav class="pager" id="keepers-pager" aria-label="Registry pages">
            {data.page > 1 && <a href={link(data.page - 1)}>← Previous</a>}{" "}
            <span class="muted">
              Registry page {data.page} of {data.pages} ({KEEPERS_PAGE}{" "}
              keepers each, in registration order)
            </span>{" "}
            {data.page < data.pages && <a href={link(data.page + 1)}>Next →</a>}
          </nav>
        )}
      </Panel>
      <Panel title="Attempts, lost races and failures" id="keeper-attempts">
        {self === null
          ? <p class="muted">— (the keeper API is not reachable)</p>
          : (
            <p id="keeper-attempts-self">
              A lost race or a failed attempt is refused before anything is lent, so it leaves
              nothing on chain: the registry counts only settled flashes. As seen by{" "}
              <strong>{self.name ?? "this keeper"}</strong>, the keeper serving this page.{" "}
              <AttemptCounts summary={self.summary} />{" "}
              Other keepers' attempts are known only to them.
            </p>
          )}
      </Panel>
    </>
  );
}
