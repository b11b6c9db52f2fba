/* Native tests of mcpwasm.h: the JSON reader and writer, the URI template
 * matcher, and the exports driven through the native kernel stand-in.
 * Built and run by ../test.sh (with -fsanitize=address,undefined when the
 * compiler has it, so an out-of-bounds read fails the run). */
#define _POSIX_C_SOURCE 200809L /* fork, pipe: the out-of-memory test traps in a child */
#define MCPWASM_IMPLEMENTATION
#include "../mcpwasm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

static int failures, checks;
#define CHECK(cond) do { checks++; if (!(cond)) { failures++; fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_STR(got, want) do { const char *g_ = (got), *w_ = (want); checks++; \
    if (!g_ || strcmp(g_, w_) != 0) { failures++; fprintf(stderr, "%s:%d: FAIL: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_); } } while (0)

static mcpwasm_json parse(const char *s) {
    mcpwasm_json v = {0};
    if (!mcpwasm_json_parse(s, strlen(s), &v)) v.n = 0, v.p = NULL;
    return v;
}
static bool valid(const char *s) { mcpwasm_json v; return mcpwasm_json_parse(s, strlen(s), &v); }

static void test_parse(void) {
    const char *good[] = {"0", "-0", "1.5e-3", "-12E+2", "\"\"", "\"a\\u00e9\\n\"", "true", "false", "null", "[]", "{}",
                          " [1, {\"a\": [null, false]}, \"x\"] ", "{\"a\":{\"b\":{\"c\":[1,2,3]}}}", "\"\\/\\b\\f\\r\\t\""};
    const char *bad[] = {"", " ", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12g4\"", "\"\\u12\"",
                         "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}", "[", "]", "{", "1 2", "[1]x",
                         "\"tab\there\"", "\"nl\n\"", "{\"a\":1 \"b\":2}", "'x'", "NaN", "[\"\\", "\"\\u"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) { checks++; if (!valid(good[i])) { failures++; fprintf(stderr, "FAIL: should parse: %s\n", good[i]); } }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) { checks++; if (valid(bad[i])) { failures++; fprintf(stderr, "FAIL: should not parse: %s\n", bad[i]); } }

    /* Every strict prefix of a document is malformed; none reads past its end
     * (each prefix is copied into an exact-size heap block for ASan). */
    const char *doc = "{\"request\":{\"name\":\"t\",\"arguments\":{\"s\":\"a\\\"b\\u00e9\\ud83d\\ude00\",\"n\":[1,2.5,-3e2],\"o\":{\"k\":true}}},\"context\":{\"plugin\":\"p\"}}";
    CHECK(valid(doc));
    for (size_t n = 0; n < strlen(doc); n++) {
        char *p = malloc(n ? n : 1);
        memcpy(p, doc, n);
        mcpwasm_json v;
        checks++;
        if (mcpwasm_json_parse(p, n, &v)) { failures++; fprintf(stderr, "FAIL: prefix of %zu bytes parsed\n", n); }
        free(p);
    }

    /* Nesting: MCPWASM_MAX_DEPTH levels parse, one more does not. */
    char deep[2 * MCPWASM_MAX_DEPTH + 3];
    for (int extra = 0; extra <= 1; extra++) {
        int d = MCPWASM_MAX_DEPTH + extra;
        for (int i = 0; i < d; i++) deep[i] = '[', deep[d + i] = ']';
        deep[2 * d] = 0;
        CHECK(valid(deep) == !extra);
    }
    /* Very deep input fails without overflowing the stack. */
    size_t big = 200000;
    char *huge = malloc(big + 1);
    memset(huge, '[', big); huge[big] = 0;
    CHECK(!valid(huge));
    free(huge);
}

static void test_read(void) {
    mcpwasm_json doc = parse("{\"request\":{\"name\":\"t\",\"arguments\":{\"s\":\"a\\\"b\\u00e9\\ud83d\\ude00\\ud800x\\u0000y\","
                             "\"n\":[1,2.5,-3e2],\"o\":{\"k\":true},\"i\":-9223372036854775808,\"big\":9223372036854775808,"
                             "\"f\":3.0,\"e\":1e2,\"h\":1.5,\"k\\u0065y\":\"escaped key\"}},\"context\":{\"plugin\":\"p\"}}");
    CHECK(mcpwasm_json_kind(doc) == MCPWASM_JSON_OBJECT);
    mcpwasm_json args = mcpwasm_json_get(mcpwasm_json_get(doc, "request"), "arguments");
    CHECK(mcpwasm_json_len(args) == 9);
    size_t len;
    char *s = mcpwasm_json_string(mcpwasm_json_get(args, "s"), &len);
    const char want[] = "a\"b\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\0y";
    CHECK(s && len == sizeof want - 1 && memcmp(s, want, len) == 0);
    CHECK_STR(mcpwasm_json_get_string(args, "key"), "escaped key");
    CHECK(mcpwasm_json_get_string(args, "n") == NULL);
    CHECK(mcpwasm_json_kind(mcpwasm_json_get(args, "missing")) == MCPWASM_JSON_NONE);
    mcpwasm_json n = mcpwasm_json_get(args, "n");
    CHECK(mcpwasm_json_len(n) == 3);
    double d;
    CHECK(mcpwasm_json_number(mcpwasm_json_at(n, 1), &d) && d == 2.5);
    CHECK(mcpwasm_json_number(mcpwasm_json_at(n, 2), &d) && d == -300);
    CHECK(mcpwasm_json_kind(mcpwasm_json_at(n, 3)) == MCPWASM_JSON_NONE);
    int64_t i;
    CHECK(mcpwasm_json_int(mcpwasm_json_at(n, 0), &i) && i == 1);
    CHECK(!mcpwasm_json_int(mcpwasm_json_at(n, 1), &i));
    CHECK(mcpwasm_json_int(mcpwasm_json_get(args, "i"), &i) && i == INT64_MIN);
    CHECK(!mcpwasm_json_int(mcpwasm_json_get(args, "big"), &i));
    CHECK(mcpwasm_json_int(mcpwasm_json_get(args, "f"), &i) && i == 3);
    CHECK(mcpwasm_json_int(mcpwasm_json_get(args, "e"), &i) && i == 100);
    CHECK(!mcpwasm_json_int(mcpwasm_json_get(args, "h"), &i));
    bool b = false;
    CHECK(mcpwasm_json_bool(mcpwasm_json_get(mcpwasm_json_get(args, "o"), "k"), &b) && b);
    CHECK(!mcpwasm_json_bool(mcpwasm_json_get(args, "s"), &b));
    CHECK_STR(mcpwasm_json_dup(mcpwasm_json_get(args, "o")), "{\"k\":true}");
    /* Iteration over an object yields names and values in order. */
    mcpwasm_json_iter it = {0};
    mcpwasm_json k, v;
    CHECK(mcpwasm_json_next(args, &it, &k, &v));
    CHECK_STR(mcpwasm_json_string(k, NULL), "s");
    CHECK(mcpwasm_json_next(args, &it, &k, &v));
    CHECK_STR(mcpwasm_json_string(k, NULL), "n");
    /* A view over malformed text (not from mcpwasm_json_parse) is safe. */
    const char *broken = "{\"a\":[1,{\"b\":";
    mcpwasm_json raw = {broken, strlen(broken)};
    CHECK(mcpwasm_json_kind(mcpwasm_json_get(raw, "b")) == MCPWASM_JSON_NONE);
    CHECK(mcpwasm_json_len(raw) == 0);
    mcpwasm_json bad_str = {"\"ab", 3};
    CHECK(mcpwasm_json_string(bad_str, NULL) == NULL);
}

static void test_write(void) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    char all[40];
    for (int c = 1; c < 32; c++) all[c - 1] = (char)c;
    memcpy(all + 31, "\"\\/\xc3\xa9z", 7);
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "s"); mcpwasm_w_stringn(&w, all, 38);
    mcpwasm_w_key(&w, "a"); mcpwasm_w_array(&w);
    mcpwasm_w_int(&w, -42); mcpwasm_w_number(&w, 0.1); mcpwasm_w_number(&w, 1e300); mcpwasm_w_number(&w, NAN);
    mcpwasm_w_bool(&w, false); mcpwasm_w_null(&w); mcpwasm_w_object(&w); mcpwasm_w_object_end(&w);
    mcpwasm_w_array(&w); mcpwasm_w_array_end(&w); mcpwasm_w_raw(&w, "{\"r\":1}", 7);
    mcpwasm_w_array_end(&w);
    mcpwasm_w_key(&w, "k\"ey"); mcpwasm_w_string(&w, NULL);
    mcpwasm_w_object_end(&w);
    const char *t = mcpwasm_w_text(&w);
    CHECK(strstr(t, "\"a\":[-42,0.1,1e+300,null,false,null,{},[],{\"r\":1}]") != NULL);
    CHECK(strstr(t, "\"k\\\"ey\":null}") != NULL);
    CHECK(strstr(t, "\\u0001") && strstr(t, "\\n") && strstr(t, "\\u001f"));
    mcpwasm_json v = parse(t);
    CHECK(v.n == strlen(t));
    size_t len;
    char *back = mcpwasm_json_string(mcpwasm_json_get(v, "s"), &len);
    CHECK(back && len == 38 && memcmp(back, all, 38) == 0);
    double d;
    CHECK(mcpwasm_json_number(mcpwasm_json_at(mcpwasm_json_get(v, "a"), 1), &d) && d == 0.1);
    const char *b64[][2] = {{"", "\"\""}, {"f", "\"Zg==\""}, {"fo", "\"Zm8=\""}, {"foo", "\"Zm9v\""}, {"foob", "\"Zm9vYg==\""},
                            {"\x89PNG", "\"iVBORw==\""}};
    for (size_t i = 0; i < sizeof b64 / sizeof *b64; i++) {
        mcpwasm_writer bw = MCPWASM_WRITER_INIT;
        mcpwasm_w_base64(&bw, b64[i][0], strlen(b64[i][0]));
        CHECK_STR(mcpwasm_w_text(&bw), b64[i][1]);
    }
    mcpwasm_writer iw = MCPWASM_WRITER_INIT;
    mcpwasm_w_array(&iw); mcpwasm_w_int(&iw, INT64_MIN); mcpwasm_w_number(&iw, 123456789.0); mcpwasm_w_array_end(&iw);
    CHECK_STR(mcpwasm_w_text(&iw), "[-9223372036854775808,123456789]");
}

