/** Why a persona of the team has the turn: the brief, a handoff, a rework, a detour, the user's word, a consultation. */
export type TeamInbox =
  | { kind: 'brief'; text: string }
  | { kind: 'handoff'; from: string; text: string; approved: boolean }
  | { kind: 'rework'; from: string; reason: string; byUser: boolean }
  | { kind: 'detour'; from: string; text: string; reason: string }
  | { kind: 'detour_return'; from: string; text: string }
  | { kind: 'user_requested'; text: string }
  | { kind: 'interjection'; text: string }
  | { kind: 'consult'; from: string; text: string }
  | { kind: 'consult_answer'; from: string; text: string }
  | { kind: 'user_reply'; text: string }
  | { kind: 'continue'; text: string };

declare module '../engine/inbox.js' {
  interface PolicyInboxes {
    team: TeamInbox;
  }
}
