/**
 * @dsh/tools: the tool seam. A tool is a name, a description, zod parameters and an effectful
 * handler; a `Toolbox` applies an agent's policy, validates arguments, decides every call by the
 * permission rules (`Permissions`, asking through `Asker`) and
 * turns every failure into a result the model can act on.
 */
export * from "./Asker.ts"
export * from "./BuiltinToolNames.ts"
export * from "./Hooks.ts"
export * from "./InheritedDisallow.ts"
export * from "./PermissionPolicy.ts"
export * from "./PermissionRule.ts"
export * from "./Permissions.ts"
export * from "./PermissionSubject.ts"
export * from "./Tool.ts"
export * from "./Toolbox.ts"
export * from "./ToolPolicy.ts"
