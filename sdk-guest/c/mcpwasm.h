/* mcpwasm.h — guest SDK for mcpwasm plugins (ABI v1) in C, as one header.
 *
 * Usage: include it anywhere for the declarations; in exactly one .c file write
 *
 *     #define MCPWASM_IMPLEMENTATION
 *     #include "mcpwasm.h"
 *
 * then declare tables of tools (and optionally resources, prompts,
 * completers) and expand MCPWASM_TOOLS(...) etc. once: each macro defines the
 * exports it stands for, so a tools-only plugin exports only
 * mcpwasm_abi_version, list_tools and call_tool, and the host advertises only
 * tools for it. Host functions are imported only when called.
 *
 * Target: clang --target=wasm32-wasi (wasi-libc: malloc, strtod, snprintf).
 * Off wasm (no __wasm__) the kernel and host functions are an in-process
 * stand-in (mcpwasm_native_*), so handlers and this code can be tested natively.
 *
 * Memory: everything the SDK allocates comes from malloc and is never freed.
 * The host runs every export call in a fresh instance, so the memory dies with
 * it. A failed allocation (malloc or the kernel's alloc) writes "out of memory"
 * to stderr and traps, without error_set: the host reports out_of_memory.
 * Strings are UTF-8 and NUL-terminated unless a length is given. C11. */
#ifndef MCPWASM_H
#define MCPWASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The plugin ABI version this header implements (exported as mcpwasm_abi_version). */
#define MCPWASM_ABI_VERSION 1
/** Deepest JSON nesting the reader accepts and the writer tracks. */
#define MCPWASM_MAX_DEPTH 64
/** Most variables one URI template can bind. */
#define MCPWASM_MAX_VARS 16

/* ------------------------------------------------------------------ JSON */

/** A JSON value: a view of its raw text (p, n) inside some document.
 *  n == 0 means "absent" (a missing key, an index past the end). */
typedef struct mcpwasm_json {
    const char *p; /**< first byte of the value's text */
    size_t n;      /**< its length; 0 when absent */
} mcpwasm_json;

/** The kind of a JSON value, from its first byte. */
typedef enum mcpwasm_json_type {
    MCPWASM_JSON_NONE, /**< absent */
    MCPWASM_JSON_NULL,
    MCPWASM_JSON_BOOL,
    MCPWASM_JSON_NUMBER,
    MCPWASM_JSON_STRING,
    MCPWASM_JSON_ARRAY,
    MCPWASM_JSON_OBJECT
} mcpwasm_json_type;

/** Iterator state for mcpwasm_json_next; zero-initialize it. */
typedef struct mcpwasm_json_iter {
    const char *pos; /**< next member; NULL before the first call */
    bool done;       /**< set once the container is exhausted or malformed */
} mcpwasm_json_iter;

/** Validates text[0..n) as one strict RFC 8259 JSON value (nesting at most
 *  MCPWASM_MAX_DEPTH) and stores the value, whitespace trimmed, in *out.
 *  Returns false for malformed input; text need not be NUL-terminated. */
bool mcpwasm_json_parse(const char *text, size_t n, mcpwasm_json *out);
/** The kind of v. */
mcpwasm_json_type mcpwasm_json_kind(mcpwasm_json v);
/** The member `key` of object obj, or an absent value. */
mcpwasm_json mcpwasm_json_get(mcpwasm_json obj, const char *key);
/** Element i of array arr, or an absent value. */
mcpwasm_json mcpwasm_json_at(mcpwasm_json arr, size_t i);
/** Number of elements of an array or members of an object (0 otherwise). */
size_t mcpwasm_json_len(mcpwasm_json v);
/** Steps through an array (key gets an absent value) or an object (key gets
 *  the member's name as a JSON string). Returns false at the end. */
bool mcpwasm_json_next(mcpwasm_json container, mcpwasm_json_iter *it, mcpwasm_json *key, mcpwasm_json *val);
/** Decodes a JSON string (escapes, \uXXXX and surrogate pairs to UTF-8) into
 *  a new NUL-terminated buffer; *len (if non-NULL) gets its length, which can
 *  differ from strlen when it holds "\u0000". NULL when v is not a string. */
char *mcpwasm_json_string(mcpwasm_json v, size_t *len);
/** The decoded string member `key` of obj, or NULL if absent or not a string. */
char *mcpwasm_json_get_string(mcpwasm_json obj, const char *key);
/** Stores a number's value in *out; false when v is not a number. */
bool mcpwasm_json_number(mcpwasm_json v, double *out);
/** Stores an integral number (fitting int64_t) in *out; false otherwise. */
bool mcpwasm_json_int(mcpwasm_json v, int64_t *out);
/** Stores a boolean in *out; false when v is not true or false. */
bool mcpwasm_json_bool(mcpwasm_json v, bool *out);
/** A new NUL-terminated copy of v's raw JSON text (NULL when absent). */
char *mcpwasm_json_dup(mcpwasm_json v);

/** A JSON writer appending to a growing buffer. Zero-initialize it (or use
 *  MCPWASM_WRITER_INIT); commas and colons are inserted automatically. */
typedef struct mcpwasm_writer {
    char *buf;       /**< the text so far (NUL-terminated when non-NULL) */
    size_t len, cap; /**< used and allocated bytes */
    unsigned depth;  /**< open objects/arrays */
    bool after_key;  /**< a key was written, its value comes next */
    unsigned char has_items[MCPWASM_MAX_DEPTH]; /**< per level: needs a comma */
} mcpwasm_writer;
/** Initializer for a writer. */
#define MCPWASM_WRITER_INIT {0}

/** Opens an object `{`. */
void mcpwasm_w_object(mcpwasm_writer *w);
/** Closes an object `}`. */
void mcpwasm_w_object_end(mcpwasm_writer *w);
/** Opens an array `[`. */
void mcpwasm_w_array(mcpwasm_writer *w);
/** Closes an array `]`. */
void mcpwasm_w_array_end(mcpwasm_writer *w);
/** Writes an object member's name; the next value written is its value. */
void mcpwasm_w_key(mcpwasm_writer *w, const char *key);
/** Writes a string value, escaped (NULL writes null). */
void mcpwasm_w_string(mcpwasm_writer *w, const char *s);
/** Writes a string value of n bytes, escaped. */
void mcpwasm_w_stringn(mcpwasm_writer *w, const char *s, size_t n);
/** Writes a number; integers up to 2^53 exactly, others in shortest
 *  round-trip form; NaN and infinities as null. */
void mcpwasm_w_number(mcpwasm_writer *w, double d);
/** Writes an integer. */
void mcpwasm_w_int(mcpwasm_writer *w, int64_t i);
/** Writes true or false. */
void mcpwasm_w_bool(mcpwasm_writer *w, bool b);
/** Writes null. */
void mcpwasm_w_null(mcpwasm_writer *w);
/** Writes raw JSON text as a value, verbatim (the caller vouches for it). */
void mcpwasm_w_raw(mcpwasm_writer *w, const char *json, size_t n);
/** Writes bytes as a base64 (RFC 4648, padded) string value. */
void mcpwasm_w_base64(mcpwasm_writer *w, const void *bytes, size_t n);
/** The text written so far, NUL-terminated ("" when nothing). */
const char *mcpwasm_w_text(mcpwasm_writer *w);

/* ------------------------------------------------------------ URI templates */

/** Variables bound by a URI template match (values still %-encoded). */
typedef struct mcpwasm_vars {
    size_t n;                                     /**< how many are bound */
    const char *name[MCPWASM_MAX_VARS];           /**< variable names */
    const char *value[MCPWASM_MAX_VARS];          /**< their values */
} mcpwasm_vars;

/** True when tmpl is a well-formed RFC 6570 template (balanced braces,
 *  variable names of [A-Za-z0-9_.%], at most MCPWASM_MAX_VARS expressions). */
bool mcpwasm_template_valid(const char *tmpl);
/** Matches uri against tmpl. `{var}` binds one or more characters other than
 *  '/', '?' and '#'; `{+var}` and `{#var}` (after a literal '#') bind one or
 *  more of any character; other expressions ({?q}, {/p}, {a,b}, …) match any
 *  text and bind nothing. vars (may be NULL) gets the bindings. */
bool mcpwasm_template_match(const char *tmpl, const char *uri, mcpwasm_vars *vars);
/** The value bound to name, or NULL. */
const char *mcpwasm_vars_get(const mcpwasm_vars *vars, const char *name);
/** A new copy of s with %XX sequences decoded (malformed ones kept as is). */
char *mcpwasm_percent_decode(const char *s);

/* ------------------------------------------------------------------- tools */

/** One tools/call as the handler sees it. */
typedef struct mcpwasm_call {
    const char *name;       /**< the tool's declared name */
    mcpwasm_json arguments; /**< the arguments object (absent if none) */
    mcpwasm_json meta;      /**< request _meta (absent if none) */
    mcpwasm_json context;   /**< ABI context: id, plugin, deadline_ms, mounts… */
} mcpwasm_call;

/** A tool's answer (a CallToolResult under construction). */
typedef struct mcpwasm_result mcpwasm_result;
/** A tool handler. Returning NULL is an isError result. */
typedef mcpwasm_result *(*mcpwasm_tool_fn)(const mcpwasm_call *call);

/** A tool declaration; list them in a static array for MCPWASM_TOOLS. */
typedef struct mcpwasm_tool {
    const char *name;          /**< [A-Za-z0-9_-]{1,64} */
    const char *description;   /**< for the model */
    const char *input_schema;  /**< JSON Schema text, {"type":"object",…} */
    mcpwasm_tool_fn handler;   /**< the code */
    const char *title;         /**< optional display title */
    const char *output_schema; /**< optional JSON Schema text */
    const char *annotations;   /**< optional ToolAnnotations JSON text */
    const char *task;          /**< optional: "optional" or "required" runs it as a task (ABI.md §2) */
    bool task_input_first;     /**< with task: ask the client before the task starts */
} mcpwasm_tool;

/** The argument `key` (absent if missing). */
mcpwasm_json mcpwasm_arg(const mcpwasm_call *c, const char *key);
/** True when argument `key` is present and not null. */
bool mcpwasm_has_arg(const mcpwasm_call *c, const char *key);
/** Stores string argument `key` (decoded) in *out; false if absent or not a string. */
bool mcpwasm_arg_string(const mcpwasm_call *c, const char *key, const char **out);
/** Stores number argument `key` in *out; false if absent or not a number. */
bool mcpwasm_arg_number(const mcpwasm_call *c, const char *key, double *out);
/** Stores integer argument `key` in *out; false if absent or not integral. */
bool mcpwasm_arg_int(const mcpwasm_call *c, const char *key, int64_t *out);
/** Stores boolean argument `key` in *out; false if absent or not a boolean. */
bool mcpwasm_arg_bool(const mcpwasm_call *c, const char *key, bool *out);
/** The plugin's configured name (context.plugin), or "". */
const char *mcpwasm_call_plugin(const mcpwasm_call *c);

/** A result with one text block. */
mcpwasm_result *mcpwasm_text(const char *text);
/** A result with one text block, printf-formatted. */
mcpwasm_result *mcpwasm_textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** A result whose structuredContent is the JSON object text `json`, mirrored
 *  as a text block (an isError result if json is not a JSON object). */
mcpwasm_result *mcpwasm_json_result(const char *json);
/** A result with one image block; the bytes are base64-encoded here. */
mcpwasm_result *mcpwasm_image(const void *bytes, size_t n, const char *mime_type);
/** An isError result whose text is msg: the model reads it and can react. */
mcpwasm_result *mcpwasm_error(const char *msg);
/** mcpwasm_error with a printf-formatted message. */
mcpwasm_result *mcpwasm_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Appends a text block to r; returns r. */
mcpwasm_result *mcpwasm_add_text(mcpwasm_result *r, const char *text);
/** Appends an image block to r; returns r. */
mcpwasm_result *mcpwasm_add_image(mcpwasm_result *r, const void *bytes, size_t n, const char *mime_type);
/** Appends a raw content block (JSON object text) to r; returns r. */
mcpwasm_result *mcpwasm_add_content(mcpwasm_result *r, const char *block_json);

/* --------------------------------------------------------------- resources */

