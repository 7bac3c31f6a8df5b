/**
 * The app's request state (Fresh's `ctx.state`): the services every route handler and page
 * uses, and the route types bound to it.
 *
 * @module
 */
import type {
  AppProps as SsrAppProps,
  Handlers as SsrHandlers,
  PageProps as SsrPageProps,
  RouteModule as SsrRouteModule,
} from "@vigil/ssr/types";
import type { PublicConfig } from "./data/config.ts";
import type { ChainReader } from "./data/contract_reads.ts";
import type { KeeperApi } from "./data/api.ts";
import type { ChainHistory } from "./data/history.ts";

/** Services every route handler can use. */
export interface WebState {
  config: PublicConfig;
  chain: ChainReader;
  api: KeeperApi;
  history: ChainHistory;
  /** Current time in ms (injectable for tests). */
  now: () => number;
}

/** What a page component receives. */
export type PageProps<T = unknown> = SsrPageProps<T, WebState>;
/** A route's request handlers. */
export type Handlers<T = unknown> = SsrHandlers<T, WebState>;
/** A route module of this app. */
export type RouteModule<T = unknown> = SsrRouteModule<T, WebState>;
/** What `routes/_app.tsx` receives. */
export type AppProps = SsrAppProps<WebState>;
