/**
 * Keeper logging: one call produces a line on stderr (a structured JSON line for machines, or
 * with `format: "text"` the plain sentence for people), a detailed human line (for the SSE stream
 * and the dashboard), an entry in a ring buffer of recent lines (for `/api/state` and SSE replay)
 * and a notification to live subscribers. Every output passes the secret-seed redaction guard.
 */
import {
  defaultPlain,
  humanValue,
  type JsonValue,
  oneLine,
  textLine,
  toJsonValue,
} from "./format.ts";
import { redactSecrets } from "./redact.ts";
import { type AfterResult, Ring } from "./ring.ts";

export { REDACTED, redactSecrets } from "./redact.ts";
export { type JsonValue, peopleAmount, shortAddress, textLine, toJsonValue } from "./format.ts";

/** Log severities, lowest first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Parses a level name (case-insensitive); undefined when not a level. */
export function parseLevel(s: string): LogLevel | undefined {
  const l = s.trim().toLowerCase();
  return l in LEVELS ? l as LogLevel : undefined;
}

/**
 * Extra fields of a log call. Values may be anything; they are made JSON-safe and redacted. The
 * field `plain` (a string) is not a field: it is the line's sentence for people (see
 * {@link LogLine.plain}).
 */
export type LogFields = Record<string, unknown>;

/** Where stderr lines go as: JSON for machines, or the plain sentence for people. */
export type LogFormat = "json" | "text";

/** One emitted log line, as kept in the ring buffer and sent to subscribers. */
export interface LogLine {
  /** Increasing id, unique within the process and larger than any id of an earlier process. */
  readonly id: number;
  /** ISO 8601 time. */
  readonly ts: string;
  readonly level: LogLevel;
  readonly msg: string;
  /** Call fields (without the logger's base fields), JSON-safe. */
  readonly fields: Readonly<Record<string, JsonValue>>;
  /** The human line: `<ts> <LEVEL> <msg> key=value …`. This is the SSE `data`. */
  readonly text: string;
  /**
   * The same event as one plain sentence for people, without key=value details, e.g.
   * `keeper-1 filled GB4Y…WYKQ on pool CABC…1234: +205.21 USDC in 1 flash`. Given by the caller
   * (field `plain`), else the message with its error's message.
   */
  readonly plain: string;
}

/** Writes one finished line (JSON, or text with `format: "text"`) somewhere (default: stderr). */
export type LogSink = (line: string) => void;

/** Options of {@link Logger}. */
export interface LoggerOptions {
  /** Minimum level emitted anywhere. Default `info`. */
  level?: LogLevel;
  /** Lines kept for replay. Default 500. */
  ringSize?: number;
  /** Where lines go; `null` for nowhere. Default: stderr. */
  sink?: LogSink | null;
  /**
   * What the sink gets: `json` (default) the structured line with every detail, or `text` the
   * plain sentence ({@link textLine}).
   */
  format?: LogFormat;
  /** Fields added to every JSON line (not to the human text), e.g. the keeper's public key. */
  base?: LogFields;
  /** First id minus one. Default `Date.now() * 1000`, so a restarted keeper's ids are larger. */
  idBase?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

const RESERVED = new Set(["ts", "level", "msg", "id", "plain"]);
const encoder = new TextEncoder();

/** Default sink: one line on stderr; a closed stderr is ignored rather than crashing the keeper. */
export function stderrSink(line: string): void {
  try {
    Deno.stderr.writeSync(encoder.encode(line + "\n"));
  } catch {
    // stderr gone (closed pipe): nothing sensible left to do with a log line.
  }
}

/** Something that logs (the {@link Logger} itself or a child with extra fields). */
export interface LogWriter {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A writer that adds `fields` to every call. */
  child(fields: LogFields): LogWriter;
}

/** The keeper's logger and recent-line buffer. */
export class Logger implements LogWriter {
  readonly level: LogLevel;
  readonly format: LogFormat;
  #min: number;
  #ring: Ring<LogLine>;
  #sink: LogSink | null;
  #base: Record<string, JsonValue>;
  #nextId: number;
  #now: () => Date;
  #subs = new Set<(line: LogLine) => void>();