/** One resources/read as a resource handler sees it. */
typedef struct mcpwasm_read {
    const char *uri;      /**< the URI read */
    mcpwasm_vars vars;    /**< a template's bindings (empty for a resource) */
    mcpwasm_json context; /**< ABI context (mounts, …) */
} mcpwasm_read;

/** A read's answer (ReadResourceResult) or failure. */
typedef struct mcpwasm_contents mcpwasm_contents;
/** A resource handler. NULL fails the read (internal error). */
typedef mcpwasm_contents *(*mcpwasm_resource_fn)(const mcpwasm_read *r);

/** A resource (uri is a URI) or template (uri is an RFC 6570 template). */
typedef struct mcpwasm_resource {
    const char *uri;         /**< URI, or URI template */
    const char *name;        /**< short name */
    mcpwasm_resource_fn handler;
    const char *mime_type;   /**< optional */
    const char *title;       /**< optional */
    const char *description; /**< optional */
} mcpwasm_resource;

/** Contents holding one text item (mime_type may be NULL). */
mcpwasm_contents *mcpwasm_read_text(const char *uri, const char *mime_type, const char *text);
/** Contents holding one blob item; the bytes are base64-encoded here. */
mcpwasm_contents *mcpwasm_read_blob(const char *uri, const char *mime_type, const void *bytes, size_t n);
/** Appends a text item to c; returns c. */
mcpwasm_contents *mcpwasm_add_read_text(mcpwasm_contents *c, const char *uri, const char *mime_type, const char *text);
/** Appends a blob item to c; returns c. */
mcpwasm_contents *mcpwasm_add_read_blob(mcpwasm_contents *c, const char *uri, const char *mime_type, const void *bytes, size_t n);
/** A failed read; a message containing "not found" makes the host answer
 *  resource-not-found, anything else an internal error. */
mcpwasm_contents *mcpwasm_read_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------- prompts */

/** A prompt argument; end a list of them with {0}. */
typedef struct mcpwasm_prompt_arg {
    const char *name;
    const char *description; /**< optional */
    bool required;           /**< checked (absent or "" fails) before the handler */
} mcpwasm_prompt_arg;

/** One prompts/get as a prompt handler sees it. */
typedef struct mcpwasm_prompt_req {
    const char *name;       /**< the prompt's declared name */
    mcpwasm_json arguments; /**< object of string values (absent if none) */
    mcpwasm_json context;   /**< ABI context */
} mcpwasm_prompt_req;

/** A prompt's answer (GetPromptResult) or failure. */
typedef struct mcpwasm_messages mcpwasm_messages;
/** A prompt handler. NULL fails the get. */
typedef mcpwasm_messages *(*mcpwasm_prompt_fn)(const mcpwasm_prompt_req *r);

/** A prompt declaration. */
typedef struct mcpwasm_prompt {
    const char *name;                /**< [A-Za-z0-9_-]{1,64} */
    const char *description;         /**< optional */
    mcpwasm_prompt_fn handler;
    const mcpwasm_prompt_arg *args;  /**< optional, ended by {0} */
    const char *title;               /**< optional */
} mcpwasm_prompt;

/** Argument `name` of a get, or NULL when absent or "". */
const char *mcpwasm_prompt_get_arg(const mcpwasm_prompt_req *r, const char *name);
/** Messages: empty (add to them). */
mcpwasm_messages *mcpwasm_messages_new(void);
/** Messages: one user text message. */
mcpwasm_messages *mcpwasm_prompt_user(const char *text);
/** Appends a text message; role is "user" or "assistant". Returns m. */
mcpwasm_messages *mcpwasm_add_message(mcpwasm_messages *m, const char *role, const char *text);
/** Appends a message with a raw content block (JSON object text). Returns m. */
mcpwasm_messages *mcpwasm_add_message_content(mcpwasm_messages *m, const char *role, const char *block_json);
/** Sets the result's description. Returns m. */
mcpwasm_messages *mcpwasm_messages_describe(mcpwasm_messages *m, const char *description);
/** A failed get (JSON-RPC error for the client), printf-formatted. */
mcpwasm_messages *mcpwasm_prompt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* -------------------------------------------------------------- completion */

/** What a completer completes: a prompt's argument or a template's variable. */
typedef enum mcpwasm_ref_type { MCPWASM_REF_PROMPT, MCPWASM_REF_RESOURCE } mcpwasm_ref_type;

/** One completion/complete as a completer sees it. */
typedef struct mcpwasm_complete_req {
    mcpwasm_ref_type ref_type;
    const char *ref;        /**< prompt name, or template/URI */
    const char *argument;   /**< argument or variable name */
    const char *value;      /**< typed so far ("" when nothing) */
    mcpwasm_json resolved;  /**< context.arguments: filled-in arguments */
    mcpwasm_json context;   /**< ABI context */
} mcpwasm_complete_req;

/** A completion's answer (CompleteResult) or failure. */
typedef struct mcpwasm_completion mcpwasm_completion;
/** A completer. NULL fails the request. */
typedef mcpwasm_completion *(*mcpwasm_complete_fn)(const mcpwasm_complete_req *r);

/** A completer declaration. */
typedef struct mcpwasm_completer {
    mcpwasm_ref_type ref_type;    /**< MCPWASM_REF_PROMPT or MCPWASM_REF_RESOURCE */
    const char *ref;              /**< prompt name or template exactly as declared */
    const char *argument;         /**< which argument/variable */
    mcpwasm_complete_fn handler;
} mcpwasm_completer;

/** A resolved argument (context.arguments[name]) or NULL. */
const char *mcpwasm_complete_resolved(const mcpwasm_complete_req *r, const char *name);
/** An empty completion (add values to it). */
mcpwasm_completion *mcpwasm_completion_new(void);
/** Appends a value; past 100 values the rest only count in total/hasMore. Returns c. */
mcpwasm_completion *mcpwasm_completion_add(mcpwasm_completion *c, const char *value);
/** The candidates (NULL-terminated list) starting with prefix, in order. */
mcpwasm_completion *mcpwasm_completion_matching(const char *prefix, const char *const *candidates);
/** A failed completion, printf-formatted. */
mcpwasm_completion *mcpwasm_completion_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---------------------------------------------------------- host functions */

/** notifications/progress: progress, total (negative: none), message (NULL: none).
 *  A no-op when the client sent no progress token. */
void mcpwasm_progress(double progress, double total, const char *message);
/** notifications/message: level ("debug", "info", "warning", "error", …),
 *  logger (NULL: none), data as JSON text (sent as a string if not JSON). */
void mcpwasm_log(const char *level, const char *logger, const char *data_json);
/** mcpwasm_log with a printf-formatted string as data and no logger. */
void mcpwasm_logf(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The plugin's config value for key (operator's TOML), or NULL when unset. */
const char *mcpwasm_config(const char *key);
/** Sampling: params_json is CreateMessageRequest params. On success *result
 *  gets the CreateMessageResult and true is returned; when the host could not
 *  ask (no capability, stateless, deadline), *error gets its message. */
__attribute__((warn_unused_result)) bool mcpwasm_create_message(const char *params_json, mcpwasm_json *result, const char **error);
/** Sampling with one user text message and maxTokens; as mcpwasm_create_message. */
__attribute__((warn_unused_result)) bool mcpwasm_sample(const char *text, int max_tokens, mcpwasm_json *result, const char **error);
/** Elicitation with ElicitRequest params; as mcpwasm_create_message. */
__attribute__((warn_unused_result)) bool mcpwasm_create_elicitation(const char *params_json, mcpwasm_json *result, const char **error);
/** Form elicitation of message and a requestedSchema (JSON text). */
__attribute__((warn_unused_result)) bool mcpwasm_elicit(const char *message, const char *schema_json, mcpwasm_json *result, const char **error);
/** The client's roots: *result gets the ListRootsResult ({"roots":[…]}). */
__attribute__((warn_unused_result)) bool mcpwasm_list_roots(mcpwasm_json *result, const char **error);
/** notifications/resources/updated for uri. */
void mcpwasm_notify_resource_updated(const char *uri);
/** The host re-reads this plugin's tools and notifies clients. */
void mcpwasm_notify_tool_list_changed(void);
/** The host re-reads this plugin's resources and notifies clients. */
void mcpwasm_notify_resource_list_changed(void);
/** The host re-reads this plugin's prompts and notifies clients. */
void mcpwasm_notify_prompt_list_changed(void);
/** notifications/elicitation/complete for a URL-mode elicitation. */
void mcpwasm_notify_url_elicitation_completed(const char *elicitation_id);
/** A new printf-formatted string (never freed, like all SDK memory). */
char *mcpwasm_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Ends the call as a crash the host reports as "the tool aborted: <msg>"
 *  (category panic): sets the Extism error, then traps. */
_Noreturn void mcpwasm_panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------- exports (macros) */

#if defined(__wasm__)
/** Marks a function as a wasm export named n (nothing off wasm). */
#define MCPWASM_EXPORT(n) __attribute__((export_name(n)))
#else
#define MCPWASM_EXPORT(n)
#endif
/** Number of elements of a static array. */
#define MCPWASM_LEN(a) (sizeof(a) / sizeof((a)[0]))

/** Runs the list_tools / call_tool exports over a tool table (used by MCPWASM_TOOLS). */
int32_t mcpwasm_run_list_tools(const mcpwasm_tool *t, size_t n);
/** See mcpwasm_run_list_tools. */
int32_t mcpwasm_run_call_tool(const mcpwasm_tool *t, size_t n);
/** Runs list_resources / list_resource_templates / read_resource (used by MCPWASM_RESOURCES). */
int32_t mcpwasm_run_list_resources(const mcpwasm_resource *r, size_t n, bool templates);
/** See mcpwasm_run_list_resources. */
int32_t mcpwasm_run_read_resource(const mcpwasm_resource *r, size_t nr, const mcpwasm_resource *t, size_t nt);
/** Runs list_prompts / get_prompt (used by MCPWASM_PROMPTS). */
int32_t mcpwasm_run_list_prompts(const mcpwasm_prompt *p, size_t n);
/** See mcpwasm_run_list_prompts. */
int32_t mcpwasm_run_get_prompt(const mcpwasm_prompt *p, size_t n);
/** Runs complete (used by MCPWASM_COMPLETIONS). */
int32_t mcpwasm_run_complete(const mcpwasm_completer *c, size_t n);

/** One file of a skill (ABI.md section 5a): its path relative to the skill's
 *  root and its bytes, e.g. from `xxd -i` or C23 `#embed`. Valid UTF-8 is
 *  sent as text, anything else as base64. */
typedef struct {
    const char *path;
    const void *data;
    size_t len;
    const char *mime_type; /* optional; the host guesses from the extension */
} mcpwasm_skill_file;
/** One skill: its path (the last segment is its name) and every file,
 *  SKILL.md included. */
typedef struct {
    const char *path;
    const mcpwasm_skill_file *files;
    size_t nfiles;
} mcpwasm_skill;
/** Runs list_skills (used by MCPWASM_SKILLS). Fails on a skill without
 *  SKILL.md, a file twice, or a path that is empty, absolute, has a
 *  backslash or an empty, "." or ".." segment; the host checks the rest. */
int32_t mcpwasm_run_list_skills(const mcpwasm_skill *s, size_t n);

/** Defines mcpwasm_abi_version, list_tools and call_tool over the static
 *  array `tools`. Expand once, at file scope. */
#define MCPWASM_TOOLS(tools)                                                                       \
    int32_t mcpwasm_abi_version(void), list_tools(void), call_tool(void);                          \
    MCPWASM_EXPORT("mcpwasm_abi_version") int32_t mcpwasm_abi_version(void) { return MCPWASM_ABI_VERSION; } \
    MCPWASM_EXPORT("list_tools") int32_t list_tools(void) { return mcpwasm_run_list_tools(tools, MCPWASM_LEN(tools)); } \
    MCPWASM_EXPORT("call_tool") int32_t call_tool(void) { return mcpwasm_run_call_tool(tools, MCPWASM_LEN(tools)); }

/** Defines list_resources, list_resource_templates and read_resource over
 *  resources[0..nres) and templates[0..ntmpl) (either may be NULL, 0). */
