module github.com/dynapi/dynapi/test/operators

go 1.26.8
