// The public dsh-llm (deepseek-ai/deepseek-harness) as an implementation under the Loom
// conformance suite: its own TypeScript sources, loaded unchanged from a checkout the user
// names, answer the protocol (conformance/INTERPRETING.md section 4) for the six functions
// upstream has a counterpart for. Every other function is not declared, so the runner reports
// it skipped. Nothing of upstream is copied here; tools/upstream/README.md says how to run
// it, lists every translation between the suite's wire form and upstream's types, and records
// the result.
//
//   DSH_LLM_CHECKOUT=/path/to/deepseek-harness npx tsx tools/upstream/dsh-llm-adapter.ts
//
// Environment:
//   DSH_LLM_CHECKOUT      the checkout (required): its packages/llm/llm/src and
//                         packages/llm/llm-deepseek/src are imported at run time
//   DSH_LLM_NODE_MODULES  a node_modules folder for the third-party packages the loaded modules
//                         import (eventsource-parser), when the checkout has none installed
//   DSH_LLM_CHECK         `first` (default) or `all`: how stream.check reads upstream's
//                         fail-fast validator (README, translation T3)

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { register } from "node:module";
import { dirname, join, resolve as resolvePath } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Chunk = { type: string; [key: string]: unknown };
type Answer =
  | { observations: { result: Json } | { error: { code: string; [key: string]: Json } } }
  | { skipped: { reason: string } }
  | { errored: { message: string; context?: Json } };

const PROTOCOL = 1;
const CHECK_MODE = process.env.DSH_LLM_CHECK === "all" ? "all" : "first";

// -- loading the checkout ---------------------------------------------------------------------

function checkoutPath(): string {
  const raw = process.env.DSH_LLM_CHECKOUT;
  if (!raw) {
    process.stderr.write("dsh-llm-adapter: set DSH_LLM_CHECKOUT to a deepseek-harness checkout\n");
    process.exit(2);
  }
  const path = resolvePath(raw);
  if (!existsSync(join(path, "packages/llm/llm/src/assembler.ts"))) {
    process.stderr.write(`dsh-llm-adapter: ${path} has no packages/llm/llm/src/assembler.ts\n`);
    process.exit(2);
  }
  return path;
}

const CHECKOUT = checkoutPath();
const LLM = join(CHECKOUT, "packages/llm/llm/src");
const DEEPSEEK = join(CHECKOUT, "packages/llm/llm-deepseek/src");
const here = typeof __dirname === "string" ? __dirname : dirname(fileURLToPath(import.meta.url));
register(pathToFileURL(join(here, "resolve-hook.mjs")).href, {
  data: { checkout: CHECKOUT, nodeModules: process.env.DSH_LLM_NODE_MODULES ?? null },
});

// Each upstream module is imported the first time a case needs it; a module that cannot be
// loaded makes the cases that need it `errored`, with the reason, never silently skipped.
const modules = new Map<string, Promise<Record<string, any>>>();
function load(file: string): Promise<Record<string, any>> {
  if (!modules.has(file)) modules.set(file, import(pathToFileURL(file).href));
  return modules.get(file)!;
}

function upstreamVersion(): string {
  let version = "unknown";
  try {
    version = JSON.parse(readFileSync(join(CHECKOUT, "packages/llm/llm/package.json"), "utf8")).version;
  } catch {
    // no manifest: the version stays unknown
  }
  try {
    const commit = execFileSync("git", ["-C", CHECKOUT, "rev-parse", "HEAD"], {
      encoding: "utf8", stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    if (/^[0-9a-f]{40}$/.test(commit)) version += `+${commit.slice(0, 12)}`;
  } catch {
    // not a git work tree: the package version alone
  }
  return version;
}

// -- answering --------------------------------------------------------------------------------

// A thrown value as the suite's `error` observation (README, translations T7 and T8).
class Violation extends Error {
  constructor(readonly rule: string, readonly index: number, readonly upstreamMessage: string) {
    super(upstreamMessage);
  }
}
class NoCounterpart extends Error {}

// T8: upstream's own error codes where the suite has a name for the same failure.
const CODE_NAMES: Record<string, string> = {
  MALFORMED_RESPONSE: "stream.provider.malformed-event",
  EMPTY_RESPONSE: "stream.provider.empty-response",
};

function errorObservation(err: unknown): { code: string; [key: string]: Json } {
  if (err instanceof Violation) return { code: err.rule, index: err.index, upstreamMessage: err.upstreamMessage };
  const e = err as { code?: unknown; message?: unknown };
  const message = String(e && e.message !== undefined ? e.message : err);
  if (e && typeof e.code === "string") {
    return { code: CODE_NAMES[e.code] ?? e.code, upstreamCode: e.code, message };
  }
  return { code: "upstream.uncoded", message: `${(err as Error)?.name ?? typeof err}: ${message}` };
}

const json = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null));

