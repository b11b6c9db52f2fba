;; templates_only: a plugin whose only entry points are
;; list_resource_templates (one template, tpl://notes/{id}) and read_resource
;; (always the text "note"). No tools, no concrete resources, no prompts.
;; The host must load it and serve the template.
;; ---
  (data (i32.const 0) "{\"resourceTemplates\":[{\"uriTemplate\":\"tpl://notes/{id}\",\"name\":\"note\",\"mimeType\":\"text/plain\"}]}\00")
  (data (i32.const 1024) "{\"contents\":[{\"uri\":\"tpl://notes/1\",\"mimeType\":\"text/plain\",\"text\":\"note\"}]}\00")
  (export "list_resource_templates" (func $list))
  (export "read_resource" (func $ok))
