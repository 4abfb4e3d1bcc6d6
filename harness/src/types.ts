/** Shared result types of the harness. */
import type { JsonValue } from "./proto";

/** What happened to one resource in a run. */
export type StepOp = "create" | "same" | "update" | "replace" | "delete" | "refresh" | "read" | "import";

/** One recorded step, in the order the harness applied it. */
export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  /** True for steps of a preview (no Create/Update/Delete was sent). */
  preview: boolean;
  /** ID after the step (create/update/same/replace/read/refresh). */
  id?: string;
  /** ID of the resource before the step (replace: the old one; delete: the deleted one). */
  oldId?: string;
  /** Top-level input keys that changed (update/replace), when known. */
  diffs?: string[];
  /** Keys that forced a replacement. */
  replaceKeys?: string[];
  /** replace: the old resource was deleted before the new one was created. */
  deleteBeforeReplace?: boolean;
  /** delete: this deletes the old half of a replacement. */
  replaced?: boolean;
  /** refresh: the provider reported the resource gone, so it left the state. */
  gone?: boolean;
  /** refresh: inputs or outputs changed. */
  changed?: boolean;
  /** Reasons from a partial failure (`ErrorResourceInitFailed`). */
  initErrors?: string[];
  /** The step failed with this message. */
  error?: string;
}

/** A message from the engine, the program, or one of the child processes. */
export interface Diagnostic {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  urn?: string;
  /** engine: the harness; program: `pulumi.log`/uncaught errors via Engine.Log; the rest: raw output lines. */
  source: "engine" | "program" | "program-stdout" | "program-stderr" | "provider-stdout" | "provider-stderr";
}

/** A stack output, as the Automation API reports it. */
export interface OutputValue {
  value: JsonValue;
  secret: boolean;
}

/** Result of `preview`/`up`/`refresh`/`destroy`. */
export interface RunResult {
  steps: Step[];
  /** Stack outputs after the run (preview: the planned ones, unknowns as the unknown sentinel). */
  outputs: Record<string, OutputValue>;
  diagnostics: Diagnostic[];
  /** Set when the run failed: provider errors, check failures, program errors. */
  error?: string;
  /** Exit code of the language host (preview/up only). */
  exitCode?: number | null;
  durationMs: number;
}
