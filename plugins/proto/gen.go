package proto

// The generated files are committed; builds never run protoc. To regenerate
// after editing assay.proto, install protoc, protoc-gen-go v1.36.12 and
// protoc-gen-go-grpc v1.6.2 and run `go generate ./plugins/proto`.
//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative assay.proto
