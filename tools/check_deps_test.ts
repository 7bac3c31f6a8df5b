/**
 * `deno task check:deps` passes on the repository and fails on each kind of bad import, planted in
 * a small workspace written to a temporary folder (and once in a copy of a real member).
 */
import assert from "node:assert/strict";
import { checkDeps, cycles, importsOf } from "./check_deps.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** Writes a workspace of `files` (path → text) with the nine members, each exporting mod.ts. */
async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "vigil-check-deps-" });
  const members = ["util", "soroban", "contracts", "keeper", "ssr", "web", "localnet", "demo"];
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ workspace: [...members, "testing"].map((m) => `./${m}`) }),
  );
  for (const m of [...members, "testing"]) {
    await Deno.mkdir(`${dir}/${m}`, { recursive: true });
    const exports: Record<string, string> = { ".": "./mod.ts" };
    for (const f of Object.keys(files)) {
      if (f.startsWith(`${m}/`) && !f.endsWith("mod.ts")) {
        exports[`./${f.slice(m.length + 1).replace(/\.tsx?$/, "")}`] = `./${f.slice(m.length + 1)}`;
      }
    }
    await Deno.writeTextFile(
      `${dir}/${m}/deno.json`,
      JSON.stringify({ name: `@vigil/${m}`, exports }),
    );
    await Deno.writeTextFile(`${dir}/${m}/mod.ts`, "export const x = 1;\n");
  }
  for (const [f, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${f.slice(0, f.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${f}`, text);
  }
  return dir;
}

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const dir = await workspace(files);
  try {
    return (await checkDeps(dir)).violations.map((v) => `[${v.rule}] ${v.message}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("check:deps: the repository keeps its rules", async () => {
  const report = await checkDeps(ROOT);
  assert.equal(report.members.length, 9);
  assert.ok(report.files > 200 && report.imports > 1000, `${report.files} files`);
  assert.deepEqual(report.violations, []);
});

Deno.test("check:deps: a clean workspace passes, and the task's own exit code says so", async () => {
  assert.deepEqual(
    await violationsOf({
      "soroban/tx.ts": 'import { x } from "@vigil/util";\nexport const y = x;\n',
      "keeper/cycle.ts": 'import { y } from "@vigil/soroban/tx";\nimport "./log.ts";\n',
      "keeper/log.ts": "export const z = 2;\n",
      "web/view.ts": 'import type { z } from "@vigil/keeper/log";\n',
      "tests/e2e_test.ts": 'import "@vigil/testing";\nimport "@vigil/localnet";\n',
    }),
    [],
  );
});

Deno.test("check:deps: a member importing outside its row of the table fails", async () => {
  const v = await violationsOf({
    "util/env.ts": 'import { x } from "@vigil/keeper";\n',
    "localnet/node.ts": 'import { x } from "@vigil/contracts";\n',
    "web/page.ts": 'import { z } from "@vigil/keeper/log";\n', // a value import, not `import type`
    "keeper/log.ts": "export const z = 2;\n",
  });
  assert.equal(v.length, 3, v.join("\n"));
  assert.match(v[0], /^\[table\] localnet\/node\.ts:1: localnet\/ may not import contracts\//);
  assert.match(v[1], /^\[table\] util\/env\.ts:1: util\/ may not import keeper\//);
  assert.match(v[2], /^\[table\] web\/page\.ts:1: web\/ may not import keeper\//);
});

Deno.test("check:deps: ../ across members, unexported sub-paths and testing/ in the product fail", async () => {
  const v = await violationsOf({
    "keeper/a.ts": 'import { x } from "../soroban/mod.ts";\n',
    "keeper/b.ts": 'import { x } from "@vigil/soroban/secret";\n',
    "main.ts": 'import { x } from "./keeper/a.ts";\n',
    "keeper/c.ts": 'import { x } from "@vigil/testing";\n',
    "keeper/c_test.ts": 'import { x } from "@vigil/testing";\nimport "@vigil/localnet";\n',
    "bench/b.ts": 'import { x } from "@vigil/testing";\n',
  });
  assert.deepEqual(v.map((s) => s.slice(0, s.indexOf(":"))), [
    "[by-name] keeper/a.ts",
    "[exports] keeper/b.ts",
    "[testing] keeper/c.ts",
    "[table] keeper/c.ts",
    "[by-name] main.ts",
  ]);
});

Deno.test("check:deps: circles between modules and between members fail", async () => {
  const v = await violationsOf({
    "keeper/a.ts": 'import "./b.ts";\n',
    "keeper/b.ts": 'import "./c.ts";\n',
    "keeper/c.ts": 'import "./a.ts";\n',
    "soroban/x.ts": 'import "@vigil/util/y";\n',
    "util/y.ts": 'import "@vigil/soroban/x";\n',
  });
  assert.ok(
    v.includes("[circle] module circle: keeper/a.ts → keeper/b.ts → keeper/c.ts → keeper/a.ts"),
    v.join("\n"),
  );
  assert.ok(v.some((s) => s.startsWith("[table] util/y.ts:1: util/ may not import soroban/")));
  assert.ok(v.some((s) => s.startsWith("[circle] member circle: soroban → util → soroban")));
});

Deno.test("check:deps: a bad import planted in a copy of the real keeper is caught by the CLI", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vigil-check-deps-real-" });
  try {
    for (const f of ["deno.json"]) await Deno.copyFile(`${ROOT}${f}`, `${dir}/${f}`);
    const cfg = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
    for (const m of cfg.workspace as string[]) {
      await new Deno.Command("cp", { args: ["-r", `${ROOT}${m}`, `${dir}/${m}`] }).output();
    }
    const run = () =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--cached-only", "--frozen", `${ROOT}tools/check_deps.ts`, dir],
        stdout: "piped",
        stderr: "piped",
      }).output();
    const clean = await run();
    assert.equal(clean.code, 0, new TextDecoder().decode(clean.stderr));
    const cycle = `${dir}/keeper/cycle.ts`;
    await Deno.writeTextFile(
      cycle,
      'import { startLocalnet } from "@vigil/localnet";\n' + await Deno.readTextFile(cycle),
    );
    const bad = await run();
    assert.equal(bad.code, 1);
    assert.match(
      new TextDecoder().decode(bad.stderr),
      /check:deps \[table\] keeper\/cycle\.ts:1: keeper\/ may not import localnet\/ \(@vigil\/localnet\)/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("importsOf reads static, dynamic and type-only imports and skips comments", () => {
  const refs = importsOf(
    "a.ts",
    [
      'import { a } from "./a.ts";',
      'import type { B } from "@vigil/keeper/api";',
      'export * from "./c.ts";',
      "// import { d } from './commented.ts';",
      "/* import './block.ts'; */",
      'const m = await import("@vigil/localnet");',
      '// @ts-types="./dotenv.d.ts"',
      'import dotenv from "dotenv";',
    ].join("\n"),
  );
  assert.deepEqual(refs.map((r) => [r.specifier, r.line, r.typeOnly]), [
    ["./a.ts", 1, false],
    ["@vigil/keeper/api", 2, true],
    ["./c.ts", 3, false],
    ["@vigil/localnet", 6, false],
    ["./dotenv.d.ts", 7, false],
    ["dotenv", 8, false],
  ]);
});

Deno.test("cycles: finds each strongly connected component once, self-loops included", () => {
  const g = new Map([
    ["a", new Set(["b"])],
    ["b", new Set(["a", "c"])],
    ["c", new Set(["d"])],
    ["d", new Set(["d"])],
  ]);
  assert.deepEqual(cycles(g), [["d", "d"], ["a", "b", "a"]]);
});
