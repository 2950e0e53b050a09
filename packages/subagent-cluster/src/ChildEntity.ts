import { AgentDefinition } from "@dsh/agent"
import { Events, Usage } from "@dsh/core"
import { Records } from "@dsh/subagent"
import { PermissionPolicy } from "@dsh/tools"
import { Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"

/** How a hosted run ended: what the parent's provider returns. */
export const OutcomeRecord = Schema.Struct({
  status: Events.RunStatus,
  output: Schema.String,
  usage: Usage.Usage,
  notes: Schema.optional(Schema.String)
})
export type OutcomeRecord = typeof OutcomeRecord.Type

/**
 * One run of a child (its start, or a continuation with a message), persisted in the
 * cluster's message storage: delivered to whichever runner owns the child's shard, delivered
 * again after that runner dies, and deduplicated by `runId` (a resend of the same run attaches
 * to it instead of running it twice).
 */
export const Run = Rpc.make("Run", {
  payload: {
    sessionId: Schema.String,
    handle: Schema.String,
    runId: Schema.String,
    /** The child's agent type: its name, the provider that runs it on the runner, its definition. */
    agent: Schema.String,
    provider: Schema.String,
    // The whole definition: the child's own hooks, its `isolation` and the `subagentDefaults` it
    // gives its children hold on the runner as in process.
    definition: AgentDefinition.AgentDefinition,
    prompt: Schema.String,
    description: Schema.String,
    model: Schema.optional(Schema.String),
    /** The model the admitting process chose for the child (`provider:model`); default the parent's. */
    childModel: Schema.optional(Schema.String),
    thinking: Schema.optional(Records.ThinkingLevel),
    resultSchema: Schema.optional(Schema.Record(Schema.String, Schema.Unknown)),
    /** Continue the child with this message instead of starting it. */
    message: Schema.optional(Schema.String),
    /** The admitting process's permission rules: the runner decides the child by its own narrowed by these. */
    permissions: Schema.optional(Schema.Array(PermissionPolicy.PermissionSettings)),
    /** The disallowedTools of the child's ancestors (`InheritedDisallowedTools`): they bind it and its subtree. */
    inheritedDisallowedTools: Schema.optional(Schema.Array(Schema.String)),
    continuation: Schema.optional(Schema.Unknown),
    /** The admitting call's W3C trace context: the run's spans on the runner join its trace. */
    traceparent: Schema.optional(Schema.String),
    parent: Schema.Struct({
      handle: Schema.String,
      depth: Schema.Number,
      cwd: Schema.String,
      /** The parent's model spec: the child's model when neither request nor type names one. */
      model: Schema.String,
      definition: AgentDefinition.AgentDefinition
    })
  },
  success: OutcomeRecord,
  primaryKey: (p) => p.runId
}).annotate(ClusterSchema.Persisted, true)
  // A runner shutting down hands the run over at once: it resumes on the next owner.
  .annotate(ClusterSchema.InterruptOnTermination, true)

/** A message for the child while it runs; `false` when it is not running on its runner any more. */
export const Deliver = Rpc.make("Deliver", {
  payload: { sessionId: Schema.String, handle: Schema.String, message: Schema.String },
  success: Schema.Boolean
})

/**
 * Stops the child and every descendant its runner holds (their own runners are reached in
 * turn, each stopped child stopping its own children); returns the handles stopped there.
 */
export const Stop = Rpc.make("Stop", {
  payload: { sessionId: Schema.String, handle: Schema.String },
  success: Schema.Array(Schema.String)
})

/**
 * A child of a dsh session, as a cluster entity keyed `<sessionId>/<handle>`: at most one
 * activation across the cluster, on the runner that owns its shard.
 */
export const ChildEntity = Entity.make("dsh/Child", [Run, Deliver, Stop])

/** The entity id of a session's child. */
export const childEntityId = (sessionId: string, handle: string): string => `${sessionId}/${handle}`
