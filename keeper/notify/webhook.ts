/**
 * NOTIFY_WEBHOOK_URL: the keeper's notable events (fills, failed flashes, a low native balance,
 * start and stop) as JSON POSTs to a Slack- or Discord-compatible incoming webhook.
 *
 * - One body for both: `{ text, content }` — Slack reads `text`, Discord `content`; each ignores
 *   the other field.
 * - De-duplicated: a message with the same key within its window is dropped (a low balance is
 *   told once every 6 hours, not every cycle).
 * - Time-boxed: every POST has a deadline, messages go out one at a time from a bounded queue
 *   (the oldest is dropped when full), and a rate limit caps a burst, so a slow or dead webhook
 *   never delays a cycle; `close` waits a bounded time for the queue (the stop message).
 * - Never a secret: the text goes through the log's secret redaction and URL redaction, and the
 *   webhook URL itself (a bearer credential in its path) is never logged — failures name only
 *   its origin.
 *
 * @module
 */
import { redactUrlsIn } from "@vigil/util/url_redact";
import { redactSecrets } from "../log/redact.ts";

/** Kinds of notification. */
export type NotifyKind = "fill" | "failed_flash" | "low_balance" | "start" | "stop";

/** One notification. */
export interface Notice {
  kind: NotifyKind;
  /** The text, one or two lines; redacted before sending. */
  text: string;
  /** De-duplication key (default `kind:text`). */
  key?: string;
  /** How long an identical key is suppressed, ms (default {@link DEDUP_WINDOW_MS}). */
  dedupMs?: number;
}

/** Sends notices; a no-op one when no webhook is configured. */
export interface Notifier {
  notify(n: Notice): void;
  /** Waits (at most `timeoutMs`) for queued notices, then stops. */
  close(timeoutMs?: number): Promise<void>;
}

/** Default de-duplication window. */
export const DEDUP_WINDOW_MS = 10 * 60_000;
/** Deadline of one POST. */
export const POST_TIMEOUT_MS = 5_000;
/** Most notices sent per minute; the rest of a burst is dropped (and counted in the next one). */
export const MAX_PER_MINUTE = 20;
/** Most notices waiting to be sent. */
export const QUEUE_MAX = 50;

/** Options of {@link webhookNotifier}. */
export interface WebhookOptions {
  /** Where a failed POST is reported (never with the URL). */
  onError?: (msg: string) => void;
  /** The keeper's name, prefixed to every message. */
  name?: string;
  fetch?: typeof fetch;
  now?: () => number;
  postTimeoutMs?: number;
}

/** A notifier that drops everything (no NOTIFY_WEBHOOK_URL). */
export const NO_NOTIFIER: Notifier = { notify() {}, close: () => Promise.resolve() };

/** A notifier posting to `url` (see the module doc). */
export function webhookNotifier(url: string, opts: WebhookOptions = {}): Notifier {
  const doFetch = opts.fetch ?? fetch;
  const now = opts.now ?? Date.now;
  const origin = safeOrigin(url);
  const seen = new Map<string, number>();
  const sentAt: number[] = [];
  const queue: string[] = [];
  let dropped = 0;
  let running: Promise<void> | undefined;
  let closed = false;
  const abort = new AbortController();

  const pump = async () => {
    while (queue.length > 0) {
      const text = queue.shift()!;
      try {
        const res = await doFetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text, content: text }),
          signal: AbortSignal.any([
            abort.signal,
            AbortSignal.timeout(opts.postTimeoutMs ?? POST_TIMEOUT_MS),
          ]),
        });
        await res.body?.cancel();
        if (!res.ok) opts.onError?.(`webhook ${origin} answered HTTP ${res.status}`);
      } catch (err) {
        opts.onError?.(`webhook ${origin} failed: ${(err as Error).name}`);
      }
    }
    running = undefined;
  };

  return {
    notify(n) {
      if (closed) return;
      const t = now();
      const key = n.key ?? `${n.kind}:${n.text}`;
      const last = seen.get(key);
      if (last !== undefined && t - last < (n.dedupMs ?? DEDUP_WINDOW_MS)) return;
      seen.set(key, t);
      if (seen.size > 1000) seen.delete(seen.keys().next().value!);
      while (sentAt.length > 0 && t - sentAt[0] >= 60_000) sentAt.shift();
      if (sentAt.length >= MAX_PER_MINUTE) {
        dropped++;
        return;
      }
      sentAt.push(t);
      let text = redactUrlsIn(redactSecrets(n.text));
      if (opts.name) text = `[${opts.name}] ${text}`;
      if (dropped > 0) {
        text += ` (${dropped} earlier notifications dropped by the rate limit)`;
        dropped = 0;
      }
      queue.push(text);
      if (queue.length > QUEUE_MAX) queue.shift();
      running ??= pump();
    },
    async close(timeoutMs = 3_000) {
      closed = true;
      if (!running) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        running,
        new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
      ]);
      clearTimeout(timer);
      queue.length = 0;
      abort.abort(); // a POST still in flight after the time box is given up
      await running;
    },
  };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}
