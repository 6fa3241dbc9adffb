module dialectoracle

go 1.19
