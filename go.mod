module github.com/floeid/floe

go 1.26