  constructor(opts: LoggerOptions = {}) {
    this.level = opts.level ?? "info";
    this.#min = LEVELS[this.level];
    this.#ring = new Ring<LogLine>(opts.ringSize ?? 500);
    this.#sink = opts.sink === undefined ? stderrSink : opts.sink;
    this.format = opts.format ?? "json";
    this.#base = plainFields(opts.base ?? {});
    this.#nextId = (opts.idBase ?? Date.now() * 1000) + 1;
    this.#now = opts.now ?? (() => new Date());
  }

  debug(msg: string, fields?: LogFields): void {
    this.log("debug", msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log("info", msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log("warn", msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.log("error", msg, fields);
  }

  child(fields: LogFields): LogWriter {
    return childWriter(this, fields);
  }

  /** Emits one line at `level`; returns it, or undefined when below the minimum level. */
  log(level: LogLevel, msg: string, fields: LogFields = {}): LogLine | undefined {
    if (LEVELS[level] < this.#min) return undefined;
    const ts = this.#now().toISOString();
    const cleanMsg = oneLine(redactSecrets(String(msg)));
    const { plain: given, ...rest } = fields;
    const callFields = plainFields(rest);
    const plain = redactSecrets(oneLine(
      typeof given === "string" && given !== ""
        ? given
        : defaultPlain(cleanMsg, callFields, level === "info" || level === "debug"),
    ));
    const id = this.#nextId++;
    let text = `${ts} ${level.toUpperCase()} ${cleanMsg}`;
    for (const [k, v] of Object.entries(callFields)) text += ` ${k}=${humanValue(v)}`;
    const line: LogLine = Object.freeze({
      id,
      ts,
      level,
      msg: cleanMsg,
      fields: Object.freeze(callFields),
      text: redactSecrets(oneLine(text)),
      plain,
    });
    this.#ring.push(line);
    if (this.#sink) {
      if (this.format === "text") this.#sink(textLine(line));
      else {
        const json = JSON.stringify({
          ts,
          level,
          msg: cleanMsg,
          id,
          ...this.#base,
          ...callFields,
          plain,
        });
        this.#sink(redactSecrets(json));
      }
    }
    for (const fn of this.#subs) {
      try {
        fn(line);
      } catch {
        // A broken subscriber must not break logging or the other subscribers.
      }
    }
    return line;
  }

  /** The newest `limit` lines, oldest first. */
  recent(limit?: number): LogLine[] {
    return this.#ring.recent(limit);
  }

  /** Lines after `id` still in the buffer (see {@link Ring.after}). */
  after(id: number): AfterResult<LogLine> {
    return this.#ring.after(id);
  }

  /** Id of the newest line, or undefined before the first line. */
  get lastId(): number | undefined {
    return this.#ring.last()?.id;
  }

  /** Calls `fn` for every future line; returns the unsubscribe function. */
  subscribe(fn: (line: LogLine) => void): () => void {
    this.#subs.add(fn);
    return () => this.#subs.delete(fn);
  }

  /** Number of live subscribers. */
  get subscriberCount(): number {
    return this.#subs.size;
  }
}

function childWriter(root: Logger, extra: LogFields): LogWriter {
  const merge = (f?: LogFields) => (f ? { ...extra, ...f } : extra);
  return {
    debug: (m, f) => void root.log("debug", m, merge(f)),
    info: (m, f) => void root.log("info", m, merge(f)),
    warn: (m, f) => void root.log("warn", m, merge(f)),
    error: (m, f) => void root.log("error", m, merge(f)),
    child: (f) => childWriter(root, { ...extra, ...f }),
  };
}

/** JSON-safe copy of fields; keys that would clash with the line's own keys get a `field_` prefix. */
function plainFields(fields: LogFields): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out[RESERVED.has(k) ? `field_${k}` : k] = toJsonValue(v);
  }
  return out;
}
