;; declares: its tool list is its [plugin.config] value "tools", verbatim
;; (default: no tools), and every call answers its config value "result",
;; verbatim (default: the text "ok"). A test decides what the plugin
;; declares and answers from the config alone: a changed or new
;; declaration (host/trust holds), hidden text, a secret in a result.
  (import "extism:host/env" "config_get" (func $config_get (param i64) (result i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
;; ---
  (data (i32.const 0) "{\"tools\":[]}\00")
  (data (i32.const 1024) "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}\00")
  (data (i32.const 2048) "tools\00")
  (data (i32.const 2064) "result\00")
  ;; answer outputs the config value named at $key, or the string at $dflt.
  (func $answer (param $key i32) (param $dflt i32) (result i32)
    (local $v i64)
    (local.set $v (call $config_get (call $kstr (local.get $key))))
    (if (i64.eqz (local.get $v))
      (then (call $out_cstr (local.get $dflt)))
      (else (call $output_set (local.get $v) (call $length (local.get $v)))))
    (i32.const 0))
  (func $list_tools (result i32) (call $answer (i32.const 2048) (i32.const 0)))
  (func $call_tool (result i32) (call $answer (i32.const 2064) (i32.const 1024)))
  (export "list_tools" (func $list_tools))
  (export "call_tool" (func $call_tool))
