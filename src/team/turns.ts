import { parseDirective, stripDirectiveJson } from '../directive/parse.js';
import { directiveToolRequest } from '../directive/tool.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { TurnShaper } from '../kernel/turn-shaper.js';
import type { PromptBuilder } from '../memory/prompt-builder.js';

/** Team turns: the prompt builder's messages, the handoff directive tool, the directive parsed from the answer; a prompt's head for warming. */
export function teamTurns(def: MachineDefinition, prompt: PromptBuilder, prompts: Record<string, string>): TurnShaper {
  return {
    request(call, session, persona) {
      const messages = prompt.build({ def, session, call, persona, personaPrompt: prompts[persona.id] ?? '' });
      const allowed = def.agents.filter((a) => a.id !== persona.id && (!persona.allowed || persona.allowed.has(a.id))).map((a) => a.id);
      return {
        messages,
        ...directiveToolRequest(call),
        meta: { purpose: 'persona', persona: persona.id, personaName: persona.name, inbox: call.inbox.kind, brief: session.brief, turnId: call.turnId, handoffTo: allowed },
      };
    },
    prefix(session, persona) {
      if (!prompt.prefixMessages) return null;
      const messages = prompt.prefixMessages({ def, session, persona, personaPrompt: prompts[persona.id] ?? '' });
      return { messages, ...directiveToolRequest({}), meta: { purpose: 'persona', persona: persona.id, personaName: persona.name, brief: session.brief } };
    },
    result(call, response) {
      const directive = parseDirective(response);
      const text = directive.ok && directive.source === 'text' ? stripDirectiveJson(response.text) : response.text;
      return { type: 'agent_completed', turnId: call.turnId, text, directive };
    },
  };
}
