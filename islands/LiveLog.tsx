/**
 * The keeper's live log: server-rendered with the recent lines from `/api/state`, then kept
 * current by the `/api/events` Server-Sent Events stream (resuming from the last id the
 * server rendered, so nothing is missed or shown twice).
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { formatTime } from "../lib/format.ts";

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

  useEffect(() => {
    if (typeof EventSource === "undefined") return;
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
        return [...prev, { id, ts: new Date().toISOString(), level: null, text }].slice(-max);
      });
    };
    return () => es.close();
  }, []);

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
            {lines.map((l, i) => (
              <li key={l.id ?? `n${i}`} class={l.level ? `lvl-${l.level}` : undefined}>
                <time>{l.ts ? formatTime(l.ts, true).slice(11, 19) : ""}</time>
                {l.text}
              </li>
            ))}
          </ol>
        )}
    </div>
  );
}