#define MCPWASM_RESOURCES(res, nres, tmpl, ntmpl)                                                  \
    int32_t list_resources(void), list_resource_templates(void), read_resource(void);              \
    MCPWASM_EXPORT("list_resources") int32_t list_resources(void) { return mcpwasm_run_list_resources(res, nres, false); } \
    MCPWASM_EXPORT("list_resource_templates") int32_t list_resource_templates(void) { return mcpwasm_run_list_resources(tmpl, ntmpl, true); } \
    MCPWASM_EXPORT("read_resource") int32_t read_resource(void) { return mcpwasm_run_read_resource(res, nres, tmpl, ntmpl); }

/** Defines list_prompts and get_prompt over the static array `prompts`. */
#define MCPWASM_PROMPTS(prompts)                                                                   \
    int32_t list_prompts(void), get_prompt(void);                                                  \
    MCPWASM_EXPORT("list_prompts") int32_t list_prompts(void) { return mcpwasm_run_list_prompts(prompts, MCPWASM_LEN(prompts)); } \
    MCPWASM_EXPORT("get_prompt") int32_t get_prompt(void) { return mcpwasm_run_get_prompt(prompts, MCPWASM_LEN(prompts)); }

/** Defines complete over the static array `completers`. Anything no
 *  completer claims completes to no values. */
#define MCPWASM_COMPLETIONS(completers)                                                            \
    int32_t complete(void);                                                                        \
    MCPWASM_EXPORT("complete") int32_t complete(void) { return mcpwasm_run_complete(completers, MCPWASM_LEN(completers)); }

/** Defines list_skills (ABI 1.1) over the static array `skills`. */
#define MCPWASM_SKILLS(skills)                                                                     \
    int32_t list_skills(void);                                                                     \
    MCPWASM_EXPORT("list_skills") int32_t list_skills(void) { return mcpwasm_run_list_skills(skills, MCPWASM_LEN(skills)); }

#if !defined(__wasm__)
/* Native stand-in for the kernel and host, for tests (not on wasm). */
/** Resets the stand-in: input, output, error, recorded calls, config, answers. */
void mcpwasm_native_reset(void);
/** Sets the input the next export call reads. */
void mcpwasm_native_set_input(const char *json);
/** The last output_set text ("" if none). */
const char *mcpwasm_native_output(void);
/** The last error_set text ("" if none). */
const char *mcpwasm_native_error(void);
/** Host functions called so far, one "name payload" line each. */
const char *mcpwasm_native_calls(void);
/** Byte-wise kernel calls (input_load_u8, load_u8, store_u8) so far: blocks
 *  of 8 bytes or more should take none. */
size_t mcpwasm_native_byte_calls(void);
/** Sets a config value config_get returns. */
void mcpwasm_native_set_config(const char *key, const char *value);
/** What host function fn ("create_message", "create_elicitation",
 *  "list_roots") answers; by default {"error":{"message":"no client"}}. */
void mcpwasm_native_answer(const char *fn, const char *json);
/** Makes the kernel's alloc fail (return 0) from now on, as when the host's
 *  memory limit is reached; the next SDK store traps as out of memory. */
void mcpwasm_native_fail_alloc(bool fail);
#endif

#ifdef __cplusplus
}
#endif
#endif /* MCPWASM_H */

/* ======================================================== implementation */
#if defined(MCPWASM_IMPLEMENTATION) && !defined(MCPWASM_IMPLEMENTED)
#define MCPWASM_IMPLEMENTED

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mcpwasm__put(mcpwasm_writer *w, const char *s, size_t n);

/* ---- kernel (extism:host/env) and host functions (extism:host/user) */
#if defined(__wasm__)
#define MCPWASM__ENV(n) __attribute__((import_module("extism:host/env"), import_name(n)))
#define MCPWASM__USER(n) __attribute__((import_module("extism:host/user"), import_name(n)))
MCPWASM__ENV("input_length") uint64_t mcpwasm__input_length(void);
MCPWASM__ENV("input_load_u8") uint32_t mcpwasm__input_load_u8(uint64_t off);
MCPWASM__ENV("input_load_u64") uint64_t mcpwasm__input_load_u64(uint64_t off);
MCPWASM__ENV("alloc") uint64_t mcpwasm__alloc(uint64_t n);
MCPWASM__ENV("length") uint64_t mcpwasm__length(uint64_t h);
MCPWASM__ENV("load_u8") uint32_t mcpwasm__load_u8(uint64_t off);
MCPWASM__ENV("load_u64") uint64_t mcpwasm__load_u64(uint64_t off);
MCPWASM__ENV("store_u8") void mcpwasm__store_u8(uint64_t off, uint32_t b);
MCPWASM__ENV("store_u64") void mcpwasm__store_u64(uint64_t off, uint64_t w);
MCPWASM__ENV("output_set") void mcpwasm__output_set(uint64_t h, uint64_t n);
MCPWASM__ENV("error_set") void mcpwasm__error_set(uint64_t h);
MCPWASM__ENV("config_get") uint64_t mcpwasm__config_get(uint64_t key);
MCPWASM__USER("notify_progress") void mcpwasm__h_notify_progress(uint64_t h);
MCPWASM__USER("notify_logging_message") void mcpwasm__h_notify_logging_message(uint64_t h);
MCPWASM__USER("create_message") uint64_t mcpwasm__h_create_message(uint64_t h);
MCPWASM__USER("create_elicitation") uint64_t mcpwasm__h_create_elicitation(uint64_t h);
MCPWASM__USER("list_roots") uint64_t mcpwasm__h_list_roots(void);
MCPWASM__USER("notify_resource_updated") void mcpwasm__h_notify_resource_updated(uint64_t h);
MCPWASM__USER("notify_tool_list_changed") void mcpwasm__h_notify_tool_list_changed(void);
MCPWASM__USER("notify_resource_list_changed") void mcpwasm__h_notify_resource_list_changed(void);
MCPWASM__USER("notify_prompt_list_changed") void mcpwasm__h_notify_prompt_list_changed(void);
MCPWASM__USER("notify_url_elicitation_completed") void mcpwasm__h_notify_url_elicitation_completed(uint64_t h);
#else
/* The native stand-in: one growable "kernel memory", blocks recorded by offset. */
static struct {
    unsigned char *mem; uint64_t len, cap;
    uint64_t boff[8192], blen[8192]; size_t nblocks;
    char *input; size_t input_len;
    char *output, *error;
    mcpwasm_writer calls;
    const char *cfg_key[64], *cfg_val[64]; size_t ncfg;
    const char *ans_fn[8], *ans_json[8]; size_t nans;
    size_t byte_calls;
    bool fail_alloc;
} mcpwasm__nk;
static void mcpwasm__nk_bounds(uint64_t off, uint64_t n) {
    if (off + n > mcpwasm__nk.len || off + n < off) { fprintf(stderr, "mcpwasm native kernel: out of bounds\n"); abort(); }
}
static uint64_t mcpwasm__input_length(void) { return mcpwasm__nk.input_len; }
static uint32_t mcpwasm__input_load_u8(uint64_t off) {
    if (off >= mcpwasm__nk.input_len) abort();
    mcpwasm__nk.byte_calls++;
    return (unsigned char)mcpwasm__nk.input[off];
}
static uint64_t mcpwasm__input_load_u64(uint64_t off) {
    uint64_t w;
    if (off + 8 > mcpwasm__nk.input_len) abort();
    memcpy(&w, mcpwasm__nk.input + off, 8);
    return w;
}
static uint64_t mcpwasm__alloc(uint64_t n) {
    if (mcpwasm__nk.fail_alloc) return 0;
    if (mcpwasm__nk.len == 0) mcpwasm__nk.len = 8; /* offset 0 means "none" */
    while (mcpwasm__nk.len + n > mcpwasm__nk.cap) {
        mcpwasm__nk.cap = mcpwasm__nk.cap ? mcpwasm__nk.cap * 2 : 4096;
        mcpwasm__nk.mem = (unsigned char *)realloc(mcpwasm__nk.mem, mcpwasm__nk.cap);
        if (!mcpwasm__nk.mem) abort();
    }
    if (mcpwasm__nk.nblocks == 8192) abort();
    uint64_t off = mcpwasm__nk.len;
    mcpwasm__nk.len += n;
    mcpwasm__nk.boff[mcpwasm__nk.nblocks] = off;
    mcpwasm__nk.blen[mcpwasm__nk.nblocks++] = n;
    return off;
}
static uint64_t mcpwasm__length(uint64_t h) {
    for (size_t i = 0; i < mcpwasm__nk.nblocks; i++)
        if (mcpwasm__nk.boff[i] == h) return mcpwasm__nk.blen[i];
    return 0;
}
static uint32_t mcpwasm__load_u8(uint64_t off) { mcpwasm__nk_bounds(off, 1); mcpwasm__nk.byte_calls++; return mcpwasm__nk.mem[off]; }
static uint64_t mcpwasm__load_u64(uint64_t off) {
    uint64_t w; mcpwasm__nk_bounds(off, 8); memcpy(&w, mcpwasm__nk.mem + off, 8); return w;
}
static void mcpwasm__store_u8(uint64_t off, uint32_t b) { mcpwasm__nk_bounds(off, 1); mcpwasm__nk.byte_calls++; mcpwasm__nk.mem[off] = (unsigned char)b; }
static void mcpwasm__store_u64(uint64_t off, uint64_t w) { mcpwasm__nk_bounds(off, 8); memcpy(mcpwasm__nk.mem + off, &w, 8); }
static char *mcpwasm__nk_text(uint64_t h, uint64_t n) {
    char *s = (char *)malloc(n + 1);
    if (!s) abort();
    if (n) { mcpwasm__nk_bounds(h, n); memcpy(s, mcpwasm__nk.mem + h, n); }
    s[n] = 0;
    return s;
}
static void mcpwasm__output_set(uint64_t h, uint64_t n) { mcpwasm__nk.output = mcpwasm__nk_text(h, n); }
static void mcpwasm__error_set(uint64_t h) { mcpwasm__nk.error = mcpwasm__nk_text(h, mcpwasm__length(h)); }
static uint64_t mcpwasm__nk_store(const char *s) {
    uint64_t n = strlen(s), h = mcpwasm__alloc(n);
    memcpy(mcpwasm__nk.mem + h, s, n);
    return h;
}
static uint64_t mcpwasm__config_get(uint64_t key) {
    char *k = mcpwasm__nk_text(key, mcpwasm__length(key));
    for (size_t i = 0; i < mcpwasm__nk.ncfg; i++)
        if (strcmp(mcpwasm__nk.cfg_key[i], k) == 0) return mcpwasm__nk_store(mcpwasm__nk.cfg_val[i]);
    return 0;
}
static void mcpwasm__nk_record(const char *fn, uint64_t h) {
    mcpwasm_writer *w = &mcpwasm__nk.calls;
    mcpwasm__put(w, fn, strlen(fn));
    if (h) { char *p = mcpwasm__nk_text(h, mcpwasm__length(h)); mcpwasm__put(w, " ", 1); mcpwasm__put(w, p, strlen(p)); }
    mcpwasm__put(w, "\n", 1);
}
static uint64_t mcpwasm__nk_answer(const char *fn, uint64_t h) {
    mcpwasm__nk_record(fn, h);
    for (size_t i = mcpwasm__nk.nans; i-- > 0;)
        if (strcmp(mcpwasm__nk.ans_fn[i], fn) == 0) return mcpwasm__nk_store(mcpwasm__nk.ans_json[i]);
    return mcpwasm__nk_store("{\"error\":{\"message\":\"no client\"}}");
}
static void mcpwasm__h_notify_progress(uint64_t h) { mcpwasm__nk_record("notify_progress", h); }
static void mcpwasm__h_notify_logging_message(uint64_t h) { mcpwasm__nk_record("notify_logging_message", h); }
static uint64_t mcpwasm__h_create_message(uint64_t h) { return mcpwasm__nk_answer("create_message", h); }
static uint64_t mcpwasm__h_create_elicitation(uint64_t h) { return mcpwasm__nk_answer("create_elicitation", h); }
static uint64_t mcpwasm__h_list_roots(void) { return mcpwasm__nk_answer("list_roots", 0); }
static void mcpwasm__h_notify_resource_updated(uint64_t h) { mcpwasm__nk_record("notify_resource_updated", h); }
static void mcpwasm__h_notify_tool_list_changed(void) { mcpwasm__nk_record("notify_tool_list_changed", 0); }
static void mcpwasm__h_notify_resource_list_changed(void) { mcpwasm__nk_record("notify_resource_list_changed", 0); }
static void mcpwasm__h_notify_prompt_list_changed(void) { mcpwasm__nk_record("notify_prompt_list_changed", 0); }
static void mcpwasm__h_notify_url_elicitation_completed(uint64_t h) { mcpwasm__nk_record("notify_url_elicitation_completed", h); }