static void test_templates(void) {
    mcpwasm_vars vars;
    CHECK(mcpwasm_template_match("parity://items/{id}", "parity://items/2", &vars));
    CHECK(vars.n == 1);
    CHECK_STR(mcpwasm_vars_get(&vars, "id"), "2");
    CHECK(!mcpwasm_template_match("parity://items/{id}", "parity://items/", &vars));
    CHECK(!mcpwasm_template_match("parity://items/{id}", "parity://items/a/b", &vars));
    CHECK(!mcpwasm_template_match("parity://items/{id}", "parity://other/2", &vars));
    CHECK(mcpwasm_template_match("file://{+path}", "file:///home/ada/x.txt", &vars));
    CHECK_STR(mcpwasm_vars_get(&vars, "path"), "/home/ada/x.txt");
    CHECK(mcpwasm_template_match("x://{a}/{b}.md", "x://one/two.three.md", &vars));
    CHECK_STR(mcpwasm_vars_get(&vars, "a"), "one");
    CHECK_STR(mcpwasm_vars_get(&vars, "b"), "two.three");
    CHECK(mcpwasm_vars_get(&vars, "c") == NULL);
    CHECK(mcpwasm_template_match("x://{a}.{b}", "x://foo.bar.baz", &vars) && vars.n == 2);
    CHECK(mcpwasm_template_match("doc://{id}{#section}", "doc://7#intro/x", &vars));
    CHECK_STR(mcpwasm_vars_get(&vars, "id"), "7");
    CHECK_STR(mcpwasm_vars_get(&vars, "section"), "intro/x");
    CHECK(mcpwasm_template_match("s://search{?q,lang}", "s://search?q=a&lang=en", &vars) && vars.n == 0);
    CHECK(mcpwasm_template_match("s://fixed", "s://fixed", NULL));
    CHECK(!mcpwasm_template_match("s://fixed", "s://fixed/", NULL));
    const char *bad[] = {"", "x://{", "x://}", "x://{}", "x://{a b}", "x://{a}{", "x://{+}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) CHECK(!mcpwasm_template_valid(bad[i]));
    CHECK(mcpwasm_template_valid("x://{a}/{+b}{?c,d}"));
    CHECK(!mcpwasm_template_match("x://{", "x://{", NULL));
    CHECK_STR(mcpwasm_percent_decode("a%20b%2Fc%zz%4"), "a b/c%zz%4");
    /* Many expressions against a long non-matching URI finish quickly. */
    char uri[1024];
    memset(uri, 'a', sizeof uri - 1); uri[sizeof uri - 1] = 0;
    CHECK(!mcpwasm_template_match("{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}{m}{n}{o}/", uri, NULL));
}

/* ---- a plugin, driven through the native kernel stand-in */
static mcpwasm_result *echo(const mcpwasm_call *c) {
    const char *s = NULL; int64_t i = 0; double d = 0; bool b = false;
    bool hs = mcpwasm_arg_string(c, "s", &s), hi = mcpwasm_arg_int(c, "i", &i), hd = mcpwasm_arg_number(c, "d", &d), hb = mcpwasm_arg_bool(c, "b", &b);
    if (!mcpwasm_has_arg(c, "s")) return mcpwasm_error("s is required");
    mcpwasm_progress(1, -1, NULL);
    mcpwasm_logf("info", "echo %s", s ? s : "");
    return mcpwasm_textf("%s|%d%d%d%d|%lld|%g|%d|%s|%s", s ? s : "", hs, hi, hd, hb, (long long)i, d, b,
                         mcpwasm_call_plugin(c), mcpwasm_config("k") ? mcpwasm_config("k") : "-");
}
static mcpwasm_result *client(const mcpwasm_call *c) {
    (void)c;
    mcpwasm_json r;
    const char *err;
    if (!mcpwasm_sample("hi", 5, &r, &err)) return mcpwasm_errorf("no sampling: %s", err);
    return mcpwasm_text(mcpwasm_json_get_string(mcpwasm_json_get(r, "content"), "text"));
}
static mcpwasm_result *shapes(const mcpwasm_call *c) {
    (void)c;
    return mcpwasm_add_text(mcpwasm_json_result("{\"x\": [1, 2]}"), "more");
}
static const mcpwasm_tool tools[] = {
    {.name = "echo", .description = "d", .input_schema = "{\"type\":\"object\"}", .handler = echo},
    {.name = "client", .description = "d", .input_schema = "{\"type\":\"object\"}", .handler = client, .title = "T",
     .annotations = "{\"readOnlyHint\":true}"},
    {.name = "shapes", .input_schema = "{\"type\":\"object\"}", .handler = shapes, .task = "required", .task_input_first = true},
};
MCPWASM_TOOLS(tools)

static mcpwasm_contents *note(const mcpwasm_read *r) {
    const char *id = mcpwasm_vars_get(&r->vars, "id");
    if (strcmp(id, "1") != 0) return mcpwasm_read_error("note %s not found", id);
    return mcpwasm_read_text(r->uri, NULL, "first");
}
static const mcpwasm_resource templates[] = {{.uri = "notes://{id}", .name = "note", .handler = note}};
MCPWASM_RESOURCES(NULL, 0, templates, 1)

static mcpwasm_messages *hello_prompt(const mcpwasm_prompt_req *r) {
    return mcpwasm_add_message(mcpwasm_prompt_user(mcpwasm_prompt_get_arg(r, "who")), "assistant", "ok");
}
static const mcpwasm_prompt prompts[] = {
    {.name = "hello", .handler = hello_prompt, .args = (const mcpwasm_prompt_arg[]){{"who", NULL, true}, {0}}},
};
MCPWASM_PROMPTS(prompts)

static mcpwasm_completion *many(const mcpwasm_complete_req *r) {
    mcpwasm_completion *c = mcpwasm_completion_new();
    for (int i = 0; i < 150; i++) mcpwasm_completion_add(c, mcpwasm_format("%s%d", r->value, i));
    return c;
}
static const char *const langs[] = {"go", "python", "rust", "typescript", NULL};
static mcpwasm_completion *lang(const mcpwasm_complete_req *r) { return mcpwasm_completion_matching(r->value, langs); }
static const mcpwasm_completer completers[] = {{MCPWASM_REF_PROMPT, "hello", "who", many},
                                               {MCPWASM_REF_PROMPT, "hello", "lang", lang}};
MCPWASM_COMPLETIONS(completers)

static const char *run(int32_t (*export)(void), const char *input, int32_t want_rc) {
    mcpwasm_native_set_input(input);
    int32_t rc = export();
    checks++;
    if (rc != want_rc) { failures++; fprintf(stderr, "FAIL: rc %d for %s (error: %s)\n", rc, input, mcpwasm_native_error()); }
    return rc ? mcpwasm_native_error() : mcpwasm_native_output();
}

static void test_exports(void) {
    mcpwasm_native_reset();
    mcpwasm_native_set_config("k", "v");
    CHECK(mcpwasm_abi_version() == 1);
    const char *out = run(list_tools, "", 0);
    mcpwasm_json l = parse(out);
    CHECK(mcpwasm_json_len(mcpwasm_json_get(l, "tools")) == 3);
    CHECK_STR(mcpwasm_json_dup(mcpwasm_json_at(mcpwasm_json_get(l, "tools"), 1)),
              "{\"name\":\"client\",\"title\":\"T\",\"description\":\"d\",\"inputSchema\":{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true}}");
    CHECK_STR(mcpwasm_json_dup(mcpwasm_json_at(mcpwasm_json_get(l, "tools"), 2)),
              "{\"name\":\"shapes\",\"inputSchema\":{\"type\":\"object\"},\"execution\":{\"taskSupport\":\"required\",\"inputFirst\":true}}");
    out = run(call_tool, "{\"request\":{\"name\":\"echo\",\"arguments\":{\"s\":\"\\u00e9\\\"\",\"i\":7,\"d\":0.5,\"b\":true}},\"context\":{\"plugin\":\"pl\"}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"\xc3\xa9\\\"|1111|7|0.5|1|pl|v\"}]}");
    CHECK_STR(mcpwasm_native_calls(), "notify_progress {\"progress\":1}\nnotify_logging_message {\"level\":\"info\",\"data\":\"echo \xc3\xa9\\\"\"}\n");
    out = run(call_tool, "{\"request\":{\"name\":\"echo\",\"arguments\":{\"s\":1,\"i\":1.5}}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"|0000|0|0|0||v\"}]}");
    out = run(call_tool, "{\"request\":{\"name\":\"echo\",\"arguments\":{}}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"s is required\"}],\"isError\":true}");
    out = run(call_tool, "{\"request\":{\"name\":\"nope\"}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"unknown tool: nope\"}],\"isError\":true}");
    out = run(call_tool, "{\"request\":{\"name\":\"shapes\"}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"x\\\": [1, 2]}\"},{\"type\":\"text\",\"text\":\"more\"}],\"structuredContent\":{\"x\": [1, 2]}}");
    /* Inputs of every length 0..40 around the 8-byte word boundary; all malformed but one. */
    char pad[64];
    for (size_t n = 0; n < 40; n++) {
        memset(pad, ' ', n); pad[n] = 0;
        run(call_tool, pad, 1);
        CHECK(strstr(mcpwasm_native_error(), "envelope") != NULL);
    }
    for (size_t n = 0; n < 9; n++) {
        char in[128];
        snprintf(in, sizeof in, "{\"request\":{\"name\":\"echo\",\"arguments\":{\"s\":\"%.*s\"}}}", (int)n, "abcdefghij");
        out = run(call_tool, in, 0);
        CHECK(strncmp(out + 35, "abcdefghij", n) == 0 && out[35 + n] == '|');
    }
    run(call_tool, "{\"request\":{\"name\":\"echo\"}} x", 1);
    CHECK_STR(run(call_tool, "{\"request\":{}}", 1), "call_tool: the request has no tool name");
    /* Too deep: the envelope takes 3 of the 64 levels, so arguments {"x": 61 arrays}
     * still parse and 62 fail, with their own message (not "not an envelope"). */
    for (int arrays = 61; arrays <= 62; arrays++) {
        char in[256];
        int k = snprintf(in, sizeof in, "{\"request\":{\"name\":\"echo\",\"arguments\":{\"x\":");
        for (int j = 0; j < arrays; j++) in[k + j] = '[', in[k + arrays + j] = ']';
        snprintf(in + k + 2 * arrays, sizeof in - (size_t)(k + 2 * arrays), "}}}");
        out = run(call_tool, in, arrays == 62);
        if (arrays == 61) CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"s is required\"}],\"isError\":true}");
        else CHECK_STR(out, "call_tool: the input nests deeper than 64 levels (MCPWASM_MAX_DEPTH), the envelope's own levels included");
    }
    /* Kernel I/O moves whole words: no byte-wise calls for blocks of >= 8 bytes
     * (inputs, outputs and errors here are all longer than 8). */
    mcpwasm_native_reset();
    size_t before = mcpwasm_native_byte_calls();
    run(call_tool, "{\"request\":{\"name\":\"shapes\",\"arguments\":{}}}", 0);
    run(call_tool, "{\"request\":{}}", 1);
    CHECK(mcpwasm_native_byte_calls() == before);
    run(call_tool, "  ", 1); /* 2 bytes: byte-wise */
    CHECK(mcpwasm_native_byte_calls() == before + 2);
    mcpwasm_native_set_config("k", "v");
    /* Client requests: the host's error, then an answer. */
    out = run(call_tool, "{\"request\":{\"name\":\"client\"}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"no sampling: no client\"}],\"isError\":true}");
    mcpwasm_native_answer("create_message", "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"pong\"}}");
    out = run(call_tool, "{\"request\":{\"name\":\"client\"}}", 0);
    CHECK_STR(out, "{\"content\":[{\"type\":\"text\",\"text\":\"pong\"}]}");
    CHECK(strstr(mcpwasm_native_calls(), "create_message {\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}\n"));
    mcpwasm_native_answer("create_message", "not json");
    out = run(call_tool, "{\"request\":{\"name\":\"client\"}}", 0);
    CHECK(strstr(out, "malformed JSON") != NULL);

    /* Resources. */
    CHECK_STR(run(list_resources, "", 0), "{\"resources\":[]}");
    CHECK_STR(run(list_resource_templates, "", 0), "{\"resourceTemplates\":[{\"uriTemplate\":\"notes://{id}\",\"name\":\"note\"}]}");
    CHECK_STR(run(read_resource, "{\"request\":{\"uri\":\"notes://1\"}}", 0), "{\"contents\":[{\"uri\":\"notes://1\",\"text\":\"first\"}]}");
    CHECK_STR(run(read_resource, "{\"request\":{\"uri\":\"notes://2\"}}", 1), "note 2 not found");
    CHECK_STR(run(read_resource, "{\"request\":{\"uri\":\"other://1\"}}", 1), "resource not found: other://1");
    /* Prompts. */
    CHECK_STR(run(list_prompts, "", 0), "{\"prompts\":[{\"name\":\"hello\",\"arguments\":[{\"name\":\"who\",\"required\":true}]}]}");
    CHECK_STR(run(get_prompt, "{\"request\":{\"name\":\"hello\",\"arguments\":{\"who\":\"Ada\"}}}", 0),
              "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Ada\"}},{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"ok\"}}]}");
    CHECK_STR(run(get_prompt, "{\"request\":{\"name\":\"hello\",\"arguments\":{\"who\":\"\"}}}", 1), "prompt hello: who is required");
    CHECK_STR(run(get_prompt, "{\"request\":{\"name\":\"bye\"}}", 1), "prompt not found: bye");
    CHECK_STR(run(get_prompt, "{\"request\":{}}", 1), "get_prompt: the request has no prompt name");
    /* Completion: 150 values are cut to 100 with total and hasMore; unknown refs complete to nothing. */
    out = run(complete, "{\"request\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"hello\"},\"argument\":{\"name\":\"who\",\"value\":\"x\"}}}", 0);
    mcpwasm_json c = mcpwasm_json_get(parse(out), "completion");
    CHECK(mcpwasm_json_len(mcpwasm_json_get(c, "values")) == 100);
    CHECK_STR(mcpwasm_json_string(mcpwasm_json_at(mcpwasm_json_get(c, "values"), 99), NULL), "x99");
    CHECK_STR(mcpwasm_json_dup(mcpwasm_json_get(c, "total")), "150");
    CHECK_STR(run(complete, "{\"request\":{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"hello\"},\"argument\":{\"name\":\"who\",\"value\":\"\"}}}", 0),
              "{\"completion\":{\"values\":[]}}");
    /* mcpwasm_completion_matching: the candidates with the prefix, in order; "" gives all. */
    CHECK_STR(run(complete, "{\"request\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"hello\"},\"argument\":{\"name\":\"lang\",\"value\":\"py\"}}}", 0),
              "{\"completion\":{\"values\":[\"python\"]}}");
    CHECK_STR(run(complete, "{\"request\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"hello\"},\"argument\":{\"name\":\"lang\",\"value\":\"\"}}}", 0),
              "{\"completion\":{\"values\":[\"go\",\"python\",\"rust\",\"typescript\"]}}");
    CHECK_STR(run(complete, "{\"request\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"hello\"},\"argument\":{\"name\":\"lang\",\"value\":\"x\"}}}", 0),
              "{\"completion\":{\"values\":[]}}");

    /* Load-time checks name the bad declaration. */
    static const mcpwasm_tool bad_name[] = {{.name = "a.b", .input_schema = "{\"type\":\"object\"}", .handler = echo}};
    mcpwasm_native_set_input("");
    CHECK(mcpwasm_run_list_tools(bad_name, 1) == 1 && strstr(mcpwasm_native_error(), "\"a.b\""));
    static const mcpwasm_tool bad_schema[] = {{.name = "t", .input_schema = "{\"type\":\"string\"}", .handler = echo}};
    CHECK(mcpwasm_run_list_tools(bad_schema, 1) == 1 && strstr(mcpwasm_native_error(), "input schema"));
    static const mcpwasm_tool dup[] = {{.name = "t", .input_schema = "{\"type\":\"object\"}", .handler = echo},
                                       {.name = "t", .input_schema = "{\"type\":\"object\"}", .handler = echo}};
    CHECK(mcpwasm_run_list_tools(dup, 2) == 1 && strstr(mcpwasm_native_error(), "twice"));
    static const mcpwasm_tool bad_task[] = {{.name = "t", .input_schema = "{\"type\":\"object\"}", .handler = echo, .task = "always"}};
    CHECK(mcpwasm_run_list_tools(bad_task, 1) == 1 && strstr(mcpwasm_native_error(), "task must be"));
    static const mcpwasm_resource bad_tmpl[] = {{.uri = "notes://{id", .name = "n", .handler = note}};
    CHECK(mcpwasm_run_list_resources(bad_tmpl, 1, true) == 1 && strstr(mcpwasm_native_error(), "notes://{id"));
    static const mcpwasm_resource no_scheme[] = {{.uri = "about", .name = "n", .handler = note}};
    CHECK(mcpwasm_run_list_resources(no_scheme, 1, false) == 1);
}

