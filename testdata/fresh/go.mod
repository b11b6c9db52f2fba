module github.com/mcpwasm/mcpwasm/testdata/fresh

go 1.24

require github.com/mcpwasm/mcpwasm/sdk-guest/go v0.0.0

replace github.com/mcpwasm/mcpwasm/sdk-guest/go => ../../sdk-guest/go
