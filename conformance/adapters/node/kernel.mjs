// A minimal Loom kernel in JavaScript: generator bodies, the four commands, step identity,
// replay (serve and compare), in-doubt steps, and the runtime's start / resume / recover /
// resolve / replay. Written from spec/kernel.md; it shares no code with loom_ref.
//
// Always-replay (conformance/INTERPRETING.md section 8, anchor kernel.replay-serve): with
// `alwaysReplay`, the runtime replays the journal read-only after every step outcome,
// decision, stream append and resume it writes; that replay must be served entirely from the
// journal, so one that raises or would call anything (an effect, a decider) is reported as the
// warning `conformance.always-replay-diverged`, and the drive goes on.

import { Crash, LoomError, checkPayload, checkSchema, checkWritten, encodeLine, fold } from "./journal.mjs";
import { jsonEqual, validate } from "./schema.mjs";

const copy = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));

// spec: kernel.ids -- a command is built with non-empty string ids, else argument.id
const checkId = (what, id) => {
  if (typeof id !== "string" || id === "") throw new LoomError("argument.id", `${what} must be a non-empty string`);
  return id;
};

// spec: kernel.commands -- what ctx builds; a body that yields anything else (a plain value
// shaped like one included) gets argument.command raised into it
class Command {
  constructor(fields) {
    Object.assign(this, fields);
  }
}

export class Ctx {
  constructor() {
    this.perTool = new Map();
    this.streams = 0;
  }
  execute(tool, input, stepId) {
    checkId("tool id", tool);
    if (stepId !== undefined) checkId("step id", stepId);
    if (stepId === undefined) {
      const n = (this.perTool.get(tool) || 0) + 1;
      this.perTool.set(tool, n);
      stepId = `${tool}#${n}`;
    }
    return new Command({ kind: "execute", id: stepId, tool, input: input === undefined ? null : input });
  }
  decide(id, decider, extra = {}) {
    checkId("decision id", id);
    return new Command({ kind: "decide", id, decider, extra });
  }
  suspend(gate, on = null, correlationKey = null, resumeSchema = null) {
    checkId("gate id", gate);
    if (resumeSchema !== null) checkSchema(resumeSchema, "resumeSchema"); // fail closed, at the call
    return new Command({ kind: "suspend", id: gate, on, correlationKey, resumeSchema });
  }
  stream(data) {
    this.streams += 1;
    return new Command({ kind: "stream", id: `stream#${this.streams}`, data });
  }
}

// The journal read as the commands a body issued (spec: kernel.replay-compare).
function indexHistory(events) {
  const records = [];
  const steps = new Map();
  let terminal = null;
  for (const ev of events) {
    const p = ev.payload;
    switch (ev.kind) {
      case "STEP_STARTED": {
        const rec = { kind: "execute", id: p.stepId, tool: p.toolId, seq: ev.seq, start: ev };
        steps.set(p.stepId, rec);
        records.push(rec);
        break;
      }
      case "STEP_COMPLETED":
      case "STEP_FAILED":
        steps.get(p.stepId).outcome = ev;
        break;
      case "STEP_IN_DOUBT":
        steps.get(p.stepId).marked = true;
        break;
      case "DECISION_RECORDED":
        records.push({ kind: "decide", id: p.decisionId, seq: ev.seq, start: ev });
        break;
      case "STREAM_APPENDED":
        records.push({ kind: "stream", id: p.streamId, seq: ev.seq, start: ev });
        break;
      case "EXECUTION_SUSPENDED":
        records.push({ kind: "suspend", id: p.gateId, seq: ev.seq, start: ev });
        break;
      case "RESUME_RECEIVED":
        records[records.length - 1].outcome = ev;
        break;
      case "EXECUTION_COMPLETED":
      case "EXECUTION_FAILED":
        terminal = ev;
        break;
    }
  }
  return { records, terminal };
}

class Park {
  constructor(status, fields = {}) {
    this.status = status;
    this.fields = fields;
  }
}

