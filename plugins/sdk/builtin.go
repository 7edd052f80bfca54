package sdk

// BuiltinArg is the hidden first argument with which the host starts an
// executable that carries Assay's built-in plugins (the assay binary, or a
// test binary) as one of them: EXE BuiltinArg NAME. It is not a command a
// person types; go-plugin's handshake cookie must be set as well.
const BuiltinArg = "__assay-builtin-plugin"

// BuiltinRequested reports which built-in plugin args (os.Args) ask this
// process to serve, if any.
func BuiltinRequested(args []string) (name string, ok bool) {
	if len(args) == 3 && args[1] == BuiltinArg {
		return args[2], true
	}
	return "", false
}
