/**
 * The process's variables: a best-effort `.env` file under the real environment (the real
 * environment wins). Shared by the keeper's configuration and `main.ts deploy`.
 *
 * @module
 */
// @ts-types="./dotenv.d.ts"
import dotenv from "dotenv";

/** Result of reading `.env` plus the process environment. */
export interface EnvironmentRead {
  /** Merged variables: the real environment wins over `.env`. */
  env: Record<string, string>;
  /** Path of the `.env` file that was read, if any. */
  dotenvPath: string | null;
  /** Non-fatal problems (unreadable `.env`, `.env` readable by others while holding a secret). */
  warnings: string[];
}

/** Options of {@link readEnvironment}. */
export interface ReadEnvironmentOptions {
  /** Directory holding `.env` (default: the working directory). */
  dir?: string;
  /** The real environment (default: `Deno.env.toObject()`). */
  processEnv?: Record<string, string>;
  /**
   * Variables holding a secret: a `.env` that sets one and is readable by other users is
   * warned about (default: `KEEPER_SECRET`).
   */
  secretNames?: readonly string[];
}

/**
 * Reads `<dir>/.env` best-effort (a missing or unreadable file is not an error) and overlays the
 * process environment on it. The process environment is not modified.
 */
export function readEnvironment(opts: ReadEnvironmentOptions = {}): EnvironmentRead {
  const dir = opts.dir ?? Deno.cwd();
  const processEnv = opts.processEnv ?? Deno.env.toObject();
  const secretNames = opts.secretNames ?? ["KEEPER_SECRET"];
  const path = `${dir.replace(/\/$/, "")}/.env`;
  const warnings: string[] = [];
  let fileVars: Record<string, string> = {};
  let dotenvPath: string | null = null;
  try {
    const text = Deno.readTextFileSync(path);
    fileVars = dotenv.parse(text);
    dotenvPath = path;
    const secret = secretNames.find((n) => fileVars[n]);
    if (secret) {
      const mode = Deno.statSync(path).mode;
      if (mode !== null && (mode & 0o077) !== 0) {
        warnings.push(
          `${path} holds ${secret} and is readable by other users (mode ${
            (mode & 0o777).toString(8)
          }); chmod 600 it`,
        );
      }
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      warnings.push(`could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { env: { ...fileVars, ...processEnv }, dotenvPath, warnings };
}
