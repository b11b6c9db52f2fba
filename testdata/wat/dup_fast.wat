;; dup_fast: declares the concrete resource dup://shared at once;
;; read_resource answers the text "fast". See slow_dup.
;; ---
  (data (i32.const 0) "{\"resources\":[{\"uri\":\"dup://shared\",\"name\":\"shared\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"dup://shared\",\"mimeType\":\"text/plain\",\"text\":\"fast\"}]}\00")
  (export "list_resources" (func $list))
  (export "read_resource" (func $ok))