// T1: the input of the chunk functions is `{chunks: [...]}`; the chunks are handed to
// upstream as the JSON objects they are (upstream decodes nothing at run time).
function inputChunks(input: any): Chunk[] {
  if (input === null || typeof input !== "object" || !Array.isArray(input.chunks)) {
    throw new NoCounterpart("the input is not {chunks: [...]}: upstream has no wire decoder to judge it");
  }
  return input.chunks as Chunk[];
}

// -- the contract validator (packages/llm/llm/src/invariant.ts) ----------------------------

// T2: upstream's validateStream is module-private; it is reached through the module's own
// exported `apply`, which registers an installer with the invariants service; the installer
// puts validateStream(next(), fail) on the `llm/stream` waterfall. The stand-ins below are the
// two seams upstream injects: the service's `register` and the context's `on`.
type Fail = (message: string) => void;
type Validate = (source: AsyncIterable<Chunk>, fail: Fail) => AsyncIterable<Chunk>;

async function validator(): Promise<Validate> {
  const mod = await load(join(LLM, "invariant.ts"));
  let installer: ((ctx: unknown, fail: Fail) => unknown) | undefined;
  await mod.apply({ invariants: { register: (_name: string, inst: typeof installer) => { installer = inst; return () => {}; } } });
  if (!installer) throw new Error("invariant.ts's apply registered no installer");
  const install = installer;
  return (source, fail) => {
    let handler: ((options: unknown, next: () => AsyncIterable<Chunk>) => AsyncIterable<Chunk>) | undefined;
    const ctx = {
      on: (event: string, fn: typeof handler) => { if (event === "llm/stream") handler = fn; return () => {}; },
      get: () => undefined,
    };
    install(ctx, fail);
    if (!handler) throw new Error("invariant.ts installed no llm/stream handler");
    return handler(undefined, () => source);
  };
}

// T4: upstream's failure messages named by the suite's rule ids. One upstream check ("emitted
// X after terminal finish") is three rules of the suite's stream table, told apart by X.
const RULES: [RegExp, string | ((m: RegExpExecArray) => string)][] = [
  [/^LLM stream block index must be a non-negative safe integer/, "stream.index-non-negative-integer"],
  [/^LLM stream repeated block-start index/, "stream.block-start-unique"],
  [/^(text|reasoning|tool-call) delta at index .* requires an open /, "stream.delta-targets-open-block"],
  [/^LLM stream block-end index .* has no open block/, "stream.block-end-closes-open-block"],
  [/^LLM stream block-end index .* closes .*, expected /, "stream.block-end-closes-open-block"],
  [/^LLM stream emitted usage more than once/, "stream.single-usage"],
  [/^LLM stream finished with \d+ open block/, "stream.open-blocks-at-finish"],
  [/^LLM stream emitted (\S+) after terminal finish/, (m) => (m[1] === "finish" ? "stream.single-finish"
    : m[1] === "usage" ? "stream.usage-before-finish" : "stream.nothing-after-finish")],
  [/^LLM stream ended without a terminal finish chunk/, "stream.single-finish"],
];
function ruleOf(message: string): string {
  for (const [pattern, rule] of RULES) {
    const m = pattern.exec(message);
    if (m) return typeof rule === "string" ? rule : rule(m);
  }
  return `upstream:${message}`; // a message this table does not know shows as itself
}

// The chunks as an async source, with the position of the chunk being judged: a failure
// raised while chunk i is validated is at i; one raised after the last chunk is at len.
function positioned(chunks: Chunk[]): { source: AsyncIterable<Chunk>; at: () => number } {
  let at = 0;
  async function* source(): AsyncGenerator<Chunk> {
    for (let i = 0; i < chunks.length; i++) {
      at = i;
      yield chunks[i];
    }
    at = chunks.length;
  }
  return { source: source(), at: () => at };
}

// T3: stream.check. Upstream's fail is `(message) => never`: the first violation ends the
// stream, so by default (DSH_LLM_CHECK=first) the fail throws, as upstream's does, and the
// list holds that first violation alone. With DSH_LLM_CHECK=all the fail records and returns
// instead, so validateStream goes on with the state its own statements leave (a path upstream
// never takes) and every violation is listed, a (rule, index) pair once.
async function check(input: unknown): Promise<Json> {
  const chunks = inputChunks(input);
  const validate = await validator();
  const { source, at } = positioned(chunks);
  const violations: { rule: string; index: number }[] = [];
  const fail: Fail = (message) => {
    const v = { rule: ruleOf(message), index: at() };
    if (CHECK_MODE === "first") throw new Violation(v.rule, v.index, message);
    const last = violations[violations.length - 1];
    if (!last || last.rule !== v.rule || last.index !== v.index) violations.push(v);
  };
  try {
    for await (const _ of validate(source, fail)) { /* drained */ }
  } catch (err) {
    if (!(err instanceof Violation)) throw err;
    violations.push({ rule: err.rule, index: err.index });
  }
  return { violations };
}