void mcpwasm_native_reset(void) {
    free(mcpwasm__nk.mem); free(mcpwasm__nk.calls.buf);
    memset(&mcpwasm__nk, 0, sizeof mcpwasm__nk);
}
void mcpwasm_native_set_input(const char *json) {
    mcpwasm__nk.input_len = strlen(json);
    mcpwasm__nk.input = (char *)malloc(mcpwasm__nk.input_len + 1);
    if (!mcpwasm__nk.input) abort();
    memcpy(mcpwasm__nk.input, json, mcpwasm__nk.input_len + 1);
    mcpwasm__nk.output = mcpwasm__nk.error = NULL;
}
const char *mcpwasm_native_output(void) { return mcpwasm__nk.output ? mcpwasm__nk.output : ""; }
const char *mcpwasm_native_error(void) { return mcpwasm__nk.error ? mcpwasm__nk.error : ""; }
size_t mcpwasm_native_byte_calls(void) { return mcpwasm__nk.byte_calls; }
const char *mcpwasm_native_calls(void) { return mcpwasm_w_text(&mcpwasm__nk.calls); }
void mcpwasm_native_set_config(const char *key, const char *value) {
    if (mcpwasm__nk.ncfg < 64) { mcpwasm__nk.cfg_key[mcpwasm__nk.ncfg] = key; mcpwasm__nk.cfg_val[mcpwasm__nk.ncfg++] = value; }
}
void mcpwasm_native_answer(const char *fn, const char *json) {
    if (mcpwasm__nk.nans < 8) { mcpwasm__nk.ans_fn[mcpwasm__nk.nans] = fn; mcpwasm__nk.ans_json[mcpwasm__nk.nans++] = json; }
}
void mcpwasm_native_fail_alloc(bool fail) { mcpwasm__nk.fail_alloc = fail; }
#endif

/* ---- memory */
/* No error_set here: the host reads "message set, then a trap" as a panic, and
 * storing the message needs the allocation that just failed. stderr is
 * unbuffered, so this allocates nothing; the host matches "out of memory". */
