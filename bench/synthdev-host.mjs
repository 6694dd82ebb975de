// grocery_store_test's five script.js handlers as host functions (no sandbox, no isolation): the floor under
// troupe's sandbox on SynthDev's workflow, what a state costs in troupe outside the sandbox job (the policy's
// step, the engine, events, the effect runner, the journal). Used by bench/synthdev-troupe.mjs's `host` mode.

const CONTEXT = 'store_conversation';

/** The decision the customer's interaction_decision tool call carries (SynthDev's handlers parse it the same way). */
function decisionOf(self) {
  const call = (self.last_response?.tool_calls ?? []).find((c) => c.name === 'interaction_decision');
  if (!call) return null;
  try {
    return JSON.parse(call.arguments);
  } catch {
    return null;
  }
}

/** script.js's handlers over the scope: they change `self.common_data` and add messages to `self.added`. */
const HANDLERS = {
  addInitialCustomerMessage(self) {
    if (self.common_data.initial_customer_request) self.added.push({ role: 'user', content: self.common_data.initial_customer_request });
  },
  addWorkerResponse(self) {
    const content = self.last_response?.content;
    if (content) self.added.push({ role: 'assistant', content });
  },
  alwaysTransitionToCustomer: () => 'customer_decision',
  processCustomerDecision(self) {
    const decision = decisionOf(self);
    if (decision?.continue_shopping === true && decision.continue_message) self.added.push({ role: 'user', content: decision.continue_message });
    else if (decision?.continue_shopping === false && decision.shopping_summary) self.common_data.interaction_summary = decision.shopping_summary;
  },
  decideNextState: (self) => (decisionOf(self)?.continue_shopping === true ? 'worker_response' : 'stop'),
};

/** One part (a handler, or transitions with handler conditions) against the scope and common_data it starts from. */
function runPart(part, scope, commonData) {
  const self = { common_data: structuredClone(commonData), last_response: scope.last_response, added: [] };
  const call = (code) => {
    const handler = code.kind === 'handler' ? HANDLERS[code.name] : undefined;
    if (!handler) throw new Error(`host floor: no handler for ${JSON.stringify(code)}`);
    return handler(self);
  };
  const value = part.transitions ? part.transitions.findIndex((t) => !t.condition || call(t.condition) === true) : part.code ? call(part.code) : undefined;
  return { ok: true, value, common_data: self.common_data, ...(self.added.length ? { appended: { [CONTEXT]: self.added } } : {}) };
}

/** The chain as the sandbox runs it: each part from what the one before left; what follows by the value it gave. */
function chain(step, scope, commonData) {
  const result = runPart(step, scope, commonData);
  const chosen = step.transitions ? step.transitions[result.value]?.target : typeof result.value === 'string' ? result.value : undefined;
  const following = step.next ?? (chosen !== undefined ? step.targets?.[chosen] : undefined);
  return following ? { ...result, next: chain(following, scope, result.common_data) } : result;
}

/** An Evaluator running grocery_store_test's handlers in the host. */
export const hostEvaluator = {
  async evaluate(evaluation) {
    return chain(evaluation, evaluation.scope, evaluation.scope.common_data);
  },
  async close() {},
};
