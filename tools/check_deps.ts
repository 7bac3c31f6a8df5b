/**
 * `deno task check:deps`: the workspace's dependency rules (root `ARCHITECTURE.md`), checked
 * from the source in the spirit of std's circular-dependency check:
 *
 * 1. **The table.** A member imports only the members its row allows ({@link ALLOWED}); `web/`
 *    may also `import type` from `keeper/` (the API's JSON shapes). Test files (`*_test.ts`)
 *    may import anything, `testing/` included.
 * 2. **`testing/`** is imported only by tests, benches and tools (and by itself).
 * 3. **By name, through exports.** Across members an import names the member (`@vigil/keeper/…`)
 *    and a sub-path its `deno.json` exports; a relative specifier never leaves its member, and
 *    files outside the members (main.ts, tools/, tests/, bench/) never reach into one by path.
 * 4. **No circles**, between modules (outside tests) and between members.
 *
 * The imports are read from the text (static `import`/`export … from`, `import()` with a literal,
 * `@ts-types`), comments stripped first, so the check needs no network and no type checking.
 * Prints each violation and exits 1, or prints a one-line summary.
 *
 * @module
 */
import { dirname, join, normalize, relative } from "node:path";

/** Which members each member may import (the table of issue 23). */
export const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  soroban: ["util"],
  contracts: ["soroban", "util"],
  keeper: ["contracts", "soroban", "util"],
  ssr: ["util"],
  web: ["ssr", "contracts", "soroban", "util"],
  localnet: ["soroban", "util"],
  demo: ["localnet", "contracts", "keeper", "web", "soroban", "util"],
  testing: ["*"],
};

/** Type-only imports a member may make besides its row: web reads the keeper API's shapes. */
export const TYPE_ONLY: Record<string, readonly string[]> = { web: ["keeper"] };

/** Folders outside the members that may import `testing/`. */
const TESTING_USERS = ["tests/", "bench/", "tools/"];

/** Never scanned: installed tools, build output, AssemblyScript sources (compiled by asc). */
const SKIP = /(^|\/)(node_modules|target|chromium|dist|assembly|sdk|static)(\/|$)/;

/** One import found in a source file. */
export interface ImportRef {
  /** The importing file, relative to the root. */
  from: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
}

/** One rule broken. */
export interface Violation {
  rule: "table" | "testing" | "by-name" | "exports" | "circle";
  message: string;
}

/** The result of {@link checkDeps}. */
export interface DepsReport {
  members: string[];
  files: number;
  imports: number;
  violations: Violation[];
  /** Imports between members outside tests: "from → to" → count (type-only included). */
  matrix: Map<string, number>;
}

const IMPORT_RE =
  /(?:^|[;\s])(import|export)\s+(type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|@ts-types="([^"]+)"/g;

/** Source without comments (strings kept; a comment marker inside a string is rare enough). */
function stripComments(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/(?!\s*@ts-types).*$/gm, "$1");
}

/** The imports of one source text. */
export function importsOf(from: string, src: string): ImportRef[] {
  const text = stripComments(src);
  const out: ImportRef[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const specifier = m[3] ?? m[4] ?? m[5];
    if (!specifier) continue;
    // The match may start at the whitespace before `import`: count lines up to the keyword.
    const line = text.slice(0, m.index! + m[0].search(/\S/)).split("\n").length;
    out.push({ from, specifier, line, typeOnly: Boolean(m[2]) });
  }
  return out;
}

async function* sourceFiles(root: string, dir = ""): AsyncGenerator<string> {
  for await (const e of Deno.readDir(join(root, dir))) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (SKIP.test(rel) || e.name.startsWith(".")) continue;
    if (e.isDirectory) yield* sourceFiles(root, rel);
    else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts")) yield rel;
  }
}

const isTest = (f: string) => /_test\.tsx?$/.test(f);

