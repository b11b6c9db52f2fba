module github.com/mcpwasm/mcpwasm/sdk-guest/go

go 1.24
