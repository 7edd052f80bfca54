package proto

// The generated files are committed; builds never run protoc. To regenerate
// after editing assay.proto, install protoc, protoc-gen-go v1.36.12 and
// protoc-gen-go-grpc v1.6.2 and run `go generate ./plugins/proto`.
//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative assay.proto

// The generator's stock comment links a documentation host; Assay's files
// name no package host, so the line is dropped.
//go:generate sed -i "/please refer to https:/d" assay_grpc.pb.go
//go:generate gofmt -w assay_grpc.pb.go
