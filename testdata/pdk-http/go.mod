module github.com/mcpwasm/mcpwasm/testdata/pdk-http

go 1.24

require github.com/extism/go-pdk v1.1.3