static _Noreturn void mcpwasm__oom(void) {
    fputs("out of memory\n", stderr);
    __builtin_trap();
}
static void *mcpwasm__alloc_mem(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) mcpwasm__oom();
    return p;
}
static char *mcpwasm__strndup(const char *s, size_t n) {
    char *d = (char *)mcpwasm__alloc_mem(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}
static char *mcpwasm__vformat(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) n = 0;
    char *s = (char *)mcpwasm__alloc_mem((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* ---- kernel I/O: 8 bytes per kernel call, the tail as one overlapping word */
static uint64_t mcpwasm__store(const char *s, size_t n) {
    uint64_t h = mcpwasm__alloc(n ? n : 1), w;
    size_t i = 0;
    if (!h) mcpwasm__oom();
    for (; i + 8 <= n; i += 8) { memcpy(&w, s + i, 8); mcpwasm__store_u64(h + i, w); }
    if (i < n && n >= 8) { memcpy(&w, s + n - 8, 8); mcpwasm__store_u64(h + n - 8, w); }
    else for (; i < n; i++) mcpwasm__store_u8(h + i, (unsigned char)s[i]);
    return h;
}
static uint64_t mcpwasm__store_str(const char *s) { return mcpwasm__store(s, strlen(s)); }
/* Copies n bytes at offset base, read with the given loaders (the input's or
 * kernel memory's), into a new NUL-terminated buffer. */
static char *mcpwasm__read(uint64_t base, uint64_t n, uint32_t (*u8)(uint64_t), uint64_t (*u64)(uint64_t), size_t *len) {
    uint64_t w;
    if (n > SIZE_MAX - 1) mcpwasm__oom();
    char *b = (char *)mcpwasm__alloc_mem((size_t)n + 1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) { w = u64(base + i); memcpy(b + i, &w, 8); }
    if (i < n && n >= 8) { w = u64(base + n - 8); memcpy(b + n - 8, &w, 8); }
    else for (; i < n; i++) b[i] = (char)u8(base + i);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}
static char *mcpwasm__read_input(size_t *len) {
    return mcpwasm__read(0, mcpwasm__input_length(), mcpwasm__input_load_u8, mcpwasm__input_load_u64, len);
}
static char *mcpwasm__load_block(uint64_t h, size_t *len) {
    return mcpwasm__read(h, h ? mcpwasm__length(h) : 0, mcpwasm__load_u8, mcpwasm__load_u64, len);
}
static void mcpwasm__set_error(const char *msg) { mcpwasm__error_set(mcpwasm__store_str(msg)); }
static int32_t mcpwasm__fail(const char *msg) { mcpwasm__set_error(msg); return 1; }
static int32_t mcpwasm__output(mcpwasm_writer *w) {
    const char *t = mcpwasm_w_text(w);
    mcpwasm__output_set(mcpwasm__store(t, w->len), w->len);
    return 0;
}
/* A list export's answer: mcpwasm__list_begin writes {"<key>": [, the
   export writes the items, mcpwasm__list_end closes both and outputs it. */
static void mcpwasm__list_begin(mcpwasm_writer *w, const char *key) {
    mcpwasm_w_object(w);
    mcpwasm_w_key(w, key);
    mcpwasm_w_array(w);
}
static int32_t mcpwasm__list_end(mcpwasm_writer *w) {
    mcpwasm_w_array_end(w);
    mcpwasm_w_object_end(w);
    return mcpwasm__output(w);
}

/* ---- JSON reader */
static const char *mcpwasm__ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}
static int mcpwasm__hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* p at '"'; returns the byte after the closing quote, or NULL. */
static const char *mcpwasm__skip_string(const char *p, const char *e) {
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20) return NULL;
        if (c == '\\') {
            if (++p >= e) return NULL;
            if (*p == 'u') {
                if (e - p < 5) return NULL;
                for (int k = 1; k <= 4; k++) if (mcpwasm__hex(p[k]) < 0) return NULL;
                p += 4;
            } else if (!strchr("\"\\/bfnrt", *p) || !*p) return NULL;
        }
    }
    return NULL;
}
static const char *mcpwasm__digits(const char *p, const char *e) {
    const char *s = p;
    while (p < e && *p >= '0' && *p <= '9') p++;
    return p == s ? NULL : p;
}
static const char *mcpwasm__skip_number(const char *p, const char *e) {
    if (p < e && *p == '-') p++;
    if (p < e && *p == '0') p++;
    else if (!(p = mcpwasm__digits(p, e))) return NULL;
    if (p < e && *p == '.' && !(p = mcpwasm__digits(p + 1, e))) return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (!(p = mcpwasm__digits(p, e))) return NULL;
    }
    return p;
}
/* Set when a skip failed on MCPWASM_MAX_DEPTH; reset by mcpwasm_json_parse. */
static bool mcpwasm__too_deep;
/* p at a value's first byte (no whitespace); returns the byte after it, or NULL. */
static const char *mcpwasm__skip(const char *p, const char *e, int depth) {
    if (p >= e) return NULL;
    switch (*p) {
    case '"': return mcpwasm__skip_string(p, e);
    case 't': return (e - p >= 4 && !memcmp(p, "true", 4)) ? p + 4 : NULL;
    case 'f': return (e - p >= 5 && !memcmp(p, "false", 5)) ? p + 5 : NULL;
    case 'n': return (e - p >= 4 && !memcmp(p, "null", 4)) ? p + 4 : NULL;
    case '{': case '[': {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        if (depth >= MCPWASM_MAX_DEPTH) { mcpwasm__too_deep = true; return NULL; }
        p = mcpwasm__ws(p + 1, e);
        if (p < e && *p == close) return p + 1;
        for (;;) {
            if (obj) {
                if (p >= e || *p != '"' || !(p = mcpwasm__skip_string(p, e))) return NULL;
                p = mcpwasm__ws(p, e);
                if (p >= e || *p != ':') return NULL;
                p = mcpwasm__ws(p + 1, e);
            }
            if (!(p = mcpwasm__skip(p, e, depth + 1))) return NULL;
            p = mcpwasm__ws(p, e);
            if (p >= e) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p = mcpwasm__ws(p + 1, e);
        }
    }
    default: return (*p == '-' || (*p >= '0' && *p <= '9')) ? mcpwasm__skip_number(p, e) : NULL;
    }
}
bool mcpwasm_json_parse(const char *text, size_t n, mcpwasm_json *out) {
    if (!text) return false;
    const char *e = text + n, *p = mcpwasm__ws(text, e), *q;
    mcpwasm__too_deep = false;
    if (!(q = mcpwasm__skip(p, e, 0)) || mcpwasm__ws(q, e) != e) return false;
    out->p = p;
    out->n = (size_t)(q - p);
    return true;
}
mcpwasm_json_type mcpwasm_json_kind(mcpwasm_json v) {
    if (!v.p || !v.n) return MCPWASM_JSON_NONE;
    switch (v.p[0]) {
    case 'n': return MCPWASM_JSON_NULL;
    case 't': case 'f': return MCPWASM_JSON_BOOL;
    case '"': return MCPWASM_JSON_STRING;
    case '[': return MCPWASM_JSON_ARRAY;
    case '{': return MCPWASM_JSON_OBJECT;
    default: return MCPWASM_JSON_NUMBER;
    }
}
bool mcpwasm_json_next(mcpwasm_json c, mcpwasm_json_iter *it, mcpwasm_json *key, mcpwasm_json *val) {
    mcpwasm_json_type k = mcpwasm_json_kind(c);
    const char *e = c.p + c.n, *p, *q;
    mcpwasm_json none = {0};
    if (it->done || (k != MCPWASM_JSON_ARRAY && k != MCPWASM_JSON_OBJECT)) goto end;
    p = mcpwasm__ws(it->pos ? it->pos : c.p + 1, e);
    if (p >= e) goto end;
    if (it->pos) { /* after a member: ',' or the end */
        if (*p != ',') goto end;
        p = mcpwasm__ws(p + 1, e);
    } else if (*p == ']' || *p == '}') goto end;
    if (key) *key = none;
    if (k == MCPWASM_JSON_OBJECT) {
        if (p >= e || *p != '"' || !(q = mcpwasm__skip_string(p, e))) goto end;
        if (key) { key->p = p; key->n = (size_t)(q - p); }
        p = mcpwasm__ws(q, e);
        if (p >= e || *p != ':') goto end;
        p = mcpwasm__ws(p + 1, e);
    }
    if (!(q = mcpwasm__skip(p, e, 1))) goto end;
    if (val) { val->p = p; val->n = (size_t)(q - p); }
    it->pos = q;
    return true;
end:
    it->done = true;
    return false;
}
/* Decodes the JSON string at s (raw, with quotes) into dst (room for s.n bytes). */
static size_t mcpwasm__decode(mcpwasm_json s, char *dst) {
    const char *p = s.p + 1, *e = s.p + s.n - 1;
    size_t o = 0;
    while (p < e) {
        if (*p != '\\') { dst[o++] = *p++; continue; }
        p++;
        char c = *p++;
        if (c != 'u') {
            const char *m = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", c);
            dst[o++] = m ? m[1] : c;
            continue;
        }
        uint32_t cp = 0;
        for (int k = 0; k < 4; k++) cp = cp << 4 | (uint32_t)mcpwasm__hex(p[k]);
        p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && e - p >= 6 && p[0] == '\\' && p[1] == 'u') {
            uint32_t lo = 0;
            for (int k = 2; k < 6; k++) lo = lo << 4 | (uint32_t)mcpwasm__hex(p[k]);
            if (lo >= 0xDC00 && lo < 0xE000) { cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00); p += 6; }
        }
        if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* lone surrogate */
        if (cp < 0x80) dst[o++] = (char)cp;
        else if (cp < 0x800) { dst[o++] = (char)(0xC0 | cp >> 6); dst[o++] = (char)(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
            dst[o++] = (char)(0xE0 | cp >> 12); dst[o++] = (char)(0x80 | (cp >> 6 & 0x3F)); dst[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            dst[o++] = (char)(0xF0 | cp >> 18); dst[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
            dst[o++] = (char)(0x80 | (cp >> 6 & 0x3F)); dst[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    return o;
}
static bool mcpwasm__is_string(mcpwasm_json v) {
    return mcpwasm_json_kind(v) == MCPWASM_JSON_STRING && mcpwasm__skip_string(v.p, v.p + v.n) == v.p + v.n;
}
char *mcpwasm_json_string(mcpwasm_json v, size_t *len) {
    if (!mcpwasm__is_string(v)) return NULL;
    char *d = (char *)mcpwasm__alloc_mem(v.n); /* decoding never grows: \uXXXX (6) → ≤ 3, pairs 12 → 4 */
    size_t n = mcpwasm__decode(v, d);
    d[n] = 0;
    if (len) *len = n;
    return d;
}
static bool mcpwasm__key_is(mcpwasm_json k, const char *key) {
    size_t kl = strlen(key);
    if (!memchr(k.p, '\\', k.n)) return k.n == kl + 2 && !memcmp(k.p + 1, key, kl);
    size_t n;
    char *d = mcpwasm_json_string(k, &n);
    bool same = d && n == kl && !memcmp(d, key, kl);
    free(d); /* a temporary: otherwise every lookup over escaped keys would leave one */
    return same;
}
mcpwasm_json mcpwasm_json_get(mcpwasm_json obj, const char *key) {
    mcpwasm_json_iter it = {0};
    mcpwasm_json k, v, none = {0};
    if (mcpwasm_json_kind(obj) != MCPWASM_JSON_OBJECT) return none;
    while (mcpwasm_json_next(obj, &it, &k, &v))
        if (mcpwasm__key_is(k, key)) return v;
    return none;
}
mcpwasm_json mcpwasm_json_at(mcpwasm_json arr, size_t i) {
    mcpwasm_json_iter it = {0};
    mcpwasm_json v, none = {0};
    if (mcpwasm_json_kind(arr) != MCPWASM_JSON_ARRAY) return none;
    while (mcpwasm_json_next(arr, &it, NULL, &v))
        if (i-- == 0) return v;
    return none;
}
size_t mcpwasm_json_len(mcpwasm_json v) {
    mcpwasm_json_iter it = {0};
    size_t n = 0;
    while (mcpwasm_json_next(v, &it, NULL, NULL)) n++;
    return n;
}
char *mcpwasm_json_get_string(mcpwasm_json obj, const char *key) {
    return mcpwasm_json_string(mcpwasm_json_get(obj, key), NULL);
}
bool mcpwasm_json_number(mcpwasm_json v, double *out) {
    if (mcpwasm_json_kind(v) != MCPWASM_JSON_NUMBER || mcpwasm__skip_number(v.p, v.p + v.n) != v.p + v.n) return false;
    char small[64], *s = v.n < sizeof small ? small : (char *)mcpwasm__alloc_mem(v.n + 1);
    memcpy(s, v.p, v.n);
    s[v.n] = 0;
    *out = strtod(s, NULL);
    return true;
}
bool mcpwasm_json_int(mcpwasm_json v, int64_t *out) {
    double d;
    if (!mcpwasm_json_number(v, &d)) return false;
    if (!memchr(v.p, '.', v.n) && !memchr(v.p, 'e', v.n) && !memchr(v.p, 'E', v.n)) {
        bool neg = v.p[0] == '-';
        uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (size_t i = neg; i < v.n; i++) {
            unsigned dg = (unsigned)(v.p[i] - '0');
            if (u > (lim - dg) / 10) return false;
            u = u * 10 + dg;
        }
        *out = neg ? (int64_t)(0 - u) : (int64_t)u;
        return true;
    }
    if (d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
    *out = (int64_t)d;
    return true;
}
bool mcpwasm_json_bool(mcpwasm_json v, bool *out) {
    if (v.n == 4 && !memcmp(v.p, "true", 4)) { *out = true; return true; }
    if (v.n == 5 && !memcmp(v.p, "false", 5)) { *out = false; return true; }
    return false;
}
char *mcpwasm_json_dup(mcpwasm_json v) { return v.n ? mcpwasm__strndup(v.p, v.n) : NULL; }

/* ---- JSON writer */
static void mcpwasm__put(mcpwasm_writer *w, const char *s, size_t n) {
    if (w->len + n + 1 > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (w->len + n + 1 > cap) cap *= 2;
        char *b = (char *)realloc(w->buf, cap);
        if (!b) mcpwasm__oom();
        w->buf = b;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = 0;
}
/* Before a value: a comma unless it is the first at its level or a key's value. */
static void mcpwasm__sep(mcpwasm_writer *w) {
    if (w->after_key) { w->after_key = false; return; }
    if (w->depth > 0 && w->depth <= MCPWASM_MAX_DEPTH) {
        if (w->has_items[w->depth - 1]) mcpwasm__put(w, ",", 1);
        w->has_items[w->depth - 1] = 1;
    }
}
static void mcpwasm__open(mcpwasm_writer *w, const char *c) {
    mcpwasm__sep(w);
    mcpwasm__put(w, c, 1);
    if (++w->depth <= MCPWASM_MAX_DEPTH) w->has_items[w->depth - 1] = 0;
}
static void mcpwasm__close(mcpwasm_writer *w, const char *c) {
    mcpwasm__put(w, c, 1);
    if (w->depth) w->depth--;
}
void mcpwasm_w_object(mcpwasm_writer *w) { mcpwasm__open(w, "{"); }
void mcpwasm_w_object_end(mcpwasm_writer *w) { mcpwasm__close(w, "}"); }
void mcpwasm_w_array(mcpwasm_writer *w) { mcpwasm__open(w, "["); }
void mcpwasm_w_array_end(mcpwasm_writer *w) { mcpwasm__close(w, "]"); }
static void mcpwasm__escaped(mcpwasm_writer *w, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;
    mcpwasm__put(w, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        mcpwasm__put(w, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': mcpwasm__put(w, "\\\"", 2); break;
        case '\\': mcpwasm__put(w, "\\\\", 2); break;
        case '\n': mcpwasm__put(w, "\\n", 2); break;
        case '\r': mcpwasm__put(w, "\\r", 2); break;
        case '\t': mcpwasm__put(w, "\\t", 2); break;
        case '\b': mcpwasm__put(w, "\\b", 2); break;
        case '\f': mcpwasm__put(w, "\\f", 2); break;
        default: { char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}; mcpwasm__put(w, u, 6); }
        }
    }
    mcpwasm__put(w, s + run, n - run);
    mcpwasm__put(w, "\"", 1);
}
void mcpwasm_w_key(mcpwasm_writer *w, const char *key) {
    mcpwasm__sep(w);
    mcpwasm__escaped(w, key, strlen(key));
    mcpwasm__put(w, ":", 1);
    w->after_key = true;
}
void mcpwasm_w_stringn(mcpwasm_writer *w, const char *s, size_t n) { mcpwasm__sep(w); mcpwasm__escaped(w, s, n); }
void mcpwasm_w_string(mcpwasm_writer *w, const char *s) {
    if (!s) mcpwasm_w_null(w);
    else mcpwasm_w_stringn(w, s, strlen(s));
}
void mcpwasm_w_int(mcpwasm_writer *w, int64_t i) {
    char b[24], *p = b + sizeof b;
    uint64_t u = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
    do { *--p = (char)('0' + u % 10); u /= 10; } while (u);
    if (i < 0) *--p = '-';
    mcpwasm__sep(w);
    mcpwasm__put(w, p, (size_t)(b + sizeof b - p));
}
void mcpwasm_w_number(mcpwasm_writer *w, double d) {
    if (isnan(d) || isinf(d)) { mcpwasm_w_null(w); return; }
    if (d == floor(d) && fabs(d) <= 9007199254740992.0) { mcpwasm_w_int(w, (int64_t)d); return; }
    char b[40];
    for (int prec = 15; prec <= 17; prec++) { /* shortest text that reads back as d */
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d) break;
    }
    mcpwasm__sep(w);
    mcpwasm__put(w, b, strlen(b));
}
void mcpwasm_w_bool(mcpwasm_writer *w, bool b) { mcpwasm__sep(w); mcpwasm__put(w, b ? "true" : "false", b ? 4 : 5); }
void mcpwasm_w_null(mcpwasm_writer *w) { mcpwasm__sep(w); mcpwasm__put(w, "null", 4); }
void mcpwasm_w_raw(mcpwasm_writer *w, const char *json, size_t n) { mcpwasm__sep(w); mcpwasm__put(w, json, n); }
void mcpwasm_w_base64(mcpwasm_writer *w, const void *bytes, size_t n) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *b = (const unsigned char *)bytes;
    char q[4];
    mcpwasm__sep(w);
    mcpwasm__put(w, "\"", 1);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        q[0] = al[v >> 18]; q[1] = al[v >> 12 & 63];
        q[2] = i + 1 < n ? al[v >> 6 & 63] : '=';
        q[3] = i + 2 < n ? al[v & 63] : '=';
        mcpwasm__put(w, q, 4);
    }
    mcpwasm__put(w, "\"", 1);
}
const char *mcpwasm_w_text(mcpwasm_writer *w) { return w->buf ? w->buf : ""; }

/* ---- URI templates */
static bool mcpwasm__varchar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '%';
}
bool mcpwasm_template_valid(const char *t) {
    int exprs = 0;
    if (!t || !*t) return false;
    for (const char *p = t; *p; p++) {
        if (*p == '}') return false;
        if (*p != '{') continue;
        const char *c = strchr(p, '}');
        if (!c || ++exprs > MCPWASM_MAX_VARS) return false;
        const char *v = p + 1;
        if (strchr("+#./;?&", *v)) v++;
        if (v == c) return false;
        for (const char *q = v; q < c; q++) /* names, commas and :N / * modifiers */
            if (!mcpwasm__varchar(*q) && *q != ',' && *q != ':' && *q != '*') return false;
        p = c;
    }
    return true;
}
/* Backtracking matcher with a memo of failed (expression, URI offset) states,
 * so it takes at most O(expressions * len(uri)^2) steps. */
typedef struct mcpwasm__tm {
    const char *u0;
    size_t ulen, n;               /* URI length; bindings so far */
    unsigned char *failed;        /* [expression][offset] */
    const char *name[MCPWASM_MAX_VARS], *value[MCPWASM_MAX_VARS];
    size_t name_len[MCPWASM_MAX_VARS], value_len[MCPWASM_MAX_VARS];
} mcpwasm__tm;
static bool mcpwasm__tmatch(mcpwasm__tm *m, const char *t, size_t x, const char *u) {
    while (*t && *t != '{')
        if (*t++ != *u++) return false;
    if (!*t) return !*u;
    size_t memo = x * (m->ulen + 1) + (size_t)(u - m->u0);
    if (m->failed[memo]) return false;
    const char *close = strchr(t, '}'), *name = t + 1;
    char op = *name;
    if (strchr("+#./;?&", op)) name++;
    bool binds = (op == '+' || op == '#' || mcpwasm__varchar(op)) && strcspn(name, ",:*}") == (size_t)(close - name);
    if (op == '#' && *u++ != '#') { m->failed[memo] = 1; return false; }
    size_t maxlen = binds && op != '+' && op != '#' ? strcspn(u, "/?#") : strlen(u);
    for (size_t len = binds ? 1 : 0; len <= maxlen; len++) {
        /* prune: what follows the expression must come next in the URI */
        if ((close[1] && close[1] != '{' && u[len] != close[1]) || (!close[1] && u[len])) continue;
        size_t n0 = m->n;
        if (binds) {
            m->name[m->n] = name; m->name_len[m->n] = (size_t)(close - name);
            m->value[m->n] = u; m->value_len[m->n++] = len;
        }
        if (mcpwasm__tmatch(m, close + 1, x + 1, u + len)) return true;
        m->n = n0;
    }
    m->failed[memo] = 1;
    return false;
}
bool mcpwasm_template_match(const char *tmpl, const char *uri, mcpwasm_vars *vars) {
    mcpwasm__tm m;
    if (vars) vars->n = 0;
    if (!mcpwasm_template_valid(tmpl) || !uri) return false;
    memset(&m, 0, sizeof m);
    m.u0 = uri;
    m.ulen = strlen(uri);
    m.failed = (unsigned char *)calloc((MCPWASM_MAX_VARS + 1) * (m.ulen + 1), 1);
    if (!m.failed) mcpwasm__oom();
    bool ok = mcpwasm__tmatch(&m, tmpl, 0, uri);
    free(m.failed);
    for (size_t i = 0; ok && vars && i < m.n; i++) {
        vars->name[i] = mcpwasm__strndup(m.name[i], m.name_len[i]);
        vars->value[i] = mcpwasm__strndup(m.value[i], m.value_len[i]);
        vars->n = i + 1;
    }
    return ok;
}
const char *mcpwasm_vars_get(const mcpwasm_vars *vars, const char *name) {
    for (size_t i = 0; i < vars->n; i++)
        if (strcmp(vars->name[i], name) == 0) return vars->value[i];
    return NULL;
}
char *mcpwasm_percent_decode(const char *s) {
    size_t n = strlen(s), o = 0;
    char *d = (char *)mcpwasm__alloc_mem(n + 1);
    for (size_t i = 0; i < n; i++) {
        int hi, lo;
        if (s[i] == '%' && i + 2 < n && (hi = mcpwasm__hex(s[i + 1])) >= 0 && (lo = mcpwasm__hex(s[i + 2])) >= 0) {
            d[o++] = (char)(hi << 4 | lo);
            i += 2;
        } else d[o++] = s[i];
    }
    d[o] = 0;
    return d;
}

/* ---- shared helpers for the exports */
static int32_t mcpwasm__failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int32_t mcpwasm__failf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *m = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return mcpwasm__fail(m);
}
/* Reads {"request": {...}, "context": ...} for export `what`: 0, or (when
 * malformed or too deep) 1 with the error set. */
