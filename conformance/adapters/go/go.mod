module loomref/adapters/go

go 1.19
