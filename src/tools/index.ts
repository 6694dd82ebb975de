/** Agent tools confined to a workspace, the tool loop that runs them, and workspaces with their diffs. */
export { createToolset, TOOL_NAMES, type Toolset, type ToolsetOptions, type ToolOutcome, type ToolName } from './toolset.js';
export { runToolLoop, outOfStepsNote, type ToolLoopOptions, type ToolLoopResult, type ToolLoopStop, type ToolEvent, type ToolStep } from './tool-loop.js';
export { commandPolicyOf, describePolicy, type CommandPolicy, type Approver } from './command-policy.js';
export { DEFAULT_TOOL_LIMITS, type ToolLimits } from './limits.js';
export { ToolError, type ToolResult } from './tool.js';
export { listWorkspaces } from './workspace-list.js';
export { createWorkspace, openWorkspace, changesSince, removeWorkspace, type CreateWorkspaceOptions } from './workspace.js';
export { WorkspaceSchema, type Workspace } from './workspace-record.js';
export { diffSnapshots, DEFAULT_DIFF_LIMITS, type DiffLimits } from './workspace-diff.js';
export { takeSnapshot, type Snapshot, type SnapshotLimits } from './workspace-snapshot.js';
export { TurnUndo, type Restored } from './turn-undo.js';
export { undoStoreOf, dropUndoLogs } from './undo-store.js';