// An error that carries no code (a scripted `raise` without one, INTERPRETING.md section 6):
// the kernel gives it `fallback` and the message `<type name>: <text>` (kernel.step-failure,
// kernel.body-failure). Any other exception is this adapter's own bug, and propagates.
export class UncodedError extends Error {
  constructor(message) {
    super(message);
    this.name = "Error";
  }
}
const caught = (e) => e instanceof LoomError || e instanceof UncodedError;
const errorJson = (e, fallback) =>
  e instanceof LoomError ? { code: e.code, message: e.message }
    : { code: fallback, message: `${e.name}: ${e.message}` };

class StepFailed extends LoomError {
  constructor(error) {
    super(error.code, error.message);
    this.error = error;
  }
  toJSON() {
    return this.error;
  }
}

// One drive of a body against its journal; `journal` null means a read-only replay. A
// `strict` replay calls nothing: a decider it would run is recorded in `called` and refused.
class Drive {
  constructor({ workflow, events, journal, effects, eid, input, retryStep, warn, strict = false }) {
    Object.assign(this, { workflow, journal, effects, eid, input, retryStep, warn, strict, called: null });
    Object.assign(this, indexHistory(events));
    this.cursor = 0;
    this.seen = new Set();
    this.served = []; // spec: kernel.drive-report -- ids served from the journal, in order
    this.ran = []; // ... and ids run live
  }

  report(result) {
    return { ...result, served: [...this.served], ran: [...this.ran] };
  }

  append(kind, payload) {
    return this.journal.append(kind, payload);
  }

  run() {
    return this.report(this.drive());
  }

  drive() {
    const gen = this.workflow.body(new Ctx(), copy(this.input));
    let send = null;
    let toThrow = null;
    for (;;) {
      let step;
      try {
        step = toThrow === null ? gen.next(send) : gen.throw(toThrow);
      } catch (e) {
        if (!caught(e)) throw e;
        return this.finish(undefined, e);
      }
      if (step.done) return this.finish(step.value, null);
      send = null;
      toThrow = null;
      try {
        [send, toThrow] = this.handle(step.value);
      } catch (e) {
        if (e instanceof Park) return { status: e.status, ...e.fields };
        if (e instanceof LoomError && e.code === "kernel.nondeterminism" && this.journal) {
          this.append("EXECUTION_FAILED", { error: e.toJSON() });
        }
        throw e;
      }
    }
  }

