// Package compare sets runs side by side: for each run, what it ran (plan,
// variant, the fields a sweep axis or --set overrode, the plan hash) and
// what it measured (real runs, dollars, best real gain, Avg@k and Best@k,
// the world model's calibration error, the critic's routed share). It reads
// journals read-only, as status does, so it works while runs go on. The
// compare and status commands render the rows.
package compare
