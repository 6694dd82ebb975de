/** troupe as a library: open a session on a team, steer it, watch its events. Test models are in `troupe/testing`. */

// Sessions: the one way to run a team.
export { openSession, type OpenSessionOptions } from './session/open-session.js';
export { TroupeSession, type Detach } from './session/troupe-session.js';
export { SessionKernel, SessionSaveError, type SessionListener } from './kernel/session-kernel.js';
export { foldJournal } from './session/fold.js';

// The kernel's ports and the assembly every backend shares (a new backend implements the ports).
export type { JournalPort, JournalSources, EffectPort, StepRunner } from './kernel/ports.js';
export { directSteps } from './kernel/ports.js';
export { assembleSession, type SessionAssembly, type AssembledSession } from './session/assemble.js';
export { teamKind, type SessionKind, type Tiers } from './session/session-kind.js';
export { workflowKind } from './session/workflow-kind.js';

// What flows in and out of a session.
export { EngineInputSchema, EVENT_PAYLOADS, EVENT_NAMES, SessionStateSchema } from './kinds/schemas.js';
export type { EngineInput, PolicyInputs } from './engine/input-events.js';
export type { TroupeEvent, TroupeEventMap, TroupeEventName, EngineEvent, PolicyEventMap } from './engine/event-map.js';
export type { SessionState, CoreState, PolicySlots, Mode } from './engine/session.js';
export { DirectiveSchema, DIRECTIVE_TOOL_NAME, TRANSITIONS, type Directive } from './directive/schema.js';
export { executeLine, parseLine, type LineHost, type LineOutcome, type ParsedLine } from './commands/index.js';

// The pure core, for tools and tests that step a definition by hand.
export { step, initialState, type StepResult } from './engine/step.js';
export type { MachineDefinition, AgentState } from './engine/definition.js';
export { arbitrate, scoreOf } from './arbiter/arbitrate.js';
export type { Decision, Proposal, ScoredProposal, Criteria } from './arbiter/proposal.js';

// Declarative workflows from code: load, validate, run (SynthDev's WorkflowStateMachine shape too).
export { loadWorkflowPlan, validateWorkflow, runWorkflow, WorkflowStateMachine } from './session/run-workflow.js';
export type { WorkflowApiOptions, WorkflowValidation, RunWorkflowOptions, WorkflowRunResult } from './session/run-workflow.js';
export type { WorkflowPlan } from './workflow/run/plan.js';

// Teams.
export { openTeam, type OpenTeam } from './team/open-team.js';
export { loadTeam, loadTeamOrThrow, type LoadedTeam } from './config/load-team.js';
export { compileTeam } from './team/compile-team.js';
export { PersonaSchema, type Persona } from './config/persona-schema.js';
export { TeamSchema, type Team } from './config/team-schema.js';
export { ConfigError, formatIssue, type ConfigIssue } from './config/issues.js';

// Models.
export type { ChatModel, ChatRequest, ChatResponse, ChatMessage, ChatDelta, Usage, ToolCall } from './llm/chat-model.js';
export { OpenAIChatModel } from './llm/openai-model.js';
export { DemoModel } from './llm/demo-model.js';
export { modelFromEnv } from './llm/from-env.js';
export { RecordingModel } from './llm/recording.js';
export { ReplayModel } from './llm/replay-model.js';

// Agent tools, the tool loop, workspaces.
export { createToolset, runToolLoop, createWorkspace, openWorkspace, changesSince, removeWorkspace, commandPolicyOf } from './tools/index.js';
export { formatImplementationsForReview } from './workflow/run/review-format.js';
export type { Toolset, ToolsetOptions, ToolLoopOptions, ToolLoopResult, ToolEvent, CommandPolicy, Workspace } from './tools/index.js';

// Stores.
export { LowdbStore } from './store/lowdb-store.js';
export { MemoryStore } from './store/memory-store.js';
export { dataDirFrom, type Store } from './store/store.js';

// Reports.
export { eventLines, eventJson, renderShow, renderMarkdown, transcriptOf, decisionLine, displayFold, displayStep, displayNames, DISPLAY_START, SILENT_EVENTS } from './report/index.js';
export type { DisplayItem, DisplayNames, DisplayState } from './report/index.js';

// Usage.
export { UsageMeter } from './usage/usage-meter.js';
export { formatUsageSummary } from './usage/summary.js';
export { sessionUsage, usageView, type SessionUsage } from './usage/session-usage.js';
export { formatCost, formatTokens } from './usage/format.js';

// State warming: who speaks next (pure), and what a session learned.
export { predictNext, PREDICTION_WEIGHTS, type Prediction, type PredictInput } from './warming/predict.js';
export { TransitionCounts, countTransitions } from './warming/transitions.js';

// Errors.
export { TroupeError, UserError, ModelError } from './errors.js';
export { ModelCallError, AbortedError } from './llm/errors.js';
