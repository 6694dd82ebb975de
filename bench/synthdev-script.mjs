// The scripted answers both engines get on grocery_store_test: the worker answers in words; the customer asks
// for more (the interaction_decision tool, continue_shopping) until it has spoken `rounds` times, then ends.

/**
 * The chat completion answering `messages` (the customer is told apart by its system message). The turn is the
 * conversation's length, or `calls` (the model calls of the run so far) when given: past max_length the
 * context is trimmed, so its length stops counting the rounds.
 */
export function instantReply(messages, rounds, calls) {
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const turn = calls ?? messages.filter((m) => m.role !== 'system').length;
  const customer = system.includes('You are a customer');
  const decision = customer ? { continue_shopping: turn < rounds * 2, continue_message: `And what about item ${turn}?`, shopping_summary: 'Bought what I needed.' } : null;
  const message = decision
    ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'interaction_decision', arguments: JSON.stringify(decision) } }] }
    : { role: 'assistant', content: `We have that in aisle ${turn % 12}, organic too.` };
  return {
    id: `bench-${turn}`,
    object: 'chat.completion',
    created: 0,
    model: 'bench',
    choices: [{ index: 0, finish_reason: decision ? 'tool_calls' : 'stop', message }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

/**
 * troupe's side of the scripted answers: a model giving instantReply's completion as a ChatResponse. byCalls: the
 * turn counted by the model calls since reset() (a copy of the workflow with a small max_length).
 */
export function scriptedModel(rounds, byCalls) {
  let calls = 0;
  return {
    label: 'bench',
    async generate(req) {
      await new Promise((r) => setImmediate(r));
      calls += 1;
      // Loops, not map() and `[]`: the arrays map() made once generate was optimised (and the empty literal) had other
      // maps than the ones its inlined find() and length had seen, and the optimised generate was thrown away twice in
      // every process (--trace-deopt, "wrong map"): the bench's own code, counted as troupe's CPU.
      const wire = [];
      for (const m of req.messages) wire.push({ role: m.role, content: m.content });
      const message = instantReply(wire, rounds, byCalls ? calls : undefined).choices[0].message;
      const toolCalls = [];
      for (const c of message.tool_calls ?? []) toolCalls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments });
      const finishReason = message.tool_calls ? 'tool_calls' : 'stop';
      return { text: message.content ?? '', toolCalls, usage: { promptTokens: 100, completionTokens: 10 }, finishReason, model: 'bench' };
    },
    reset() {
      calls = 0;
    },
  };
}