static void test_host(void) {
    mcpwasm_native_reset();
    mcpwasm_json r;
    const char *err;
    CHECK(!mcpwasm_list_roots(&r, &err) && strcmp(err, "no client") == 0 && r.n == 0);
    mcpwasm_native_answer("list_roots", "{\"roots\":[{\"uri\":\"file:///a\"}]}");
    CHECK(mcpwasm_list_roots(&r, &err) && err == NULL);
    CHECK_STR(mcpwasm_json_get_string(mcpwasm_json_at(mcpwasm_json_get(r, "roots"), 0), "uri"), "file:///a");
    mcpwasm_native_answer("create_elicitation", "{\"error\":{\"code\":1}}");
    CHECK(!mcpwasm_elicit("m", "{\"type\":\"object\"}", &r, &err) && strcmp(err, "{\"code\":1}") == 0);
    CHECK(!mcpwasm_elicit("m", "not json", &r, &err) && strstr(err, "not a JSON object"));
    CHECK(!mcpwasm_create_message("[1]", &r, &err));
    CHECK(mcpwasm_config("absent") == NULL);
    mcpwasm_native_reset();
    mcpwasm_progress(2, 4, "half");
    mcpwasm_log("warning", "lg", "{\"a\":1}");
    mcpwasm_log("error", NULL, "plain text");
    mcpwasm_notify_resource_updated("x://1");
    mcpwasm_notify_tool_list_changed();
    mcpwasm_notify_resource_list_changed();
    mcpwasm_notify_prompt_list_changed();
    mcpwasm_notify_url_elicitation_completed("e1");
    CHECK_STR(mcpwasm_native_calls(),
              "notify_progress {\"progress\":2,\"total\":4,\"message\":\"half\"}\n"
              "notify_logging_message {\"level\":\"warning\",\"logger\":\"lg\",\"data\":{\"a\":1}}\n"
              "notify_logging_message {\"level\":\"error\",\"data\":\"plain text\"}\n"
              "notify_resource_updated {\"uri\":\"x://1\"}\n"
              "notify_tool_list_changed\nnotify_resource_list_changed\nnotify_prompt_list_changed\n"
              "notify_url_elicitation_completed {\"elicitationId\":\"e1\"}\n");
}

