// Package rehearse executes a compiled plan end to end in a simulated
// world (package plugins/sim) on a virtual clock: no sleeping, no GPU, no
// network, but the runtime's own code paths (budget reservations,
// calibration rounds, critic routing, caps, resume, the SQLite journal).
// It repeats the rehearsal with different world seeds and sets each figure
// the runs measured (least, median, most) beside the estimate's low,
// expected and high, so a figure outside [low, high], or a cap exceeded,
// shows a bug in the runtime or the estimate.
//
// A world file (HCL, see docs/rehearse.md) sets the distributions; by
// default the world keeps to the assumptions the plan states.
//
// It sits beside the command line: it reads the estimate (package
// compiler/estimate) and runs the runtime, which the runtime itself may
// not import.
package rehearse
