/* The SDK parity plugin (testdata/SDK-PARITY.md), written with the C guest
 * SDK's public API only (sdk-guest/c/mcpwasm.h). host/server/sdk_parity_test.go
 * drives it. */
#define MCPWASM_IMPLEMENTATION
#include "mcpwasm.h"

#include <string.h>

#define LANG "c"
#define OBJECT "{\"type\":\"object\"}"

static mcpwasm_result *greet(const mcpwasm_call *c) {
    const char *name;
    if (!mcpwasm_arg_string(c, "name", &name) || !*name) return mcpwasm_error("name is required");
    return mcpwasm_textf("Hello, %s!", name);
}

static mcpwasm_result *report(const mcpwasm_call *c) {
    int64_t steps;
    if (!mcpwasm_arg_int(c, "steps", &steps)) return mcpwasm_error("steps must be an integer");
    for (int64_t i = 1; i <= steps; i++) {
        mcpwasm_progress((double)i, (double)steps, mcpwasm_format("step %lld", (long long)i));
    }
    mcpwasm_writer data = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&data);
    mcpwasm_w_key(&data, "steps"); mcpwasm_w_int(&data, steps);
    mcpwasm_w_object_end(&data);
    mcpwasm_log("info", "parity", mcpwasm_w_text(&data));

    mcpwasm_writer out = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&out);
    mcpwasm_w_key(&out, "lang"); mcpwasm_w_string(&out, LANG);
    mcpwasm_w_key(&out, "steps"); mcpwasm_w_int(&out, steps);
    mcpwasm_w_key(&out, "plugin"); mcpwasm_w_string(&out, mcpwasm_call_plugin(c));
    mcpwasm_w_key(&out, "greeting"); mcpwasm_w_string(&out, mcpwasm_config("greeting")); /* NULL → null */
    mcpwasm_w_object_end(&out);
    return mcpwasm_json_result(mcpwasm_w_text(&out));
}

static mcpwasm_result *pixel(const mcpwasm_call *c) {
    (void)c;
    static const unsigned char png[] = {0x89, 0x50, 0x4E, 0x47};
    return mcpwasm_image(png, sizeof png, "image/png");
}

static mcpwasm_result *ask(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_json answer;
    const char *err;
    if (!mcpwasm_sample("ping", 16, &answer, &err)) return mcpwasm_errorf("sampling unavailable: %s", err);
    const char *text = mcpwasm_json_get_string(mcpwasm_json_get(answer, "content"), "text");
    return mcpwasm_textf("model said: %s", text ? text : "");
}

static mcpwasm_result *elicit(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_json answer;
    const char *err;
    if (!mcpwasm_elicit("Your name?", "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}", &answer, &err))
        return mcpwasm_errorf("elicitation unavailable: %s", err);
    const char *action = mcpwasm_json_get_string(answer, "action");
    const char *name = mcpwasm_json_get_string(mcpwasm_json_get(answer, "content"), "name");
    return mcpwasm_textf("%s %s", action ? action : "", name ? name : "");
}

static mcpwasm_result *roots(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_json answer, root;
    const char *err;
    if (!mcpwasm_list_roots(&answer, &err)) return mcpwasm_errorf("roots unavailable: %s", err);
    mcpwasm_writer text = MCPWASM_WRITER_INIT; /* used as a plain text buffer */
    mcpwasm_json_iter it = {0};
    for (int i = 0; mcpwasm_json_next(mcpwasm_json_get(answer, "roots"), &it, NULL, &root); i++) {
        const char *uri = mcpwasm_json_get_string(root, "uri");
        if (i) mcpwasm_w_raw(&text, ",", 1);
        mcpwasm_w_raw(&text, uri ? uri : "", uri ? strlen(uri) : 0);
    }
    return mcpwasm_text(mcpwasm_w_text(&text));
}

static mcpwasm_result *touch(const mcpwasm_call *c) {
    const char *uri;
    if (!mcpwasm_arg_string(c, "uri", &uri)) return mcpwasm_error("uri is required");
    mcpwasm_notify_resource_updated(uri);
    return mcpwasm_textf("touched %s", uri);
}

static mcpwasm_result *changed(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_notify_tool_list_changed();
    mcpwasm_notify_resource_list_changed();
    mcpwasm_notify_prompt_list_changed();
    mcpwasm_notify_url_elicitation_completed("el-parity");
    return mcpwasm_text("changed");
}