static int32_t mcpwasm__envelope(const char *what, mcpwasm_json *req, mcpwasm_json *ctx) {
    size_t n;
    char *in = mcpwasm__read_input(&n);
    mcpwasm_json doc;
    if (!mcpwasm_json_parse(in, n, &doc)) {
        if (mcpwasm__too_deep)
            return mcpwasm__failf("%s: the input nests deeper than %d levels (MCPWASM_MAX_DEPTH), "
                                  "the envelope's own levels included", what, MCPWASM_MAX_DEPTH);
        return mcpwasm__failf("%s: the input is not a {\"request\": {...}} JSON envelope", what);
    }
    *req = mcpwasm_json_get(doc, "request");
    *ctx = mcpwasm_json_get(doc, "context");
    if (mcpwasm_json_kind(doc) != MCPWASM_JSON_OBJECT || mcpwasm_json_kind(*req) != MCPWASM_JSON_OBJECT)
        return mcpwasm__failf("%s: the input is not a {\"request\": {...}} JSON envelope", what);
    return 0;
}
/* Reads an export's envelope and its request's "name": NULL after error_set
   (a malformed envelope, or "<what>: the request has no <kind> name"). */
static char *mcpwasm__named_request(const char *what, const char *kind, mcpwasm_json *req, mcpwasm_json *ctx) {
    if (mcpwasm__envelope(what, req, ctx)) return NULL;
    char *name = mcpwasm_json_get_string(*req, "name");
    if (!name) mcpwasm__failf("%s: the request has no %s name", what, kind);
    return name;
}
static bool mcpwasm__valid_name(const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > 64) return false;
    for (size_t i = 0; i < n; i++)
        if (!(mcpwasm__varchar(s[i]) && s[i] != '.' && s[i] != '%') && s[i] != '-') return false;
    return true;
}
/* An object text; with want_type, one whose "type" is "object". */
static bool mcpwasm__object_text(const char *s, bool want_type) {
    mcpwasm_json v;
    if (!s || !mcpwasm_json_parse(s, strlen(s), &v) || mcpwasm_json_kind(v) != MCPWASM_JSON_OBJECT) return false;
    if (!want_type) return true;
    char *t = mcpwasm_json_get_string(v, "type");
    return t && strcmp(t, "object") == 0;
}
/* Writes "key": s when s is set and non-empty. */
static void mcpwasm__opt(mcpwasm_writer *w, const char *key, const char *s) {
    if (s && *s) { mcpwasm_w_key(w, key); mcpwasm_w_string(w, s); }
}
static void mcpwasm__raw_text(mcpwasm_writer *w, const char *json) { mcpwasm_w_raw(w, json, strlen(json)); }
/* Writes the content block {"type":"text","text":text}. */
static void mcpwasm__text_block(mcpwasm_writer *w, const char *text) {
    mcpwasm_w_object(w);
    mcpwasm_w_key(w, "type"); mcpwasm_w_string(w, "text");
    mcpwasm_w_key(w, "text"); mcpwasm_w_string(w, text ? text : "");
    mcpwasm_w_object_end(w);
}

/* ---- tools */
struct mcpwasm_result { mcpwasm_writer content; char *structured; bool is_error; };
static mcpwasm_result *mcpwasm__result(void) {
    mcpwasm_result *r = (mcpwasm_result *)mcpwasm__alloc_mem(sizeof *r);
    memset(r, 0, sizeof *r);
    mcpwasm_w_array(&r->content);
    return r;
}
mcpwasm_result *mcpwasm_add_text(mcpwasm_result *r, const char *text) {
    mcpwasm__text_block(&r->content, text);
    return r;
}
mcpwasm_result *mcpwasm_add_image(mcpwasm_result *r, const void *bytes, size_t n, const char *mime_type) {
    mcpwasm_w_object(&r->content);
    mcpwasm_w_key(&r->content, "type"); mcpwasm_w_string(&r->content, "image");
    mcpwasm_w_key(&r->content, "data"); mcpwasm_w_base64(&r->content, bytes, n);
    mcpwasm_w_key(&r->content, "mimeType"); mcpwasm_w_string(&r->content, mime_type ? mime_type : "application/octet-stream");
    mcpwasm_w_object_end(&r->content);
    return r;
}
mcpwasm_result *mcpwasm_add_content(mcpwasm_result *r, const char *block_json) {
    if (!mcpwasm__object_text(block_json, false)) return mcpwasm_add_text(r, "(invalid content block)");
    mcpwasm__raw_text(&r->content, block_json);
    return r;
}
mcpwasm_result *mcpwasm_text(const char *text) { return mcpwasm_add_text(mcpwasm__result(), text); }
mcpwasm_result *mcpwasm_textf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return mcpwasm_text(s);
}
mcpwasm_result *mcpwasm_error(const char *msg) {
    mcpwasm_result *r = mcpwasm_text(msg);
    r->is_error = true;
    return r;
}
mcpwasm_result *mcpwasm_errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return mcpwasm_error(s);
}
mcpwasm_result *mcpwasm_json_result(const char *json) {
    mcpwasm_json v;
    if (!json || !mcpwasm_json_parse(json, strlen(json), &v) || mcpwasm_json_kind(v) != MCPWASM_JSON_OBJECT)
        return mcpwasm_error("the tool's structured result is not a JSON object");
    mcpwasm_result *r = mcpwasm__result();
    r->structured = mcpwasm_json_dup(v);
    return mcpwasm_add_text(r, r->structured);
}
mcpwasm_result *mcpwasm_image(const void *bytes, size_t n, const char *mime_type) {
    return mcpwasm_add_image(mcpwasm__result(), bytes, n, mime_type);
}
mcpwasm_json mcpwasm_arg(const mcpwasm_call *c, const char *key) { return mcpwasm_json_get(c->arguments, key); }
bool mcpwasm_has_arg(const mcpwasm_call *c, const char *key) {
    mcpwasm_json_type k = mcpwasm_json_kind(mcpwasm_arg(c, key));
    return k != MCPWASM_JSON_NONE && k != MCPWASM_JSON_NULL;
}
bool mcpwasm_arg_string(const mcpwasm_call *c, const char *key, const char **out) {
    char *s = mcpwasm_json_string(mcpwasm_arg(c, key), NULL);
    if (s) *out = s;
    return s != NULL;
}
bool mcpwasm_arg_number(const mcpwasm_call *c, const char *key, double *out) { return mcpwasm_json_number(mcpwasm_arg(c, key), out); }
bool mcpwasm_arg_int(const mcpwasm_call *c, const char *key, int64_t *out) { return mcpwasm_json_int(mcpwasm_arg(c, key), out); }
bool mcpwasm_arg_bool(const mcpwasm_call *c, const char *key, bool *out) { return mcpwasm_json_bool(mcpwasm_arg(c, key), out); }
const char *mcpwasm_call_plugin(const mcpwasm_call *c) {
    char *s = mcpwasm_json_get_string(c->context, "plugin");
    return s ? s : "";
}
int32_t mcpwasm_run_list_tools(const mcpwasm_tool *t, size_t n) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm__list_begin(&w, "tools");
    for (size_t i = 0; i < n; i++) {
        const char *nm = t[i].name ? t[i].name : "";
        if (!mcpwasm__valid_name(nm)) return mcpwasm__failf("tool %zu \"%s\": the name must be 1-64 of [A-Za-z0-9_-]", i, nm);
        for (size_t j = 0; j < i; j++)
            if (strcmp(t[j].name, nm) == 0) return mcpwasm__failf("tool \"%s\" is declared twice", nm);
        if (!t[i].handler) return mcpwasm__failf("tool \"%s\" has no handler", nm);
        if (!mcpwasm__object_text(t[i].input_schema, true))
            return mcpwasm__failf("tool \"%s\": the input schema is not a JSON object with \"type\": \"object\"", nm);
        if (t[i].output_schema && !mcpwasm__object_text(t[i].output_schema, true))
            return mcpwasm__failf("tool \"%s\": the output schema is not a JSON object with \"type\": \"object\"", nm);
        if (t[i].annotations && !mcpwasm__object_text(t[i].annotations, false))
            return mcpwasm__failf("tool \"%s\": the annotations are not a JSON object", nm);
        if (t[i].task && strcmp(t[i].task, "optional") != 0 && strcmp(t[i].task, "required") != 0)
            return mcpwasm__failf("tool \"%s\": task must be \"optional\" or \"required\", not \"%s\"", nm, t[i].task);
        if (!t[i].task && t[i].task_input_first)
            return mcpwasm__failf("tool \"%s\": task_input_first without task", nm);
        mcpwasm_w_object(&w);
        mcpwasm__opt(&w, "name", nm);
        mcpwasm__opt(&w, "title", t[i].title);
        mcpwasm__opt(&w, "description", t[i].description);
        mcpwasm_w_key(&w, "inputSchema"); mcpwasm__raw_text(&w, t[i].input_schema);
        if (t[i].output_schema) { mcpwasm_w_key(&w, "outputSchema"); mcpwasm__raw_text(&w, t[i].output_schema); }
        if (t[i].annotations) { mcpwasm_w_key(&w, "annotations"); mcpwasm__raw_text(&w, t[i].annotations); }
        if (t[i].task) {
            mcpwasm_w_key(&w, "execution");
            mcpwasm_w_object(&w);
            mcpwasm__opt(&w, "taskSupport", t[i].task);
            if (t[i].task_input_first) { mcpwasm_w_key(&w, "inputFirst"); mcpwasm_w_bool(&w, true); }
            mcpwasm_w_object_end(&w);
        }
        mcpwasm_w_object_end(&w);
    }
    return mcpwasm__list_end(&w);
}
int32_t mcpwasm_run_call_tool(const mcpwasm_tool *t, size_t n) {
    mcpwasm_json req, ctx;
    char *name = mcpwasm__named_request("call_tool", "tool", &req, &ctx);
    if (!name) return 1;
    mcpwasm_result *r = NULL;
    size_t i = 0;
    while (i < n && strcmp(t[i].name, name) != 0) i++;
    if (i == n) r = mcpwasm_errorf("unknown tool: %s", name);
    else {
        mcpwasm_call c = {name, mcpwasm_json_get(req, "arguments"), mcpwasm_json_get(req, "_meta"), ctx};
        r = t[i].handler(&c);
        if (!r) r = mcpwasm_errorf("tool %s returned no result", name);
    }
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_array_end(&r->content);
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "content"); mcpwasm_w_raw(&w, r->content.buf, r->content.len);
    if (r->structured) { mcpwasm_w_key(&w, "structuredContent"); mcpwasm__raw_text(&w, r->structured); }
    if (r->is_error) { mcpwasm_w_key(&w, "isError"); mcpwasm_w_bool(&w, true); }
    mcpwasm_w_object_end(&w);
    return mcpwasm__output(&w);
}

