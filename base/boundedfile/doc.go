// Package boundedfile reads a file that a user names (a spec, a manifest,
// a lock file) within a size limit: it refuses what is not a regular file
// before opening it, and reads at most one byte past the limit, so
// /dev/zero, a named pipe or a huge file is refused at once instead of
// being read whole or waited on. It is a leaf (base/): the front ends and
// the plugin host both read through it.
package boundedfile