/** Checks the workspace at `root` (a folder with the root `deno.json`). */
export async function checkDeps(root: string): Promise<DepsReport> {
  const rootCfg = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const members = ((rootCfg.workspace ?? []) as string[]).map((m) =>
    normalize(m).replace(/\/$/, "")
  );
  const exportsOf = new Map<string, Record<string, string>>(); // member → sub-path → file
  const violations: Violation[] = [];
  for (const m of members) {
    const cfg = JSON.parse(await Deno.readTextFile(join(root, m, "deno.json")));
    if (cfg.name !== `@vigil/${m}`) {
      violations.push({ rule: "by-name", message: `${m}/deno.json: name must be @vigil/${m}` });
    }
    const exp = typeof cfg.exports === "string" ? { ".": cfg.exports } : cfg.exports ?? {};
    exportsOf.set(m, exp);
    for (const target of Object.values(exp) as string[]) {
      try {
        await Deno.stat(join(root, m, target));
      } catch {
        violations.push({ rule: "exports", message: `${m}/deno.json exports missing ${target}` });
      }
    }
  }
  const memberOf = (f: string) => members.find((m) => f === m || f.startsWith(`${m}/`));

  const files: string[] = [];
  for await (const f of sourceFiles(root)) files.push(f);
  files.sort();
  const edges = new Map<string, Set<string>>(); // module graph, non-test files
  const memberEdges = new Map<string, Set<string>>();
  const matrix = new Map<string, number>();
  let imports = 0;
  for (const from of files) {
    const src = await Deno.readTextFile(join(root, from));
    const fromMember = memberOf(from);
    const test = isTest(from);
    for (const ref of importsOf(from, src)) {
      imports++;
      const at = `${from}:${ref.line}`;
      let target: string | undefined; // the file imported, when it is in the repository
      let targetMember: string | undefined;
      if (ref.specifier.startsWith(".")) {
        target = normalize(join(dirname(from), ref.specifier));
        targetMember = memberOf(target);
        if (target.startsWith("..")) {
          violations.push({ rule: "by-name", message: `${at}: ${ref.specifier} leaves the repo` });
          continue;
        }
        if (targetMember !== fromMember && (targetMember || fromMember)) {
          violations.push({
            rule: "by-name",
            message: `${at}: "${ref.specifier}" reaches ${
              targetMember ? `into ${targetMember}/` : "out of its member"
            } by path; import @vigil/<member>/<export> instead`,
          });
          continue;
        }
      } else if (ref.specifier.startsWith("@vigil/")) {
        const [, name, ...rest] = ref.specifier.split("/");
        targetMember = name;
        if (!members.includes(name)) {
          violations.push({ rule: "exports", message: `${at}: no member ${ref.specifier}` });
          continue;
        }
        const key = rest.length ? `./${rest.join("/")}` : ".";
        const file = exportsOf.get(name)![key];
        if (!file) {
          violations.push({
            rule: "exports",
            message: `${at}: ${ref.specifier} is not in ${name}/deno.json exports`,
          });
        }
        if (file) target = normalize(join(name, file));
      } else continue; // npm:, node:, bare npm names from the import maps
      if (!targetMember || targetMember === fromMember) {
        if (target && !test && !isTest(target)) add(edges, from, target);
        continue;
      }
      if (targetMember === "testing" && !test && fromMember !== "testing") {
        if (!TESTING_USERS.some((d) => from.startsWith(d))) {
          violations.push({
            rule: "testing",
            message: `${at}: ${fromMember ?? from} imports testing/ (only tests, benches, tools)`,
          });
        }
      }
      if (fromMember && !test) {
        const allowed = ALLOWED[fromMember] ?? [];
        const typeOk = ref.typeOnly && (TYPE_ONLY[fromMember] ?? []).includes(targetMember);
        if (!allowed.includes("*") && !allowed.includes(targetMember) && !typeOk) {
          violations.push({
            rule: "table",
            message: `${at}: ${fromMember}/ may not import ${targetMember}/ (${ref.specifier})`,
          });
        }
        if (!ref.typeOnly) add(memberEdges, fromMember, targetMember);
        const cell = `${fromMember} → ${targetMember}`;
        matrix.set(cell, (matrix.get(cell) ?? 0) + 1);
      }
      if (target && !test && !isTest(target)) add(edges, from, target);
    }
  }
  for (const cycle of cycles(edges)) {
    violations.push({ rule: "circle", message: `module circle: ${cycle.join(" → ")}` });
  }
  for (const cycle of cycles(memberEdges)) {
    violations.push({ rule: "circle", message: `member circle: ${cycle.join(" → ")}` });
  }
  return { members, files: files.length, imports, violations, matrix };
}

function add(g: Map<string, Set<string>>, a: string, b: string): void {
  let s = g.get(a);
  if (!s) g.set(a, s = new Set());
  s.add(b);
}

/** The strongly connected components with more than one node (Tarjan), each as a closed path. */
export function cycles(g: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || g.get(v)?.has(v)) out.push([...scc.reverse(), scc[0]]);
    }
  };
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

if (import.meta.main) {
  const root = Deno.args.filter((a) => !a.startsWith("--"))[0] ??
    (relative(Deno.cwd(), new URL("..", import.meta.url).pathname) || ".");
  const table = Deno.args.includes("--table");
  const report = await checkDeps(root);
  if (table) {
    // The import table: rows import columns (counts of import statements outside tests).
    const ms = report.members;
    console.log(`| imports → | ${ms.join(" | ")} |\n|---|${ms.map(() => "---:").join("|")}|`);
    for (const a of ms) {
      const row = ms.map((b) => String(report.matrix.get(`${a} → ${b}`) ?? (a === b ? "·" : "")));
      console.log(`| ${a} | ${row.join(" | ")} |`);
    }
  }
  for (const v of report.violations) console.error(`check:deps [${v.rule}] ${v.message}`);
  const summary = `${report.members.length} members, ${report.files} files, ${report.imports} ` +
    `imports: ${report.violations.length} violation(s)`;
  if (report.violations.length > 0) {
    console.error(`check:deps: ${summary} (rules: ARCHITECTURE.md)`);
    Deno.exit(1);
  }
  console.log(`check:deps: ${summary}`);
}
