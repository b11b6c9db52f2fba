/* A tools-only mcpwasm plugin: one `hello` tool. Build: ../build-example.sh */
#define MCPWASM_IMPLEMENTATION
#include "mcpwasm.h"

static mcpwasm_result *hello(const mcpwasm_call *c) {
    const char *name;
    if (!mcpwasm_arg_string(c, "name", &name)) return mcpwasm_error("name must be a string");
    return mcpwasm_textf("Hello, %s!", name);
}

static const mcpwasm_tool tools[] = {
    {.name = "hello", .description = "Greets someone by name", .handler = hello,
     .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"},
};
MCPWASM_TOOLS(tools)
