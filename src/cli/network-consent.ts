import type { NetworkGrant } from '../session/plan-grants.js';
import type { CliIo } from './io.js';
import { answer } from './replay-guard.js';

/**
 * The user's consent to a workflow agent's network (openSession's allowNetwork): given by --allow-network, or,
 * on a terminal, by answering yes to one question naming the agent; otherwise none (the session is refused in one line).
 */
export function networkConsent(allowNetwork: boolean, io: CliIo, interactive: boolean): boolean | ((grant: NetworkGrant) => Promise<boolean>) {
  if (allowNetwork || !interactive) return allowNetwork;
  return async (grant) => {
    const reply = await answer(
      io,
      `${grant.source}: agent ${grant.agent}'s commands ask for the network (command_policy "network": true): the internet and this machine's local services.\nLet them? [y/N] `,
    );
    return /^\s*y(es)?\s*$/i.test(reply);
  };
}
