import { describe, expect, it } from 'vitest';
import { inspect } from '../../src/commands/inspect.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { loadPriceTable } from '../../src/usage/price-table.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const at = (seq: number, e: Record<string, unknown>) => ({ session_id: 's', seq, at: seq, ...e }) as unknown as TroupeEvent;

describe('!branches', () => {
  it('names the workspace of each branch that ran tools (issue 25: deliverables are hard to find)', () => {
    const plan = loadWorkflowOrThrow('implement_review_debate', { cwd: REPO_ROOT, team: studio().loaded });
    const def = compileWorkflow(plan);
    const events = [
      at(1, { type: 'tool_call', turn_id: 't1', persona: 'lead_engineer', tool: 'write_file', summary: 'add.js', phase: 'finished', ok: true, branch: 'impl_a' }),
      at(2, { type: 'joined', state: 'implement', done: ['impl_a', 'impl_b'], failed: [], outcome: 'continue' }),
    ];
    const usage = sessionUsage(new UsageMeter(loadPriceTable({})));
    const { lines } = inspect('branches', { def, session: initialState(def, { id: 's', mode: 'fsm' }), events, usage, workspaceRoot: '/data/runs/s' });
    expect(lines).toContain('  impl_a · files in /data/runs/s/workspaces/impl_a');
    // impl_b ran no tool: it has no workspace to name.
    expect(lines.some((l) => l.includes('workspaces/impl_b'))).toBe(false);
  });
});