  diverged(expected, actual) {
    const e = new LoomError("kernel.nondeterminism",
      `diverged: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    e.toJSON = () => ({ code: e.code, message: e.message, expected, actual });
    return e;
  }

  handle(cmd) {
    if (!(cmd instanceof Command)) { // spec: kernel.commands
      return [null, new LoomError("argument.command", "a body must yield commands built by ctx")];
    }
    if (this.seen.has(cmd.id)) {
      return [null, new LoomError("kernel.duplicate-id", `id ${cmd.id} used twice`)];
    }
    this.seen.add(cmd.id);
    if (this.cursor < this.records.length) {
      const rec = this.records[this.cursor];
      if (rec.kind === cmd.kind && rec.id === cmd.id &&
          (cmd.kind !== "execute" || rec.tool === cmd.tool)) {
        this.cursor += 1;
        return this.serve(rec, cmd);
      }
      // a hole: a decider that threw, a command whose event the writer refused
      // (kernel.decider-throws, kernel.unwritable-event)
      const refused = this.hole(cmd);
      if (refused) return [null, refused];
      throw this.diverged({ seq: rec.seq, command: rec.kind, id: rec.id, toolId: rec.tool },
        { command: cmd.kind, id: cmd.id, toolId: cmd.tool });
    }
    if (!this.journal) {
      // read-only replay: the history ends here. A running one goes on past its end
      // (running); a finished one must end as the body did (kernel.replay-end): any other
      // command diverges, except a decision whose decider throws again (a hole, as
      // mid-history: kernel.decider-throws)
      if (this.terminal === null) throw new Park("running");
      const refused = this.hole(cmd);
      if (refused) return [null, refused];
      const actual = { command: cmd.kind, id: cmd.id };
      if (cmd.kind === "execute") actual.toolId = cmd.tool;
      throw this.diverged({ seq: this.terminal.seq,
        command: this.terminal.kind === "EXECUTION_COMPLETED" ? "return" : "raise" }, actual);
    }
    return this.live(cmd);
  }

  serve(rec, cmd) {
    if (rec.kind === "execute") {
      if (!rec.outcome) return this.inDoubt(rec, cmd);
      this.served.push(rec.id);
      const p = rec.outcome.payload;
      if (rec.outcome.kind === "STEP_COMPLETED") return [copy(p.output), null];
      return [null, new StepFailed(p.error)];
    }
    if (rec.kind === "suspend") {
      if (!rec.outcome) throw new Park("suspended", { waitingOn: rec.id });
      this.served.push(rec.id);
      return [copy(rec.outcome.payload.payload), null];
    }
    this.served.push(rec.id);
    if (rec.kind === "decide") return [copy(rec.start.payload.choice), null];
    return [null, null];
  }

  inDoubt(rec, cmd) {
    if (!this.journal) {
      throw new Park(rec.marked ? "in-doubt" : "running", { inDoubtStep: rec.id });
    }
    if (rec.id === this.retryStep || this.effects.isIdempotent(rec.tool)) {
      const p = rec.start.payload;
      return this.invoke(cmd, p.input, p.idempotencyKey);
    }
    if (!rec.marked) {
      this.append("STEP_IN_DOUBT", { stepId: rec.id });
      this.warn(`kernel.in-doubt: step ${rec.id} has no outcome`);
    }
    throw new Park("in-doubt", { inDoubtStep: rec.id });
  }

  /** A command with no record where the journal holds another or has ended: the error to
   * raise into the body if the history stays consistent, else null (kernel.decider-throws:
   * the decider runs again and only a throw is consistent; kernel.unwritable-event: an event
   * the writer would refuse is refused again). */
  hole(cmd) {
    let answer = null;
    if (cmd.kind === "decide") {
      try {
        answer = this.runDecider(cmd);
      } catch (e) {
        if (caught(e)) return e;
        throw e;
      }
    }
    const [kind, payload] = this.eventOf(cmd, answer);
    try {
      checkPayload(kind, payload);
      checkWritten(encodeLine(1, kind, payload));
    } catch (e) {
      if (e instanceof LoomError && e.code === "journal.bad-payload") return e;
      throw e;
    }
    return null;
  }

  /** The event a command journals when it runs live (a decision's with its answer). */
  eventOf(cmd, answer) {
    if (cmd.kind === "execute") {
      return ["STEP_STARTED", { stepId: cmd.id, toolId: cmd.tool, input: cmd.input,
        idempotencyKey: `${this.eid}/${cmd.id}` }];
    }
    if (cmd.kind === "decide") {
      const payload = { decisionId: cmd.id, choice: answer.value };
      if (answer.policy !== undefined) {
        payload.policy = { id: answer.policy, propensity: answer.propensity ?? null };
      }
      for (const [k, v] of Object.entries(cmd.extra)) if (v !== null && v !== undefined) payload[k] = v;
      return ["DECISION_RECORDED", payload];
    }
    if (cmd.kind === "suspend") {
      const gate = { gateId: cmd.id, on: cmd.on, correlationKey: cmd.correlationKey };
      if (cmd.resumeSchema !== null && cmd.resumeSchema !== undefined) gate.resumeSchema = cmd.resumeSchema;
      return ["EXECUTION_SUSPENDED", gate];
    }
    return ["STREAM_APPENDED", { streamId: cmd.id, data: cmd.data }];
  }

  live(cmd) {
    try {
      return this.liveCommand(cmd);
    } catch (e) {
      // spec: kernel.unwritable-event -- a command's event the writer refuses (nesting
      // limit) is raised into the body, nothing written for it
      if (e instanceof LoomError && e.code === "journal.bad-payload") return [null, e];
      throw e;
    }
  }

  liveCommand(cmd) {
    if (cmd.kind === "execute") {
      const key = `${this.eid}/${cmd.id}`;
      this.append("STEP_STARTED",
        { stepId: cmd.id, toolId: cmd.tool, input: cmd.input, idempotencyKey: key });
      return this.invoke(cmd, cmd.input, key);
    }
    if (cmd.kind === "decide") {
      let answer;
      try {
        answer = this.runDecider(cmd);
      } catch (e) {
        if (caught(e)) return [null, e];
        throw e;
      }
      const payload = { decisionId: cmd.id, choice: answer.value };
      if (answer.policy !== undefined) {
        payload.policy = { id: answer.policy, propensity: answer.propensity ?? null };
      }
      for (const [k, v] of Object.entries(cmd.extra)) if (v !== null && v !== undefined) payload[k] = v;
      this.append("DECISION_RECORDED", payload);
      this.ran.push(cmd.id);
      return [copy(answer.value), null];
    }
    if (cmd.kind === "suspend") {
      const gate = { gateId: cmd.id, on: cmd.on, correlationKey: cmd.correlationKey };
      if (cmd.resumeSchema !== null && cmd.resumeSchema !== undefined) gate.resumeSchema = cmd.resumeSchema;
      this.append("EXECUTION_SUSPENDED", gate);
      this.ran.push(cmd.id);
      throw new Park("suspended", { waitingOn: cmd.id });
    }
    this.append("STREAM_APPENDED", { streamId: cmd.id, data: cmd.data });
    this.ran.push(cmd.id);
    return [null, null];
  }

  runDecider(cmd) {
    if (this.strict) {
      this.called ??= `decision ${cmd.id}`;
      throw new LoomError("conformance.always-replay-diverged", `the replay would run the decider of ${cmd.id}`);
    }
    const scope = { invokeTransient: (tool, input) => this.effects.invokeTransient(tool, input) };
    return cmd.decider(scope);
  }

  invoke(cmd, input, key) {
    this.ran.push(cmd.id);
    let output;
    try {
      output = this.effects.invoke({ tool: cmd.tool, stepId: cmd.id, key, input: copy(input) });
    } catch (e) {
      if (!caught(e)) throw e;
      const error = errorJson(e, "effect.failed");
      this.append("STEP_FAILED", { stepId: cmd.id, error });
      return [null, new StepFailed(error)];
    }
    this.append("STEP_COMPLETED", { stepId: cmd.id, output });
    return [copy(output), null];
  }

  finish(output, exc) {
    if (this.cursor < this.records.length) {
      const rec = this.records[this.cursor];
      const e = this.diverged({ seq: rec.seq, command: rec.kind, id: rec.id, toolId: rec.tool },
        { command: exc ? "raise" : "return" });
      if (this.journal) this.append("EXECUTION_FAILED", { error: e.toJSON() });
      throw e;
    }
    if (!exc && this.journal) {
      try {
        this.append("EXECUTION_COMPLETED", { output: output === undefined ? null : output });
        return { status: "completed", output: copy(output) };
      } catch (e) {
        // spec: kernel.unwritable-event -- an output the writer refuses fails the execution
        if (!(e instanceof LoomError) || e.code !== "journal.bad-payload") throw e;
        exc = e;
      }
    }
    if (!exc && !this.journal && this.terminal !== null) {
      // spec: kernel.unwritable-event -- a read-only replay meets the refusal the live drive met
      try {
        checkWritten(encodeLine(1, "EXECUTION_COMPLETED", { output: output === undefined ? null : output }));
      } catch (e) {
        if (!(e instanceof LoomError) || e.code !== "journal.bad-payload") throw e;
        exc = e;
      }
    }
    const error = exc ? (exc instanceof StepFailed ? exc.error : errorJson(exc, "kernel.body-error"))
      : null;
    if (!this.journal) {
      const t = this.terminal;
      if (t === null) return { status: "running" };
      // spec: kernel.replay-end -- the output as JSON, the error by code and message
      if (!exc && t.kind === "EXECUTION_COMPLETED" && jsonEqual(copy(output), t.payload.output)) {
        return { status: "completed", output: copy(output) };
      }
      if (exc && t.kind === "EXECUTION_FAILED" && t.payload.error.code === error.code &&
          t.payload.error.message === error.message) {
        return { status: "failed", error };
      }
      throw this.diverged({ seq: t.seq, command: t.kind === "EXECUTION_COMPLETED" ? "return" : "raise" },
        { command: exc ? "raise" : "return" });
    }
    this.append("EXECUTION_FAILED", { error });
    return { status: "failed", error };
  }
}

// The events after which an always-replay runtime replays (INTERPRETING.md section 8).
const REPLAY_AFTER = new Set(["STEP_COMPLETED", "STEP_FAILED", "DECISION_RECORDED", "STREAM_APPENDED",
  "EXECUTION_RESUMED"]);

export class Runtime {
  constructor({ store, effects, workflows, warn, fault, alwaysReplay = false }) {
    Object.assign(this, { store, effects, warn, fault, alwaysReplay });
    this.workflows = new Map(workflows.map((w) => [w.name, w]));
  }
  workflow(name) {
    const wf = this.workflows.get(name);
    if (!wf) throw new LoomError("kernel.unknown-workflow", `no workflow ${name}`);
    return wf;
  }
  open(eid) {
    const journal = this.store.open(eid, this.fault);
    if (journal.torn) this.warn(`journal.torn-tail: line ${journal.torn.line} was torn`);
    return this.watch(journal);
  }
  /** With alwaysReplay: a strict read-only replay after each event of REPLAY_AFTER. */
  watch(journal) {
    if (!this.alwaysReplay) return journal;
    const append = journal.append.bind(journal);
    journal.append = (kind, payload) => {
      const event = append(kind, payload); // a crash inside it ends the action: no replay
      if (REPLAY_AFTER.has(kind)) this.checkReplay(journal.eid, event);
      return event;
    };
    return journal;
  }
  checkReplay(eid, event) {
    let why;
    try {
      const drive = this.replayDrive(eid, true);
      drive.run();
      why = drive.called && `it would call ${drive.called}`;
    } catch (e) {
      if (!(e instanceof LoomError)) throw e;
      why = `it raised ${e.code}`;
    }
    if (why) this.warn(`conformance.always-replay-diverged: after event ${event.seq} (${event.kind}), ${why}`);
  }
  drive(journal, state, retryStep = null) {
    const result = new Drive({ workflow: this.workflow(state.workflow), events: journal.events,
      journal, effects: this.effects, eid: journal.eid, input: state.input, retryStep,
      warn: this.warn }).run();
    return { ...result, torn: journal.torn ?? null };
  }
  withJournal(eid, fn) {
    const journal = this.open(eid);
    try {
      const result = fn(journal, fold(journal.events));
      return { ...result, torn: journal.torn ?? null }; // spec: kernel.drive-report
    } finally {
      journal.close();
    }
  }
  start(name, input, eid) {
    const wf = this.workflow(name);
    let journal;
    if (this.store.exists(eid)) {
      journal = this.open(eid);
      if (journal.events.length) {
        journal.close();
        throw new LoomError("kernel.execution-exists", `${eid} has started`);
      }
    } else {
      journal = this.watch(this.store.create(eid, this.fault));
    }
    try {
      journal.append("EXECUTION_STARTED", { executionId: eid, workflow: wf.name, input: input ?? null });
      return this.drive(journal, fold(journal.events));
    } finally {
      journal.close();
    }
  }
  recover(eid) {
    return this.withJournal(eid, (journal, state) => {
      if (state.status === "not-started") throw new LoomError("kernel.not-started", eid);
      // spec: kernel.journaled-workflow -- looked up before anything is appended
      if (state.status === "running" || state.pendingResume) this.workflow(state.workflow);
      if (state.status === "suspended" && state.pendingResume) {
        journal.append("EXECUTION_RESUMED", { gateId: state.waitingGate });
        state = fold(journal.events);
      }
      if (state.status !== "running") return fromState(state);
      return this.drive(journal, state);
    });
  }
  resume(eid, gate, payload) {
    return this.withJournal(eid, (journal, state) => {
      if (state.status !== "suspended" || state.waitingGate !== gate || state.pendingResume) {
        throw new LoomError("kernel.gate-not-waiting", `gate ${gate} is not waiting`);
      }
      // spec: kernel.resume-schema -- the gate's journaled schema and the workflow's
      const suspended = journal.events.findLast((e) => e.kind === "EXECUTION_SUSPENDED");
      const schemas = [suspended.payload.resumeSchema,
        (this.workflow(state.workflow).resumeSchemas || {})[gate]];
      // every problem of both, the gate's own first (kernel.schema-problems)
      const problems = schemas.filter((s) => s !== undefined).flatMap((s) => validate(payload ?? null, s));
      if (problems.length) {
        throw new LoomError("kernel.invalid-resume", `bad payload for ${gate}`, { problems });
      }
      journal.append("RESUME_RECEIVED", { gateId: gate, payload: payload ?? null });
      journal.append("EXECUTION_RESUMED", { gateId: gate });
      return this.drive(journal, fold(journal.events));
    });
  }
  resolve(eid, step, how) {
    // spec: kernel.resolve — exactly one answer (output, error or retry), checked before the
    // journal is read; an error is {code, message}
    const answers = [Object.hasOwn(how, "output"), how.error != null, Boolean(how.retry)];
    if (answers.filter(Boolean).length !== 1) {
      throw new LoomError("argument.invalid", "resolve takes exactly one of output, error or retry");
    }
    if (how.error != null && (typeof how.error !== "object" || typeof how.error.code !== "string"
        || typeof how.error.message !== "string")) {
      throw new LoomError("argument.invalid", "error must be {code, message}");
    }
    return this.withJournal(eid, (journal, state) => {
      if (state.status !== "in-doubt" || state.inDoubtStep !== step) {
        throw new LoomError("kernel.not-in-doubt", `${step} is not in doubt`);
      }
      this.workflow(state.workflow); // spec: kernel.journaled-workflow -- before appending
      if (how.retry) return this.drive(journal, state, step);
      if (how.error) journal.append("STEP_FAILED", { stepId: step, error: how.error });
      else journal.append("STEP_COMPLETED", { stepId: step, output: how.output ?? null });
      return this.drive(journal, fold(journal.events));
    });
  }
  replay(eid) { // spec: kernel.replay-readonly -- no lock, nothing truncated; a torn tail reported
    const drive = this.replayDrive(eid, false, true);
    return { ...drive.run(), torn: drive.torn };
  }
  replayDrive(eid, strict, warnTorn = false) {
    const parsed = this.store.read(eid);
    if (warnTorn && parsed.torn) this.warn(`journal.torn-tail: line ${parsed.torn.line} was torn`);
    const events = parsed.events;
    const state = fold(events);
    if (state.workflow === null) throw new LoomError("kernel.not-started", eid);
    const drive = new Drive({ workflow: this.workflow(state.workflow), events, journal: null,
      effects: this.effects, eid, input: state.input, retryStep: null, warn: this.warn, strict });
    drive.torn = parsed.torn ?? null;
    return drive;
  }
}

function fromState(s) {
  const out = { status: s.status, served: [], ran: [] }; // no drive: nothing served or run
  if (s.status === "completed") out.output = s.output;
  if (s.status === "failed") out.error = s.error;
  if (s.status === "suspended") out.waitingOn = s.waitingGate;
  if (s.status === "in-doubt") out.inDoubtStep = s.inDoubtStep;
  return out;
}
