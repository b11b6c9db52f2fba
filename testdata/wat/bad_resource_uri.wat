;; bad_resource_uri: declares one concrete resource whose URI url.Parse
;; rejects ("res://x/%zz", an invalid escape); read_resource answers the
;; text "never". go-sdk's AddResource panics on it. The host must refuse the
;; plugin at load, naming it and the URI, and keep serving the others.
;; ---
  (data (i32.const 0) "{\"resources\":[{\"uri\":\"res://x/%zz\",\"name\":\"bad\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"res://x/%zz\",\"mimeType\":\"text/plain\",\"text\":\"never\"}]}\00")
  (export "list_resources" (func $list))
  (export "read_resource" (func $ok))