// stream.enforce: the validator as upstream runs it, the fail throwing.
async function enforce(input: unknown): Promise<Json> {
  const chunks = inputChunks(input);
  const validate = await validator();
  const { source, at } = positioned(chunks);
  const fail: Fail = (message) => { throw new Violation(ruleOf(message), at(), message); };
  let yielded = 0;
  try {
    for await (const _ of validate(source, fail)) yielded++;
  } catch (err) {
    if (!(err instanceof Violation)) throw err;
    return { yielded, raised: { code: err.rule, index: err.index } };
  }
  return { yielded, raised: null };
}

// -- the assembler (packages/llm/llm/src/assembler.ts) --------------------------------------

// T5: `strict: true` is upstream's own composition: the validator on the stream, the
// assembler fed what it passes (the agent loop's path). T6: the result is read through the
// public surface (message(), finish, usage, interruptedBlocks()); of the message, `role` and
// `content` (upstream adds an `id` and a `source`).
async function assemble(input: any): Promise<Json> {
  const chunks = inputChunks(input);
  const strict = input.strict === true;
  if (input.strict !== undefined && typeof input.strict !== "boolean") {
    throw new NoCounterpart("`strict` is not a boolean: upstream has no strict flag to judge");
  }
  const { BlockAssembler } = await load(join(LLM, "assembler.ts"));
  const assembler = new BlockAssembler();
  if (strict) {
    const validate = await validator();
    const { source, at } = positioned(chunks);
    const fail: Fail = (message) => { throw new Violation(ruleOf(message), at(), message); };
    for await (const chunk of validate(source, fail)) assembler.push(chunk);
  } else {
    for (const chunk of chunks) assembler.push(chunk);
  }
  const message = assembler.message();
  return json({
    message: { role: message.role, content: message.content },
    finish: assembler.finish,
    usage: assembler.usage ?? null,
    interrupted: assembler.interruptedBlocks(),
  });
}

// -- the DeepSeek adapter's mapping (packages/llm/llm-deepseek/src/{sse,translate}.ts) -----

// T9: the suite's `sse` (a text, or text pieces cut anywhere) becomes the byte stream the
// adapter hands parseSse (response.body): each piece UTF-8 encoded, one read each.
// T8: an error finish's failure code made by mapFinishReason for `content_filter`
// (`CONTENT_FILTER`) is the suite's `stream.provider.content-filter`; one made for any other
// unknown finish_reason (its message "model stopped: <reason>") is
// `stream.provider.unknown-finish-reason`; `EMPTY_RESPONSE` and (in a fold, a raise read as a
// finish) `MALFORMED_RESPONSE` are named as CODE_NAMES names them. Every other code
// (STREAM_CLOSED ...) is upstream's.
function failureCode(failure: any): void {
  if (!failure || typeof failure.code !== "string") return;
  if (failure.code === "CONTENT_FILTER") failure.code = "stream.provider.content-filter";
  else if (/^model stopped: /.test(String(failure.message))) failure.code = "stream.provider.unknown-finish-reason";
  else failure.code = CODE_NAMES[failure.code] ?? failure.code;
}
function finishCode(chunk: any): void {
  if (chunk.type === "finish") failureCode(chunk.reason?.failure);
}

// T9: the body as the byte stream parseSse reads, one read per piece.
function sseBody(input: any): ReadableStream<Uint8Array> {
  const sse = input?.sse;
  const pieces: unknown[] | null = typeof sse === "string" ? [sse] : Array.isArray(sse) ? sse : null;
  if (pieces === null || pieces.some((p) => typeof p !== "string")) {
    throw new NoCounterpart("`sse` is not a text or a list of texts");
  }
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces as string[]) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function deepseekStream(input: any): Promise<AsyncIterable<any>> {
  const body = sseBody(input);
  const { parseSse } = await load(join(DEEPSEEK, "sse.ts"));
  const { translate } = await load(join(DEEPSEEK, "translate.ts"));
  return translate(parseSse(body));
}

