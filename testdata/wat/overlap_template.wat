;; overlap_template: one template, test://{host}/1/data, that the host's
;; load-time overlap check (each template's example tried on the other)
;; does not find overlapping the conformance fixture's
;; test://template/{id}/data, though test://template/1/data matches both.
;; Its read_resource answers the text "overlap". The host must route such a
;; URI to one plugin, the same one every time, and check that plugin's scope.
;; ---
  (data (i32.const 0) "{\"resourceTemplates\":[{\"uriTemplate\":\"test://{host}/1/data\",\"name\":\"overlap\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"test://template/1/data\",\"mimeType\":\"text/plain\",\"text\":\"overlap\"}]}\00")
  (export "list_resource_templates" (func $list))
  (export "read_resource" (func $ok))
