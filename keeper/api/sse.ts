/**
 * Server-Sent Events of the keeper's log lines (`GET /api/events`): at most `maxClients` streams,
 * each event with an id, replay after `Last-Event-ID` from the log's ring buffer, a heartbeat
 * comment for idle connections, a `retry:` hint, and a refusal (503 + JSON) when full.
 */
import type { Logger, LogLine } from "../log/logger.ts";
import { eventView } from "./views.ts";

/** Options of {@link SseHub}. */
export interface SseOptions {
  /** Concurrent streams allowed. Default 100 (spec limit). */
  maxClients?: number;
  /** Interval of the `: heartbeat` comment. Default 15 000 ms. */
  heartbeatMs?: number;
  /** Reconnection delay suggested to clients with `retry:`. Default 3 000 ms. */
  retryMs?: number;
  /** `Retry-After` seconds on a refusal. Default 5. */
  retryAfterSec?: number;
  /** A client this many events behind (not reading) is disconnected. Default 1000. */
  maxQueuedEvents?: number;
  /** Called whenever the number of open streams changes. */
  onActiveChange?: (active: number) => void;
}

/** JSON body of the refusal when all slots are taken. */
export interface TooManyClientsBody {
  error: "too_many_sse_clients";
  limit: number;
  active: number;
}

const encoder = new TextEncoder();

interface Client {
  ctrl: ReadableStreamDefaultController<Uint8Array>;
  close(): void;
}

/**
 * What an event's `data` is: `text` (default) the detailed human line; `json` the line as in
 * `/api/state` `events` (`{id, ts, level, text, plain}`), for pages that show the plain sentence.
 */
export type SseFormat = "text" | "json";

/** Formats one log line as an SSE event. The data never contains line breaks. */
export function formatEvent(line: LogLine, format: SseFormat = "text"): string {
  const data = format === "json" ? JSON.stringify(eventView(line)) : line.text;
  return `id: ${line.id}\ndata: ${data.replace(/[\r\n]/g, " ")}\n\n`;
}

/** Owns the open SSE streams. */
export class SseHub {
  readonly maxClients: number;
  readonly heartbeatMs: number;
  readonly retryMs: number;
  readonly retryAfterSec: number;
  readonly maxQueuedEvents: number;
  #log: Logger;
  #clients = new Set<Client>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #onActiveChange?: (active: number) => void;

  constructor(log: Logger, opts: SseOptions = {}) {
    this.#log = log;
    this.maxClients = opts.maxClients ?? 100;
    this.heartbeatMs = opts.heartbeatMs ?? 15_000;
    this.retryMs = opts.retryMs ?? 3_000;
    this.retryAfterSec = opts.retryAfterSec ?? 5;
    this.maxQueuedEvents = opts.maxQueuedEvents ?? 1000;
    this.#onActiveChange = opts.onActiveChange;
  }

  /** Open streams. */
  get active(): number {
    return this.#clients.size;
  }

  /**
   * Answers one `GET /api/events` request. `lastEventId` comes from the `Last-Event-ID` header (or
   * the `lastEventId` query parameter, for clients that cannot set headers); `backlog` asks a fresh
   * client for the newest N buffered lines.
   */
  open(
    opts: { lastEventId?: string | null; backlog?: number; format?: SseFormat } = {},
  ): Response {
    const format = opts.format ?? "text";
    if (this.#closed) return refusal(503, { error: "shutting_down" }, this.retryAfterSec);
    // Check and take the slot in the same synchronous step: no await in between, so the cap holds.
    if (this.#clients.size >= this.maxClients) {
      const body: TooManyClientsBody = {
        error: "too_many_sse_clients",
        limit: this.maxClients,
        active: this.#clients.size,
      };
      return refusal(503, body, this.retryAfterSec);
    }

    let unsubscribe: (() => void) | undefined;
    let done = false;
    let client!: Client;
    const cleanup = () => {
      if (done) return;
      done = true;
      unsubscribe?.();
      if (this.#clients.delete(client)) {
        this.#syncTimer();
        this.#onActiveChange?.(this.#clients.size);
      }
    };

    const stream = new ReadableStream<Uint8Array>({
      start: (ctrl) => {
        client = {
          ctrl,
          close: () => {
            try {
              ctrl.close();
            } catch {
              // already closed
            }
            cleanup();
          },
        };
        this.#clients.add(client);
        let head =
          `retry: ${this.retryMs}\n: connected ${this.#clients.size}/${this.maxClients}\n\n`;
        const replay = this.#replay(opts.lastEventId, opts.backlog);
        if (replay.gap) head += ": gap (some lines were evicted from the buffer)\n\n";
        for (const line of replay.lines) head += formatEvent(line, format);
        ctrl.enqueue(encoder.encode(head));
        unsubscribe = this.#log.subscribe((line) => {
          if (done) return;
          // A client that stopped reading is dropped rather than buffered without bound; it can
          // reconnect with Last-Event-ID and get what it missed from the ring.
          if ((ctrl.desiredSize ?? 0) < -this.maxQueuedEvents) {
            client.close();
            return;
          }
          try {
            ctrl.enqueue(encoder.encode(formatEvent(line, format)));
          } catch {
            cleanup();
          }
        });
        this.#syncTimer();
        this.#onActiveChange?.(this.#clients.size);
      },
      // Deno cancels the body stream when the client disconnects: that frees the slot.
      cancel: () => cleanup(),
    });

    return new Response(stream, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Closes every stream and refuses new ones (shutdown). */
  closeAll(): void {
    this.#closed = true;
    for (const c of [...this.#clients]) c.close();
    this.#syncTimer();
  }

  #replay(lastEventId: string | null | undefined, backlog: number | undefined) {
    if (lastEventId != null && /^\d{1,16}$/.test(lastEventId.trim())) {
      return this.#log.after(Number(lastEventId.trim()));
    }
    if (backlog && backlog > 0) return { lines: this.#log.recent(backlog), gap: false };
    return { lines: [] as LogLine[], gap: false };
  }

  #syncTimer(): void {
    if (this.#clients.size > 0 && this.#timer === undefined) {
      this.#timer = setInterval(() => this.#heartbeat(), this.heartbeatMs);
    } else if (this.#clients.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #heartbeat(): void {
    const chunk = encoder.encode(`: heartbeat ${new Date().toISOString()}\n\n`);
    for (const c of [...this.#clients]) {
      try {
        c.ctrl.enqueue(chunk);
      } catch {
        c.close();
      }
    }
  }
}

function refusal(status: number, body: unknown, retryAfterSec: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "retry-after": String(retryAfterSec),
      "cache-control": "no-store",
    },
  });
}
