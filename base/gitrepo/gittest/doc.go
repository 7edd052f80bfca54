// Package gittest holds test helpers for code that runs git: Logged puts
// a git on PATH that logs each process it starts, so a test can count
// and read them.
package gittest
