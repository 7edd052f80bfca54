// Package version names this build of Assay: its release, which lock files
// record, and the revision it was built from. It is a leaf (base/): the
// standard library only, so the plugin host and the command line can both
// import it.
package version