async function openaiMap(input: any): Promise<Json> {
  const chunks: Json[] = [];
  for await (const chunk of await deepseekStream(input)) {
    const copy = json(chunk) as any;
    finishCode(copy);
    chunks.push(copy);
  }
  return { chunks };
}

// T11: stream.openai_fold is upstream's own reading of an adapter's stream: the chunks of
// translate(parseSse(body)) pushed into BlockAssembler (assembler.ts); a throw becomes the
// terminal finish LlmRuntime.stream() makes of it (index.ts adapterFailureChunk, over
// adapter-failure.ts normalizeLlmFailure: `aborted` when the code is ABORTED, else `error`;
// no signal is aborted here). The result is read as T6 reads the assembler.
async function openaiFold(input: any): Promise<Json> {
  const source = await deepseekStream(input);
  const { BlockAssembler } = await load(join(LLM, "assembler.ts"));
  const { normalizeLlmFailure } = await load(join(LLM, "adapter-failure.ts"));
  const assembler = new BlockAssembler();
  try {
    for await (const chunk of source) assembler.push(chunk);
  } catch (err) {
    if (err instanceof Error && /Cannot find (module|package)|ERR_MODULE_NOT_FOUND/.test(String(err))) throw err;
    const failure = normalizeLlmFailure(err);
    assembler.push({ type: "finish", reason: { kind: failure.code === "ABORTED" ? "aborted" : "error", failure } });
  }
  const message = assembler.message();
  const finish = json(assembler.finish) as any;
  failureCode(finish.failure);
  return json({ message: { role: message.role, content: message.content }, finish, usage: assembler.usage ?? null });
}

// -- attribution (packages/llm/llm/src/attribution.ts) --------------------------------------

// T10: the identity is handed over as it is; upstream's headers are answered as they are.
async function attribution(input: any): Promise<Json> {
  if (input === null || typeof input !== "object" || !("identity" in input)) {
    throw new NoCounterpart("the input has no identity");
  }
  const { attributionHeaders } = await load(join(LLM, "attribution.ts"));
  return { headers: json(attributionHeaders(input.identity)) };
}

const FUNCTIONS: Record<string, (input: unknown) => Promise<Json>> = {
  "stream.check": check,
  "stream.enforce": enforce,
  "stream.assemble": assemble,
  "stream.openai_map": openaiMap,
  "stream.openai_fold": openaiFold,
  "stream.attribution_headers": attribution,
};

async function run(c: any): Promise<Answer> {
  if (c === null || typeof c !== "object" || !["vector", "scenario"].includes(c.family)) {
    return { errored: { message: "cannot read this case" } };
  }
  const fn = c.family === "vector" ? FUNCTIONS[c.function] : undefined;
  if (!fn) return { skipped: { reason: `dsh-llm has no counterpart of ${c.function ?? c.family}` } };
  try {
    return { observations: { result: await fn(c.input ?? null) } };
  } catch (err) {
    if (err instanceof NoCounterpart) return { observations: { error: { code: "upstream.no-counterpart", message: err.message } } };
    if (err instanceof Error && /Cannot find (module|package)|ERR_MODULE_NOT_FOUND|Unknown file extension/.test(String(err))) {
      return { errored: { message: `loading the checkout failed: ${err.message}` } };
    }
    return { observations: { error: errorObservation(err) } };
  }
}

// -- the protocol -----------------------------------------------------------------------------

function main(): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let queue = Promise.resolve(); // one request at a time, replies in order
  const write = (reply: unknown) => new Promise<void>((done) => process.stdout.write(JSON.stringify(reply) + "\n", () => done()));
  lines.on("line", (line) => {
    if (!line.trim()) return;
    queue = queue.then(async () => {
      let message: any;
      try {
        message = JSON.parse(line);
      } catch (err) {
        process.stderr.write(`not JSON: ${(err as Error).message}\n`);
        process.exit(2);
      }
      const cmd = message && message.cmd;
      if (cmd === "start") {
        await write({
          protocol: PROTOCOL,
          implementation: {
            name: "dsh-llm (deepseek-harness, upstream)",
            version: upstreamVersion(),
            language: "typescript",
            capabilities: Object.keys(FUNCTIONS).sort(),
          },
        });
      } else if (cmd === "run") {
        let answer: Answer;
        try {
          answer = await run(message.case);
        } catch (err) {
          answer = { errored: { message: String(err), context: { stack: String((err as Error)?.stack) } } };
        }
        await write({ seq: message.seq, ...answer });
      } else if (cmd === "stop") {
        await write({ ok: true });
        process.exit(0);
      } else {
        process.stderr.write(`unknown request ${JSON.stringify(cmd)}\n`);
        process.exit(2);
      }
    });
  });
}

main();
