module github.com/mcpwasm/mcpwasm/testdata/pdk-go

go 1.24

require github.com/extism/go-pdk v1.1.3
