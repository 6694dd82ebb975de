/** The most persona turns a session may be given (--max-turns, team.json limits.max_turns; what a stored session file accepts). */
export const MAX_TURNS = 1_000_000;
