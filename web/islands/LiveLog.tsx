/**
 * The keeper's live log: server-rendered with the recent lines from `/api/state`, then kept
 * current by the `/api/events` Server-Sent Events stream (resuming from the last id the
 * server rendered, so nothing is missed or shown twice).
 *
 * Each line is the keeper's plain sentence for the event ("keeper-1 filled GB4Y…WYKQ: +205.21 USDC
 * in 1 flash"), with the detailed line (every field) behind a toggle. The stream is read with
 * `?format=json` so each event carries both.
 *
 * Each line shows its time on the chain's clock, like every other time on the pages: the
 * ledger the line names when it names one, else its wall time mapped through the measured
 * clock rate (`web/data/clock.ts`), never later than the chain's current time.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { formatTime } from "../data/format.ts";
import { chainTimeOfLedger, chainTimeOfWall, type ClockView } from "../data/clock.ts";

/** One line. */
export interface LogLineProps {
  id: number | null;
  ts: string | null;
  level: string | null;
  /** The detailed line. */
  text: string;
  /** The plain sentence, when the keeper gives one. */
  plain?: string | null;
}

/** Props: initial lines (oldest first), the API base URL ("" = same origin), max lines. */
export interface LiveLogProps {
  initial: LogLineProps[];
  apiUrl: string;
  /** Whether the server could reach the API when rendering. */
  reachable: boolean;
  /** The server's chain clock at render (its anchor's wall time is the server's clock). */
  clock?: ClockView | null;
  max?: number;
}

type Status = "connecting" | "live" | "offline";

const HEAD = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\s+([A-Z]+)\s+/;
const LEDGER = /\bledger[=:]\s*"?(\d{1,10})\b/;

/**
 * Splits the keeper's human line "<ISO time> <LEVEL> <message>" into its parts; `time` is the
 * line's chain time ("HH:MM:SS" UTC) when `clock` is given and known, else its wall time.
 */
export function splitLine(
  l: LogLineProps,
  clock: ClockView | null = null,
  nowWall: number = Date.now(),
): { time: string; level: string | null; msg: string; chain: boolean } {
  const m = HEAD.exec(l.text);
  const wallIso = m ? m[1] : l.ts;
  const level = m ? m[2].toLowerCase() : l.level;
  const msg = m ? l.text.slice(m[0].length) : l.text;
  const wall = wallIso ? Date.parse(wallIso) : NaN;
  const ledger = LEDGER.exec(msg);
  let chainMs: number | null = null;
  if (clock) {
    chainMs = ledger ? chainTimeOfLedger(clock, Number(ledger[1])) : null;
    if (chainMs === null && !Number.isNaN(wall)) chainMs = chainTimeOfWall(clock, wall, nowWall);
  }
  const at = chainMs ?? (Number.isNaN(wall) ? null : wall);
  return {
    time: at === null ? "" : formatTime(at, true).slice(11, 19),
    level,
    msg,
    chain: chainMs !== null,
  };
}

/**
 * One SSE event of `/api/events?format=json` (`{id, ts, level, text, plain}`); a server that
 * sends the plain-text stream instead gives the detailed line only.
 */
export function parseEvent(data: string, id: number | null): LogLineProps {
  try {
    const j = JSON.parse(data);
    if (j && typeof j === "object" && typeof j.text === "string") {
      return {
        id: typeof j.id === "number" ? j.id : id,
        ts: typeof j.ts === "string" ? j.ts : null,
        level: typeof j.level === "string" ? j.level : null,
        text: j.text,
        plain: typeof j.plain === "string" && j.plain !== "" ? j.plain : null,
      };
    }
  } catch {
    // not JSON: the plain-text stream
  }
  return { id, ts: null, level: null, text: data };
}

const LABEL: Record<Status, string> = {
  connecting: "connecting…",
  live: "live",
  offline: "keeper API unreachable",
};

/** The live log island. */
export default function LiveLog(props: LiveLogProps) {
  const max = props.max ?? 60;
  const [lines, setLines] = useState<LogLineProps[]>(props.initial.slice(-max));
  const [status, setStatus] = useState<Status>(props.reachable ? "connecting" : "offline");
  const listRef = useRef<HTMLOListElement>(null);
  // The server could not reach the API: do not open a stream (it would only fail and
  // log network errors) until the user asks to retry.
  const [attempt, setAttempt] = useState(props.reachable ? 1 : 0);

  useEffect(() => {
    if (typeof EventSource === "undefined" || attempt === 0) return;
    const lastId = props.initial.reduce<number | null>(
      (m, l) => (l.id !== null && (m === null || l.id > m) ? l.id : m),
      null,
    );
    const url = new URL(`${props.apiUrl}/api/events`, location.href);
    url.searchParams.set("format", "json");
    if (lastId !== null) url.searchParams.set("lastEventId", String(lastId));
    setStatus("connecting");
    const es = new EventSource(url.href);
    es.onopen = () => setStatus("live");
    es.onerror = () => setStatus(es.readyState === EventSource.CLOSED ? "offline" : "connecting");
    es.onmessage = (e: MessageEvent) => {
      const id = e.lastEventId ? Number(e.lastEventId) : null;
      const line = parseEvent(String(e.data), id);
      setLines((prev) => {
        if (id !== null && prev.some((l) => l.id === id)) return prev;
        return [...prev, line].slice(-max);
      });
    };
    return () => es.close();
  }, [attempt]);

  useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div id="live-log">
      <div class="panel-head">
        <h2>Live keeper log</h2>
        <span
          class={`badge ${status === "live" ? "ok" : status === "offline" ? "bad" : ""}`}
          id="live-log-status"
        >
          <span class="dot" />
          {LABEL[status]}
        </span>
        {status === "offline" && (
          <button
            type="button"
            class="secondary small"
            onClick={() => setAttempt((n) => n + 1)}
          >
            Retry
          </button>
        )}
      </div>
      {lines.length === 0
        ? (
          <p class="empty" id="live-log-empty">
            {status === "offline"
              ? "The keeper API is not reachable, so there is no log to show."
              : "No log lines yet. New lines appear here as the keeper works."}
          </p>
        )
        : (
          <ol class="log" ref={listRef} aria-live="polite">
            {lines.map((l, i) => {
              const p = splitLine(l, props.clock ?? null);
              return (
                <li key={l.id ?? `n${i}`} class={p.level ? `lvl-${p.level}` : undefined}>
                  <time title={p.chain ? "chain time (UTC)" : "keeper's clock (UTC)"}>
                    {p.time}
                  </time>
                  {l.plain
                    ? (
                      <details class="log-details">
                        <summary>{l.plain}</summary>
                        <code>{p.msg}</code>
                      </details>
                    )
                    : p.msg}
                </li>
              );
            })}
          </ol>
        )}
    </div>
  );
}
