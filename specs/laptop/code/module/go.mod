// The module file examples/suite lacks outside Assay's module: the code
// twins (specs/laptop/code/common/preamble.hcl) lay it over the import.
module example.com/suite

go 1.22