/* ---- resources */
struct mcpwasm_contents { mcpwasm_writer items; char *error; };
static mcpwasm_contents *mcpwasm__contents(void) {
    mcpwasm_contents *c = (mcpwasm_contents *)mcpwasm__alloc_mem(sizeof *c);
    memset(c, 0, sizeof *c);
    mcpwasm_w_array(&c->items);
    return c;
}
static mcpwasm_contents *mcpwasm__add_item(mcpwasm_contents *c, const char *uri, const char *mime, const char *text,
                                           const void *bytes, size_t n) {
    mcpwasm_w_object(&c->items);
    mcpwasm_w_key(&c->items, "uri"); mcpwasm_w_string(&c->items, uri ? uri : "");
    mcpwasm__opt(&c->items, "mimeType", mime);
    if (text) { mcpwasm_w_key(&c->items, "text"); mcpwasm_w_string(&c->items, text); }
    else { mcpwasm_w_key(&c->items, "blob"); mcpwasm_w_base64(&c->items, bytes, n); }
    mcpwasm_w_object_end(&c->items);
    return c;
}
mcpwasm_contents *mcpwasm_add_read_text(mcpwasm_contents *c, const char *uri, const char *mime_type, const char *text) {
    return mcpwasm__add_item(c, uri, mime_type, text ? text : "", NULL, 0);
}
mcpwasm_contents *mcpwasm_add_read_blob(mcpwasm_contents *c, const char *uri, const char *mime_type, const void *bytes, size_t n) {
    return mcpwasm__add_item(c, uri, mime_type, NULL, bytes, n);
}
mcpwasm_contents *mcpwasm_read_text(const char *uri, const char *mime_type, const char *text) {
    return mcpwasm_add_read_text(mcpwasm__contents(), uri, mime_type, text);
}
mcpwasm_contents *mcpwasm_read_blob(const char *uri, const char *mime_type, const void *bytes, size_t n) {
    return mcpwasm_add_read_blob(mcpwasm__contents(), uri, mime_type, bytes, n);
}
mcpwasm_contents *mcpwasm_read_error(const char *fmt, ...) {
    mcpwasm_contents *c = mcpwasm__contents();
    va_list ap;
    va_start(ap, fmt);
    c->error = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return c;
}
static bool mcpwasm__has_scheme(const char *u) {
    size_t i = 0;
    if (!((u[0] >= 'a' && u[0] <= 'z') || (u[0] >= 'A' && u[0] <= 'Z'))) return false;
    while (u[i] && (mcpwasm__varchar(u[i]) || u[i] == '+' || u[i] == '-') && u[i] != '_' && u[i] != '%') i++;
    return u[i] == ':';
}
int32_t mcpwasm_run_list_resources(const mcpwasm_resource *r, size_t n, bool templates) {
    const char *what = templates ? "resource template" : "resource";
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm__list_begin(&w, templates ? "resourceTemplates" : "resources");
    for (size_t i = 0; i < n; i++) {
        const char *u = r[i].uri ? r[i].uri : "";
        if (!mcpwasm__has_scheme(u) || (templates && !mcpwasm_template_valid(u)) || (!templates && strchr(u, '{')))
            return mcpwasm__failf("%s %zu \"%s\": not a %s", what, i, u, templates ? "valid URI template with a scheme" : "URI with a scheme");
        if (!r[i].name || !*r[i].name) return mcpwasm__failf("%s \"%s\" has no name", what, u);
        if (!r[i].handler) return mcpwasm__failf("%s \"%s\" has no handler", what, u);
        for (size_t j = 0; j < i; j++)
            if (strcmp(r[j].uri, u) == 0) return mcpwasm__failf("%s \"%s\" is declared twice", what, u);
        mcpwasm_w_object(&w);
        mcpwasm__opt(&w, templates ? "uriTemplate" : "uri", u);
        mcpwasm__opt(&w, "name", r[i].name);
        mcpwasm__opt(&w, "title", r[i].title);
        mcpwasm__opt(&w, "description", r[i].description);
        mcpwasm__opt(&w, "mimeType", r[i].mime_type);
        mcpwasm_w_object_end(&w);
    }
    return mcpwasm__list_end(&w);
}
static bool mcpwasm__skill_path_ok(const char *p) {
    if (!p || !*p || *p == '/' || strchr(p, '\\')) return false;
    for (const char *seg = p;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);
        if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.')) return false;
        if (!end) return true;
        seg = end + 1;
    }
}
static bool mcpwasm__utf8(const unsigned char *b, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = b[i];
        size_t k;
        if (c < 0x80) k = 0;
        else if (c >= 0xC2 && c <= 0xDF) k = 1;
        else if (c >= 0xE0 && c <= 0xEF) k = 2;
        else if (c >= 0xF0 && c <= 0xF4) k = 3;
        else return false;
        if (n - i - 1 < k) return false;
        for (size_t j = 1; j <= k; j++)
            if ((b[i + j] & 0xC0) != 0x80) return false;
        /* The second byte's range also refuses overlong forms (E0 80..9F,
         * F0 80..8F), UTF-16 surrogates (ED A0..BF) and code points past
         * U+10FFFF (F4 90..BF), as RFC 3629 section 4 does. */
        if (k > 1) {
            unsigned c2 = b[i + 1];
            if ((c == 0xE0 && c2 < 0xA0) || (c == 0xED && c2 > 0x9F) ||
                (c == 0xF0 && c2 < 0x90) || (c == 0xF4 && c2 > 0x8F)) return false;
        }
        i += k + 1;
    }
    return true;
}
int32_t mcpwasm_run_list_skills(const mcpwasm_skill *s, size_t n) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm__list_begin(&w, "skills");
    for (size_t i = 0; i < n; i++) {
        if (!mcpwasm__skill_path_ok(s[i].path)) return mcpwasm__failf("skill \"%s\": not a valid skill path", s[i].path ? s[i].path : "");
        for (size_t j = 0; j < i; j++)
            if (strcmp(s[j].path, s[i].path) == 0) return mcpwasm__failf("skill \"%s\" is declared twice", s[i].path);
        bool has_md = false;
        mcpwasm_w_object(&w);
        mcpwasm__opt(&w, "path", s[i].path);
        mcpwasm_w_key(&w, "files");
        mcpwasm_w_array(&w);
        for (size_t f = 0; f < s[i].nfiles; f++) {
            const mcpwasm_skill_file *fl = &s[i].files[f];
            if (!mcpwasm__skill_path_ok(fl->path)) return mcpwasm__failf("skill %s: file \"%s\": not a valid path inside a skill", s[i].path, fl->path ? fl->path : "");
            for (size_t g = 0; g < f; g++)
                if (strcmp(s[i].files[g].path, fl->path) == 0) return mcpwasm__failf("skill %s: file %s is declared twice", s[i].path, fl->path);
            has_md = has_md || strcmp(fl->path, "SKILL.md") == 0;
            mcpwasm_w_object(&w);
            mcpwasm__opt(&w, "path", fl->path);
            if (mcpwasm__utf8((const unsigned char *)fl->data, fl->len)) {
                mcpwasm_w_key(&w, "text");
                mcpwasm_w_stringn(&w, (const char *)fl->data, fl->len);
            } else {
                mcpwasm_w_key(&w, "blob");
                mcpwasm_w_base64(&w, fl->data, fl->len);
            }
            mcpwasm__opt(&w, "mimeType", fl->mime_type);
            mcpwasm_w_object_end(&w);
        }
        if (!has_md) return mcpwasm__failf("skill %s has no SKILL.md", s[i].path);
        mcpwasm_w_array_end(&w);
        mcpwasm_w_object_end(&w);
    }
    return mcpwasm__list_end(&w);
}
int32_t mcpwasm_run_read_resource(const mcpwasm_resource *r, size_t nr, const mcpwasm_resource *t, size_t nt) {
    mcpwasm_json req, ctx;
    if (mcpwasm__envelope("read_resource", &req, &ctx)) return 1;
    char *uri = mcpwasm_json_get_string(req, "uri");
    if (!uri) return mcpwasm__fail("read_resource: the request has no uri");
    mcpwasm_read rd;
    memset(&rd, 0, sizeof rd);
    rd.uri = uri;
    rd.context = ctx;
    const mcpwasm_resource *hit = NULL;
    for (size_t i = 0; i < nr && !hit; i++)
        if (strcmp(r[i].uri, uri) == 0) hit = &r[i];
    for (size_t i = 0; i < nt && !hit; i++)
        if (mcpwasm_template_match(t[i].uri, uri, &rd.vars)) hit = &t[i];
    if (!hit) return mcpwasm__failf("resource not found: %s", uri);
    mcpwasm_contents *c = hit->handler(&rd);
    if (!c) return mcpwasm__failf("reading %s: the handler returned no contents", uri);
    if (c->error) return mcpwasm__fail(c->error);
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_array_end(&c->items);
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "contents"); mcpwasm_w_raw(&w, c->items.buf, c->items.len);
    mcpwasm_w_object_end(&w);
    return mcpwasm__output(&w);
}

/* ---- prompts */
struct mcpwasm_messages { mcpwasm_writer items; char *description, *error; };
mcpwasm_messages *mcpwasm_messages_new(void) {
    mcpwasm_messages *m = (mcpwasm_messages *)mcpwasm__alloc_mem(sizeof *m);
    memset(m, 0, sizeof *m);
    mcpwasm_w_array(&m->items);
    return m;
}
/* Appends {"role": role, "content": <block>}: the caller's JSON text
 * (block_json, already checked) or, when it is NULL, a text block of text. */
static mcpwasm_messages *mcpwasm__add_message(mcpwasm_messages *m, const char *role, const char *block_json, const char *text) {
    mcpwasm_w_object(&m->items);
    mcpwasm_w_key(&m->items, "role"); mcpwasm_w_string(&m->items, role ? role : "user");
    mcpwasm_w_key(&m->items, "content");
    if (block_json) mcpwasm__raw_text(&m->items, block_json);
    else mcpwasm__text_block(&m->items, text);
    mcpwasm_w_object_end(&m->items);
    return m;
}
mcpwasm_messages *mcpwasm_add_message_content(mcpwasm_messages *m, const char *role, const char *block_json) {
    if (!mcpwasm__object_text(block_json, false)) return mcpwasm__add_message(m, role, NULL, "(invalid content block)");
    return mcpwasm__add_message(m, role, block_json, NULL);
}
mcpwasm_messages *mcpwasm_add_message(mcpwasm_messages *m, const char *role, const char *text) {
    return mcpwasm__add_message(m, role, NULL, text);
}
mcpwasm_messages *mcpwasm_prompt_user(const char *text) { return mcpwasm_add_message(mcpwasm_messages_new(), "user", text); }
mcpwasm_messages *mcpwasm_messages_describe(mcpwasm_messages *m, const char *description) {
    m->description = description ? mcpwasm__strndup(description, strlen(description)) : NULL;
    return m;
}
mcpwasm_messages *mcpwasm_prompt_error(const char *fmt, ...) {
    mcpwasm_messages *m = mcpwasm_messages_new();
    va_list ap;
    va_start(ap, fmt);
    m->error = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return m;
}
const char *mcpwasm_prompt_get_arg(const mcpwasm_prompt_req *r, const char *name) {
    char *s = mcpwasm_json_get_string(r->arguments, name);
    return s && *s ? s : NULL;
}
int32_t mcpwasm_run_list_prompts(const mcpwasm_prompt *p, size_t n) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm__list_begin(&w, "prompts");
    for (size_t i = 0; i < n; i++) {
        const char *nm = p[i].name ? p[i].name : "";
        if (!mcpwasm__valid_name(nm)) return mcpwasm__failf("prompt %zu \"%s\": the name must be 1-64 of [A-Za-z0-9_-]", i, nm);
        if (!p[i].handler) return mcpwasm__failf("prompt \"%s\" has no handler", nm);
        for (size_t j = 0; j < i; j++)
            if (strcmp(p[j].name, nm) == 0) return mcpwasm__failf("prompt \"%s\" is declared twice", nm);
        mcpwasm_w_object(&w);
        mcpwasm__opt(&w, "name", nm);
        mcpwasm__opt(&w, "title", p[i].title);
        mcpwasm__opt(&w, "description", p[i].description);
        mcpwasm_w_key(&w, "arguments");
        mcpwasm_w_array(&w);
        for (const mcpwasm_prompt_arg *a = p[i].args; a && a->name; a++) {
            if (!*a->name) return mcpwasm__failf("prompt \"%s\" has an argument without a name", nm);
            mcpwasm_w_object(&w);
            mcpwasm__opt(&w, "name", a->name);
            mcpwasm__opt(&w, "description", a->description);
            mcpwasm_w_key(&w, "required"); mcpwasm_w_bool(&w, a->required);
            mcpwasm_w_object_end(&w);
        }
        mcpwasm_w_array_end(&w);
        mcpwasm_w_object_end(&w);
    }
    return mcpwasm__list_end(&w);
}
int32_t mcpwasm_run_get_prompt(const mcpwasm_prompt *p, size_t n) {
    mcpwasm_json req, ctx;
    char *name = mcpwasm__named_request("get_prompt", "prompt", &req, &ctx);
    if (!name) return 1;
    size_t i = 0;
    while (i < n && strcmp(p[i].name, name) != 0) i++;
    if (i == n) return mcpwasm__failf("prompt not found: %s", name);
    mcpwasm_prompt_req r = {name, mcpwasm_json_get(req, "arguments"), ctx};
    for (const mcpwasm_prompt_arg *a = p[i].args; a && a->name; a++)
        if (a->required && !mcpwasm_prompt_get_arg(&r, a->name)) return mcpwasm__failf("prompt %s: %s is required", name, a->name);
    mcpwasm_messages *m = p[i].handler(&r);
    if (!m) return mcpwasm__failf("prompt %s: the handler returned no messages", name);
    if (m->error) return mcpwasm__fail(m->error);
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_array_end(&m->items);
    mcpwasm_w_object(&w);
    mcpwasm__opt(&w, "description", m->description);
    mcpwasm_w_key(&w, "messages"); mcpwasm_w_raw(&w, m->items.buf, m->items.len);
    mcpwasm_w_object_end(&w);
    return mcpwasm__output(&w);
}

