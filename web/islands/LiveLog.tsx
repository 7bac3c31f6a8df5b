/**
 * The keeper's live log: server-rendered with the recent lines from `/api/state`, then kept
 * current by the `/api/events` Server-Sent Events stream (resuming from the last id the
 * server rendered, so nothing is missed or shown twice).
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { formatTime } from "../data/format.ts";

/** One line. */
export interface LogLineProps {
  id: number | null;
  ts: string | null;
  level: string | null;
  text: string;
}

/** Props: initial lines (oldest first), the API base URL ("" = same origin), max lines. */
export interface LiveLogProps {
  initial: LogLineProps[];
  apiUrl: string;
  /** Whether the server could reach the API when rendering. */
  reachable: boolean;
  max?: number;
}

type Status = "connecting" | "live" | "offline";

const HEAD = /^(\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)(?:\.\d+)?Z)\s+([A-Z]+)\s+/;

/** Splits the keeper's human line "<ISO time> <LEVEL> <message>" into its parts. */
export function splitLine(l: LogLineProps): { time: string; level: string | null; msg: string } {
  const m = HEAD.exec(l.text);
  if (m) return { time: m[2], level: m[3].toLowerCase(), msg: l.text.slice(m[0].length) };
  const t = l.ts ? formatTime(l.ts, true).slice(11, 19) : "";
  return { time: t, level: l.level, msg: l.text };
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
    if (lastId !== null) url.searchParams.set("lastEventId", String(lastId));
    setStatus("connecting");
    const es = new EventSource(url.href);
    es.onopen = () => setStatus("live");
    es.onerror = () => setStatus(es.readyState === EventSource.CLOSED ? "offline" : "connecting");
    es.onmessage = (e: MessageEvent) => {
      const id = e.lastEventId ? Number(e.lastEventId) : null;
      const text = String(e.data);
      setLines((prev) => {
        if (id !== null && prev.some((l) => l.id === id)) return prev;
        return [...prev, { id, ts: null, level: null, text }].slice(-max);
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
              const p = splitLine(l);
              return (
                <li key={l.id ?? `n${i}`} class={p.level ? `lvl-${p.level}` : undefined}>
                  <time>{p.time}</time>
                  {p.msg}
                </li>
              );
            })}
          </ol>
        )}
    </div>
  );
}
