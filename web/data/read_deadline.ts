/**
 * Bounded chain reads for server-rendered pages. A page must answer in a few seconds even when
 * the RPC node hangs (stopped, overloaded, a black-holed connection), so:
 *
 * - every JSON-RPC request the server makes for a page goes through {@link timedRpcServer}'s
 *   transport, which aborts it after `requestTimeoutMs`;
 * - every page render runs inside {@link withReadDeadline}: all the reads it starts share one
 *   deadline, so sequential reads cannot add up past it.
 *
 * A timed-out read fails like any unreachable RPC: the reader returns `null` with the error, and
 * the page shows "—" and its error notice. Errors never quote the URL's credentials.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { rpc } from "@stellar/stellar-sdk";
import { redactUrlsIn } from "@vigil/util/url_redact";

/** Default budget of one page's chain reads (ms). */
export const PAGE_READ_DEADLINE_MS = 3000;

const deadlines = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `fn` with a deadline for the chain reads it makes (directly or through promises it
 * creates). The deadline's timer is cleared when `fn` settles.
 */
export async function withReadDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const ctrl = new AbortController();
  const timer = setTimeout(
    () => ctrl.abort(new Error(`the page's chain reads took over ${ms} ms`)),
    ms,
  );
  try {
    return await deadlines.run(ctrl.signal, fn);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An `rpc.Server` for `url` whose every request is aborted after `requestTimeoutMs` or at the
 * deadline of the page that made it, whichever comes first.
 */
export function timedRpcServer(url: string, requestTimeoutMs: number): rpc.Server {
  const server = new rpc.Server(url, { allowHttp: url.startsWith("http:") });
  // The SDK sends every JSON-RPC method through `httpClient.post(url, body)` and reads `.data`
  // (the same seam soroban/rpc.ts uses).
  (server as unknown as { httpClient: unknown }).httpClient = {
    post: (u: string, body: { method?: string }) => post(u, body, requestTimeoutMs),
  };
  return server;
}

async function post(
  url: string,
  body: { method?: string },
  timeoutMs: number,
): Promise<{ data: unknown; status: number }> {
  const method = body?.method ?? "request";
  const page = deadlines.getStore();
  if (page?.aborted) throw new Error(`RPC ${method}: ${page.reason?.message ?? "deadline"}`);
  const ctrl = new AbortController();
  const timer = setTimeout(
    () => ctrl.abort(new Error(`no answer within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const onPage = () => ctrl.abort(page!.reason);
  page?.addEventListener("abort", onPage, { once: true });
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: ctrl.signal,
      });
    } catch (e) {
      const why = ctrl.signal.aborted
        ? String((ctrl.signal.reason as Error)?.message ?? "aborted")
        : e instanceof Error
        ? e.message
        : String(e);
      // Deno's fetch errors quote the URL, query string included.
      throw new Error(`RPC ${method}: ${redactUrlsIn(why)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw new Error(`RPC ${method}: ${redactUrlsIn(e instanceof Error ? e.message : String(e))}`);
    }
    if (!res.ok) throw new Error(`RPC ${method}: HTTP ${res.status}`);
    try {
      return { data: JSON.parse(text), status: res.status };
    } catch {
      throw new Error(`RPC ${method}: invalid JSON response`);
    }
  } finally {
    clearTimeout(timer);
    page?.removeEventListener("abort", onPage);
  }
}