/* ---- completion */
struct mcpwasm_completion { mcpwasm_writer values; size_t count; char *error; };
mcpwasm_completion *mcpwasm_completion_new(void) {
    mcpwasm_completion *c = (mcpwasm_completion *)mcpwasm__alloc_mem(sizeof *c);
    memset(c, 0, sizeof *c);
    mcpwasm_w_array(&c->values);
    return c;
}
mcpwasm_completion *mcpwasm_completion_add(mcpwasm_completion *c, const char *value) {
    if (c->count++ < 100) mcpwasm_w_string(&c->values, value ? value : "");
    return c;
}
mcpwasm_completion *mcpwasm_completion_matching(const char *prefix, const char *const *candidates) {
    mcpwasm_completion *c = mcpwasm_completion_new();
    size_t pl = prefix ? strlen(prefix) : 0;
    for (; candidates && *candidates; candidates++)
        if (strncmp(*candidates, prefix ? prefix : "", pl) == 0) mcpwasm_completion_add(c, *candidates);
    return c;
}
mcpwasm_completion *mcpwasm_completion_error(const char *fmt, ...) {
    mcpwasm_completion *c = mcpwasm_completion_new();
    va_list ap;
    va_start(ap, fmt);
    c->error = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return c;
}
const char *mcpwasm_complete_resolved(const mcpwasm_complete_req *r, const char *name) {
    return mcpwasm_json_get_string(r->resolved, name);
}
int32_t mcpwasm_run_complete(const mcpwasm_completer *cs, size_t n) {
    mcpwasm_json req, ctx;
    if (mcpwasm__envelope("complete", &req, &ctx)) return 1;
    mcpwasm_json ref = mcpwasm_json_get(req, "ref"), arg = mcpwasm_json_get(req, "argument");
    char *type = mcpwasm_json_get_string(ref, "type");
    mcpwasm_complete_req r;
    memset(&r, 0, sizeof r);
    r.ref_type = type && strcmp(type, "ref/resource") == 0 ? MCPWASM_REF_RESOURCE : MCPWASM_REF_PROMPT;
    r.ref = mcpwasm_json_get_string(ref, r.ref_type == MCPWASM_REF_RESOURCE ? "uri" : "name");
    r.argument = mcpwasm_json_get_string(arg, "name");
    r.value = mcpwasm_json_get_string(arg, "value");
    if (!r.value) r.value = "";
    r.resolved = mcpwasm_json_get(mcpwasm_json_get(req, "context"), "arguments");
    r.context = ctx;
    mcpwasm_completion *c = NULL;
    bool known = type && (strcmp(type, "ref/prompt") == 0 || strcmp(type, "ref/resource") == 0);
    for (size_t i = 0; known && r.ref && r.argument && i < n && !c; i++)
        if (cs[i].ref_type == r.ref_type && cs[i].ref && cs[i].argument && cs[i].handler &&
            strcmp(cs[i].ref, r.ref) == 0 && strcmp(cs[i].argument, r.argument) == 0) {
            c = cs[i].handler(&r);
            if (!c) return mcpwasm__failf("complete %s %s: the completer returned nothing", r.ref, r.argument);
        }
    if (!c) c = mcpwasm_completion_new();
    if (c->error) return mcpwasm__fail(c->error);
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_array_end(&c->values);
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "completion");
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "values"); mcpwasm_w_raw(&w, c->values.buf, c->values.len);
    if (c->count > 100) {
        mcpwasm_w_key(&w, "total"); mcpwasm_w_int(&w, (int64_t)c->count);
        mcpwasm_w_key(&w, "hasMore"); mcpwasm_w_bool(&w, true);
    }
    mcpwasm_w_object_end(&w);
    mcpwasm_w_object_end(&w);
    return mcpwasm__output(&w);
}

/* ---- host functions */
static uint64_t mcpwasm__handle(mcpwasm_writer *w) { return mcpwasm__store(mcpwasm_w_text(w), w->len); }
void mcpwasm_progress(double progress, double total, const char *message) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "progress"); mcpwasm_w_number(&w, progress);
    if (total >= 0) { mcpwasm_w_key(&w, "total"); mcpwasm_w_number(&w, total); }
    if (message) { mcpwasm_w_key(&w, "message"); mcpwasm_w_string(&w, message); }
    mcpwasm_w_object_end(&w);
    mcpwasm__h_notify_progress(mcpwasm__handle(&w));
}
/* Sends a log message whose data is the checked JSON value *data, or (when
 * data is NULL) the string text. */
static void mcpwasm__log(const char *level, const char *logger, const mcpwasm_json *data, const char *text) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "level"); mcpwasm_w_string(&w, level ? level : "info");
    mcpwasm__opt(&w, "logger", logger);
    mcpwasm_w_key(&w, "data");
    if (data) mcpwasm_w_raw(&w, data->p, data->n);
    else mcpwasm_w_string(&w, text ? text : "");
    mcpwasm_w_object_end(&w);
    mcpwasm__h_notify_logging_message(mcpwasm__handle(&w));
}
void mcpwasm_log(const char *level, const char *logger, const char *data_json) {
    mcpwasm_json d;
    bool json = data_json && mcpwasm_json_parse(data_json, strlen(data_json), &d);
    mcpwasm__log(level, logger, json ? &d : NULL, data_json);
}
void mcpwasm_logf(const char *level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    mcpwasm__log(level, NULL, NULL, s);
}
const char *mcpwasm_config(const char *key) {
    uint64_t h = mcpwasm__config_get(mcpwasm__store_str(key));
    size_t n;
    return h ? mcpwasm__load_block(h, &n) : NULL;
}
/* Interprets a request function's answer: a result object or {"error":{"message"}}. */
static bool mcpwasm__answer(uint64_t h, mcpwasm_json *result, const char **error) {
    size_t n;
    char *t = mcpwasm__load_block(h, &n);
    mcpwasm_json doc, none = {0};
    *result = none;
    *error = NULL;
    if (!mcpwasm_json_parse(t, n, &doc) || mcpwasm_json_kind(doc) != MCPWASM_JSON_OBJECT) {
        *error = "the host answered with malformed JSON";
        return false;
    }
    mcpwasm_json e = mcpwasm_json_get(doc, "error");
    if (mcpwasm_json_kind(e) != MCPWASM_JSON_NONE) {
        char *m = mcpwasm_json_get_string(e, "message");
        *error = m ? m : mcpwasm_json_dup(e);
        return false;
    }
    *result = doc;
    return true;
}
static bool mcpwasm__params_ok(const char *params_json, mcpwasm_json *result, const char **error) {
    mcpwasm_json none = {0};
    if (mcpwasm__object_text(params_json, false)) return true;
    *result = none;
    *error = "the request parameters are not a JSON object";
    return false;
}
bool mcpwasm_create_message(const char *params_json, mcpwasm_json *result, const char **error) {
    if (!mcpwasm__params_ok(params_json, result, error)) return false;
    return mcpwasm__answer(mcpwasm__h_create_message(mcpwasm__store_str(params_json)), result, error);
}
bool mcpwasm_sample(const char *text, int max_tokens, mcpwasm_json *result, const char **error) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "messages");
    mcpwasm_w_array(&w);
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "role"); mcpwasm_w_string(&w, "user");
    mcpwasm_w_key(&w, "content"); mcpwasm__text_block(&w, text);
    mcpwasm_w_object_end(&w);
    mcpwasm_w_array_end(&w);
    mcpwasm_w_key(&w, "maxTokens"); mcpwasm_w_int(&w, max_tokens);
    mcpwasm_w_object_end(&w);
    /* the SDK wrote these params: no re-parse as mcpwasm_create_message does */
    return mcpwasm__answer(mcpwasm__h_create_message(mcpwasm__handle(&w)), result, error);
}
bool mcpwasm_create_elicitation(const char *params_json, mcpwasm_json *result, const char **error) {
    if (!mcpwasm__params_ok(params_json, result, error)) return false;
    return mcpwasm__answer(mcpwasm__h_create_elicitation(mcpwasm__store_str(params_json)), result, error);
}
bool mcpwasm_elicit(const char *message, const char *schema_json, mcpwasm_json *result, const char **error) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    if (!mcpwasm__params_ok(schema_json, result, error)) return false;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, "message"); mcpwasm_w_string(&w, message ? message : "");
    mcpwasm_w_key(&w, "requestedSchema"); mcpwasm__raw_text(&w, schema_json);
    mcpwasm_w_object_end(&w);
    /* schema_json was checked above and the rest is the SDK's own: no re-parse */
    return mcpwasm__answer(mcpwasm__h_create_elicitation(mcpwasm__handle(&w)), result, error);
}
bool mcpwasm_list_roots(mcpwasm_json *result, const char **error) {
    return mcpwasm__answer(mcpwasm__h_list_roots(), result, error);
}
static uint64_t mcpwasm__one(const char *key, const char *value) {
    mcpwasm_writer w = MCPWASM_WRITER_INIT;
    mcpwasm_w_object(&w);
    mcpwasm_w_key(&w, key); mcpwasm_w_string(&w, value ? value : "");
    mcpwasm_w_object_end(&w);
    return mcpwasm__handle(&w);
}
void mcpwasm_notify_resource_updated(const char *uri) { mcpwasm__h_notify_resource_updated(mcpwasm__one("uri", uri)); }
void mcpwasm_notify_tool_list_changed(void) { mcpwasm__h_notify_tool_list_changed(); }
void mcpwasm_notify_resource_list_changed(void) { mcpwasm__h_notify_resource_list_changed(); }
void mcpwasm_notify_prompt_list_changed(void) { mcpwasm__h_notify_prompt_list_changed(); }
void mcpwasm_notify_url_elicitation_completed(const char *id) {
    mcpwasm__h_notify_url_elicitation_completed(mcpwasm__one("elicitationId", id));
}
char *mcpwasm_format(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    return s;
}
_Noreturn void mcpwasm_panic(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *m = mcpwasm__vformat(fmt, ap);
    va_end(ap);
    mcpwasm__set_error(m);
#if !defined(__wasm__)
    fprintf(stderr, "mcpwasm_panic: %s\n", m);
    abort();
#else
    __builtin_trap();
#endif
}

#endif /* MCPWASM_IMPLEMENTATION */
