module mcpwasm.test/fsprobe

go 1.24
