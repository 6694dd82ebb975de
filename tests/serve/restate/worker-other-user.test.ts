import { afterEach, describe, expect, it } from 'vitest';
import type { RunningWorker } from '../../../src/serve/restate/worker.js';
import { tempDirPerTest } from '../../helpers/temp-dir.js';
import { workerHere } from '../../helpers/workers.js';
import { nodeScriptAs } from '../../helpers/node-as-user.js';

// probe16: a worker without identity keys listens on loopback only, and answered every user of the machine there: one
// who speaks Restate's protocol to it hands it the session's state (the plan of a workflow with its grants, the
// session's id its workspaces go under) and has it run turns on this user's API key. As `troupe serve` without a
// token (tests/serve/other-local-user.test.ts), it answers only its own user and root.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const temp = tempDirPerTest('troupe-worker-user-');
let worker: RunningWorker | null = null;
const logged: string[] = [];
afterEach(async () => {
  await worker?.close();
  worker = null;
  logged.length = 0;
});

async function started(): Promise<string> {
  worker = await workerHere(temp(), { log: (line) => logged.push(line) });
  return worker.url;
}

/** Restate's discovery request to the worker, made by a Node process running as `uid`: the status and the start of the body, or how it failed. */
function discoverAs(uid: number, url: string): Promise<string> {
  const script = `
    const s = require('node:http2').connect(${JSON.stringify(url)});
    s.on('error', (e) => { console.log('failed', e.code); process.exit(0); });
    const r = s.request({ ':method': 'GET', ':path': '/discover', accept: 'application/vnd.restate.endpointmanifest.v4+json' });
    let status = 0, body = '';
    r.on('response', (h) => { status = h[':status']; });
    r.on('data', (d) => { body += d; });
    r.on('close', () => { console.log(status || 'closed ' + r.rstCode, body.slice(0, 120)); s.close(); });
    r.on('error', () => {});
    r.end();`;
  return nodeScriptAs(uid, script);
}

describe.skipIf(!asRoot)('a Restate worker without identity keys answers only its own user', () => {
  it("another user's request is refused (403, one line), this user's and root's are answered", async () => {
    const url = await started();
    const other = await discoverAs(NOBODY, url);
    expect(other).toMatch(/^403 this worker has no identity keys, so it answers only its own user \(uid 0\), not uid 65534/);
    expect(await discoverAs(0, url)).toMatch(/^200 \{"minProtocolVersion":5/);
    expect(logged.join('\n')).toMatch(/refused a request of uid 65534: .*TROUPE_RESTATE_IDENTITY_KEYS/);
  });
});
