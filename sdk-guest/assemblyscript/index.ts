// Package entry: AssemblyScript resolves "@mcpwasm/sdk" to this file.
export * from "./assembly/index";
