// A servlet-style plugin built with @extism/as-pdk only: it exports
// `describe` (a ListToolsResult) and `call` (input {"params": CallToolParams},
// output a CallToolResult), the convention mcp.run servlets and hyper-mcp v1
// plugins follow. mcpwasm must load and call it unchanged.
import { Host } from "@extism/as-pdk";
import { error_set } from "@extism/as-pdk/lib/env";
import { Memory } from "@extism/as-pdk";

export function myAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  error_set(Memory.allocateString("abort: " + (message !== null ? message : "")).offset);
  unreachable();
}

export function describe(): i32 {
  Host.outputString(
    '{"tools":[{"name":"shout","description":"Upper-cases params.arguments.text (ASCII).",' +
      '"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}',
  );
  return 0;
}

// call finds "text":"..." in the input without a JSON library: the fixture
// is about the calling convention, not about parsing.
export function call(): i32 {
  const input = Host.inputString();
  if (!input.startsWith('{"params":')) {
    error_set(Memory.allocateString("expected the legacy {\"params\": ...} envelope").offset);
    return 1;
  }
  const key = '"text":"';
  const at = input.indexOf(key);
  if (at < 0) {
    error_set(Memory.allocateString("no text argument").offset);
    return 1;
  }
  const start = at + key.length;
  const end = input.indexOf('"', start);
  const text = input.substring(start, end).toUpperCase();
  Host.outputString('{"content":[{"type":"text","text":"' + text + '"}]}');
  return 0;
}
