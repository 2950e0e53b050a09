/**
 * @dsh/tools: the tool seam. A tool is a name, a description, zod parameters and an effectful
 * handler; a `Toolbox` applies an agent's policy, validates arguments, asks for approval and
 * turns every failure into a result the model can act on.
 */
export * from "./Approval.ts"
export * from "./Tool.ts"
export * from "./Toolbox.ts"
export * from "./ToolPolicy.ts"
