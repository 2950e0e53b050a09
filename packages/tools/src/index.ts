/**
 * @dsh/tools: the tool seam. A tool is a name, a description, zod parameters and an effectful
 * handler; a `Toolbox` applies an agent's policy, validates arguments, decides every call by the
 * permission rules (`Permissions`, asking through `Asker`) and
 * turns every failure into a result the model can act on.
 */
export * as Asker from "./Asker.ts"
export * as BuiltinToolNames from "./BuiltinToolNames.ts"
export * as Hooks from "./Hooks.ts"
export * as InheritedDisallow from "./InheritedDisallow.ts"
export * as PermissionPolicy from "./PermissionPolicy.ts"
export * as PermissionRule from "./PermissionRule.ts"
export * as Permissions from "./Permissions.ts"
export * as PermissionSubject from "./PermissionSubject.ts"
export * as Tool from "./Tool.ts"
export * as Toolbox from "./Toolbox.ts"
export * as ToolPolicy from "./ToolPolicy.ts"
