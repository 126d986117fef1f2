// neurondbg's debug adapter driven by Microsoft's own DAP test client, as an editor drives
// it. tests/dap/test_node_client.py installs the client and runs this file with
// NEURONDBG_PYTHON (the interpreter) and NEURONDBG_REPO (the checkout) set.
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, beforeEach, test } from "node:test";

import testsupport from "@vscode/debugadapter-testsupport";

const { DebugClient } = testsupport;
const REPO = process.env.NEURONDBG_REPO;
const EXAMPLES = path.join(REPO, "sessions", "examples");
const LOOP = path.join(EXAMPLES, "loop.asm"); // R1 += 3, R2 -= 1 (lines 7, 8) until R2 == 0
const KERNEL = path.join(EXAMPLES, "kernels", "producer_consumer.asm");
const WAIT = 120000; // ms before a missing answer fails a test: generous, the machine is shared

let dc;

beforeEach(async () => {
  dc = new DebugClient(process.env.NEURONDBG_PYTHON, path.join(REPO, "tests", "dap", "node",
    "adapter.py"), "neurondbg", { cwd: REPO });
  dc.defaultTimeout = WAIT;
  await dc.start();
});

afterEach(async () => {
  await dc.stop();
});

async function registers(threadId = 1) {
  const scopes = (await dc.scopesRequest({ frameId: threadId })).body.scopes;
  const ref = scopes.find((s) => s.name === "Registers").variablesReference;
  const vars = (await dc.variablesRequest({ variablesReference: ref })).body.variables;
  return { ref, values: Object.fromEntries(vars.map((v) => [v.name, v.value])) };
}

// a request and the `stopped` event it causes (the listener is set before the request)
async function andStop(request) {
  const [, stopped] = await Promise.all([request(), dc.waitForEvent("stopped")]);
  return stopped.body;
}

test("source breakpoint, variables, setVariable, stepping both ways, evaluate", async () => {
  await dc.hitBreakpoint({ program: LOOP }, { path: LOOP, line: 8 });
  let regs = await registers();
  assert.equal(regs.values.R1, "0x00000003 (3)");
  const set = await dc.setVariableRequest({ variablesReference: regs.ref, name: "R2", value: "4" });
  assert.equal(set.body.value, "0x00000004 (4)");
  await andStop(() => dc.stepBackRequest({ threadId: 1 })); // undoes the edit
  assert.equal((await registers()).values.R2, "0x0000000a (10)");
  await andStop(() => dc.nextRequest({ threadId: 1 }));
  await andStop(() => dc.stepInRequest({ threadId: 1 }));
  let frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
  assert.equal(frame.line, 7); // the branch went back to the loop's first line
  await andStop(() => dc.stepBackRequest({ threadId: 1 }));
  frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
  assert.equal(frame.line, 10);
  dc.assertPath(frame.source.path, LOOP);
  const value = await dc.evaluateRequest({ expression: "R1 * 2 + R2", frameId: 1 });
  assert.equal(value.body.result, "15 (0xf)");
  const repl = await dc.evaluateRequest({ expression: "set R5 = 7", frameId: 1, context: "repl" });
  assert.equal(repl.body.result, "R5 = 7 (0x00000007)");
  const back = await andStop(() => dc.reverseContinueRequest({ threadId: 1 }));
  assert.equal(back.reason, "breakpoint"); // the line 8 breakpoint, run into backwards
  regs = await registers();
  assert.equal(regs.values.R1, "0x00000003 (3)");
});

test("function, hit-count, log, instruction and data breakpoints", async () => {
  await Promise.all([dc.launch({ program: LOOP }), dc.waitForEvent("initialized")]);
  const fn = await dc.setFunctionBreakpointsRequest({
    breakpoints: [{ name: "loop", hitCondition: "== 3" }],
  });
  assert.ok(fn.body.breakpoints[0].verified);
  const log = await dc.setBreakpointsRequest({
    source: { path: LOOP }, breakpoints: [{ line: 8, logMessage: "R2 is {R2}" }],
  });
  assert.ok(log.body.breakpoints[0].verified);
  const logged = dc.assertOutput("console", "R2 is 10\nR2 is 9\n");
  let stop = await andStop(() => dc.configurationDoneRequest());
  await logged;
  assert.equal(stop.reason, "function breakpoint");
  assert.equal((await registers()).values.R1, "0x00000006 (6)"); // the third pass
  await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  await dc.setBreakpointsRequest({ source: { path: LOOP }, breakpoints: [] });
  const ib = await dc.customRequest("setInstructionBreakpoints", {
    breakpoints: [{ instructionReference: "0xc0" }],
  });
  assert.ok(ib.body.breakpoints[0].verified);
  stop = await andStop(() => dc.continueRequest({ threadId: 1 }));
  assert.equal(stop.reason, "instruction breakpoint");
  await dc.customRequest("setInstructionBreakpoints", { breakpoints: [] });
  const { ref } = await registers();
  const info = await dc.dataBreakpointInfoRequest({ name: "R1", variablesReference: ref });
  assert.equal(info.body.dataId, "R1");
  await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: "R1" }] });
  stop = await andStop(() => dc.continueRequest({ threadId: 1 }));
  assert.equal(stop.reason, "data breakpoint");
  assert.equal((await registers()).values.R1, "0x0000000c (12)"); // the fourth ADD
});

test("disassemble and readMemory", async () => {
  await Promise.all([dc.launch({ program: LOOP, stopOnEntry: true }),
    dc.configurationSequence(), dc.assertStoppedLocation("entry", { path: LOOP, line: 5 })]);
  const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
  const dis = await dc.disassembleRequest({
    memoryReference: frame.instructionPointerReference, instructionOffset: -1,
    instructionCount: 3,
  });
  const insts = dis.body.instructions;
  assert.deepEqual(insts.map((i) => i.address), ["-64", "0x0", "0x40"]);
  assert.equal(insts[0].presentationHint, "invalid");
  assert.match(insts[1].instruction, /^MOVE/);
  const written = await dc.customRequest("writeMemory", {
    memoryReference: "sbuf[2]", offset: 4, data: Buffer.from([1, 2, 3]).toString("base64"),
  });
  assert.equal(written.body.bytesWritten, 3);
  const read = await dc.customRequest("readMemory", { memoryReference: "sbuf[2]", count: 8 });
  assert.match(read.body.address, /^0x[0-9a-f]+$/);
  assert.deepEqual([...Buffer.from(read.body.data, "base64")], [0, 0, 0, 0, 1, 2, 3, 0]);
});

test("a kernel's threads are its engines; terminate ends the session", async () => {
  const caps = dc.waitForEvent("capabilities");
  await Promise.all([dc.launch({ program: KERNEL, stopOnEntry: true }),
    dc.configurationSequence(), dc.waitForEvent("stopped")]);
  const filters = (await caps).body.capabilities.exceptionBreakpointFilters;
  assert.deepEqual(filters.map((f) => f.filter), ["race", "wait"]);
  const threads = (await dc.threadsRequest()).body.threads;
  assert.deepEqual(threads.map((t) => t.name), ["pool", "dve"]);
  const frame = (await dc.stackTraceRequest({ threadId: 2 })).body.stackFrames[0];
  dc.assertPath(frame.source.path, KERNEL);
  await Promise.all([dc.terminateRequest(), dc.waitForEvent("terminated")]);
  const refused = dc.continueRequest({ threadId: 1 });
  await assert.rejects(refused, /terminated/);
});