/* A failed kernel allocation writes "out of memory" to stderr and traps, with
 * no error_set (the host would call that a panic; storing it would need the
 * allocation that failed, and recursed into a stack overflow). Run in a child:
 * the trap kills it. */
static void test_oom(void) {
#if defined(__unix__)
    int fd[2];
    if (pipe(fd) != 0) { perror("pipe"); failures++; return; }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]); close(fd[1]);
        mcpwasm_native_reset();
        mcpwasm_native_fail_alloc(true);
        mcpwasm_log("info", NULL, "x"); /* storing the payload fails */
        _exit(0);
    }
    close(fd[1]);
    char buf[4096];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)r;
    buf[got] = 0;
    close(fd[0]);
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && (WTERMSIG(st) == SIGILL || WTERMSIG(st) == SIGTRAP));
    CHECK_STR(buf, "out of memory\n");
#endif
}

/* Skills (ABI 1.1): the files as list_skills reports them; a skill that
 * could leave its folder, or lacks SKILL.md, is refused. */
static const char skill_md[] = "---\nname: review\ndescription: Review a change\n---\n# Review\n";
static const unsigned char skill_bin[] = {0, 1, 255};
static const mcpwasm_skill_file review_files[] = {
    {"SKILL.md", skill_md, sizeof skill_md - 1, NULL},
    {"references/x.bin", skill_bin, sizeof skill_bin, "application/octet-stream"},
};
static const mcpwasm_skill skills_ok[] = {{"review", review_files, 2}};
static const mcpwasm_skill_file no_md[] = {{"README.md", "x", 1, NULL}};
static const mcpwasm_skill_file escape[] = {{"SKILL.md", "x", 1, NULL}, {"../x", "x", 1, NULL}};
static const mcpwasm_skill_file absolute[] = {{"SKILL.md", "x", 1, NULL}, {"/etc/passwd", "x", 1, NULL}};
static const mcpwasm_skill_file twice[] = {{"SKILL.md", "x", 1, NULL}, {"SKILL.md", "y", 1, NULL}};
static void test_skills(void) {
    mcpwasm_native_reset();
    mcpwasm_native_set_input("{\"request\":{},\"context\":{}}");
    CHECK(mcpwasm_run_list_skills(skills_ok, 1) == 0);
    CHECK_STR(mcpwasm_native_output(),
              "{\"skills\":[{\"path\":\"review\",\"files\":[{\"path\":\"SKILL.md\",\"text\":\"---\\nname: review\\ndescription: Review a change\\n---\\n# Review\\n\"},"
              "{\"path\":\"references/x.bin\",\"blob\":\"AAH/\",\"mimeType\":\"application/octet-stream\"}]}]}");
    const struct { mcpwasm_skill s; const char *want; } bad[] = {
        {{"review", no_md, 1}, "has no SKILL.md"},
        {{"review", escape, 2}, "\"../x\""},
        {{"review", absolute, 2}, "\"/etc/passwd\""},
        {{"review", twice, 2}, "declared twice"},
        {{"../review", review_files, 2}, "not a valid skill path"},
        {{"a//b", review_files, 2}, "not a valid skill path"},
    };
    for (size_t i = 0; i < MCPWASM_LEN(bad); i++) {
        mcpwasm_native_reset();
        CHECK(mcpwasm_run_list_skills(&bad[i].s, 1) == 1 && strstr(mcpwasm_native_error(), bad[i].want));
    }
    /* Text or blob: what is not well-formed UTF-8 (RFC 3629) goes as a blob,
     * including overlong forms, surrogates and code points past U+10FFFF. */
    const struct { const char *bytes; bool text; } utf[] = {
        {"\xE2\x82\xAC", true},      /* U+20AC */
        {"\xF0\x9F\x98\x80", true}, /* U+1F600 */
        {"\xC0\xAF", false},          /* overlong '/' */
        {"\xE0\x80\xAF", false},     /* overlong '/' in three bytes */
        {"\xF0\x80\x80\xAF", false}, /* overlong '/' in four bytes */
        {"\xED\xA0\x80", false},     /* U+D800, a surrogate */
        {"\xF4\x90\x80\x80", false}, /* U+110000 */
    };
    for (size_t i = 0; i < MCPWASM_LEN(utf); i++) {
        const mcpwasm_skill_file f[] = {{"SKILL.md", "x", 1, NULL}, {"u.txt", utf[i].bytes, strlen(utf[i].bytes), NULL}};
        const mcpwasm_skill sk[] = {{"u", f, 2}};
        mcpwasm_native_reset();
        CHECK(mcpwasm_run_list_skills(sk, 1) == 0);
        CHECK((strstr(mcpwasm_native_output(), "\"path\":\"u.txt\",\"text\"") != NULL) == utf[i].text);
    }
    const mcpwasm_skill dup[] = {{"review", review_files, 2}, {"review", review_files, 2}};
    mcpwasm_native_reset();
    CHECK(mcpwasm_run_list_skills(dup, 2) == 1 && strstr(mcpwasm_native_error(), "declared twice"));
}

int main(void) {
    test_parse();
    test_read();
    test_write();
    test_templates();
    test_exports();
    test_host();
    test_oom();
    test_skills();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