static mcpwasm_result *crash(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_panic("crash on purpose");
}

static const mcpwasm_tool tools[] = {
    {.name = "greet", .description = "Greets someone by name", .title = "Greeter", .handler = greet,
     .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}"},
    {.name = "report", .description = "Reports progress and logs, then returns JSON", .handler = report,
     .input_schema = "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\"}},\"required\":[\"steps\"]}"},
    {.name = "pixel", .description = "Returns a four-byte image", .input_schema = OBJECT, .handler = pixel,
     .annotations = "{\"readOnlyHint\":true}"},
    {.name = "ask", .description = "Asks the client's model", .input_schema = OBJECT, .handler = ask},
    {.name = "elicit", .description = "Asks the user for a name", .input_schema = OBJECT, .handler = elicit},
    {.name = "roots", .description = "Lists the client's roots", .input_schema = OBJECT, .handler = roots},
    {.name = "touch", .description = "Notifies that a resource changed", .handler = touch,
     .input_schema = "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\"}},\"required\":[\"uri\"]}"},
    {.name = "changed", .description = "Notifies that every list changed", .input_schema = OBJECT, .handler = changed},
    {.name = "crash", .description = "Crashes on purpose", .input_schema = OBJECT, .handler = crash},
};
MCPWASM_TOOLS(tools)

static mcpwasm_contents *about(const mcpwasm_read *r) {
    return mcpwasm_read_text(r->uri, "text/plain", "parity plugin in " LANG);
}

static mcpwasm_contents *blob(const mcpwasm_read *r) {
    static const unsigned char bytes[] = {0, 1, 2, 3};
    return mcpwasm_read_blob(r->uri, "application/octet-stream", bytes, sizeof bytes);
}

static mcpwasm_contents *item(const mcpwasm_read *r) {
    const char *id = mcpwasm_vars_get(&r->vars, "id");
    if (!id || (strcmp(id, "1") && strcmp(id, "2") && strcmp(id, "3"))) return mcpwasm_read_error("item not found: %s", r->uri);
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "id"); mcpwasm_w_string(&w, id);
    mcpwasm_w_object_end(&w);
    return mcpwasm_read_text(r->uri, "application/json", mcpwasm_w_text(&w));
}

static const mcpwasm_resource resources[] = {
    {.uri = "parity://about", .name = "about", .mime_type = "text/plain", .handler = about},
    {.uri = "parity://blob", .name = "blob", .mime_type = "application/octet-stream", .handler = blob},
};
static const mcpwasm_resource templates[] = {
    {.uri = "parity://items/{id}", .name = "item", .mime_type = "application/json", .handler = item},
};
MCPWASM_RESOURCES(resources, MCPWASM_LEN(resources), templates, MCPWASM_LEN(templates))

static mcpwasm_messages *review(const mcpwasm_prompt_req *r) {
    const char *code = mcpwasm_prompt_get_arg(r, "code"); /* required: checked by the SDK */
    const char *lang = mcpwasm_prompt_get_arg(r, "language");
    char *text = mcpwasm_format("Review this %s:\n%s", lang ? lang : "code", code);
    return mcpwasm_messages_describe(mcpwasm_prompt_user(text), "Code review");
}

static const mcpwasm_prompt prompts[] = {
    {.name = "review", .description = "Review some code", .handler = review,
     .args = (const mcpwasm_prompt_arg[]){{"code", "The code to review", true}, {"language", "Its language", false}, {0}}},
};
MCPWASM_PROMPTS(prompts)

static mcpwasm_completion *languages(const mcpwasm_complete_req *r) {
    static const char *const all[] = {"go", "python", "rust", "typescript", NULL};
    return mcpwasm_completion_matching(r->value, all);
}

static mcpwasm_completion *item_ids(const mcpwasm_complete_req *r) {
    static const char *const all[] = {"1", "2", "3", NULL};
    return mcpwasm_completion_matching(r->value, all);
}

static const mcpwasm_completer completers[] = {
    {MCPWASM_REF_PROMPT, "review", "language", languages},
    {MCPWASM_REF_RESOURCE, "parity://items/{id}", "id", item_ids},
};
MCPWASM_COMPLETIONS(completers)
