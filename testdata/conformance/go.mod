module mcpwasm.test/conformance

go 1.24
